// CanonicalizeOps: rewrites ops into the canonical forms later passes (fusion, legalization,
// pattern matchers) expect — Relay's CanonicalizeOps turned bias_add into expand_dims + add; Relax
// has no bias_add, so the rules are the Relax equivalents:
//  - R.ewise_fma(a, b, c) → R.add(R.multiply(a, b), c);
//  - a layout/dtype op that provably changes nothing is dropped: reshape, broadcast_to,
//    expand_dims, squeeze, flatten, tile, repeat, collapse_sum_to/_like, astype and wrap_param
//    whose result has exactly the input's shape and dtype; a one-tensor concat; permute_dims
//    with the identity permutation. The binding becomes an alias `y = x` (CanonicalizeBindings
//    removes it). flip keeps its shape but not its data, so it is not in the list.
// Before: `lv = R.reshape(x, R.shape([2, 3]))` with x (2, 3)   After: `lv = x`.
#include <unordered_set>

#include "ir/ops/infer_util.h"
#include "ir/struct_info.h"
#include "passes/binding_rewriter.h"
#include "passes/op_builder.h"
#include "passes/registry.h"

namespace rlx {

namespace {

using namespace build;

// Ops that, when their result has the input's exact shape and dtype, return the input unchanged.
bool preservesDataWhenShapeEqual(const std::string& op) {
  static const std::unordered_set<std::string> ops = {
      "relax.reshape", "relax.broadcast_to", "relax.expand_dims", "relax.squeeze", "relax.flatten", "relax.tile", "relax.repeat",
      "relax.collapse_sum_to", "relax.collapse_sum_like", "relax.astype", "relax.wrap_param",
  };
  return ops.count(op) > 0;
}

bool isIdentityPermutation(const Call& c) {
  auto axes = ops::attrOptInts(c, "axes");
  auto x = sinfoOf(c.args[0]).as<TensorSInfo>();
  if (!axes) return x && x->ndim == 1;  // None reverses: the identity only in 1-D
  for (size_t k = 0; k < axes->size(); ++k)
    if ((*axes)[k] != int64_t(k) && (*axes)[k] != int64_t(k) - int64_t(axes->size())) return false;
  return true;
}

// The single tensor of a one-element concat (its tuple argument written inline).
Expr singleConcatInput(const Call& c) {
  auto t = c.args[0].as<Tuple>();
  return t && t->fields.size() == 1 ? t->fields[0] : Expr();
}

class OpCanonicalizer : public BindingRewriter {
 protected:
  Expr rewriteValue(const BindingRef&, const Expr& value) override {
    auto c = value.as<Call>();
    if (!c || !c->op.is<Op>() || c->args.empty()) return nullptr;
    const std::string& op = c->opName();
    if (op == "relax.ewise_fma") return call("add", {e(call("multiply", {e(c->args[0]), e(c->args[1])})), e(c->args[2])});
    if (op == "relax.permute_dims") return isIdentityPermutation(*c) ? c->args[0] : nullptr;
    if (op == "relax.concat") return sameTensor(*c, singleConcatInput(*c)) ? singleConcatInput(*c) : nullptr;
    if (preservesDataWhenShapeEqual(op) && sameTensor(*c, c->args[0])) return c->args[0];
    return nullptr;
  }

 private:
  // Whether `input` has exactly the call's result struct info (a known shape and dtype).
  static bool sameTensor(const Call& c, const Expr& input) {
    if (!input) return false;
    auto in = sinfoOf(input).as<TensorSInfo>();
    auto out = c.sinfo ? c.sinfo.as<TensorSInfo>() : Ref<TensorSInfo>();
    return in && out && in->dims() && !in->dtype.isVoid() && sinfoEqual(StructInfo(in), StructInfo(out));
  }
};

}  // namespace

Result<Pass> createCanonicalizeOpsPass(PassOptions&) { return makeMutatorPass<OpCanonicalizer>({"CanonicalizeOps", 1, {}}); }

}  // namespace rlx
