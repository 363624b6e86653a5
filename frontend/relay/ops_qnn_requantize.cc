// qnn.requantize exactly as TVM v0.19's QNN canonicalization lowers it, so quantized Relay models
// import with their integer results unchanged:
//   q_out = clip(zp_out + FPM(int32(q) - zp_in), out_dtype)
// where FPM multiplies by in_scale / out_scale in fixed point: the ratio (of the float32 scales, in
// double) split by frexp into a Q31 significand m and a shift, then in int64
//   ((x << max(shift, 0)) * m + r) >> (31 + max(-shift, 0))
// with r = 2^(30 + rshift) (UPWARD, the fixed_point_multiply / q_multiply_shift op's generic
// lowering) or that minus one for negative products (TONEAREST). compute_dtype float32 / float64
// computes (q - zp_in) * ratio + zp_out in floats and rounds half up (UPWARD).
// qnn.add / qnn.subtract / qnn.mul are their canonicalizations on top of it: add and subtract
// requantize both inputs to the output's parameters (in int32) and fix up the zero point; mul
// multiplies the zero-point-shifted inputs and requantizes from the product of the scales; leaky_relu
// mixes the requantized input with its fixed-point alpha multiple. The fixed_point_multiply ops are
// the q_multiply_shift step itself.
#include <cmath>

#include "frontend/relay/ops.h"

