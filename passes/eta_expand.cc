// EtaExpand(expand_global_var): Relay's EtaExpand for Relax. With expand_global_var=True, a
// module function referenced as a value — bound to a var, passed as an argument, put in a tuple —
// is replaced by a local function that calls it: `f = cls.g` becomes
// `@R.function def f(x: ...): gv = cls.g(x); return gv`. Why: passes that specialise or lift
// closures (LambdaLift, inlining of higher-order code) then see a function literal instead of an
// opaque global. Calls `cls.g(...)` are left alone; expand_constructor has no Relax meaning
// (no ADTs) and both options default to False as in Relay, so a bare `EtaExpand` changes nothing.
// A reference used as a call argument or tuple field first gets its own binding, named after the
// global. PrimFuncs and extern functions are not expanded (they are not Relax closures).
#include <unordered_map>

#include "ir/block_builder.h"
#include "ir/expr_mutator.h"
#include "ir/struct_info.h"
#include "passes/registry.h"

namespace rlx {

namespace {

class EtaExpander : public ExprMutator {
 public:
  explicit EtaExpander(IRModuleRef mod) : mod_(std::move(mod)) {}

 protected:
  Expr visitCall(const Ref<Call>& c) override {
    std::vector<Expr> args;
    bool changed = false;
    for (auto& a : c->args) {
      args.push_back(mutate(a));
      changed |= !args.back().same(a);
    }
    Expr op = c->op.is<GlobalVar>() ? c->op : mutate(c->op);  // the callee stays a global
    if (!changed && op.same(c->op)) return c;
    auto out = make<Call>(op, std::move(args), c->attrs, c->sinfoArgs);
    out->sinfo = c->sinfo;
    out->span = c->span;
    return out;
  }

  Expr visitLeaf(const Expr& e) override {
    auto gv = e.as<GlobalVar>();
    if (!gv) return e;
    auto it = pending_.find(gv.get());
    return it == pending_.end() ? e : Expr(it->second);
  }

  BlockRef visitBlock(const BlockRef& b) override {
    std::vector<BindingRef> out;
    bool changed = false;
    for (auto& x : b->bindings) {
      if (auto gv = x->value.as<GlobalVar>(); gv && !x->isMatchCast()) {
        if (Expr lambda = etaExpand(gv)) {
          auto nb = make<Binding>(x->var, lambda);
          nb->span = x->span;
          out.push_back(nb);
          changed = true;
          continue;
        }
      }
      // References in argument or tuple position get a binding of their own first.
      for (auto& gv : nestedReferences(x->value)) {
        Expr lambda = etaExpand(gv);
        if (!lambda) continue;
        auto var = make<Var>(gv->name, lambda->sinfo, false);
        auto nb = make<Binding>(var, lambda);
        out.push_back(nb);
        pending_[gv.get()] = var;
        changed = true;
      }
      BindingRef nb = visitBinding(x);
      pending_.clear();
      if (auto t = nb->value.as<Tuple>(); t && !nb.same(x)) {  // fields now name the local functions
        std::vector<StructInfo> fields;
        for (auto& f : t->fields) fields.push_back(sinfoOf(f));
        t->sinfo = make<TupleSInfo>(std::move(fields));
        nb = rebind(nb, nb->value, t->sinfo, nb->var->isDataflow());
      }
      changed |= !nb.same(x);
      out.push_back(nb);
    }
    if (!changed) return b;
    return make<BindingBlock>(std::move(out), b->isDataflow());
  }

 private:
  // Globals naming Relax functions that appear in `value` other than as a callee.
  std::vector<GlobalVarRef> nestedReferences(const Expr& value) {
    std::vector<GlobalVarRef> out;
    std::function<void(const Expr&)> scan = [&](const Expr& e) {
      if (auto gv = e.as<GlobalVar>()) {
        for (auto& o : out)
          if (o.same(gv)) return;
        out.push_back(gv);
      } else if (auto c = e.as<Call>()) {
        for (auto& a : c->args) scan(a);
      } else if (auto t = e.as<Tuple>()) {
        for (auto& f : t->fields) scan(f);
      }
    };
    scan(value);
    return out;
  }

  // `lambda params: gv(params)` for a global naming a Relax function; null otherwise.
  Expr etaExpand(const GlobalVarRef& gv) {
    auto fn = mod_->lookup(gv->name).as<Function>();
    if (!fn) return nullptr;
    // The lambda declares its own symbolic vars: fresh copies of the callee's.
    std::vector<Ref<PrimVar>> symbolic;
    for (auto& p : fn->params) sinfoCollectVars(p->sinfo, symbolic);
    PrimVarMap fresh;
    for (auto& v : symbolic)
      if (!fresh.count(v.get())) fresh[v.get()] = make<PrimVar>(v->name, v->dtype);
    std::vector<VarRef> params;
    std::vector<Expr> args;
    for (auto& p : fn->params) {
      auto np = make<Var>(p->name, sinfoSubstitute(p->sinfo, fresh), false);
      params.push_back(np);
      args.push_back(np);
    }
    BlockBuilder bb;
    bb.beginFunction();
    bb.beginBlock(false);
    auto result = bb.emit(make<Call>(Expr(gv), std::move(args)), "", gv->span);
    BlockRef block = bb.endBlock();
    if (!result.ok()) return nullptr;
    auto body = make<SeqExpr>(std::vector<BlockRef>{block}, result.value());
    body->sinfo = result.value()->sinfo;
    auto lambda = make<Function>(std::move(params), body, sinfoSubstitute(fn->retSInfo, fresh), fn->isPure, nullptr);
    auto normalized = bb.normalize(lambda);
    return normalized.ok() ? normalized.value() : nullptr;
  }

  IRModuleRef mod_;
  std::unordered_map<const GlobalVar*, VarRef> pending_;
};

}  // namespace

Result<Pass> createEtaExpandPass(PassOptions& options) {
  if (options.boolean("expand_constructor").value_or(false))
    return Error("EtaExpand: expand_constructor has no meaning in Relax (there are no ADT constructors)");
  bool expandGlobals = options.boolean("expand_global_var").value_or(false);
  return makeFunctionPass({"EtaExpand", 1, {}}, [expandGlobals](const Expr& func, const GlobalVarRef&, const IRModuleRef& mod) -> Result<Expr> {
    if (!expandGlobals) return func;
    EtaExpander expander(mod);
    return expander.mutate(func);
  });
}

}  // namespace rlx
