// ReorderPermuteDimsAfterConcat: concat(permute_dims(A, p), permute_dims(B, p), ...) ->
// permute_dims(concat(A, B, ...), p), the concat axis mapped through p (TVM's relax pass).
// Why: weights stored transposed (linear_weight [out, in]) and concatenated for CombineParallelMatmul
// end up as one concat of the stored tensors, which FoldConstant / LiftTransformParams can
// precompute, followed by a single transpose the matmul can absorb (FuseTransposeMatmul).
// Every field must be a permute_dims with the same axes (None = reversed, compared as such); a
// concat with axis=None (flattening) is left alone. Unused bindings are removed afterwards.
// Before: `a = R.permute_dims(C); b = R.permute_dims(D); w = R.concat((a, b), axis=1)`
// After:  `lv = R.concat((C, D), axis=0); w = R.permute_dims(lv)`.
#include "ir/ops/infer_util.h"
#include "passes/binding_rewriter.h"
#include "passes/op_builder.h"
#include "passes/registry.h"

namespace rlx {

namespace {

using namespace build;

// The permutation a permute_dims call applies (axes=None reverses), or nullopt when the input's
// rank is unknown.
std::optional<std::vector<int64_t>> permutation(const Call& c) {
  auto in = sinfoOf(c.args[0]).as<TensorSInfo>();
  if (!in || in->ndim < 0) return std::nullopt;
  auto axes = ops::attrOptInts(c, "axes");
  std::vector<int64_t> out;
  for (int k = 0; k < in->ndim; ++k) out.push_back(axes && k < int(axes->size()) ? ((*axes)[k] < 0 ? (*axes)[k] + in->ndim : (*axes)[k]) : in->ndim - 1 - k);
  if (axes && int(axes->size()) != in->ndim) return std::nullopt;
  return out;
}

class PermuteConcatReorderer : public BindingRewriter {
 protected:
  Expr rewriteValue(const BindingRef&, const Expr& value) override {
    auto concat = value.as<Call>();
    if (!concat || concat->opName() != "relax.concat" || concat->args.empty() || ops::attrIsNone(*concat, "axis")) return nullptr;
    auto tuple = boundValue(concat->args[0]).as<Tuple>();
    if (!tuple || tuple->fields.size() < 2) return nullptr;
    std::vector<Expr> inputs;
    std::optional<std::vector<int64_t>> perm;
    CallRef first;
    for (auto& f : tuple->fields) {
      auto p = boundValue(f).as<Call>();
      if (!p || p->opName() != "relax.permute_dims") return nullptr;
      auto pi = permutation(*p);
      if (!pi || (perm && *pi != *perm)) return nullptr;
      perm = pi;
      if (!first) first = p;
      inputs.push_back(p->args[0]);
    }
    int64_t ndim = int64_t(perm->size());
    int64_t axis = ops::attrInt(*concat, "axis", 0);
    if (axis < 0) axis += ndim;
    if (axis < 0 || axis >= ndim) return nullptr;
    Expr joined = call("concat", {e(tupleOf(inputs))}, {{"axis", i((*perm)[axis])}});
    // The same axes argument as the fields' permute_dims (None stays None).
    auto axes = ops::attrOptInts(*first, "axes");
    return axes ? call("permute_dims", {e(joined), ints(*axes)}) : call("permute_dims", {e(joined)});
  }
};

}  // namespace

Result<Pass> createReorderPermuteDimsAfterConcatPass(PassOptions&) {
  return makeRewriteCallPass({"ReorderPermuteDimsAfterConcat", 1, {}}, [](const Ref<Function>&) -> std::unique_ptr<BindingRewriter> { return std::make_unique<PermuteConcatReorderer>(); });
}

}  // namespace rlx
