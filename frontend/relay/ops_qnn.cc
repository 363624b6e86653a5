// Relay's QNN compute ops where TVM's own canonicalization has an exact Relax form:
//   - the unary ops (tanh, exp, ...) are defined as dequantize -> float op -> quantize to the
//     input's dtype (QNN_UNARY_OP_DEFAULT_CANONICALIZATION);
//   - dense / batch_matmul / conv2d / conv2d_transpose accumulate (q_x - zp_x) * (q_w - zp_w) in the
//     integer out_dtype (TVM expands the product into four terms; the sum is the same integer), so
//     they are the float op's Relax twin on zero-point-shifted int32 operands;
//   - concatenate requantizes the inputs whose parameters differ from the output's, then concats.
// qnn.requantize and the ops built on it (add, subtract, mul) are in ops_qnn_requantize.cc.
#include "frontend/relay/ops.h"

namespace rlx::relay::ops {

namespace {

// qnn.<op>(x, scale, zero_point, output_scale, output_zero_point).
RExpr qnnUnary(OpCtx& c, const char* name) {
  c.expectArgs(5, 5);
  c.allowAttrs({});
  DataType q = c.dtype(0);
  RExpr x = c.call("dequantize", {ex(c.arg(0)), ex(c.arg(1)), ex(c.arg(2))}, {{"axis", i(-1)}, {"out_dtype", s("float32")}});
  RExpr y;
  if (std::string(name) == "hardswish") {
    // Relay's Hardswish pattern: x * clip(x + 3, 0, 6) / 6, in that order.
    RExpr t = c.call("add", {ex(x), ex(scalarConst(3, DataType::float32()))});
    PyValue lo, hi;
    lo.kind = hi.kind = PyValue::Prim;
    lo.prim = floatImm(0, DataType::float32());
    hi.prim = floatImm(6, DataType::float32());
    t = c.call("clip", {ex(t), lo, hi});
    y = c.call("divide", {ex(c.call("multiply", {ex(x), ex(t)})), ex(scalarConst(6, DataType::float32()))});
  } else {
    y = c.call(name, {ex(x)});
  }
  return c.call("quantize", {ex(y), ex(c.arg(3)), ex(c.arg(4))}, {{"axis", i(-1)}, {"out_dtype", s(q.str())}});
}

// int32(q) - zp, the zero point broadcast along `axis` of q when it is a per-channel vector.
RExpr shifted(OpCtx& c, size_t arg, size_t zpArg, int64_t axis) {
  RExpr q = astype(c, c.arg(arg), DataType::int32());
  RExpr zp = astype(c, c.arg(zpArg), DataType::int32());
  int zr = c.ndim(zpArg);
  if (zr > 1) c.fail("zero points must be scalars or vectors");
  if (zr == 1) {
    auto n = asIntImm(c.dims(zpArg)[0]);
    if (!n || n->value != 1) {
      if (axis < 0) c.fail("a per-channel zero point is only supported for the weight's output channels");
      std::vector<int64_t> shape(size_t(c.ndim(arg)), 1);
      shape[size_t(axis)] = -1;
      zp = c.call("reshape", {ex(zp), ints(shape)});
    }
  }
  return c.call("subtract", {ex(q), ex(zp)});
}

// The integer op on shifted operands: args (x, w, x_zp, w_zp, x_scale, w_scale).
RExpr qnnIntegerOp(OpCtx& c, Converter fn, int64_t weightChannelAxis) {
  c.expectArgs(6, 6);
  return c.convertAs(fn, {shifted(c, 0, 2, -1), shifted(c, 1, 3, weightChannelAxis)}, c.attrs());
}

// The output-channel axis of a conv kernel layout ("OIHW", "HWIO", "IOHW", ...).
int64_t kernelOAxis(OpCtx& c, const char* def) {
  std::string layout = c.s("kernel_layout", def);
  auto pos = layout.find('O');
  if (pos == std::string::npos) c.fail("kernel_layout \"" + layout + "\" has no O axis");
  return int64_t(pos);
}

}  // namespace

RExpr qnn_abs(OpCtx& c) { return qnnUnary(c, "abs"); }
RExpr qnn_erf(OpCtx& c) { return qnnUnary(c, "erf"); }
RExpr qnn_exp(OpCtx& c) { return qnnUnary(c, "exp"); }
RExpr qnn_hardswish(OpCtx& c) { return qnnUnary(c, "hardswish"); }
RExpr qnn_log(OpCtx& c) { return qnnUnary(c, "log"); }
RExpr qnn_rsqrt(OpCtx& c) { return qnnUnary(c, "rsqrt"); }
RExpr qnn_sigmoid(OpCtx& c) { return qnnUnary(c, "sigmoid"); }
RExpr qnn_sqrt(OpCtx& c) { return qnnUnary(c, "sqrt"); }
RExpr qnn_tanh(OpCtx& c) { return qnnUnary(c, "tanh"); }

// qnn.dense(x, w (units, k), ...): w's zero point may be per unit (axis 0).
RExpr qnn_dense(OpCtx& c) { return qnnIntegerOp(c, dense, 0); }
RExpr qnn_batch_matmul(OpCtx& c) { return qnnIntegerOp(c, batch_matmul, -1); }
RExpr qnn_conv2d(OpCtx& c) { return qnnIntegerOp(c, conv2d, kernelOAxis(c, "OIHW")); }
RExpr qnn_conv2d_transpose(OpCtx& c) { return qnnIntegerOp(c, conv2d_transpose, kernelOAxis(c, "IOHW")); }

// qnn.concatenate((x...), (scales...), (zero_points...), output_scale, output_zero_point, axis):
// each input whose scale or zero point is not the output's (as constant scalars) is requantized to
// the output's parameters in its own dtype, then all are concatenated.
RExpr qnn_concatenate(OpCtx& c) {
  c.expectArgs(5, 5);
  c.allowAttrs({"axis"});
  std::vector<RExpr> data = tupleFields(c, 0, "the inputs"), scales = tupleFields(c, 1, "the input scales"), zps = tupleFields(c, 2, "the input zero points");
  if (scales.size() != data.size() || zps.size() != data.size()) c.fail("needs one scale and one zero point per input");
  auto sameScalar = [](const RExpr& a, const RExpr& b) {
    auto ka = a.as<Constant>(), kb = b.as<Constant>();
    return ka && kb && ka->data && kb->data && ka->data->shape.empty() && kb->data->shape.empty() && ka->data->dtype == kb->data->dtype &&
           ka->data->getDouble(0) == kb->data->getDouble(0);
  };
  std::vector<rlx::Expr> parts;
  for (size_t k = 0; k < data.size(); ++k) {
    if (sameScalar(scales[k], c.arg(3)) && sameScalar(zps[k], c.arg(4))) {
      parts.push_back(data[k]);
      continue;
    }
    parts.push_back(requantizeTo(c, data[k], scales[k], zps[k], c.arg(3), c.arg(4), -1, "None", "None", dtypeOf(data[k])));
  }
  return c.call("concat", {ex(c.emit(make<Tuple>(std::move(parts))))}, {{"axis", i(c.i("axis", 0))}});
}

}  // namespace rlx::relay::ops
