// ReorderTakeAfterMatmul: matmul(x, take(W, idx, axis)) -> take(matmul(x, W), idx, ...) (TVM's
// relax pass). Why: with a table of weights selected per token (mixture of experts, batched LoRA),
// one matmul against the whole table followed by a gather of its columns avoids materializing the
// gathered weights, and the table may be known at compile time.
// Two cases:
//  - idx 1-D and axis the last axis of a >= 2-D W ([*b, in, table]): take(matmul(x, W), idx,
//    axis = last of the result);
//  - x [b1, b2, in], W [table, in, out], idx [b1], axis 0 (batched LoRA):
//    Wf = reshape(permute_dims(W, [1, 0, 2]), [in, table * out]), y = reshape(matmul(x, Wf),
//    [b1, b2, table, out]), then out[i, j, k] = y[i, j, idx[i], k] as
//    einsum("ijik->ijk", take(y, idx, axis=2)).
// take's mode is kept; a matmul with out_dtype keeps it. Unused bindings are removed afterwards.
// Before: `w = R.take(table, idx, axis=1); out = R.matmul(x, w)`
// After:  `lv = R.matmul(x, table); out = R.take(lv, idx, axis=1)`.
#include "ir/arith.h"
#include "ir/ops/infer_util.h"
#include "passes/binding_rewriter.h"
#include "passes/op_builder.h"
#include "passes/registry.h"

namespace rlx {

namespace {

using namespace build;

class TakeAfterMatmulReorderer : public BindingRewriter {
 protected:
  Expr rewriteValue(const BindingRef&, const Expr& value) override {
    auto mm = value.as<Call>();
    if (!mm || mm->opName() != "relax.matmul" || mm->args.size() != 2) return nullptr;
    auto take = boundValue(mm->args[1]).as<Call>();
    if (!take || take->opName() != "relax.take" || ops::attrIsNone(*take, "axis")) return nullptr;
    const Expr &x = mm->args[0], &w = take->args[0], &idx = take->args[1];
    auto xs = sinfoOf(x).as<TensorSInfo>(), ws = sinfoOf(w).as<TensorSInfo>(), is = sinfoOf(idx).as<TensorSInfo>();
    auto out = sinfoOf(value).as<TensorSInfo>();
    if (!xs || !ws || !is || !out || xs->ndim < 0 || ws->ndim < 0 || is->ndim < 0 || out->ndim < 0) return nullptr;
    int64_t axis = ops::attrInt(*take, "axis");
    if (axis < 0) axis += ws->ndim;
    KwArgs mmKw, takeKw = {{"mode", s(ops::attrString(*take, "mode", "fast"))}};
    DataType outDtype = ops::attrDType(*mm, "out_dtype");
    if (!outDtype.isVoid()) mmKw.push_back({"out_dtype", s(outDtype.str())});

    if (is->ndim == 1 && ws->ndim >= 2 && axis == ws->ndim - 1) {
      takeKw.insert(takeKw.begin(), {"axis", i(out->ndim - 1)});
      return call("take", {e(call("matmul", {e(x), e(w)}, mmKw)), e(idx)}, takeKw);
    }
    if (xs->ndim == 3 && ws->ndim == 3 && is->ndim == 1 && axis == 0 && xs->dims() && ws->dims()) {
      auto& xd = *xs->dims();
      auto& wd = *ws->dims();
      Expr reordered = call("permute_dims", {e(w), ints({1, 0, 2})});
      Expr fused = call("reshape", {e(reordered), e(make<ShapeExpr>(std::vector<PrimExpr>{wd[1], mul(wd[0], wd[2])}))});
      Expr product = call("matmul", {e(x), e(fused)}, mmKw);
      Expr split = call("reshape", {e(product), e(make<ShapeExpr>(std::vector<PrimExpr>{xd[0], xd[1], wd[0], wd[2]}))});
      takeKw.insert(takeKw.begin(), {"axis", i(2)});
      Expr gathered = call("take", {e(split), e(idx)}, takeKw);
      return call("einsum", {e(make<Tuple>(std::vector<Expr>{gathered})), s("ijik->ijk")});
    }
    return nullptr;
  }
};

}  // namespace

Result<Pass> createReorderTakeAfterMatmulPass(PassOptions&) {
  return makeRewriteCallPass({"ReorderTakeAfterMatmul", 1, {}}, [](const Ref<Function>&) -> std::unique_ptr<BindingRewriter> { return std::make_unique<TakeAfterMatmulReorderer>(); });
}

}  // namespace rlx
