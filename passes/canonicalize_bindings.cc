// CanonicalizeBindings: TVM's relax.transform.CanonicalizeBindings (the Relax-binding half).
// Why: other passes (and CSE) leave aliases behind — `y = x`, a match_cast to struct info the value
// already has, `t = (a, b); c = t[0]` — which hide the real dataflow from pattern-matching passes
// and cost a binding each. This pass makes every use refer to the original var and drops the alias.
// Preconditions: a normalized module. Semantics follow TVM v0.23, planned over the whole function
// before rewriting because the right direction of a rename depends on later uses:
//  - `y = x` (or a match_cast whose var struct info equals the value's, or `y = t[i]` where t is
//    known to be a tuple literal whose field i is a var) is removed and uses of y become x,
//    chasing chains of aliases;
//  - except when y is a Var used outside its dataflow block and x a DataflowVar: then x's own
//    binding is renamed to y (a DataflowVar must not escape its block) and `y = x` is removed;
//  - a Var defined in a dataflow block and used only inside that block becomes a DataflowVar;
//  - uses of a var bound to a constant use the constant;
//  - in a dataflow block, an output `gv = lv` whose lv is used nowhere else binds gv to lv's value.
// Before all that, TVM's first half (CanonicalizeTIRVariables): symbolic vars whose values a
// match_cast proves are substituted downstream, so such casts become trivial and go too.
// Rewritten bindings re-infer struct info, as TVM's mutator does.
// Before: `with R.dataflow(): lv = R.add(x, x); gv = lv; R.output(gv)`  then `return gv`
// After:  `with R.dataflow(): gv = R.add(x, x); R.output(gv)`           then `return gv`
#include <unordered_map>
#include <unordered_set>

#include "ir/arith.h"
#include "ir/block_builder.h"
#include "ir/expr_mutator.h"
#include "ir/expr_walk.h"
#include "ir/struct_info.h"
#include "ir/structural_equal.h"
#include "passes/registry.h"

namespace rlx {

namespace {

using VarSet = std::unordered_set<const Var*>;

// Every var mentioned in `e` (used or, for function literals, defined inside).
std::vector<VarRef> allVars(const Expr& e) {
  std::vector<VarRef> out;
  walkExpr(e, [&](const Expr& x) {
    if (auto v = x.as<Var>()) out.push_back(v);
    else if (auto f = x.as<Function>()) out.insert(out.end(), f->params.begin(), f->params.end());
    else if (auto s = x.as<SeqExpr>())
      for (auto& b : s->blocks)
        for (auto& bind : b->bindings) out.push_back(bind->var);
  });
  return out;
}

struct Plan {
  std::unordered_map<const Var*, VarRef> replaceUsage;
  std::unordered_map<const Var*, VarRef> replaceBinding;
  VarSet remove;
  std::unordered_map<const Var*, Expr> inlineConstant;
};

// Walks a function once, recording where each var is defined and used and which bindings are
// trivial, then decides the rewrite.
class Planner {
 public:
  Plan collect(const Expr& e) {
    visit(e);
    Plan plan;
    for (auto& v : definedInDataflow_) {
      if (v->isDataflow() || usedOutside_.count(v.get())) continue;
      auto nv = make<Var>(v->name, v->sinfo, true);
      nv->span = v->span;
      plan.replaceBinding[v.get()] = nv;
      plan.replaceUsage[v.get()] = nv;
    }
    for (auto& [v, c] : constants_) plan.inlineConstant[v] = c;
    for (auto& [boundVar, target] : trivial_) {
      VarRef to = target;
      for (auto it = trivialMap_.find(to.get()); it != trivialMap_.end(); it = trivialMap_.find(to.get())) to = it->second;
      for (auto it = plan.replaceBinding.find(to.get()); it != plan.replaceBinding.end(); it = plan.replaceBinding.find(to.get())) to = it->second;
      if (boundVar->isDataflow() || !to->isDataflow() || !usedOutside_.count(boundVar.get())) {
        plan.replaceUsage[boundVar.get()] = to;  // the alias goes, uses see the original
      } else {
        // The output var must survive its block: the dataflow var's binding takes its name.
        plan.replaceBinding[to.get()] = boundVar;
        plan.replaceUsage[to.get()] = boundVar;
      }
      plan.remove.insert(boundVar.get());
    }
    return plan;
  }

 private:
  bool insideDataflow() const { return block_ && block_->isDataflow(); }

