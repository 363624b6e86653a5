// LazyGradientInit: Relay's pass with Relax semantics — adjoints initialised to zeros (or ones)
// that are only added to (multiplied by) are not materialised.
//
// Relay's version wrapped every zeros/ones gradient in a lazy GradCell ADT of the prelude; Relax
// has no ADTs, so the honest counterpart is the algebra that GradCell made free: after Gradient,
//   R.add(Z, y) / R.add(y, Z)       -> y   where Z is R.zeros(...), R.zeros_like(...) or R.full(.., 0)
//   R.multiply(O, y) / (y, O)       -> y   where O is R.ones(...), R.ones_like(...) or R.full(.., 1)
// when y already has the result's shape and dtype (the rewrite must not drop a broadcast or a cast).
// Z and O are followed through var aliases and through fields of tuple literals (Gradient builds
// a tuple's adjoint as a tuple with zero fields). The rewritten binding becomes an alias of y, and
// the zeros/ones nobody uses any more are removed (CanonicalizeBindings then drops the aliases).
// Gap, documented: Relay's GradCell also deferred zeros passed to calls and returned; here a zeros
// tensor that is not just added to stays materialised.
#include <unordered_map>

#include "ir/arith.h"
#include "ir/ops/infer_util.h"
#include "passes/binding_rewriter.h"
#include "passes/registry.h"
#include "passes/remove_all_unused.h"

namespace rlx {

namespace {

class LazyInit : public BindingRewriter {
 public:
  bool changed = false;

 protected:
  Expr rewriteValue(const BindingRef& binding, const Expr& value) override {
    defs_[binding->var.get()] = value;
    auto c = value.as<Call>();
    if (!c || !c->op.as<Op>() || c->args.size() != 2) return nullptr;
    double identity;
    if (c->opName() == "relax.add") identity = 0;
    else if (c->opName() == "relax.multiply") identity = 1;
    else return nullptr;
    for (int k = 0; k < 2; ++k) {
      const Expr& other = c->args[1 - k];
      if (isFill(c->args[k], identity) && sameTensor(sinfoOf(other), sinfoOf(binding->var))) {
        changed = true;
        return other;
      }
    }
    return nullptr;
  }

 private:
  // What `e` is bound to, through aliases and projections of tuple literals.
  Expr resolve(Expr e, int depth = 0) const {
    for (; depth < 64; ++depth) {
      if (auto v = e.as<Var>()) {
        auto it = defs_.find(v.get());
        if (it == defs_.end()) return e;
        e = it->second;
        continue;
      }
      if (auto g = e.as<TupleGetItem>()) {
        Expr t = resolve(g->tuple, depth + 1);
        auto tup = t.as<Tuple>();
        if (!tup || g->index < 0 || g->index >= int(tup->fields.size())) return e;
        e = tup->fields[g->index];
        continue;
      }
      return e;
    }
    return e;
  }

  // Whether `e` is a tensor filled with `v` by a creation op.
  bool isFill(const Expr& e, double v) const {
    auto c = resolve(e).as<Call>();
    if (!c || !c->op.as<Op>()) return false;
    const std::string& op = c->opName();
    if (op == (v == 0 ? "relax.zeros" : "relax.ones") || op == (v == 0 ? "relax.zeros_like" : "relax.ones_like")) return true;
    if (op == "relax.full" || op == "relax.full_like") {
      auto fill = resolve(c->args[1]).as<Constant>();
      return fill && fill->data->numel() == 1 && fill->data->getDouble(0) == v;
    }
    return false;
  }

  static bool sameTensor(const StructInfo& a, const StructInfo& b) {
    auto x = a.as<TensorSInfo>(), y = b.as<TensorSInfo>();
    if (!x || !y || x->dtype.isVoid() || x->dtype != y->dtype || !x->dims() || !y->dims() || x->dims()->size() != y->dims()->size()) return false;
    for (size_t i = 0; i < x->dims()->size(); ++i)
      if (!proveEqual((*x->dims())[i], (*y->dims())[i])) return false;
    return true;
  }

  std::unordered_map<const Var*, Expr> defs_;
};

}  // namespace

Result<Pass> createLazyGradientInitPass(PassOptions&) {
  return makeFunctionPass({"LazyGradientInit", 0, {}}, [](const Expr& func, const GlobalVarRef&, const IRModuleRef&) -> Result<Expr> {
    LazyInit m;
    Expr out = m.mutate(func);
    if (!m.changed) return func;
    return removeAllUnused(out);
  });
}

}  // namespace rlx