namespace rlx::relay::ops {

namespace {

// TVM's GetFixedPointMultiplierShift: m in [2^30, 2^31) and the exponent, ratio = m * 2^(shift-31).
std::pair<int64_t, int64_t> fixedPointMultiplier(double ratio) {
  if (ratio == 0) return {0, 0};
  int exponent = 0;
  double significand = std::frexp(ratio, &exponent);
  int64_t m = int64_t(std::round(significand * double(1LL << 31)));
  if (m == (1LL << 31)) {
    m /= 2;
    ++exponent;
  }
  return {m, exponent};
}

// A per-channel vector laid along `axis` of a rank-`rank` tensor (Relay's ExpandBiasToMatchAxis).
RExpr alongAxis(OpCtx& c, const RExpr& v, int64_t axis, int64_t rank) {
  if (rank == 0) return v;
  std::vector<int64_t> shape(size_t(rank), 1);
  shape[size_t(axis)] = -1;
  return c.call("reshape", {ex(v), ints(shape)});
}

RExpr i64Const(OpCtx& c, const std::vector<int64_t>& v, int64_t axis, int64_t rank) {
  if (v.size() == 1) return scalarConst(double(v[0]), DataType::int64());
  return alongAxis(c, intsConst(v, {int64_t(v.size())}, DataType::int64()), axis, rank);
}

// A 1-D float constant of dtype t (the per-channel ratios, rounded to t as TVM's constant is).
RExpr floatsConst(const std::vector<double>& v, DataType t) {
  auto arr = make<NDArray>(t, std::vector<int64_t>{int64_t(v.size())});
  for (size_t k = 0; k < v.size(); ++k) arr->setDouble(int64_t(k), v[k]);
  auto k = make<Constant>(arr);
  k->sinfo = tensorSInfo({intImm(int64_t(v.size()))}, t);
  return k;
}

bool isZeroScalar(const RExpr& e) {
  auto k = e.as<Constant>();
  return k && k->data && k->data->shape.empty() && k->data->getDouble(0) == 0;
}

// ConvertDtype: clip to the quantized dtype's range and cast.
RExpr toQuantized(OpCtx& c, const RExpr& x, DataType t) {
  double lo = t.isUInt() ? 0 : -std::ldexp(1.0, t.bits - 1), hi = t.isUInt() ? std::ldexp(1.0, t.bits) - 1 : std::ldexp(1.0, t.bits - 1) - 1;
  PyValue plo, phi;
  plo.kind = phi.kind = PyValue::Prim;
  plo.prim = intImm(int64_t(lo), DataType::int32());
  phi.prim = intImm(int64_t(hi), DataType::int32());
  return astype(c, c.call("clip", {ex(x), plo, phi}), t);
}

}  // namespace

RExpr requantizeTo(OpCtx& c, const RExpr& data, const RExpr& inScale, const RExpr& inZp, const RExpr& outScale, const RExpr& outZp, int64_t axisAttr,
                   std::string rounding, std::string computeDtype, DataType outDtype) {
  if (rounding == "None" || rounding.empty()) rounding = "UPWARD";  // RequantizeConfig's defaults
  if (computeDtype == "None" || computeDtype.empty()) computeDtype = "int64";
  if (rounding != "UPWARD" && rounding != "TONEAREST") c.fail("rounding must be UPWARD or TONEAREST, but it is \"" + rounding + "\"");
  if (computeDtype != "int64" && computeDtype != "float32" && computeDtype != "float64") c.fail("compute_dtype must be int64, float32 or float64");
  if (computeDtype != "int64" && rounding == "TONEAREST")
    c.fail("TONEAREST in floating point rounds by the target (round() with SSE4.1, else half away from zero), so it has no single Relax form");
  auto ti = data && data->sinfo ? data->sinfo.as<TensorSInfo>() : nullptr;
  if (!ti || ti->ndim < 0) c.fail("the input's rank must be known");
  int64_t rank = ti->ndim;
  int64_t axis = rank == 0 ? 0 : axisAttr < 0 ? axisAttr + rank : axisAttr;
  if (rank > 0 && (axis < 0 || axis >= rank)) c.fail("axis " + std::to_string(axisAttr) + " is out of range");
  auto os = constDoubles(outScale);
  auto is = constDoubles(inScale);
  if (!os || os->size() != 1 || !is || is->empty()) c.fail("the scales must be constants (the fixed-point multiplier is computed from them)");
  if ((*os)[0] == 0) c.fail("the output scale must not be 0");
  bool perTensor = inScale.as<Constant>()->data->shape.empty();
  bool sameScale = perTensor && (*is)[0] == (*os)[0];
  bool fp = computeDtype != "int64";
  DataType work = computeDtype == "float64" ? DataType::float64() : fp ? DataType::float32() : DataType::int32();

  RExpr t = astype(c, data, work);
  if (!isZeroScalar(inZp)) t = c.call("subtract", {ex(t), ex(astype(c, alongAxis(c, c.call("reshape", {ex(inZp), ints({-1})}), axis, rank), work))});
  std::vector<double> ratios;
  for (double s : *is) ratios.push_back(s / (*os)[0]);
  if (fp) {
    if (!sameScale) {
      RExpr m = perTensor ? scalarConst(ratios[0], work) : alongAxis(c, floatsConst(ratios, work), axis, rank);
      t = perTensor ? c.call("multiply", {ex(m), ex(t)}) : c.call("multiply", {ex(t), ex(m)});
    }
    if (!isZeroScalar(outZp)) t = c.call("add", {ex(t), ex(astype(c, outZp, work))});
    // Upward: half rounds towards +inf, i.e. floor(x + 0.5).
    t = c.call("floor", {ex(c.call("add", {ex(t), ex(scalarConst(0.5, work))}))});
    t = astype(c, t, DataType::int32());
  } else {
    if (!sameScale) {
      std::vector<int64_t> ms, ls, rs, pos, neg;
      bool anyLeft = false;
      for (double r : ratios) {
        auto [m, shift] = fixedPointMultiplier(r);
        int64_t l = shift > 0 ? shift : 0, rr = shift > 0 ? 0 : -shift;
        if (rr > 31) c.fail("a scale ratio below 2^-32 shifts every bit out");
        anyLeft |= l != 0;
        ms.push_back(m), ls.push_back(l), rs.push_back(31 + rr);
        pos.push_back(int64_t(1) << (30 + rr));
        neg.push_back((int64_t(1) << (30 + rr)) - 1);
      }
      RExpr x = astype(c, t, DataType::int64());
      if (anyLeft) x = c.call("left_shift", {ex(x), ex(i64Const(c, ls, axis, rank))});
      x = c.call("multiply", {ex(x), ex(i64Const(c, ms, axis, rank))});
      RExpr round = i64Const(c, pos, axis, rank);
      if (rounding == "TONEAREST")
        round = c.call("where", {ex(c.call("greater_equal", {ex(x), ex(scalarConst(0, DataType::int64()))})), ex(round), ex(i64Const(c, neg, axis, rank))});
      x = c.call("add", {ex(x), ex(round)});
      x = c.call("right_shift", {ex(x), ex(i64Const(c, rs, axis, rank))});
      t = astype(c, x, DataType::int32());
    }
    if (!isZeroScalar(outZp)) t = c.call("add", {ex(astype(c, outZp, DataType::int32())), ex(t)});
  }
  if (outDtype == DataType::int32()) return t;
  return toQuantized(c, t, outDtype);
}

// qnn.requantize(data, input_scale, input_zero_point, output_scale, output_zero_point, axis,
// rounding, compute_dtype, out_dtype).
RExpr qnn_requantize(OpCtx& c) {
  c.expectArgs(5, 5);
  c.allowAttrs({"axis", "rounding", "compute_dtype", "out_dtype"});
  return requantizeTo(c, c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.i("axis", -1), c.s("rounding", "None"), c.s("compute_dtype", "None"),
                      c.dtypeAttr("out_dtype", DataType(DataType::Int, 8)));
}

namespace {

// Relay's IsEqualScalar: two constant scalars of one dtype and value.
bool equalScalars(const RExpr& a, const RExpr& b) {
  auto ka = a.as<Constant>(), kb = b.as<Constant>();
  if (!ka || !kb || !ka->data || !kb->data || !ka->data->shape.empty() || !kb->data->shape.empty()) return false;
  return ka->data->dtype == kb->data->dtype && ka->data->getDouble(0) == kb->data->getDouble(0);
}

bool isConstScalar(const RExpr& e) {
  auto k = e.as<Constant>();
  return k && k->data && k->data->shape.empty();
}

// RequantizeOrUpcast: the input in the output's parameters, as int32.
RExpr requantizeOrUpcast(OpCtx& c, size_t x, size_t scale, size_t zp, int64_t axis) {
  if (equalScalars(c.arg(scale), c.arg(6)) && equalScalars(c.arg(zp), c.arg(7))) return astype(c, c.arg(x), DataType::int32());
  return requantizeTo(c, c.arg(x), c.arg(scale), c.arg(zp), c.arg(6), c.arg(7), axis, "None", "None", DataType::int32());
}

// qnn.add / qnn.subtract (lhs, rhs, lhs_scale, lhs_zp, rhs_scale, rhs_zp, out_scale, out_zp).
RExpr qnnAddSub(OpCtx& c, bool add) {
  c.expectArgs(8, 8);
  c.allowAttrs({"lhs_axis", "rhs_axis"});
  RExpr l = requantizeOrUpcast(c, 0, 2, 3, c.i("lhs_axis", -1));
  RExpr r = requantizeOrUpcast(c, 1, 4, 5, c.i("rhs_axis", -1));
  RExpr out = c.call(add ? "add" : "subtract", {ex(l), ex(r)});
  if (!isZeroScalar(c.arg(7))) out = c.call(add ? "subtract" : "add", {ex(out), ex(c.arg(7))});
  return toQuantized(c, out, c.dtype(0));
}

// The input minus its zero point in int32, the zero point laid along `axis` when it is a vector.
RExpr shiftedInput(OpCtx& c, size_t x, size_t zp, int64_t axisAttr, bool perChannel) {
  RExpr t = astype(c, c.arg(x), DataType::int32());
  if (isZeroScalar(c.arg(zp))) return t;
  if (!perChannel) return c.call("subtract", {ex(t), ex(c.arg(zp))});
  int64_t rank = c.ndim(0), axis = rank == 0 ? 0 : axisAttr < 0 ? axisAttr + rank : axisAttr;
  RExpr z = alongAxis(c, c.call("reshape", {ex(c.arg(zp)), ints({-1})}), axis, rank);
  return c.call("subtract", {ex(t), ex(astype(c, z, DataType::int32()))});
}

}  // namespace

RExpr qnn_add(OpCtx& c) { return qnnAddSub(c, true); }
RExpr qnn_subtract(OpCtx& c) { return qnnAddSub(c, false); }

// qnn.mul: (q_a - zp_a) * (q_b - zp_b) in int32, requantized from scale s_a * s_b (a float32 product,
// per channel a product of doubles rounded to float32) with zero point 0 to the output's.
RExpr qnn_mul(OpCtx& c) {
  c.expectArgs(8, 8);
  c.allowAttrs({"lhs_axis", "rhs_axis"});
  int64_t la = c.i("lhs_axis", -1), ra = c.i("rhs_axis", -1);
  DataType q = c.dtype(0);
  RExpr zero = scalarConst(0, DataType::int32());
  if (isConstScalar(c.arg(2)) && isConstScalar(c.arg(4))) {
    RExpr prod = c.call("multiply", {ex(shiftedInput(c, 0, 3, la, false)), ex(shiftedInput(c, 1, 5, ra, false))});
    float scale = static_cast<float>(*constScalar(c.arg(2))) * static_cast<float>(*constScalar(c.arg(4)));
    return requantizeTo(c, prod, scalarConst(double(scale), DataType::float32()), zero, c.arg(6), c.arg(7), -1, "None", "None", q);
  }
  if (la != ra) c.fail("per-channel scales on different axes (lhs_axis " + std::to_string(la) + ", rhs_axis " + std::to_string(ra) + ") are not supported by TVM either");
  auto sa = constDoubles(c.arg(2)), sb = constDoubles(c.arg(4));
  if (!sa || !sb || sa->size() != sb->size()) c.fail("per-channel scales must be constants of one length");
  RExpr prod = c.call("multiply", {ex(shiftedInput(c, 0, 3, la, true)), ex(shiftedInput(c, 1, 5, ra, true))});
  std::vector<double> scales;
  for (size_t k = 0; k < sa->size(); ++k) scales.push_back((*sa)[k] * (*sb)[k]);
  return requantizeTo(c, prod, floatsConst(scales, DataType::float32()), zero, c.arg(6), c.arg(7), la, "None", "None", q);
}

namespace {

// q_multiply_shift(x, m, 31, shift) on int32 x: ((x << l) * m + 2^(30 + r)) >> (31 + r) in int64.
RExpr multiplyShift(OpCtx& c, const RExpr& x32, int64_t m, int64_t shift) {
  int64_t l = shift > 0 ? shift : 0, r = shift > 0 ? 0 : -shift;
  if (r + 31 > 62) c.fail("a right shift of " + std::to_string(r) + " leaves no bits");
  RExpr x = astype(c, x32, DataType::int64());
  if (l) x = c.call("left_shift", {ex(x), ex(scalarConst(double(l), DataType::int64()))});
  x = c.call("multiply", {ex(x), ex(scalarConst(double(m), DataType::int64()))});
  x = c.call("add", {ex(x), ex(scalarConst(double(int64_t(1) << (30 + r)), DataType::int64()))});
  x = c.call("right_shift", {ex(x), ex(scalarConst(double(31 + r), DataType::int64()))});
  return astype(c, x, DataType::int32());
}

}  // namespace

// fixed_point_multiply(x, multiplier, shift): TOPI's q_multiply_shift(x, multiplier, 31, shift),
// whose generic lowering is the UPWARD fixed-point multiply above on int32 x.
RExpr fixed_point_multiply(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"multiplier", "shift"});
  if (c.dtype(0) != DataType::int32()) c.fail("expects int32 data (q_multiply_shift's)");
  return multiplyShift(c, c.arg(0), c.i("multiplier", 0), c.i("shift", 0));
}