  void visit(const Expr& e) {
    if (!e) return;
    switch (e->kind()) {
      case NodeKind::Var:
      case NodeKind::DataflowVar: {
        auto v = e.as<Var>();
        auto def = defBlock_.find(v.get());
        if (!insideDataflow() || (def != defBlock_.end() && block_ && block_ != def->second)) usedOutside_.insert(v.get());
        break;
      }
      case NodeKind::Call: {
        auto c = e.as<Call>();
        visit(c->op);
        for (auto& a : c->args) visit(a);
        break;
      }
      case NodeKind::Tuple:
        for (auto& f : e.as<Tuple>()->fields) visit(f);
        break;
      case NodeKind::TupleGetItem: visit(e.as<TupleGetItem>()->tuple); break;
      case NodeKind::If: {
        auto i = e.as<If>();
        visit(i->cond);
        visit(i->thenBranch);
        visit(i->elseBranch);
        break;
      }
      case NodeKind::SeqExpr: {
        // Nested sequences (if branches) start outside any block.
        const BindingBlock* saved = block_;
        block_ = nullptr;
        auto s = e.as<SeqExpr>();
        for (auto& b : s->blocks) {
          block_ = b.get();
          for (auto& bind : b->bindings) visitBinding(bind);
          block_ = nullptr;
        }
        visit(s->body);
        block_ = saved;
        break;
      }
      case NodeKind::Function: {
        // A closure's captured vars escape whatever block they were defined in.
        const BindingBlock* saved = block_;
        block_ = nullptr;
        for (auto& v : freeVars(e)) usedOutside_.insert(v.get());
        visit(e.as<Function>()->body);
        block_ = saved;
        break;
      }
      default: break;
    }
  }

  void visitBinding(const BindingRef& b) {
    bool sameSInfo = !b->isMatchCast() || structuralEqual(sinfoOf(b->var), sinfoOf(b->value)).equal;
    Expr value = b->value;
    if (auto tgi = value.as<TupleGetItem>()) {
      Expr tuple = tgi->tuple;
      while (auto tv = tuple.as<Var>()) {
        auto it = known_.find(tv.get());
        if (it == known_.end()) break;
        tuple = it->second;
      }
      if (auto t = tuple.as<Tuple>(); t && tgi->index >= 0 && size_t(tgi->index) < t->fields.size()) value = t->fields[tgi->index];
    }
    if (auto parent = value.as<Var>(); parent && sameSInfo) {
      if (!trivialMap_.count(b->var.get())) trivial_.push_back({b->var, parent});
      trivialMap_[b->var.get()] = parent;
    }
    if (value->kind() == NodeKind::Constant) constants_.push_back({b->var.get(), value});
    known_[b->var.get()] = value;
    defBlock_[b->var.get()] = block_;
    visit(b->value);
    if (insideDataflow() && seenDefs_.insert(b->var.get()).second) definedInDataflow_.push_back(b->var);
  }

  const BindingBlock* block_ = nullptr;
  std::unordered_map<const Var*, const BindingBlock*> defBlock_;
  std::vector<std::pair<VarRef, VarRef>> trivial_;  // in definition order (deterministic output)
  std::unordered_map<const Var*, VarRef> trivialMap_;
  std::unordered_map<const Var*, Expr> known_;
  std::vector<std::pair<const Var*, Expr>> constants_;
  std::vector<VarRef> definedInDataflow_;
  VarSet seenDefs_;
  VarSet usedOutside_;
};

// A rebuilt tuple's struct info follows its fields (the mutator copied the old one).
Expr refreshTupleSInfo(const Expr& out, const Expr& old) {
  if (out.same(old)) return out;
  std::vector<StructInfo> fields;
  for (auto& f : out.as<Tuple>()->fields) fields.push_back(sinfoOf(f));
  out->sinfo = make<TupleSInfo>(std::move(fields));
  return out;
}

// TVM's Function keeps the body's struct info as its return when that is more specific than the
// annotation, so a rewrite that refines the body (a better-known shape) refines the return too.
// `out` is the mutator's result for `f`; a fresh node may be updated in place.
Expr refineReturn(const Expr& out, const Ref<Function>& f) {
  if (out.same(f)) return out;
  auto nf = out.as<Function>();
  auto seq = nf->body.as<SeqExpr>();
  if (!seq || seq.same(f->body)) return out;
  seq->sinfo = sinfoOf(seq->body);
  StructInfo bodySInfo = eraseToSignature(seq->sinfo, nf->params);
  if (!nf->retSInfo || structuralEqual(nf->retSInfo, bodySInfo).equal || !sinfoIsBaseOf(nf->retSInfo, bodySInfo)) return out;
  nf->retSInfo = bodySInfo;
  if (auto fs = nf->sinfo.as<FuncSInfo>()) nf->sinfo = make<FuncSInfo>(fs->params, bodySInfo, fs->isPure);
  return out;
}

// First half of TVM's pass (CanonicalizeTIRVariables): a match_cast whose value's struct info
// already determines the cast's symbolic vars (x: R.Tensor((m, n)) cast to R.Tensor((o, p)) gives
// o = m, p = n) substitutes those values for the vars in everything that follows, within the
// function or if-branch. The cast then holds trivially and the second half removes it.
class SymbolicVarCanonicalizer : public ExprMutator {
 public:
  Status status = okStatus();

