// Relay's QNN quantize / dequantize: Relax v0.23 has both with the same formula
// (clip(round(x / scale) + zero_point) and (q - zero_point) * scale) and the same attributes.
#include "frontend/relay/ops.h"

namespace rlx::relay::ops {

RExpr quantize(OpCtx& c) {
  c.expectArgs(3, 3);
  c.allowAttrs({"axis", "out_dtype"});
  return c.call("quantize", {ex(c.arg(0)), ex(c.arg(1)), ex(c.arg(2))}, {{"axis", i(c.i("axis", -1))}, {"out_dtype", s(c.dtypeAttr("out_dtype", DataType(DataType::Int, 8)).str())}});
}

RExpr dequantize(OpCtx& c) {
  c.expectArgs(3, 3);
  c.allowAttrs({"axis", "out_dtype"});
  return c.call("dequantize", {ex(c.arg(0)), ex(c.arg(1)), ex(c.arg(2))}, {{"axis", i(c.i("axis", -1))}, {"out_dtype", s(c.dtypeAttr("out_dtype", DataType::float32()).str())}});
}

}  // namespace rlx::relay::ops
