// Legalization of batch_norm, rms_norm and group_norm as topi composes them: batch_norm from sums,
// reshapes and broadcast arithmetic (batch statistics when training), rms_norm in float32, group_norm.
#include <algorithm>

#include "ir/arith.h"
#include "ir/ops/infer_util.h"
#include "passes/legalize/legalize.h"

namespace rlx::legalize {

namespace {

using te::Indices;
using te::Tensor;

int64_t normAxis(int64_t a, size_t nd) { return a < 0 ? a + int64_t(nd) : a; }

// topi's broadcasting binary op of two tensors (T_<name>, ax loops).
Tensor binary(Ctx& ctx, const std::string& name, NodeKind k, const Tensor& a, const Tensor& b) {
  std::vector<PrimExpr> out;
  size_t nd = std::max(a.ndim(), b.ndim());
  for (size_t d = 0; d < nd; ++d) {
    const Tensor& wide = a.ndim() == nd ? a : b;
    const Tensor& other = a.ndim() == nd ? b : a;
    PrimExpr x = wide.shape()[d];
    if (d + other.ndim() >= nd) {
      PrimExpr y = other.shape()[d + other.ndim() - nd];
      if (auto c = asIntImm(x); c && c->value == 1) x = y;
    }
    out.push_back(x);
  }
  return ctx.kb.compute("T_" + name, out, a.dtype(), [&](const Indices& i) { return te::bin(k, a(broadcastIndex(a, i, out)), b(broadcastIndex(b, i, out))); }, "ax");
}

// A tensor combined with a scalar constant: `c op x` when constFirst, else `x op c`.
Tensor withConst(Ctx& ctx, const std::string& name, NodeKind k, const Tensor& x, const PrimExpr& c, bool constFirst) {
  return ctx.kb.compute("T_" + name, x.shape(), x.dtype(), [&](const Indices& i) { return constFirst ? te::bin(k, c, x(i)) : te::bin(k, x(i), c); }, "ax");
}

Tensor reshape(Ctx& ctx, const Tensor& x, const std::vector<PrimExpr>& shape) {
  return ctx.kb.compute("T_reshape", shape, x.dtype(), [&](const Indices& i) { return x(reshapeIndex(i, shape, x.shape())); }, "ax");
}

// topi.sum over the dims marked in `red` (keepdims false): block <x>_red, reduce axes k<dim>.
Tensor sumOver(Ctx& ctx, const Tensor& x, const std::vector<bool>& red) {
  std::vector<PrimExpr> out;
  std::vector<te::ReduceAxis> axes;
  for (size_t d = 0; d < x.ndim(); ++d) {
    if (red[d]) axes.push_back(ctx.kb.reduceAxis(x.shape()[d], "k" + std::to_string(d)));
    else out.push_back(x.shape()[d]);
  }
  return ctx.kb.reduce(x.buf->name + "_red", out, x.dtype(), axes, te::Combiner::Sum, [&](const Indices& s, const Indices& r) {
    Indices idx;
    size_t si = 0, ri = 0;
    for (size_t d = 0; d < x.ndim(); ++d) idx.push_back(red[d] ? r[ri++] : s[si++]);
    return x(idx);
  }, "ax");
}

// The element count as a value of dtype t (a constant, or a cast of the symbolic product).
PrimExpr countOf(const PrimExpr& n, DataType t) { return asIntImm(n) ? te::constant(double(asIntImm(n)->value), t) : PrimExpr(make<Cast>(t, n)); }

std::vector<Tensor> batchNorm(Ctx& ctx) {
  auto x = ctx.arg(0), gamma = ctx.arg(1), beta = ctx.arg(2), mmean = ctx.arg(3), mvar = ctx.arg(4);
  if (!x || !gamma || !beta || !mmean || !mvar || !x->dtype().isFloat() || ctx.outCount() != 3) return {};
  size_t nd = x->ndim();
  int64_t axis = normAxis(ops::attrInt(ctx.call, "axis", 1), nd);
  if (axis < 0 || axis >= int64_t(nd)) return {};
  DataType t = x->dtype();
  double eps = ops::attrReal(ctx.call, "epsilon", 1e-5), momentum = ops::attrReal(ctx.call, "momentum", 0.1);
  bool training = ops::attrBool(ctx.call, "training", true);
  std::vector<PrimExpr> rs(nd, intImm(1));
  rs[axis] = x->shape()[axis];
  auto f = [&](double v) { return te::constant(v, t); };
  std::optional<Tensor> mean, var, out;
  if (training) {
    std::vector<bool> red(nd, true);
    red[axis] = false;
    PrimExpr n;
    for (size_t d = 0; d < nd; ++d)
      if (red[d]) n = n ? te::idxMul(n, x->shape()[d]) : x->shape()[d];
    PrimExpr cnt = countOf(n ? n : intImm(1), t);
    mean = withConst(ctx, "divide", NodeKind::Div, sumOver(ctx, *x, red), cnt, false);
    Tensor meanRs = reshape(ctx, *mean, rs);
    Tensor d1 = binary(ctx, "subtract", NodeKind::Sub, *x, meanRs), d2 = binary(ctx, "subtract", NodeKind::Sub, *x, meanRs);
    var = withConst(ctx, "divide", NodeKind::Div, sumOver(ctx, binary(ctx, "multiply", NodeKind::Mul, d1, d2), red), cnt, false);
    Tensor varRs = reshape(ctx, *var, rs);
    Tensor centered = binary(ctx, "subtract", NodeKind::Sub, *x, meanRs);
    Tensor plusEps = withConst(ctx, "add", NodeKind::Add, varRs, f(eps), false);
    Tensor sd = ctx.kb.compute("compute", rs, t, [&](const Indices& i) { return te::call("tir.sqrt", t, {plusEps(i)}); });
    out = binary(ctx, "divide", NodeKind::Div, centered, sd);
  } else {
    Tensor meanRs = reshape(ctx, *mmean, rs), varRs = reshape(ctx, *mvar, rs);
    Tensor centered = binary(ctx, "subtract", NodeKind::Sub, *x, meanRs);
    Tensor plusEps = withConst(ctx, "add", NodeKind::Add, varRs, f(eps), false);
    Tensor sd = ctx.kb.compute("compute", rs, t, [&](const Indices& i) { return te::call("tir.sqrt", t, {plusEps(i)}); });
    out = binary(ctx, "divide", NodeKind::Div, centered, sd);
  }
  if (ops::attrBool(ctx.call, "scale", true)) out = binary(ctx, "multiply", NodeKind::Mul, *out, reshape(ctx, *gamma, rs));
  if (ops::attrBool(ctx.call, "center", true)) out = binary(ctx, "add", NodeKind::Add, *out, reshape(ctx, *beta, rs));
  if (!training)
    // topi returns moving_mean * 1 and moving_var * 1 so that no placeholder is an output.
    return {*out, withConst(ctx, "multiply", NodeKind::Mul, *mmean, f(1), false), withConst(ctx, "multiply", NodeKind::Mul, *mvar, f(1), false)};
  auto blend = [&](const Tensor& moving, const Tensor& batch) {
    return binary(ctx, "add", NodeKind::Add, withConst(ctx, "multiply", NodeKind::Mul, moving, f(1 - momentum), true),
                  withConst(ctx, "multiply", NodeKind::Mul, batch, f(momentum), true));
  };
  return {*out, blend(*mmean, *mean), blend(*mvar, *var)};
}

Tensor cast(Ctx& ctx, const Tensor& x, DataType t) {
  return ctx.kb.compute("T_cast", x.shape(), t, [&](const Indices& i) {
    PrimExpr v = x(i);
    return v->dtype == t ? v : PrimExpr(make<Cast>(t, v));
  }, "ax");
}

std::vector<Tensor> rmsNorm(Ctx& ctx) {
  auto x = ctx.arg(0), w = ctx.arg(1);
  if (!x || !w || !x->dtype().isFloat() || w->dtype() != x->dtype()) return {};
  size_t nd = x->ndim();
  std::vector<bool> red(nd, false);
  for (auto a : ops::attrInts(ctx.call, "axes")) {
    a = normAxis(a, nd);
    if (a < 0 || a >= int64_t(nd)) return {};
    red[a] = true;
  }
  DataType f32 = DataType::float32();
  double eps = ops::attrReal(ctx.call, "epsilon", 1e-5);
  // topi computes in float32 whatever the dtype, and casts the result back.
  Tensor xf = cast(ctx, *x, f32);
  Tensor sq = binary(ctx, "multiply", NodeKind::Mul, xf, xf);
  Tensor ss = sumOver(ctx, sq, red);
  PrimExpr n;
  std::vector<PrimExpr> keep;
  for (size_t d = 0; d < nd; ++d) {
    if (red[d]) n = n ? te::idxMul(n, x->shape()[d]) : x->shape()[d];
    else keep.push_back(x->shape()[d]);
  }
  PrimExpr cnt = countOf(n ? n : intImm(1), f32);
  Tensor rs = ctx.kb.compute("rsqrt", keep, f32, [&](const Indices& i) {
    return te::call("tir.rsqrt", f32, {te::bin(NodeKind::Add, te::bin(NodeKind::Div, ss(i), cnt), te::constant(eps, f32))});
  }, "ax");
  Tensor wf = cast(ctx, *w, f32);
  Tensor y = ctx.kb.compute("T_rms_norm", x->shape(), f32, [&](const Indices& i) {
    Indices kept, reduced;
    for (size_t d = 0; d < nd; ++d) (red[d] ? reduced : kept).push_back(i[d]);
    return te::bin(NodeKind::Mul, te::bin(NodeKind::Mul, rs(kept), xf(i)), wf(broadcastIndex(wf, reduced, std::vector<PrimExpr>(reduced.size(), intImm(0)))));
  }, "ax");
  return {cast(ctx, y, x->dtype())};
}

// topi's group_norm: channels split into (groups, C / groups), one tuple reduction of the sum and
// sum of squares over the group and `axes`, T_group_norm, and a reshape back; float16 in float32.
std::vector<Tensor> groupNorm(Ctx& ctx) {
  auto x = ctx.arg(0), gamma = ctx.arg(1), beta = ctx.arg(2);
  DataType f32 = DataType::float32();
  if (!x || !gamma || !beta || !x->dtype().isFloat() || x->dtype().bits > 32) return {};
  size_t nd = x->ndim();
  int64_t groups = ops::attrInt(ctx.call, "num_groups", 1), ch = normAxis(ops::attrInt(ctx.call, "channel_axis", 1), nd);
  if (ch < 0 || ch >= int64_t(nd) || groups < 1) return {};
  PrimExpr C = x->shape()[ch];
  PrimExpr groupSize = floordiv(C, intImm(groups));
  std::vector<PrimExpr> split;
  for (size_t d = 0; d < nd; ++d) {
    if (int64_t(d) == ch) split.push_back(intImm(groups)), split.push_back(groupSize);
    else split.push_back(x->shape()[d]);
  }
  std::vector<bool> red(nd + 1, false);
  red[ch + 1] = true;
  for (auto a : ops::attrInts(ctx.call, "axes")) {
    a = normAxis(a, nd);
    if (a < 0 || a >= int64_t(nd) || a == ch) return {};
    red[a < ch ? a : a + 1] = true;
  }
  bool half = x->dtype().bits == 16;
  Tensor xr = reshape(ctx, *x, split);
  if (half) xr = cast(ctx, xr, f32);
  Tensor gr = reshape(ctx, *gamma, {intImm(groups), groupSize}), br = reshape(ctx, *beta, {intImm(groups), groupSize});
  std::vector<PrimExpr> keep;
  std::vector<te::ReduceAxis> axes;
  PrimExpr n;
  for (size_t d = 0; d <= nd; ++d) {
    if (!red[d]) {
      keep.push_back(split[d]);
      continue;
    }
    axes.push_back(ctx.kb.reduceAxis(split[d], "k" + std::to_string(d)));
    n = n ? te::idxMul(n, split[d]) : split[d];
  }
  auto sums = ctx.kb.reduceTuple(x->buf->name + "_red_temp", keep, {f32, f32}, axes, {te::constant(0, f32), te::constant(0, f32)},
                                 [&](const Indices& s, const Indices& r, const std::vector<PrimExpr>& acc) -> std::vector<PrimExpr> {
                                   Indices idx;
                                   size_t si = 0, ri = 0;
                                   for (size_t d = 0; d <= nd; ++d) idx.push_back(red[d] ? r[ri++] : s[si++]);
                                   PrimExpr v = xr(idx);
                                   return {te::bin(NodeKind::Add, acc[0], v), te::bin(NodeKind::Add, acc[1], te::bin(NodeKind::Mul, v, v))};
                                 });
  PrimExpr cnt = countOf(n, f32);
  double eps = ops::attrReal(ctx.call, "epsilon", 1e-5);
  Tensor y = ctx.kb.compute("T_group_norm", split, x->dtype(), [&](const Indices& i) {
    Indices kept;
    for (size_t d = 0; d <= nd; ++d)
      if (!red[d]) kept.push_back(i[d]);
    PrimExpr mean = te::bin(NodeKind::Div, sums[0](kept), cnt);
    PrimExpr var = te::bin(NodeKind::Sub, te::bin(NodeKind::Div, sums[1](kept), cnt), te::bin(NodeKind::Mul, mean, mean));
    PrimExpr v = te::bin(NodeKind::Mul, te::bin(NodeKind::Sub, xr(i), mean), te::call("tir.rsqrt", f32, {te::bin(NodeKind::Add, var, te::constant(eps, f32))}));
    if (half) v = make<Cast>(x->dtype(), v);
    Indices gi = {i[ch], i[ch + 1]};
    return te::bin(NodeKind::Add, te::bin(NodeKind::Mul, v, gr(gi)), br(gi));
  }, "ax");
  return {reshape(ctx, y, x->shape())};
}

}  // namespace

void registerNormRules() {
  registerRule("relax.nn.group_norm", "group_norm", groupNorm);
  registerRule("relax.nn.batch_norm", "batch_norm", batchNorm);
  registerRule("relax.nn.rms_norm", "rms_norm", rmsNorm);
}

}  // namespace rlx::legalize