 protected:
  Expr visitFunction(const Ref<Function>& f) override {
    PrimVarMap saved = known_;
    auto savedDefined = defined_;
    for (auto& p : f->params) noteDefined(sinfoOf(p));
    Expr out = refineReturn(ExprMutator::visitFunction(f), f);
    known_ = std::move(saved);
    defined_ = std::move(savedDefined);
    return out;
  }

  Expr visitIf(const Ref<If>& i) override {
    Expr cond = mutate(i->cond);
    PrimVarMap saved = known_;
    Expr t = mutate(i->thenBranch);
    known_ = saved;
    Expr e = mutate(i->elseBranch);
    known_ = std::move(saved);
    if (cond.same(i->cond) && t.same(i->thenBranch) && e.same(i->elseBranch)) return i;
    auto ni = make<If>(cond, t, e);
    ni->sinfo = i->sinfo;
    ni->span = i->span;
    return ni;
  }

  Expr visitTuple(const Ref<Tuple>& t) override { return refreshTupleSInfo(ExprMutator::visitTuple(t), t); }

  Expr visitSeqExpr(const Ref<SeqExpr>& s) override {
    Expr out = ExprMutator::visitSeqExpr(s);
    if (!out.same(s)) out->sinfo = sinfoOf(out.as<SeqExpr>()->body);
    return out;
  }

  Expr visitCall(const Ref<Call>& c) override {
    Expr out = ExprMutator::visitCall(c);
    if (known_.empty() || c->sinfoArgs.empty()) return out;
    std::vector<StructInfo> args;
    bool changed = false;
    for (auto& a : c->sinfoArgs) {
      args.push_back(substitute(a));
      changed |= !args.back().same(a);
    }
    if (!changed) return out;
    auto call = out.as<Call>();
    auto nc = make<Call>(call->op, call->args, call->attrs, std::move(args));
    nc->sinfo = substitute(c->sinfo);
    nc->span = c->span;
    return nc;
  }

  Expr visitLeaf(const Expr& e) override {
    if (known_.empty()) return e;
    if (auto sh = e.as<ShapeExpr>()) {
      std::vector<PrimExpr> values;
      bool changed = false;
      for (auto& v : sh->values) {
        values.push_back(substitute(v));
        changed |= !values.back().same(v);
      }
      if (!changed) return e;
      auto ns = make<ShapeExpr>(std::move(values));
      ns->sinfo = make<ShapeSInfo>(ns->values, int(ns->values.size()));
      ns->span = e->span;
      return ns;
    }
    if (auto pv = e.as<PrimValue>()) {
      PrimExpr v = substitute(pv->value);
      if (v.same(pv->value)) return e;
      auto np = make<PrimValue>(v);
      np->sinfo = make<PrimSInfo>(v->dtype, v);
      np->span = e->span;
      return np;
    }
    return e;
  }

