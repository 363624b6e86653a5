// Relay's nn ops other than convolution, pooling and normalization: dense / matmul / batch_matmul
// rewritten into R.matmul, bias_add and batch_flatten into broadcasting add / reshape, activations,
// softmax, dropout, pad.
#include "frontend/relay/ops.h"

namespace rlx::relay::ops {

namespace {

// R.permute_dims swapping the last two axes of a rank-`rank` tensor.
RExpr swapLastTwo(OpCtx& c, const RExpr& x, int rank) {
  std::vector<int64_t> axes;
  for (int k = 0; k < rank; ++k) axes.push_back(k);
  std::swap(axes[size_t(rank - 2)], axes[size_t(rank - 1)]);
  return c.call("permute_dims", {ex(x)}, {{"axes", ints(axes)}});
}

}  // namespace

// nn.dense(x, w): x @ w^T with w of shape (units, k) — R.linear's form without the bias.
RExpr dense(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"units", "out_dtype", "auto_scheduler_rewritten_layout", "meta_schedule_original_shape"});
  requireNoTuningLayout(c);
  if (c.ndim(1) != 2) c.fail("the weight must be 2-D (units, in), but it has rank " + std::to_string(c.ndim(1)));
  RExpr wt = c.call("permute_dims", {ex(c.arg(1))}, {{"axes", ints({1, 0})}});
  return c.call("matmul", {ex(c.arg(0)), ex(wt)}, {{"out_dtype", s(outDType(c))}});
}

// nn.matmul(a, b, transpose_a, transpose_b): 2-D operands, each optionally given transposed.
RExpr matmul(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"units", "out_dtype", "transpose_a", "transpose_b", "auto_scheduler_rewritten_layout", "meta_schedule_original_shape"});
  requireNoTuningLayout(c);
  RExpr a = c.arg(0), b = c.arg(1);
  if (c.b("transpose_a", false)) a = swapLastTwo(c, a, c.ndim(0));
  if (c.b("transpose_b", false)) b = swapLastTwo(c, b, c.ndim(1));
  return c.call("matmul", {ex(a), ex(b)}, {{"out_dtype", s(outDType(c))}});
}

// nn.batch_matmul(x, y): (B, M, K) @ (B, K, N); transpose_a / transpose_b say an operand is stored
// with its last two axes swapped (Relay's frontends mostly emit transpose_b=True).
RExpr batch_matmul(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"out_dtype", "transpose_a", "transpose_b", "auto_scheduler_rewritten_layout", "meta_schedule_original_shape"});
  requireNoTuningLayout(c);
  if (c.ndim(0) != 3 || c.ndim(1) != 3) c.fail("expects 3-D operands, but they have ranks " + std::to_string(c.ndim(0)) + " and " + std::to_string(c.ndim(1)));
  RExpr a = c.arg(0), b = c.arg(1);
  if (c.b("transpose_a", false)) a = swapLastTwo(c, a, 3);
  if (c.b("transpose_b", false)) b = swapLastTwo(c, b, 3);
  return c.call("matmul", {ex(a), ex(b)}, {{"out_dtype", s(outDType(c))}});
}

// nn.bias_add(x, b, axis): b (C,) added along `axis`. The last axis broadcasts as is; any other
// needs b reshaped to (C, 1, ..., 1) so numpy broadcasting lines it up with `axis`.
RExpr bias_add(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"axis"});
  int rank = c.ndim(0);
  int64_t axis = normAxis(c, c.i("axis", 1), rank);
  if (c.ndim(1) != 1) c.fail("the bias must be 1-D, but it has rank " + std::to_string(c.ndim(1)));
  if (axis == rank - 1) return c.call("add", {ex(c.arg(0)), ex(c.arg(1))});
  const std::vector<PrimExpr>* bd = c.tensor(1).dims();
  PrimExpr channels = bd ? (*bd)[0] : c.dims(0)[size_t(axis)];
  std::vector<PrimExpr> shape = {channels};
  for (int64_t k = axis + 1; k < rank; ++k) shape.push_back(intImm(1));
  RExpr b = c.call("reshape", {ex(c.arg(1)), primList(shape)});
  return c.call("add", {ex(c.arg(0)), ex(b)});
}

// nn.batch_flatten(x): (N, d1, d2, ...) -> (N, d1 * d2 * ...). (R.nn.batch_flatten is newer than v0.23.)
RExpr batch_flatten(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({});
  if (c.ndim(0) < 1) c.fail("expects a tensor of rank >= 1");
  PrimExpr n = c.dims(0)[0];
  return c.call("reshape", {ex(c.arg(0)), primList({n, intImm(-1)})});
}

RExpr softmax(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"axis"});
  return c.call("nn.softmax", {ex(c.arg(0))}, {{"axis", i(c.i("axis", -1))}});
}

// nn.fast_softmax: FastMath's approximation of softmax; Relax computes softmax exactly.
RExpr fast_softmax(OpCtx& c) { return softmax(c); }

RExpr log_softmax(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"axis"});
  return c.call("nn.log_softmax", {ex(c.arg(0))}, {{"axis", i(c.i("axis", -1))}});
}

