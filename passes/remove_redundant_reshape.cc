// RemoveRedundantReshape (TVM v0.23's): in every function, a reshape of a reshape reads the first
// reshape's input, and a reshape whose result has its input's shape is its input; bindings left
// unused go. Before: `a = R.reshape(x, s1); b = R.reshape(a, s2)`   After: `b = R.reshape(x, s2)`.
#include "ir/arith.h"
#include "ir/struct_info.h"
#include "passes/binding_rewriter.h"
#include "passes/registry.h"

namespace rlx {

namespace {

bool isReshape(const Expr& e) {
  auto c = e.as<Call>();
  return c && c->opName() == "relax.reshape" && c->args.size() == 2;
}

// Whether two tensors provably have one shape (equal dims, compared structurally).
bool sameShape(const Expr& a, const Expr& b) {
  auto x = sinfoOf(a).as<TensorSInfo>(), y = sinfoOf(b).as<TensorSInfo>();
  if (!x || !y || !x->dims() || !y->dims() || x->dims()->size() != y->dims()->size()) return false;
  for (size_t k = 0; k < x->dims()->size(); ++k)
    if (!proveEqual((*x->dims())[k], (*y->dims())[k])) return false;
  return true;
}

class ReshapeSimplifier : public BindingRewriter {
 protected:
  Expr rewriteValue(const BindingRef& binding, const Expr& value) override {
    if (!isReshape(value)) return nullptr;
    auto c = value.as<Call>();
    Expr input = c->args[0];
    if (isReshape(boundValue(input))) {
      Expr inner = boundValue(input).as<Call>()->args[0];
      return sameShape(inner, binding->var) ? inner : make<Call>(c->op, std::vector<Expr>{inner, c->args[1]}, c->attrs, c->sinfoArgs);
    }
    return sameShape(input, binding->var) ? input : nullptr;
  }
};

}  // namespace

Result<Pass> createRemoveRedundantReshapePass(PassOptions&) {
  return makeRewriteCallPassSubstitutingAliases({"RemoveRedundantReshape", 0, {}}, [](const Ref<Function>&) -> std::unique_ptr<BindingRewriter> { return std::make_unique<ReshapeSimplifier>(); });
}

}  // namespace rlx
