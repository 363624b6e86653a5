// Loss ONNX ops as their function bodies define them: NegativeLogLikelihoodLoss and
// SoftmaxCrossEntropyLoss (class weights, ignore_index, reductions none / sum / mean).
#include "frontend/onnx/converter.h"

namespace rlx::onnx {

namespace {

// -input[n, target[n, ...], ...] * weight[target], reduced. `input` is (N, C, d...).
Expr nllLoss(NodeCtx& c, Expr input, Expr target, Expr weight) {
  DataType t = tensorInfo(input)->dtype;
  DataType it = tensorInfo(target)->dtype;
  std::string reduction = c.s("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") fail("reduction must be none, sum or mean, got '" + reduction + "'");
  auto ignore = c.iOpt("ignore_index");
  Expr mask, safe = target;
  if (ignore) {
    // Ignored targets may be out of range: gather class 0 for them and weigh them 0.
    mask = c.op("not_equal", {ex(target), ex(c.scalar(double(*ignore), it))});
    safe = c.op("where", {ex(mask), ex(target), ex(c.scalar(0, it))});
  }
  Expr picked = c.op("gather_elements", {ex(input), ex(c.op("expand_dims", {ex(safe)}, {{"axis", ints({1})}}))}, {{"axis", i(1)}});
  Expr loss = c.op("negative", {ex(c.op("squeeze", {ex(picked)}, {{"axis", ints({1})}}))});
  Expr w;
  if (weight) w = c.op("take", {ex(weight), ex(safe)}, {{"axis", i(0)}});
  if (mask) {
    Expr m = c.cast(mask, t);
    w = w ? c.op("multiply", {ex(w), ex(m)}) : m;
  }
  if (w) loss = c.op("multiply", {ex(loss), ex(w)});
  if (reduction == "none") return loss;
  Expr total = c.op("sum", {ex(loss)});
  if (reduction == "sum") return total;
  if (!w) return c.op("mean", {ex(loss)});
  return c.op("divide", {ex(total), ex(c.op("sum", {ex(w)}))});
}

}  // namespace

void registerLossConverters() {
  onnxOp("NegativeLogLikelihoodLoss", {12, 13, 22}, [](NodeCtx& c) -> Outputs { return {{nllLoss(c, c.x(0), c.x(1), c.has(2) ? c.x(2) : Expr())}}; });
  onnxOp("SoftmaxCrossEntropyLoss", {12, 13}, [](NodeCtx& c) -> Outputs {
    Expr logProb = c.op("nn.log_softmax", {ex(c.x(0))}, {{"axis", i(1)}});
    return {{nllLoss(c, logProb, c.x(1), c.has(2) ? c.x(2) : Expr())}, {logProb}};
  });
}

}  // namespace rlx::onnx