// qnn.leaky_relu(x, in_scale, in_zp, out_scale, out_zp, alpha): with x' = x requantized to the
// output's parameters (int32), negative inputs (x < in_zp) give FPM(x', alpha) + FPM(out_zp,
// 1 - alpha), the rest x', clipped to x's dtype (TVM's canonicalization, FPM = q_multiply_shift).
RExpr qnn_leaky_relu(OpCtx& c) {
  c.expectArgs(5, 5);
  c.allowAttrs({"alpha"});
  double alpha = c.f("alpha", 0.01);
  RExpr x = astype(c, c.arg(0), DataType::int32());
  RExpr inZp = astype(c, c.arg(2), DataType::int32()), outZp = astype(c, c.arg(4), DataType::int32());
  RExpr requant = requantizeTo(c, x, c.arg(1), c.arg(2), c.arg(3), c.arg(4), -1, "None", "None", DataType::int32());
  auto [ma, sa] = fixedPointMultiplier(alpha);
  auto [mz, sz] = fixedPointMultiplier(1 - alpha);
  RExpr neg = c.call("add", {ex(multiplyShift(c, requant, ma, sa)), ex(multiplyShift(c, outZp, mz, sz))});
  RExpr out = c.call("where", {ex(c.call("less", {ex(x), ex(inZp)})), ex(neg), ex(requant)});
  return toQuantized(c, out, c.dtype(0));
}

