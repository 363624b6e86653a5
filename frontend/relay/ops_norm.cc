// Relay's normalization ops: batch_norm (inference semantics: the given moving statistics),
// layer / group / instance norm (Relay's channel axis becomes Relax's axes), l2_normalize, and lrn
// (no Relax op: TOPI's windowed sum of squares written out).
#include "frontend/relay/ops.h"
#include "ir/arith.h"

namespace rlx::relay::ops {

namespace {

// Every axis but the batch axis 0 and the channel axis: what group / instance norm normalize over.
std::vector<int64_t> spatialAxes(int rank, int64_t channel) {
  std::vector<int64_t> axes;
  for (int64_t k = 1; k < rank; ++k)
    if (k != channel) axes.push_back(k);
  return axes;
}

}  // namespace

// nn.batch_norm(x, gamma, beta, mean, var) -> (out, mean, var). Relay's op is the inference form
// (moving statistics used, returned unchanged), which Relax spells training=False.
RExpr batch_norm(OpCtx& c) {
  c.expectArgs(5, 5);
  c.allowAttrs({"axis", "epsilon", "center", "scale"});
  std::vector<PyValue> args;
  for (size_t k = 0; k < 5; ++k) args.push_back(ex(c.arg(k)));
  return c.call("nn.batch_norm", std::move(args),
                {{"axis", i(c.i("axis", 1))}, {"epsilon", f(c.f("epsilon", 1e-5))}, {"center", b(c.b("center", true))}, {"scale", b(c.b("scale", true))}, {"training", b(false)}});
}

RExpr layer_norm(OpCtx& c) {
  c.expectArgs(3, 3);
  c.allowAttrs({"axis", "epsilon", "center", "scale"});
  return c.call("nn.layer_norm", {ex(c.arg(0)), ex(c.arg(1)), ex(c.arg(2))},
                {{"axes", ints({c.i("axis", -1)})}, {"epsilon", f(c.f("epsilon", 1e-5))}, {"center", b(c.b("center", true))}, {"scale", b(c.b("scale", true))}});
}

RExpr group_norm(OpCtx& c) {
  c.expectArgs(3, 3);
  c.allowAttrs({"num_groups", "axis", "epsilon", "center", "scale"});
  int rank = c.ndim(0);
  int64_t channel = normAxis(c, c.i("axis", 1), rank);
  int64_t groups = c.i("num_groups", 0);
  if (groups <= 0) c.fail("num_groups must be positive, but it is " + std::to_string(groups));
  return c.call("nn.group_norm", {ex(c.arg(0)), ex(c.arg(1)), ex(c.arg(2))},
                {{"num_groups", i(groups)},
                 {"channel_axis", i(channel)},
                 {"axes", ints(spatialAxes(rank, channel))},
                 {"epsilon", f(c.f("epsilon", 1e-5))},
                 {"center", b(c.b("center", true))},
                 {"scale", b(c.b("scale", true))}});
}

RExpr instance_norm(OpCtx& c) {
  c.expectArgs(3, 3);
  c.allowAttrs({"axis", "epsilon", "center", "scale"});
  int rank = c.ndim(0);
  int64_t channel = normAxis(c, c.i("axis", 1), rank);
  return c.call("nn.instance_norm", {ex(c.arg(0)), ex(c.arg(1)), ex(c.arg(2))},
                {{"channel_axis", i(channel)},
                 {"axes", ints(spatialAxes(rank, channel))},
                 {"epsilon", f(c.f("epsilon", 1e-5))},
                 {"center", b(c.b("center", true))},
                 {"scale", b(c.b("scale", true))}});
}

// nn.l2_normalize(x, eps, axis): x / sqrt(max(sum(x * x, axis, keepdims), eps)), as topi computes it.
RExpr l2_normalize(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"eps", "axis"});
  if (!c.has("eps")) c.fail("needs eps");
  RExpr x = c.arg(0);
  RExpr sq = c.call("multiply", {ex(x), ex(x)});
  KwArgs kw = {{"keepdims", b(true)}};
  if (auto axes = c.intsOpt("axis")) kw.insert(kw.begin(), {"axis", ints(*axes)});
  RExpr total = c.call("sum", {ex(sq)}, kw);
  RExpr clamped = c.call("maximum", {ex(total), f(c.f("eps", 0))});
  RExpr norm = c.call("sqrt", {ex(clamped)});
  return c.call("divide", {ex(x), ex(norm)});
}

// nn.lrn(x, size, axis, bias, alpha, beta): x / (bias + alpha * s / size)^beta, where s sums the
// squares over the window [c - size/2, c - size/2 + size) of `axis` (zeros outside), as TOPI pads by
// size/2 on both sides and adds the window's terms in order.
RExpr lrn(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"size", "axis", "bias", "alpha", "beta"});
  int64_t size = c.i("size", 5), rank = c.ndim(0);
  int64_t axis = normAxis(c, c.i("axis", 1), rank);
  if (size < 1) c.fail("size must be positive");
  DataType t = c.dtype(0);
  std::vector<PrimExpr> d = c.dims(0);
  RExpr sq = c.call("multiply", {ex(c.arg(0)), ex(c.arg(0))});
  std::vector<int64_t> widths(size_t(2 * rank), 0);
  widths[size_t(2 * axis)] = widths[size_t(2 * axis + 1)] = size / 2;
  RExpr padded = size / 2 ? c.call("nn.pad", {ex(sq)}, {{"pad_width", ints(widths)}, {"pad_value", f(0.0)}, {"pad_mode", s("constant")}}) : sq;
  RExpr sum;
  for (int64_t k = 0; k < size; ++k) {
    RExpr term = c.call("strided_slice", {ex(padded), ints({axis}), primList({intImm(k)}), primList({rlx::add(d[size_t(axis)], intImm(k))})});
    sum = k == 0 ? term : c.call("add", {ex(sum), ex(term)});
  }
  RExpr scaled = c.call("divide", {ex(c.call("multiply", {ex(scalarConst(c.f("alpha", 1e-5), t)), ex(sum)})), ex(scalarConst(double(size), t))});
  RExpr denom = c.call("power", {ex(c.call("add", {ex(scalarConst(c.f("bias", 2.0), t)), ex(scaled)})), ex(scalarConst(c.f("beta", 0.75), t))});
  return c.call("divide", {ex(c.arg(0)), ex(denom)});
}

}  // namespace rlx::relay::ops
