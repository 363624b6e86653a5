// Quantization ONNX ops composed from arithmetic: QuantizeLinear / DequantizeLinear (per tensor, per
// axis or blocked; integer, float8 and float4 quantized types), DynamicQuantizeLinear, and the
// integer ops MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv (integer accumulation, then
// one float rescale rounded half to even, as ONNX defines).
#include "frontend/onnx/converter.h"
#include "frontend/onnx/tensor.h"

namespace rlx::onnx {

namespace {

// A per-axis parameter (1-D, one value per slice of `axis`) reshaped to broadcast against a tensor
// of rank `rank`; scalars and single values stay as they are.
Expr alongAxis(NodeCtx& c, Expr p, int64_t axis, int64_t rank) {
  auto t = tensorInfo(p);
  if (!t || t->ndim != 1 || rank <= 1) return p;
  auto d = (*t->dims())[0].as<IntImm>();
  if (d && d->value == 1) return c.op("reshape", {ex(p), ex(shapeExpr({}))});
  axis = normAxis(axis, rank);
  std::vector<int64_t> axes;
  for (int64_t k = axis + 1; k < rank; ++k) axes.push_back(k - axis);
  return axes.empty() ? p : c.op("expand_dims", {ex(p)}, {{"axis", ints(axes)}});
}

// A scale or zero point for `x` (input 0): per tensor, per axis (alongAxis), or blocked (block_size
// > 0: the parameter has x's rank and `axis` holds ceil(dim / block_size) blocks; each is repeated
// over its block and the last one cut to x's dim).
Expr paramFor(NodeCtx& c, Expr p, int64_t axis, int64_t blockSize) {
  int64_t rank = c.ndim(0);
  auto t = tensorInfo(p);
  if (blockSize <= 0 || !t || t->ndim == 0) return alongAxis(c, p, axis, rank);
  if (t->ndim != rank) fail("a blocked quantization parameter must have the input's rank " + std::to_string(rank) + ", not " + std::to_string(t->ndim));
  axis = normAxis(axis, rank);
  auto dims = c.dims(0);
  auto d = dims[size_t(axis)].as<IntImm>();
  if (!d) fail("blocked quantization needs the input's size along axis " + std::to_string(axis));
  Expr r = c.op("repeat", {ex(p)}, {{"repeats", i(blockSize)}, {"axis", i(axis)}});
  auto rd = (*tensorInfo(r)->dims())[size_t(axis)].as<IntImm>();
  if (!rd || rd->value < d->value || rd->value - d->value >= blockSize)
    fail("blocked quantization: the parameter's " + (rd ? std::to_string(rd->value / blockSize) : std::string("?")) + " blocks of " + std::to_string(blockSize) +
         " do not cover the input's " + std::to_string(d->value) + " along axis " + std::to_string(axis));
  if (rd->value == d->value) return r;
  return c.op("strided_slice", {ex(r), ints({axis}), ints({0}), ints({d->value})});
}

std::pair<double, double> rangeOf(DataType t) {
  if (t.isBool()) return {0, 1};
  if (t.isUInt()) return {0, double((uint64_t(1) << t.bits) - 1)};
  return {-double(int64_t(1) << (t.bits - 1)), double((int64_t(1) << (t.bits - 1)) - 1)};
}

// round(v) + zp, clamped to `out`'s range and converted (v and zp in float32).
Expr saturate(NodeCtx& c, Expr v, Expr zp, DataType out) {
  DataType f32 = DataType::float32();
  Expr q = c.op("round", {ex(v)});
  if (zp) q = c.op("add", {ex(q), ex(zp)});
  auto [lo, hi] = rangeOf(out);
  q = c.op("minimum", {ex(c.op("maximum", {ex(q), ex(c.scalar(lo, f32))})), ex(c.scalar(hi, f32))});
  return c.cast(q, out);
}

DataType quantizedType(NodeCtx& c, size_t zpInput) {
  if (c.has(zpInput)) return c.dtype(zpInput);
  if (c.hasAttr("output_dtype")) {
    auto t = dtypeOf(int32_t(c.i("output_dtype", 2)));
    if (!t) fail(t.error().message);
    return *t;
  }
  return DataType(DataType::UInt, 8);
}

// (x - zp) as int32 (zp absent = 0).
Expr centered(NodeCtx& c, size_t x, size_t zp, int64_t axis) {
  Expr v = c.cast(c.x(x), DataType::int32());
  if (!c.has(zp)) return v;
  return c.op("subtract", {ex(v), ex(c.cast(alongAxis(c, c.x(zp), axis, c.ndim(x)), DataType::int32()))});
}

}  // namespace

void registerQuantizeConverters() {
  onnxOp("QuantizeLinear", {10, 13, 19, 21, 23, 24, 25}, [](NodeCtx& c) -> Outputs {
    DataType out = quantizedType(c, 2);
    if (!out.isIntegral() && !out.isMiniFloat()) fail("quantizing to " + out.str() + " is not supported");
    if (out.code == DataType::Float8E8M0FNU) fail("ONNX has no quantization to float8_e8m0fnu");
    int64_t axis = c.i("axis", 1), block = c.i("block_size", 0);
    DataType f32 = DataType::float32();
    Expr v = c.op("divide", {ex(c.cast(c.x(0), f32)), ex(c.cast(paramFor(c, c.x(1), axis, block), f32))});
    Expr zp = c.has(2) ? c.cast(paramFor(c, c.x(2), axis, block), f32) : Expr();
    if (out.isIntegral()) return {{saturate(c, v, zp, out)}};
    // float8 and float4: x / scale + zero point (which ONNX requires to be 0 for float8), then
    // Cast's conversion; saturate applies to float8 (float4 always saturates).
    if (zp) v = c.op("add", {ex(v), ex(zp)});
    return {{castAs(c, v, out, c.i("saturate", 1) != 0)}};
  });
  onnxOp("DequantizeLinear", {10, 13, 19, 21, 23, 24, 25}, [](NodeCtx& c) -> Outputs {
    DataType in = c.dtype(0);
    if (!in.isIntegral() && !in.isMiniFloat()) fail("dequantizing " + in.str() + " is not supported");
    int64_t axis = c.i("axis", 1), block = c.i("block_size", 0);
    DataType t = c.dtype(1);
    if (c.hasAttr("output_dtype") && c.i("output_dtype", 0) != 0) {
      auto od = dtypeOf(int32_t(c.i("output_dtype", 0)));
      if (!od) fail(od.error().message);
      t = *od;
    }
    DataType f32 = DataType::float32();
    Expr v = c.cast(c.x(0), f32);
    // A float8 zero point must be 0 and float4's is ignored (as ONNX's reference): only integer
    // types subtract theirs.
    if (c.has(2) && in.isIntegral()) v = c.op("subtract", {ex(v), ex(c.cast(paramFor(c, c.x(2), axis, block), f32))});
    Expr y = c.op("multiply", {ex(v), ex(c.cast(paramFor(c, c.x(1), axis, block), f32))});
    return {{c.cast(y, t)}};
  });
  onnxOp("DynamicQuantizeLinear", {11}, [](NodeCtx& c) -> Outputs {
    // scale = (max(0, max x) - min(0, min x)) / 255; zp = saturate(round(-min(0, min x) / scale)).
    DataType f32 = DataType::float32(), u8 = DataType(DataType::UInt, 8);
    Expr x = c.x(0);
    Expr hi = c.op("maximum", {ex(c.op("max", {ex(x)})), ex(c.scalar(0, f32))});
    Expr lo = c.op("minimum", {ex(c.op("min", {ex(x)})), ex(c.scalar(0, f32))});
    Expr scale = c.op("divide", {ex(c.op("subtract", {ex(hi), ex(lo)})), ex(c.scalar(255, f32))});
    Expr zp = saturate(c, c.op("divide", {ex(c.op("negative", {ex(lo)})), ex(scale)}), Expr(), u8);
    Expr y = saturate(c, c.op("divide", {ex(x), ex(scale)}), c.cast(zp, f32), u8);
    return {{y}, {scale}, {zp}};
  });
  onnxOp("MatMulInteger", {10}, [](NodeCtx& c) -> Outputs {
    // b's zero point is per column (the last axis).
    Expr a = centered(c, 0, 2, 0), b = centered(c, 1, 3, -1);
    return {{c.op("matmul", {ex(a), ex(b)})}};
  });
  onnxOp("QLinearMatMul", {10, 21}, [](NodeCtx& c) -> Outputs {
    DataType f32 = DataType::float32();
    Expr acc = c.op("matmul", {ex(centered(c, 0, 2, 0)), ex(centered(c, 3, 5, -1))});
    Expr k = c.op("divide", {ex(c.op("multiply", {ex(c.cast(c.x(1), f32)), ex(c.cast(c.x(4), f32))})), ex(c.cast(c.x(6), f32))});
    Expr v = c.op("multiply", {ex(c.cast(acc, f32)), ex(k)});
    return {{saturate(c, v, c.cast(c.x(7), f32), c.dtype(7))}};
  });
  auto integerConv = [](NodeCtx& c, Expr x, Expr w) {
    auto in = c.dims(0);
    size_t n = in.size() - 2;
    if (n != 2) fail("only 2-D integer convolutions are supported");
    if (c.s("auto_pad", "NOTSET") != "NOTSET") fail("auto_pad is not supported for integer convolutions");
    auto strides = c.ints("strides", n, 1), dil = c.ints("dilations", n, 1);
    auto pads = c.ints("pads", 2 * n, 0);
    return c.op("nn.conv2d", {ex(x), ex(w)},
                {{"strides", ints(strides)}, {"padding", ints(pads)}, {"dilation", ints(dil)}, {"groups", i(c.i("group", 1))}, {"data_layout", s("NCHW")},
                 {"kernel_layout", s("OIHW")}, {"out_dtype", s("int32")}});
  };
  onnxOp("ConvInteger", {10}, [integerConv](NodeCtx& c) -> Outputs {
    // The input zero point is per tensor; the weight's is per output channel (axis 0).
    return {{integerConv(c, centered(c, 0, 2, 1), centered(c, 1, 3, 0))}};
  });
  onnxOp("QLinearConv", {10}, [integerConv](NodeCtx& c) -> Outputs {
    DataType f32 = DataType::float32();
    Expr acc = integerConv(c, centered(c, 0, 2, 1), centered(c, 3, 5, 0));
    if (c.has(8)) {
      std::vector<int64_t> axes = {1, 2};
      acc = c.op("add", {ex(acc), ex(c.op("expand_dims", {ex(c.cast(c.x(8), DataType::int32()))}, {{"axis", ints(axes)}}))});
    }
    Expr wScale = alongAxis(c, c.x(4), 0, 4);
    auto ws = tensorInfo(c.x(4));
    if (ws && ws->ndim == 1) wScale = c.op("expand_dims", {ex(c.x(4))}, {{"axis", ints({1, 2})}});
    Expr k = c.op("divide", {ex(c.op("multiply", {ex(c.cast(c.x(1), f32)), ex(c.cast(wScale, f32))})), ex(c.cast(c.x(6), f32))});
    Expr v = c.op("multiply", {ex(c.cast(acc, f32)), ex(k)});
    return {{saturate(c, v, c.cast(c.x(7), f32), c.dtype(7))}};
  });
}

}  // namespace rlx::onnx