// fixed_point_multiply_per_axis(x, multipliers, left_shifts, right_shifts, is_lshift_required,
// is_rshift_required, axes): the same per channel, the three vectors laid along `axes` (one axis).
RExpr fixed_point_multiply_per_axis(OpCtx& c) {
  c.expectArgs(4, 4);
  c.allowAttrs({"is_lshift_required", "is_rshift_required", "axes"});
  if (c.dtype(0) != DataType::int32()) c.fail("expects int32 data (q_multiply_shift_per_axis's)");
  std::vector<int64_t> axes = c.ints("axes");
  int64_t rank = c.ndim(0);
  if (axes.size() != 1) c.fail("supports one channel axis");
  int64_t axis = normAxis(c, axes[0], rank);
  auto along = [&](size_t k) { return astype(c, alongAxis(c, c.call("reshape", {ex(c.arg(k)), ints({-1})}), axis, rank), DataType::int64()); };
  RExpr x = astype(c, c.arg(0), DataType::int64());
  if (c.b("is_lshift_required", false)) x = c.call("left_shift", {ex(x), ex(along(2))});
  x = c.call("multiply", {ex(x), ex(along(1))});
  RExpr total = c.call("add", {ex(along(3)), ex(scalarConst(31, DataType::int64()))});
  RExpr round = c.call("left_shift", {ex(scalarConst(1, DataType::int64())), ex(c.call("subtract", {ex(total), ex(scalarConst(1, DataType::int64()))}))});
  x = c.call("right_shift", {ex(c.call("add", {ex(x), ex(round)})), ex(total)});
  return astype(c, x, DataType::int32());
}

}  // namespace rlx::relay::ops
