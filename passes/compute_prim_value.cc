// ComputePrimValue: every R.prim_value whose value is neither a constant nor a single symbolic var
// becomes a call of a generated host PrimFunc that computes it, as TVM's
// relax.transform.ComputePrimValue does. Why: the VM has no instruction to evaluate an expression
// such as `n % 16 == 0`; only kernels compute.
// The kernel `compute_symbolic_expr` (then ...1, ...2) takes the expression's free vars (fresh copies,
// in first-use order) as scalars, returns the value through T.ret and is marked tir.is_host_func;
// structurally equal kernels are shared. The call takes those vars as R.prim_value arguments.
// Before: `c = R.prim_value(n * 2)`; after: `c = cls.compute_symbolic_expr(R.prim_value(n))` with
// `def compute_symbolic_expr(n: T.int64) -> T.int64: T.func_attr({"tir.is_host_func": True}); T.ret(n * T.int64(2))`.
#include <algorithm>
#include <unordered_set>

#include "ir/arith.h"
#include "ir/struct_info.h"
#include "ir/structural_equal.h"
#include "ir/tir.h"
#include "parser/build_tir.h"
#include "passes/binding_rewriter.h"
#include "passes/registry.h"

namespace rlx {

namespace {

class Injector : public BindingRewriter {
 public:
  explicit Injector(IRModuleRef& mod) : mod_(mod) {}

 protected:
  Expr visitLeaf(const Expr& e) override {
    auto pv = e.as<PrimValue>();
    if (!pv || !pv->value || pv->value.is<IntImm>() || pv->value.is<FloatImm>() || pv->value.is<PrimVar>()) return e;
    std::vector<Ref<PrimVar>> free;
    collectVars(pv->value, free);
    std::vector<Expr> args;
    for (auto& v : free) args.push_back(make<PrimValue>(PrimExpr(v)));
    Expr call = make<Call>(kernelFor(*pv, free), std::move(args));
    call->span = e->span;
    lifted_.insert(call.get());
    return call;
  }

  // Bindings whose value now holds a computed value are re-normalized (nested calls get bound).
  Expr rewriteValue(const BindingRef&, const Expr& value) override { return holdsLifted(value) ? value : nullptr; }

 private:
  // Whether a lifted call sits in `e` outside nested SeqExprs (those were normalized on their own).
  bool holdsLifted(const Expr& e) const {
    if (lifted_.count(e.get())) return true;
    auto any = [&](const std::vector<Expr>& xs) { return std::any_of(xs.begin(), xs.end(), [&](const Expr& x) { return holdsLifted(x); }); };
    if (auto c = e.as<Call>()) return any(c->args);
    if (auto t = e.as<Tuple>()) return any(t->fields);
    if (auto g = e.as<TupleGetItem>()) return holdsLifted(g->tuple);
    if (auto i = e.as<If>()) return holdsLifted(i->cond);
    return false;
  }

  // The kernel computing `value` from `free` (shared when an equal one exists).
  GlobalVarRef kernelFor(const PrimValue& pv, const std::vector<Ref<PrimVar>>& free) {
    auto func = make<PrimFunc>();
    PrimVarMap renew;  // TVM's RenewDefs: the kernel gets its own vars
    for (auto& v : free) {
      auto p = make<PrimVar>(v->name, v->dtype);
      renew[v.get()] = p;
      func->params.push_back(p);
    }
    PrimExpr value = primSubstitute(pv.value, renew);
    func->body = make<Evaluate>(make<PrimCall>(value->dtype, "tir.ret", std::vector<PrimExpr>{value}));
    func->retType = value->dtype;
    func->attrs = makeDictAttrs({{"tir.is_host_func", AttrValue::boolean(true)}});
    func->sinfo = primFuncSInfo(*func);
    for (auto& [f, gv] : kernels_)
      if (structuralEqual(f, func)) return gv;
    const std::string base = "compute_symbolic_expr";
    std::string name = base;
    for (int i = 1; mod_->find(name); ++i) name = base + std::to_string(i);
    auto gv = make<GlobalVar>(name);
    gv->sinfo = func->sinfo;
    mod_ = withFunction(mod_, gv, func);
    kernels_.emplace_back(func, gv);
    return gv;
  }

  IRModuleRef& mod_;
  std::vector<std::pair<PrimFuncRef, GlobalVarRef>> kernels_;
  std::unordered_set<const ExprNode*> lifted_;
};

}  // namespace

Result<Pass> createComputePrimValuePass(PassOptions&) {
  return Pass({"ComputePrimValue", 0, {}}, [](const IRModuleRef& mod, const PassContext& ctx) -> Result<IRModuleRef> {
    IRModuleRef out = mod;
    Injector injector(out);  // one for the module: kernels are shared across functions
    for (auto& e : mod->functions) {
      if (e.func->kind() != NodeKind::Function || !ctx.inScope(e.gvar->name)) continue;
      Expr f = injector.mutate(e.func);
      if (!f.same(e.func)) out = withFunction(out, e.gvar, f);
    }
    return out;
  });
}

}  // namespace rlx
