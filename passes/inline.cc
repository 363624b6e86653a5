// Inline: replaces calls of module functions by their bodies — functions marked with the attr
// "inline" (True or 1, Relay's convention) at every call site, and private functions called
// exactly once. Why: small helpers and single-use private functions (as importers and LambdaLift
// produce) hide dataflow from fusion and constant folding; after inlining they see one graph.
// Each site gets a fresh copy of the callee (vars renamed apart; symbolic shape vars bound from
// the arguments' shapes), spliced before the calling binding, which becomes `y = <result>`.
// Inside a dataflow block the callee must be a pure, branch-free sequence (its vars become
// dataflow vars); elsewhere its blocks are spliced as they are. Skipped: recursive callees, calls
// whose argument shapes do not determine the callee's symbolic vars, calls from the callee itself.
// Private callees left without callers are removed. Runs to a fixed point (inlined bodies may call
// other inline functions).
// Before: `@R.function(private=True) def sq(x): return R.multiply(x, x)` and `y = cls.sq(a)`
// After:  `gv = R.multiply(a, a); y = gv` and no `sq`.
#include <map>
#include <set>
#include <unordered_map>

#include "ir/expr_mutator.h"
#include "ir/expr_walk.h"
#include "ir/op.h"
#include "ir/struct_info.h"
#include "passes/call_graph.h"
#include "passes/emitting_mutator.h"
#include "passes/inline.h"
#include "passes/registry.h"

namespace rlx {

namespace {

bool isPublic(const Function& f) { return f.attrs && f.attrs->find("global_symbol"); }

bool markedInline(const Function& f) {
  if (!f.attrs) return false;
  const Attr* a = f.attrs->find("inline");
  if (!a || !*a) return false;
  return ((*a)->kind == AttrValue::Bool && (*a)->b) || ((*a)->kind == AttrValue::Int && (*a)->i != 0);
}

// GlobalVar names referenced by `e`, with how many times each is referenced.
std::map<std::string, int> references(const Expr& e) {
  std::map<std::string, int> out;
  walkExpr(e, [&](const Expr& x) {
    if (auto g = x.as<GlobalVar>()) ++out[g->name];
  });
  return out;
}

// Copies a callee body with every bound var renamed apart and symbolic vars substituted.
class Copier : public ExprMutator {
 public:
  Copier(PrimVarMap prims, bool toDataflow) : prims_(std::move(prims)), toDataflow_(toDataflow) {}
  std::unordered_map<const Var*, Expr>& vars() { return varMap; }

 protected:
  StructInfo sub(const StructInfo& s) const { return s && !prims_.empty() ? sinfoSubstitute(s, prims_) : s; }

  Expr visitLeaf(const Expr& e) override {
    if (prims_.empty()) return e;
    if (auto s = e.as<ShapeExpr>()) {
      std::vector<PrimExpr> values;
      for (auto& v : s->values) values.push_back(primSubstitute(v, prims_));
      auto out = make<ShapeExpr>(values);
      out->sinfo = make<ShapeSInfo>(std::move(values), 0);
      return out;
    }
    if (auto p = e.as<PrimValue>()) {
      auto out = make<PrimValue>(primSubstitute(p->value, prims_));
      out->sinfo = sub(p->sinfo);
      return out;
    }
    return e;
  }

  Expr visitCall(const Ref<Call>& c) override {
    Expr out = ExprMutator::visitCall(c);
    if (prims_.empty()) return out;
    std::vector<StructInfo> sargs;
    for (auto& s : c->sinfoArgs) sargs.push_back(sub(s));
    auto call = out.as<Call>();
    auto copy = make<Call>(call->op, call->args, call->attrs, std::move(sargs));
    copy->sinfo = sub(c->sinfo);
    copy->span = c->span;
    return copy;
  }

  BindingRef visitBinding(const BindingRef& b) override {
    Expr value = mutate(b->value);
    bool dataflow = toDataflow_ || b->var->isDataflow();
    auto var = make<Var>(b->var->name, sub(b->var->sinfo), dataflow);
    var->span = b->var->span;
    varMap[b->var.get()] = var;
    auto nb = make<Binding>(var, value, sub(b->castSInfo));
    nb->span = b->span;
    return nb;
  }

 private:
  PrimVarMap prims_;
  bool toDataflow_;
};

// A callee fit for splicing into a dataflow block: only pure bindings, no branches.
bool dataflowSafe(const Function& f) {
  if (!f.isPure) return false;
  auto seq = f.body.as<SeqExpr>();
  if (!seq) return false;
  for (auto& block : seq->blocks)
    for (auto& b : block->bindings) {
      if (b->value->kind() == NodeKind::If || b->value->kind() == NodeKind::Function) return false;
      if (auto c = b->value.as<Call>())
        if (auto op = c->op.as<Op>(); op && !op->info->pure) return false;
    }
  return true;
}

class Inliner : public ExprMutator {
 public:
  Inliner(IRModuleRef mod, std::set<std::string> callees, std::string self) : mod_(std::move(mod)), callees_(std::move(callees)), self_(std::move(self)) {}
  bool changed = false;

