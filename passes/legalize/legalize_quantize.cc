// Legalization of quantize / dequantize as TVM's qdq legalizer computes them: one `quantized` or
// `dequantized` block; scale and zero point scalar constants, singletons or per-axis vectors.
#include "ir/ops/infer_util.h"
#include "passes/legalize/legalize.h"

namespace rlx::legalize {

namespace {

using te::Indices;
using te::Tensor;

// A quantization parameter as the kernel reads it: a folded 0-d constant, a tensor whose dims are
// all 1 (element 0), or a 1-D tensor indexed along the quantization axis.
struct QParam {
  PrimExpr scalar;
  std::optional<Tensor> tensor;
  bool singleton = false;

  PrimExpr at(const Indices& i, size_t axis) const {
    if (scalar) return scalar;
    if (singleton) return (*tensor)(Indices(tensor->ndim(), intImm(0)));
    return (*tensor)({i[axis]});
  }
};

std::optional<QParam> qparam(Ctx& ctx, size_t arg) {
  QParam q;
  if ((q.scalar = ctx.scalarConst(ctx.call.args[arg]))) return q;
  q.tensor = ctx.arg(arg);
  if (!q.tensor) return std::nullopt;
  q.singleton = true;
  for (auto& d : q.tensor->shape()) {
    auto k = asIntImm(d);
    q.singleton = q.singleton && k && k->value == 1;
  }
  if (!q.singleton && q.tensor->ndim() != 1) return std::nullopt;
  return q;
}

PrimExpr castTo(DataType t, const PrimExpr& v) {
  if (v->dtype == t) return v;
  if (auto f = v.as<FloatImm>()) return te::constant(f->value, t);
  if (auto i = asIntImm(v)) return te::constant(double(i->value), t);
  return make<Cast>(t, v);
}

// The axis attr normalized against `ndim` (ndim itself when out of range).
size_t quantAxis(const Ctx& ctx, size_t ndim) {
  int64_t a = ops::attrInt(ctx.call, "axis", -1);
  if (a < 0) a += int64_t(ndim);
  return a < 0 || a >= int64_t(ndim) ? ndim : size_t(a);
}

// TVM's clip_cast: the value clamped to the range of `t` (bounds in the value's dtype), then cast.
PrimExpr clipCast(const PrimExpr& v, DataType t) {
  PrimExpr hi = castTo(v->dtype, te::identity(te::Combiner::Min, t)), lo = castTo(v->dtype, te::identity(te::Combiner::Max, t));
  return make<Cast>(t, te::bin(NodeKind::Max, te::bin(NodeKind::Min, v, hi), lo));
}

// out = clip(round(x / scale) + zero_point) in the data's dtype; float out dtypes skip the rounding.
std::vector<Tensor> quantize(Ctx& ctx) {
  auto x = ctx.arg(0);
  auto scale = qparam(ctx, 1), zp = qparam(ctx, 2);
  if (!x || !scale || !zp || !x->dtype().isFloat() || x->ndim() == 0) return {};
  size_t axis = quantAxis(ctx, x->ndim());
  if (axis >= x->ndim()) return {};
  DataType t = x->dtype(), out = ctx.outDtype();
  return {ctx.kb.compute("quantized", x->shape(), out, [&](const Indices& i) {
    PrimExpr scaled = te::bin(NodeKind::Div, (*x)(i), castTo(t, scale->at(i, axis)));
    if (!out.isFloat()) scaled = te::call("tir.round", t, {scaled});
    return clipCast(te::bin(NodeKind::Add, scaled, castTo(t, zp->at(i, axis))), out);
  })};
}

// out = (x - zero_point) * scale: the difference in int32 (float32 for float data), the product in
// float32, clamped to the out dtype's range unless that is float32.
std::vector<Tensor> dequantize(Ctx& ctx) {
  auto x = ctx.arg(0);
  auto scale = qparam(ctx, 1), zp = qparam(ctx, 2);
  if (!x || !scale || !zp || x->ndim() == 0) return {};
  size_t axis = quantAxis(ctx, x->ndim());
  if (axis >= x->ndim()) return {};
  DataType out = ctx.outDtype(), f32 = DataType::float32();
  DataType work = x->dtype().isFloat() ? f32 : DataType::int32();
  return {ctx.kb.compute("dequantized", x->shape(), out, [&](const Indices& i) {
    PrimExpr diff = te::bin(NodeKind::Sub, castTo(work, (*x)(i)), castTo(work, zp->at(i, axis)));
    PrimExpr v = te::bin(NodeKind::Mul, castTo(f32, diff), castTo(f32, scale->at(i, axis)));
    return out == f32 ? v : clipCast(v, out);
  })};
}

}  // namespace

void registerQuantizeRules() {
  registerRule("relax.quantize", "quantize", quantize);
  registerRule("relax.dequantize", "dequantize", dequantize);
}

}  // namespace rlx::legalize