RExpr leaky_relu(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"alpha"});
  return c.call("nn.leakyrelu", {ex(c.arg(0))}, {{"alpha", f(c.f("alpha", 0.25))}});
}

RExpr prelu(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"axis"});
  return c.call("nn.prelu", {ex(c.arg(0)), ex(c.arg(1))}, {{"axis", i(c.i("axis", 1))}});
}

// nn.dropout: (out, mask) in both IRs; an identity at inference.
RExpr dropout(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"rate"});
  return c.call("nn.dropout", {ex(c.arg(0))}, {{"rate", f(c.f("rate", 0.5))}});
}

// nn.pad(x, pad_value, pad_width=[[before, after], ...], pad_mode): Relay v0.19 passes the pad
// value as a second argument (older text: a pad_value attribute); Relax wants it as a number.
RExpr pad(OpCtx& c) {
  c.expectArgs(1, 2);
  c.allowAttrs({"pad_width", "pad_mode", "pad_value"});
  double value = c.f("pad_value", 0.0);
  if (c.numArgs() == 2) {
    auto k = constScalar(c.arg(1));
    if (!k) c.fail("the pad value must be a constant (Relax pads with a number)");
    value = *k;
  }
  const AttrValue* pw = c.attr("pad_width");
  if (!pw || pw->kind != AttrValue::Array) c.fail("needs pad_width, a list of [before, after] pairs");
  std::vector<int64_t> flat;
  for (auto& pair : pw->items) {
    if (pair.kind != AttrValue::Array || pair.items.size() != 2 || pair.items[0].kind != AttrValue::Int || pair.items[1].kind != AttrValue::Int)
      c.fail("pad_width must be a list of [before, after] int pairs");
    flat.push_back(pair.items[0].i);
    flat.push_back(pair.items[1].i);
  }
  if (int(pw->items.size()) != c.ndim(0)) c.fail("pad_width has " + std::to_string(pw->items.size()) + " pairs for a tensor of rank " + std::to_string(c.ndim(0)));
  std::string mode = c.s("pad_mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect") c.fail("unknown pad_mode \"" + mode + "\" (constant, edge or reflect)");
  return c.call("nn.pad", {ex(c.arg(0))}, {{"pad_width", ints(flat)}, {"pad_value", f(value)}, {"pad_mode", s(mode)}});
}

// nn.cross_entropy_with_logits(pred, target): -sum(pred * target) / batch in both IRs.
RExpr cross_entropy_with_logits(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({});
  return c.call("nn.cross_entropy_with_logits", {ex(c.arg(0)), ex(c.arg(1))});
}

}  // namespace rlx::relay::ops

namespace rlx::relay::ops {

// nn.cross_entropy(pred, target): -sum(log(pred) * target) / batch, which is
// cross_entropy_with_logits of log(pred).
RExpr cross_entropy(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({});
  RExpr logp = c.call("log", {ex(c.arg(0))});
  return c.call("nn.cross_entropy_with_logits", {ex(logp), ex(c.arg(1))});
}

// nn.mirror_pad(x, pad_width, mode): REFLECT (edge not repeated) is R.nn.pad's "reflect";
// SYMMETRIC (edge repeated) has no Relax form.
RExpr mirror_pad(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"pad_width", "mode"});
  std::string mode = c.s("mode", "SYMMETRIC");
  if (mode != "REFLECT") c.fail("mode \"" + mode + "\" has no Relax form (R.nn.pad reflects without repeating the edge: REFLECT only)");
  const AttrValue* pw = c.attr("pad_width");
  if (!pw || pw->kind != AttrValue::Array) c.fail("needs pad_width, a list of [before, after] pairs");
  std::vector<int64_t> flat;
  for (auto& pair : pw->items) {
    if (pair.kind != AttrValue::Array || pair.items.size() != 2 || pair.items[0].kind != AttrValue::Int || pair.items[1].kind != AttrValue::Int)
      c.fail("pad_width must be a list of [before, after] int pairs");
    flat.push_back(pair.items[0].i);
    flat.push_back(pair.items[1].i);
  }
  return c.call("nn.pad", {ex(c.arg(0))}, {{"pad_width", ints(flat)}, {"pad_value", f(0.0)}, {"pad_mode", s("reflect")}});
}

// nn.nll_loss(predictions, targets, weights, reduction, ignore_index): PyTorch's definition in
// both IRs (mean divides by the summed weights of the counted targets).
RExpr nll_loss(OpCtx& c) {
  c.expectArgs(3, 3);
  c.allowAttrs({"reduction", "ignore_index"});
  std::string reduction = c.s("reduction", "mean");
  if (reduction != "mean" && reduction != "sum" && reduction != "none") c.fail("reduction must be mean, sum or none");
  return c.call("nn.nll_loss", {ex(c.arg(0)), ex(c.arg(1)), ex(c.arg(2))}, {{"reduction", s(reduction)}, {"ignore_index", i(c.i("ignore_index", -100))}});
}

}  // namespace rlx::relay::ops