  BindingRef visitBinding(const BindingRef& b) override {
    if (b->isMatchCast()) learn(*b);
    if (b->isMatchCast()) noteDefined(b->castSInfo);
    Expr value = mutate(b->value);
    if (!value.same(b->value) && value->kind() == NodeKind::Call && !b->value.as<Call>()->sinfoArgs.size()) {
      // Arguments with better-known shapes give a better-known result.
      if (auto inferred = inferCallSInfo(*value.as<Call>())) value->sinfo = *inferred;
    }
    StructInfo cast = b->castSInfo ? substitute(b->castSInfo) : nullptr;
    VarRef var = b->var;
    StructInfo varSInfo = substitute(var->sinfo);
    if (!b->isMatchCast() && !value.same(b->value) && value->sinfo) varSInfo = value->sinfo;
    if (!varSInfo.same(var->sinfo) && !structuralEqual(varSInfo, var->sinfo).equal) {
      auto nv = make<Var>(var->name, varSInfo, var->isDataflow());
      nv->span = var->span;
      varMap[var.get()] = nv;
      var = nv;
    }
    if (var.same(b->var) && value.same(b->value) && cast.same(b->castSInfo)) return b;
    auto nb = make<Binding>(var, value, cast);
    nb->span = b->span;
    return nb;
  }

 private:
  // Records what the cast's symbolic vars must equal, given the value's struct info.
  void learn(const Binding& b) {
    PrimVarMap implied;
    if (!sinfoMatch(b.castSInfo, substitute(sinfoOf(b.value)), implied)) return;
    for (auto& [var, value] : implied) {
      // A var bound before (a parameter's dim, an earlier cast) is checked by this cast, not defined.
      if (value.get() == var || defined_.count(var)) continue;
      if (auto it = known_.find(var); it != known_.end()) {
        auto a = constInt(it->second), c = constInt(value);
        if (a && c && *a != *c && status.ok())
          status = Error("match_cast statements must be consistent: the definition of " + b.var->name + " implies that " + var->name + " is " + std::to_string(*c) + ", but an earlier match_cast implies " + std::to_string(*a), b.span);
        continue;
      }
      known_[var] = value;
    }
  }

  PrimExpr substitute(const PrimExpr& e) {
    if (known_.empty() || !e) return e;
    PrimExpr out = primSubstitute(e, known_);
    return proveEqual(out, e) && structuralEqual(out, e).equal ? e : out;
  }
  StructInfo substitute(const StructInfo& s) {
    if (known_.empty() || !s) return s;
    StructInfo out = sinfoSubstitute(s, known_);
    return structuralEqual(out, s).equal ? s : out;
  }

  // The symbolic vars a struct info mentions, as bound from here on.
  void noteDefined(const StructInfo& s) {
    if (!s) return;
    std::vector<Ref<PrimVar>> vars;
    auto dims = [&](const std::vector<PrimExpr>& v) {
      for (auto& e : v) collectVars(e, vars);
    };
    if (auto t = s.as<TensorSInfo>()) {
      if (t->dims()) dims(*t->dims());
    } else if (auto sh = s.as<ShapeSInfo>()) {
      if (sh->values) dims(*sh->values);
    } else if (auto p = s.as<PrimSInfo>()) {
      if (p->value) collectVars(p->value, vars);
    } else if (auto tu = s.as<TupleSInfo>()) {
      for (auto& f : tu->fields) noteDefined(f);
    }
    for (auto& v : vars) defined_.insert(v.get());
  }

  PrimVarMap known_;
  std::unordered_set<const PrimVar*> defined_;
};

class Canonicalizer : public ExprMutator {
 public:
  explicit Canonicalizer(Plan plan) : plan_(std::move(plan)) {}

 protected:
  Expr visitTuple(const Ref<Tuple>& t) override { return refreshTupleSInfo(ExprMutator::visitTuple(t), t); }

  Expr visitVar(const Ref<Var>& v) override {
    VarRef nv = v;
    for (auto it = plan_.replaceUsage.find(nv.get()); it != plan_.replaceUsage.end(); it = plan_.replaceUsage.find(nv.get())) nv = it->second;
    if (auto c = plan_.inlineConstant.find(nv.get()); c != plan_.inlineConstant.end()) return c->second;
    if (auto m = varMap.find(nv.get()); m != varMap.end()) return m->second;  // refined struct info
    return nv;
  }

  BindingRef visitBinding(const BindingRef& b) override {
    if (plan_.remove.count(b->var.get())) return nullptr;
    Expr value = mutate(b->value);
    VarRef var = b->var;
    for (auto it = plan_.replaceBinding.find(var.get()); it != plan_.replaceBinding.end(); it = plan_.replaceBinding.find(var.get())) var = it->second;
    if (value.same(b->value) && var.same(b->var)) return b;
    if (!b->isMatchCast()) {
      // As TVM's mutator does: a rewritten value may know more (e.g. a shape that the alias hid),
      // and the var takes the value's struct info; later uses of either name see the new var.
      StructInfo refined = refreshSInfo(value, b->value);
      if (refined && !structuralEqual(sinfoOf(var), refined).equal) {
        auto nv = make<Var>(var->name, refined, var->isDataflow());
        nv->span = var->span;
        varMap[b->var.get()] = nv;
        varMap[var.get()] = nv;
        var = nv;
      }
    }
    auto nb = make<Binding>(var, value, b->castSInfo);
    nb->span = b->span;
    return nb;
  }