 protected:
  Expr visitSeqExpr(const Ref<SeqExpr>& s) override {
    std::vector<BlockRef> blocks;
    bool any = false;
    for (auto& block : s->blocks) {
      std::vector<BindingRef> current;
      auto flush = [&](bool dataflow) {
        if (!current.empty()) appendBlock(blocks, make<BindingBlock>(std::move(current), dataflow));
        current.clear();
      };
      for (auto& b : block->bindings) {
        BindingRef nb = visitBinding(b);
        std::vector<BlockRef> spliced;
        Expr result;
        if (!tryInline(nb, block->isDataflow(), spliced, result)) {
          any |= !nb.same(b);
          current.push_back(nb);
          continue;
        }
        any = changed = true;
        if (block->isDataflow()) {  // a dataflow-safe callee: its bindings join this block
          for (auto& sb : spliced) current.insert(current.end(), sb->bindings.begin(), sb->bindings.end());
        } else {
          flush(false);
          for (auto& sb : spliced) appendBlock(blocks, sb);
        }
        auto alias = make<Binding>(nb->var, result);
        alias->span = nb->span;
        current.push_back(alias);
      }
      flush(block->isDataflow());
    }
    Expr body = mutate(s->body);
    if (!any && body.same(s->body)) return s;
    auto out = make<SeqExpr>(std::move(blocks), body);
    out->sinfo = s->sinfo;
    out->span = s->span;
    return out;
  }

 private:
  bool tryInline(const BindingRef& b, bool inDataflow, std::vector<BlockRef>& spliced, Expr& result) {
    if (b->isMatchCast()) return false;
    auto call = b->value.as<Call>();
    if (!call) return false;
    auto gv = call->op.as<GlobalVar>();
    if (!gv || gv->name == self_ || !callees_.count(gv->name)) return false;
    auto fn = mod_->lookup(gv->name).as<Function>();
    if (!fn || fn->params.size() != call->args.size()) return false;
    if (inDataflow && !dataflowSafe(*fn)) return false;
    // Symbolic vars of the signature, bound from the arguments' struct info.
    PrimVarMap prims;
    for (size_t i = 0; i < fn->params.size(); ++i)
      if (!sinfoMatch(fn->params[i]->sinfo, sinfoOf(call->args[i]), prims)) return false;
    std::vector<Ref<PrimVar>> needed;
    for (auto& p : fn->params) sinfoCollectVars(p->sinfo, needed);
    for (auto& v : needed)
      if (!prims.count(v.get())) return false;
    Copier copier(prims, inDataflow);
    for (size_t i = 0; i < fn->params.size(); ++i) copier.vars()[fn->params[i].get()] = call->args[i];
    Expr body = copier.mutate(fn->body);
    auto seq = body.as<SeqExpr>();
    if (!seq) return false;
    spliced = seq->blocks;
    result = seq->body;
    return true;
  }

  IRModuleRef mod_;
  std::set<std::string> callees_;
  std::string self_;
};

// Functions to inline this round: "inline"-marked ones, and private ones with one call site;
// never a function that (transitively) calls itself.
std::set<std::string> inlineCandidates(const IRModuleRef& mod) {
  std::map<std::string, int> refs;
  for (auto& e : mod->functions)
    for (auto& [name, n] : references(e.func)) refs[name] += n;
  std::set<std::string> out;
  for (auto& e : mod->functions) {
    auto fn = e.func.as<Function>();
    if (!fn) continue;
    if (!markedInline(*fn) && (isPublic(*fn) || refs[e.gvar->name] != 1)) continue;
    if (callsItself(mod, e.gvar->name)) continue;
    out.insert(e.gvar->name);
  }
  return out;
}

}  // namespace

bool callsItself(const IRModuleRef& mod, const std::string& name) {
  std::set<std::string> seen;
  std::vector<std::string> work;
  for (auto& [callee, n] : references(mod->lookup(name))) work.push_back(callee);
  while (!work.empty()) {
    std::string f = work.back();
    work.pop_back();
    if (f == name) return true;
    if (!seen.insert(f).second) continue;
    if (Expr body = mod->lookup(f))
      for (auto& [callee, n] : references(body)) work.push_back(callee);
  }
  return false;
}

IRModuleRef inlineCallsOnce(const IRModuleRef& mod, const std::set<std::string>& callees, std::set<std::string>& changed) {
  IRModuleRef out = mod;
  for (auto& e : mod->functions) {
    if (e.func->kind() != NodeKind::Function) continue;
    Inliner inliner(out, callees, e.gvar->name);
    Expr f = inliner.mutate(e.func);
    if (!inliner.changed) continue;
    out = withFunction(out, e.gvar, f);
    changed.insert(e.gvar->name);
  }
  return out;
}

Result<Pass> createInlinePass(PassOptions&) {
  return Pass({"Inline", 1, {}}, [](const IRModuleRef& mod, const PassContext&) -> Result<IRModuleRef> {
    IRModuleRef out = mod;
    std::set<std::string> inlinedAway;
    for (int round = 0; round < 16; ++round) {
      std::set<std::string> callees = inlineCandidates(out);
      std::set<std::string> changed;
      out = inlineCallsOnce(out, callees, changed);
      if (changed.empty()) break;
      inlinedAway.insert(callees.begin(), callees.end());
    }
    // Private functions that were inlined and have no callers left go.
    std::map<std::string, int> refs;
    for (auto& e : out->functions)
      for (auto& [name, n] : references(e.func)) refs[name] += n;
    std::set<std::string> keep;
    for (auto& e : out->functions) {
      auto fn = e.func.as<Function>();
      bool drop = fn && inlinedAway.count(e.gvar->name) && !isPublic(*fn) && refs[e.gvar->name] == 0;
      if (!drop) keep.insert(e.gvar->name);
    }
    return keepFunctions(out, keep);
  });
}

}  // namespace rlx