  Expr visitFunction(const Ref<Function>& f) override { return refineReturn(ExprMutator::visitFunction(f), f); }

  BlockRef visitBlock(const BlockRef& b) override {
    BlockRef out = ExprMutator::visitBlock(b);
    if (!out || !out->isDataflow()) return out;
    return foldOutputAliases(out);
  }

 private:
  // Re-infers the struct info of a rewritten value (the mutator copied the old node's), so that a
  // var replaced by a more precise one propagates its shape. Returns null when unknown.
  static StructInfo refreshSInfo(Expr& value, const Expr& old) {
    if (value.same(old)) return value->sinfo;
    if (auto c = value.as<Call>()) {
      auto inferred = inferCallSInfo(*c);
      if (inferred) value->sinfo = *inferred;
    } else if (auto t = value.as<Tuple>()) {
      std::vector<StructInfo> fields;
      for (auto& f : t->fields) fields.push_back(sinfoOf(f));
      value->sinfo = make<TupleSInfo>(std::move(fields));
    } else if (auto g = value.as<TupleGetItem>()) {
      if (auto ts = sinfoOf(g->tuple).as<TupleSInfo>(); ts && g->index >= 0 && size_t(g->index) < ts->fields.size()) value->sinfo = ts->fields[g->index];
    }
    return value->sinfo;
  }

  // An output binding `gv = lv` whose lv is used by nothing else in the block: bind gv to lv's
  // value directly and drop lv's binding.
  static BlockRef foldOutputAliases(const BlockRef& block) {
    VarSet disqualified, outputs;
    std::unordered_map<const Var*, Expr> candidates;
    auto disqualify = [&](const std::vector<VarRef>& vars) {
      for (auto& v : vars)
        if (v->isDataflow()) disqualified.insert(v.get());
    };
    for (size_t i = block->bindings.size(); i-- > 0;) {
      const BindingRef& b = block->bindings[i];
      bool isFunc = b->value->kind() == NodeKind::Function;
      if (b->var->isDataflow()) {
        disqualify(isFunc ? allVars(b->value) : freeVars(b->value));
        if (!disqualified.count(b->var.get()) && outputs.count(b->var.get())) candidates[b->var.get()] = b->value;
      } else if (auto rhs = b->value.as<Var>(); rhs && rhs->isDataflow()) {
        if (outputs.count(rhs.get())) disqualified.insert(rhs.get());
        outputs.insert(rhs.get());
      } else {
        disqualify(isFunc ? freeVars(b->value) : allVars(b->value));
      }
    }
    if (candidates.empty()) return block;
    std::vector<BindingRef> bindings;
    bool changed = false;
    for (auto& b : block->bindings) {
      if (b->var->isDataflow() && candidates.count(b->var.get())) {
        changed = true;
        continue;
      }
      auto rhs = b->value.as<Var>();
      if (!b->var->isDataflow() && rhs && rhs->isDataflow() && candidates.count(rhs.get())) {
        changed = true;
        auto nb = make<Binding>(b->var, candidates.at(rhs.get()), b->castSInfo);
        nb->span = b->span;
        bindings.push_back(nb);
        continue;
      }
      bindings.push_back(b);
    }
    if (!changed) return block;
    return make<BindingBlock>(std::move(bindings), true);
  }

  Plan plan_;
};

}  // namespace

Result<Pass> createCanonicalizeBindingsPass(PassOptions&) {
  return makeFunctionPass({"CanonicalizeBindings", 1, {}}, [](const Expr& func, const GlobalVarRef&, const IRModuleRef&) -> Result<Expr> {
    SymbolicVarCanonicalizer tir;
    Expr out = tir.mutate(func);
    if (!tir.status.ok()) return tir.status.error();
    Planner planner;
    Canonicalizer m(planner.collect(out));
    return m.mutate(out);
  });
}

}  // namespace rlx
