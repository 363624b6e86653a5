// Neural-network ONNX ops: Conv/ConvTranspose (auto_pad, groups, dilations), pooling (MaxPool,
// AveragePool, global pools), normalizations (BatchNormalization in inference, Instance/Layer/
// Group/MeanVariance normalization, LRN) and Dropout (inference: identity).
#include <limits>

#include "frontend/onnx/converter.h"
#include "ir/arith.h"

namespace rlx::onnx {

namespace {

std::vector<int64_t> spatialDims(NodeCtx& c, size_t input) {
  std::vector<int64_t> out;
  auto d = c.dims(input);
  for (size_t k = 2; k < d.size(); ++k) {
    auto imm = d[k].as<IntImm>();
    if (!imm) fail("symbolic spatial dims are not supported");
    out.push_back(imm->value);
  }
  return out;
}

const char* layoutOf(size_t n) { return n == 1 ? "NCW" : n == 2 ? "NCHW" : "NCDHW"; }
const char* kernelLayoutOf(size_t n) { return n == 1 ? "OIW" : n == 2 ? "OIHW" : "OIDHW"; }

// The bias of a conv: reshaped to (1, C, 1, ...) and added.
Expr addChannelBias(NodeCtx& c, Expr y, Expr bias, size_t spatial) {
  auto t = tensorInfo(bias);
  if (!t || t->ndim != 1) fail("the bias must be a 1-D tensor");
  auto bd = t->dims();
  std::vector<PrimExpr> shape = {intImm(1), bd ? (*bd)[0] : intImm(-1)};
  for (size_t k = 0; k < spatial; ++k) shape.push_back(intImm(1));
  return c.op("add", {ex(y), ex(c.op("reshape", {ex(bias), ex(shapeExpr(shape))}))});
}

// A per-channel vector (C) reshaped to broadcast against an (N, C, ...) tensor of rank r.
Expr channelVector(NodeCtx& c, Expr v, int64_t r) {
  std::vector<int64_t> axes;
  for (int64_t k = 1; k + 1 < r; ++k) axes.push_back(k);
  if (axes.empty()) return v;
  return c.op("expand_dims", {ex(v)}, {{"axis", ints(axes)}});
}

// (x - mean) / sqrt(var + eps) over `axes` (kept), with mean and variance computed from x.
std::pair<Expr, Expr> standardize(NodeCtx& c, Expr x, const std::vector<int64_t>& axes, double eps, Expr* invStd = nullptr) {
  DataType t = tensorInfo(x)->dtype;
  Expr mean = c.op("mean", {ex(x)}, {{"axis", ints(axes)}, {"keepdims", b(true)}});
  Expr centered = c.op("subtract", {ex(x), ex(mean)});
  Expr var = c.op("mean", {ex(c.op("multiply", {ex(centered), ex(centered)}))}, {{"axis", ints(axes)}, {"keepdims", b(true)}});
  Expr inv = c.op("rsqrt", {ex(c.op("add", {ex(var), ex(c.scalar(eps, t))}))});
  if (invStd) *invStd = inv;
  return {c.op("multiply", {ex(centered), ex(inv)}), mean};
}


// MaxPool's Indices: the flat index into X of each window's first maximum (row-major, or with
// the spatial dims column-major for storage_order 1). Each window offset is a strided slice of
// X and of a constant index tensor, both padded (X with -inf); a running strict maximum keeps
// the first one in window order.
Expr maxPoolIndices(NodeCtx& c, const std::vector<int64_t>& kernel, const std::vector<int64_t>& strides, const std::vector<int64_t>& dil,
                    const std::vector<int64_t>& pads) {
  auto dims = c.dims(0);
  std::vector<int64_t> shape;
  for (auto& d : dims) {
    auto v = d.as<IntImm>();
    if (!v) fail("MaxPool's Indices need a shape known at import");
    shape.push_back(v->value);
  }
  size_t n = kernel.size(), r = shape.size();
  bool columnMajor = c.i("storage_order", 0) != 0;
  auto index = make<NDArray>(DataType::int64(), shape);
  int64_t spatial = 1;
  for (size_t k = 2; k < r; ++k) spatial *= shape[k];
  for (int64_t flat = 0; flat < index->numel(); ++flat) {
    int64_t rest = flat % spatial, at = flat - rest, stride = 1;
    if (columnMajor) {
      // The spatial position's coordinates, re-linearized with the first spatial dim fastest.
      std::vector<int64_t> coord(r, 0);
      for (size_t k = r; k-- > 2;) coord[k] = rest % shape[k], rest /= shape[k];
      for (size_t k = 2; k < r; ++k) at += coord[k] * stride, stride *= shape[k];
    } else {
      at += rest;
    }
    index->setInt(flat, at);
  }
  // Output size per spatial dim as the pool computes it; the end pad covers every window.
  bool ceil = c.i("ceil_mode", 0) != 0;
  std::vector<int64_t> out(n), width(2 * r, 0);
  for (size_t k = 0; k < n; ++k) {
    int64_t span = (kernel[k] - 1) * dil[k] + 1, room = shape[k + 2] + pads[k] + pads[k + n] - span;
    out[k] = (ceil ? (room + strides[k] - 1) / strides[k] : room / strides[k]) + 1;
    if (ceil && (out[k] - 1) * strides[k] >= shape[k + 2] + pads[k]) --out[k];
    width[2 * (k + 2)] = pads[k];
    width[2 * (k + 2) + 1] = std::max<int64_t>(pads[k + n], (out[k] - 1) * strides[k] + span - shape[k + 2] - pads[k]);
  }
  auto padded = [&](Expr e, double fill) { return c.op("nn.pad", {ex(e)}, {{"pad_width", ints(width)}, {"pad_value", f(fill)}, {"pad_mode", s("constant")}}); };
  Expr xs = padded(c.x(0), -std::numeric_limits<double>::infinity());
  Expr is = padded(c.constant(index), -1);
  Expr bestValue, bestIndex;
  std::vector<int64_t> offset(n, 0);
  for (bool more = true; more;) {
    std::vector<int64_t> axes, begin, end, step;
    for (size_t k = 0; k < n; ++k) {
      axes.push_back(int64_t(k + 2)), begin.push_back(offset[k] * dil[k]), step.push_back(strides[k]);
      end.push_back(offset[k] * dil[k] + (out[k] - 1) * strides[k] + 1);
    }
    auto window = [&](Expr e) { return c.op("strided_slice", {ex(e), ints(axes), ints(begin), ints(end), ints(step)}); };
    Expr v = window(xs), idx = window(is);
    if (!bestValue) {
      bestValue = v, bestIndex = idx;
    } else {
      Expr better = c.op("greater", {ex(v), ex(bestValue)});
      bestValue = c.op("where", {ex(better), ex(v), ex(bestValue)});
      bestIndex = c.op("where", {ex(better), ex(idx), ex(bestIndex)});
    }
    more = false;
    for (size_t k = n; k-- > 0;) {
      if (++offset[k] < kernel[k]) {
        more = true;
        break;
      }
      offset[k] = 0;
    }
  }
  return bestIndex;
}

// Relax has no conv3d_transpose: the 3-D case is the convolution it is the gradient of. The input
// gets stride - 1 zeros between its elements, dilation * (k - 1) - pad of padding each side (plus
// output_padding at the end; negative amounts crop), and is convolved at stride 1 with the kernel
// flipped in space and its (in, out) channels swapped within each group.
Expr convTranspose3d(NodeCtx& c, const std::vector<int64_t>& kernel, const std::vector<int64_t>& strides, const std::vector<int64_t>& pads,
                     const std::vector<int64_t>& outPad, const std::vector<int64_t>& dil, int64_t groups) {
  Expr x = c.x(0);
  for (size_t k = 0; k < 3; ++k) {
    int64_t axis = int64_t(k) + 2, s = strides[k];
    if (s == 1) continue;
    // (.., L, ..) -> (.., L, 1, ..) padded to (.., L, s, ..) -> (.., L * s, ..) -> first (L - 1) * s + 1.
    int64_t len = knownDim(tensorInfo(x)->dims()->at(size_t(axis)), "a spatial dim");
    Expr e = c.op("expand_dims", {ex(x)}, {{"axis", ints({axis + 1})}});
    std::vector<int64_t> padWidth(2 * 6, 0);
    padWidth[2 * size_t(axis + 1) + 1] = s - 1;
    e = c.op("nn.pad", {ex(e)}, {{"pad_width", ints(padWidth)}});
    std::vector<PrimExpr> merged = *tensorInfo(x)->dims();
    merged[size_t(axis)] = intImm(len * s);
    e = c.op("reshape", {ex(e), ex(shapeExpr(merged))});
    x = c.op("strided_slice", {ex(e), ints({axis}), ints({0}), ints({(len - 1) * s + 1}), ints({1})});
  }
  std::vector<int64_t> padWidth(10, 0);
  bool crop = false;
  for (size_t k = 0; k < 3; ++k) {
    int64_t reach = dil[k] * (kernel[k] - 1);
    padWidth[2 * (k + 2)] = reach - pads[k];
    padWidth[2 * (k + 2) + 1] = reach - pads[k + 3] + outPad[k];
    crop = crop || padWidth[2 * (k + 2)] < 0 || padWidth[2 * (k + 2) + 1] < 0;
  }
  if (crop) {
    // Padding larger than the kernel's reach: crop those sides first.
    std::vector<int64_t> axes, begin, end;
    for (size_t k = 0; k < 3; ++k) {
      int64_t lo = std::max<int64_t>(0, -padWidth[2 * (k + 2)]), hi = std::max<int64_t>(0, -padWidth[2 * (k + 2) + 1]);
      int64_t len = knownDim(tensorInfo(x)->dims()->at(k + 2), "a spatial dim");
      axes.push_back(int64_t(k) + 2), begin.push_back(lo), end.push_back(len - hi);
      padWidth[2 * (k + 2)] = std::max<int64_t>(0, padWidth[2 * (k + 2)]);
      padWidth[2 * (k + 2) + 1] = std::max<int64_t>(0, padWidth[2 * (k + 2) + 1]);
    }
    x = c.op("strided_slice", {ex(x), ints(axes), ints(begin), ints(end), ints({1, 1, 1})});
  }
  x = c.op("nn.pad", {ex(x)}, {{"pad_width", ints(padWidth)}});
  // W (C_in, C_out / g, k...) -> (C_out, C_in / g, k...) flipped in space.
  auto wd = c.dims(1);
  int64_t cin = knownDim(wd[0], "the weight's input channels"), coutG = knownDim(wd[1], "the weight's output channels");
  if (groups < 1 || cin % groups) fail("group must divide the input channels");
  std::vector<PrimExpr> grouped = {intImm(groups), intImm(cin / groups), intImm(coutG), wd[2], wd[3], wd[4]};
  Expr w = c.op("reshape", {ex(c.x(1)), ex(shapeExpr(grouped))});
  w = c.op("permute_dims", {ex(w)}, {{"axes", ints({0, 2, 1, 3, 4, 5})}});
  w = c.op("reshape", {ex(w), ex(shapeExpr({intImm(groups * coutG), intImm(cin / groups), wd[2], wd[3], wd[4]}))});
  for (int64_t axis : {2, 3, 4}) w = c.op("flip", {ex(w)}, {{"axis", i(axis)}});
  return c.op("nn.conv3d", {ex(x), ex(w)}, {{"strides", ints({1, 1, 1})}, {"padding", ints({0, 0, 0, 0, 0, 0})}, {"dilation", ints(dil)}, {"groups", i(groups)},
                                            {"data_layout", s("NCDHW")}, {"kernel_layout", s("OIDHW")}});
}

}  // namespace

// ONNX pads (all begins, then all ends) after auto_pad: SAME_UPPER/SAME_LOWER pad so that
// out = ceil(in / stride); VALID pads nothing.
std::vector<int64_t> padsOf(NodeCtx& c, const std::vector<int64_t>& in, const std::vector<int64_t>& kernel, const std::vector<int64_t>& strides,
                            const std::vector<int64_t>& dilations) {
  size_t n = in.size();
  for (size_t k = 0; k < n; ++k)
    if (strides[k] <= 0 || dilations[k] <= 0) fail("strides and dilations must be positive");
  std::string autoPad = c.s("auto_pad", "NOTSET");
  if (autoPad == "NOTSET") {
    return c.ints("pads", 2 * n, 0);
  }
  std::vector<int64_t> p(2 * n, 0);
  if (autoPad == "VALID") return p;
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER") fail("unknown auto_pad '" + autoPad + "'");
  for (size_t k = 0; k < n; ++k) {
    int64_t out = (in[k] + strides[k] - 1) / strides[k];
    int64_t total = std::max<int64_t>(0, (out - 1) * strides[k] + (kernel[k] - 1) * dilations[k] + 1 - in[k]);
    int64_t small = total / 2, big = total - small;
    p[k] = autoPad == "SAME_UPPER" ? small : big;
    p[k + n] = autoPad == "SAME_UPPER" ? big : small;
  }
  return p;
}

void registerNNConverters() {
  onnxOp("Conv", {}, [](NodeCtx& c) -> Outputs {
    auto in = spatialDims(c, 0), kernel = spatialDims(c, 1);
    size_t n = in.size();
    if (kernel.size() != n) fail("the weight has " + std::to_string(kernel.size()) + " spatial dims, the input " + std::to_string(n));
    if (n < 1 || n > 3) fail("only 1-D, 2-D and 3-D convolutions are supported");
    auto strides = c.ints("strides", n, 1), dil = c.ints("dilations", n, 1);
    auto pads = padsOf(c, in, kernel, strides, dil);
    std::string op = "nn.conv" + std::to_string(n) + "d";
    Expr y = c.op(op, {ex(c.x(0)), ex(c.x(1))},
                  {{"strides", ints(strides)}, {"padding", ints(pads)}, {"dilation", ints(dil)}, {"groups", i(c.i("group", 1))},
                   {"data_layout", s(layoutOf(n))}, {"kernel_layout", s(kernelLayoutOf(n))}});
    if (c.has(2)) y = addChannelBias(c, y, c.x(2), n);
    return {{y}};
  });
  onnxOp("ConvTranspose", {}, [](NodeCtx& c) -> Outputs {
    auto in = spatialDims(c, 0), kernel = spatialDims(c, 1);
    size_t n = in.size();
    if (kernel.size() != n) fail("the weight has " + std::to_string(kernel.size()) + " spatial dims, the input " + std::to_string(n));
    if (n < 1 || n > 3) fail("only 1-D, 2-D and 3-D transposed convolutions are supported");
    auto strides = c.ints("strides", n, 1), dil = c.ints("dilations", n, 1);
    auto outPad = c.ints("output_padding", n, 0);
    std::vector<int64_t> pads(2 * n, 0);
    auto outShape = c.ints("output_shape");
    if (!outShape.empty() && outShape.size() < n) fail("output_shape has " + std::to_string(outShape.size()) + " values, expected at least " + std::to_string(n));
    std::string autoPad = c.s("auto_pad", "NOTSET");
    if (!outShape.empty() || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      // Total padding from the requested output size (output_shape, or in * stride for SAME_*).
      for (size_t k = 0; k < n; ++k) {
        int64_t want = outShape.empty() ? in[k] * strides[k] : outShape[outShape.size() - n + k];
        int64_t total = strides[k] * (in[k] - 1) + outPad[k] + ((kernel[k] - 1) * dil[k] + 1) - want;
        if (total < 0) {
          outPad[k] -= total;  // the output must grow: extra output padding
          total = 0;
        }
        int64_t half = total / 2;
        bool upper = autoPad == "SAME_UPPER";  // output_shape without auto_pad splits as SAME_LOWER does
        pads[k] = upper ? half : total - half;
        pads[k + n] = upper ? total - half : half;
      }
    } else if (autoPad == "NOTSET") {
      pads = c.ints("pads", 2 * n, 0);
    }
    if (n == 3) {
      Expr y = convTranspose3d(c, kernel, strides, pads, outPad, dil, c.i("group", 1));
      if (c.has(2)) y = addChannelBias(c, y, c.x(2), n);
      return {{y}};
    }
    std::string op = "nn.conv" + std::to_string(n) + "d_transpose";
    Expr y = c.op(op, {ex(c.x(0)), ex(c.x(1))},
                  {{"strides", ints(strides)}, {"padding", ints(pads)}, {"output_padding", ints(outPad)}, {"dilation", ints(dil)}, {"groups", i(c.i("group", 1))},
                   {"data_layout", s(layoutOf(n))}, {"kernel_layout", s(n == 1 ? "IOW" : "IOHW")}});
    if (c.has(2)) y = addChannelBias(c, y, c.x(2), n);
    return {{y}};
  });
  for (bool isMax : {true, false}) {
    onnxOp(isMax ? "MaxPool" : "AveragePool", {}, [isMax](NodeCtx& c) -> Outputs {
      auto in = spatialDims(c, 0);
      size_t n = in.size();
      auto kernel = c.ints("kernel_shape");
      if (kernel.size() != n) fail("kernel_shape must have " + std::to_string(n) + " values");
      auto strides = c.ints("strides", n, 1), dil = c.ints("dilations", n, 1);
      auto pads = padsOf(c, in, kernel, strides, dil);
      bool ceil = c.i("ceil_mode", 0) != 0;
      if (ceil) {
        // ONNX drops a last window that would start in the end padding; TVM's ceil_mode keeps
        // it. Where that happens, floor mode gives the same windows (in every dim: a dim that
        // keeps its ceil window gets the end padding that floor mode needs to reach it).
        bool drops = false;
        std::vector<int64_t> floorPads = pads;
        for (size_t k = 0; k < n; ++k) {
          int64_t span = (kernel[k] - 1) * dil[k] + 1, room = in[k] + pads[k] + pads[k + n] - span;
          int64_t up = (room + strides[k] - 1) / strides[k] + 1, down = room / strides[k] + 1;
          int64_t want = (up - 1) * strides[k] >= in[k] + pads[k] ? up - 1 : up;
          drops |= want != up;
          if (want != down) floorPads[k + n] += (want - 1) * strides[k] - room;
        }
        if (drops && (isMax || !c.i("count_include_pad", 0) || floorPads == pads)) ceil = false, pads = floorPads;
      }
      std::string op = std::string("nn.") + (isMax ? "max" : "avg") + "_pool" + std::to_string(n) + "d";
      Expr y = c.op(op, {ex(c.x(0))},
                    {{"pool_size", ints(kernel)}, {"strides", ints(strides)}, {"padding", ints(pads)}, {"dilation", ints(dil)}, {"ceil_mode", b(ceil)},
                     {"count_include_pad", b(c.i("count_include_pad", 0))}, {"layout", s(layoutOf(n))}});
      if (isMax && c.node.output_size() > 1 && !c.node.output(1).empty()) return {{y}, {maxPoolIndices(c, kernel, strides, dil, pads)}};
      return {{y}};
    });
  }
  for (bool isMax : {true, false}) {
    onnxOp(isMax ? "GlobalMaxPool" : "GlobalAveragePool", {}, [isMax](NodeCtx& c) -> Outputs {
      std::vector<int64_t> axes;
      for (int64_t k = 2; k < c.ndim(0); ++k) axes.push_back(k);
      return {{c.op(isMax ? "max" : "mean", {ex(c.x(0))}, {{"axis", ints(axes)}, {"keepdims", b(true)}})}};
    });
  }

  onnxOp("CausalConvWithState", {27}, [](NodeCtx& c) -> Outputs {
    // A depthwise conv1d over past_state (zeros when absent) followed by the input, so each output
    // sees only its own and earlier positions; present_state is the last k - 1 positions of that
    // concatenation. Optional bias, then SiLU ("silu" or its alias "swish").
    auto in = c.dims(0), w = c.dims(1);
    if (in.size() != 3 || w.size() != 3) fail("input must be (batch, channels, length) and weight (channels, 1, k)");
    auto k = w[2].as<IntImm>();
    if (!k || k->value < 1) fail("the kernel size must be known at import");
    int64_t keep = k->value - 1;
    Expr past = c.has(3) ? c.x(3) : c.op("zeros", {ex(shapeExpr({in[0], in[1], intImm(keep)}))}, {{"dtype", s(c.dtype(0).str())}});
    Expr seq = keep ? c.op("concat", {ex(make<Tuple>(std::vector<Expr>{past, c.x(0)}))}, {{"axis", i(2)}}) : c.x(0);
    Expr y = c.op("nn.conv1d", {ex(seq), ex(c.x(1))},
                  {{"strides", ints({1})}, {"padding", ints({0, 0})}, {"dilation", ints({1})}, {"groups", primValue(in[1])}, {"data_layout", s("NCW")}, {"kernel_layout", s("OIW")}});
    if (c.has(2)) y = addChannelBias(c, y, c.x(2), 1);
    std::string act = c.s("activation", "none");
    if (act == "silu" || act == "swish") y = c.op("multiply", {ex(y), ex(c.op("sigmoid", {ex(y)}))});
    else if (act != "none") fail("activation must be 'none', 'silu' or 'swish', not '" + act + "'");
    auto total = tensorInfo(seq)->dims();
    PyValue end;
    end.kind = PyValue::List;
    end.items = {primValue((*total)[2])};
    PyValue begin;
    begin.kind = PyValue::List;
    begin.items = {primValue(simplify(sub((*total)[2], intImm(keep))))};
    Expr present = c.op("strided_slice", {ex(seq), ints({2}), begin, end});
    return {{y}, {present}};
  });
  onnxOp("MaxUnpool", {9, 11, 22}, [](NodeCtx& c) -> Outputs {
    // Every value goes to its flat index (MaxPool's Indices) in a zero tensor of the shape a
    // MaxPool with these attributes would have read; a larger output_shape pads it at the end.
    auto in = c.dims(0);
    size_t n = in.size() < 2 ? 0 : in.size() - 2;
    auto kernel = c.ints("kernel_shape");
    if (kernel.size() != n || n == 0) fail("kernel_shape must have one value per spatial dim");
    auto strides = c.ints("strides", n, 1), pads = c.ints("pads", 2 * n, 0);
    std::vector<PrimExpr> inferred = {in[0], in[1]};
    std::vector<int64_t> grow(2 * in.size(), 0);
    for (size_t k = 0; k < n; ++k) {
      auto d = in[k + 2].as<IntImm>();
      if (!d) fail("symbolic spatial dims are not supported");
      inferred.push_back(intImm((d->value - 1) * strides[k] + kernel[k] - pads[k] - pads[k + n]));
    }
    if (c.has(2)) {
      auto want = c.requireInts(2, "output_shape");
      if (want.size() != in.size()) fail("output_shape must have one value per dim of X");
      for (size_t k = 2; k < in.size(); ++k) {
        int64_t have = inferred[k].as<IntImm>()->value;
        if (want[k] < have) fail("output_shape is smaller than the unpooled shape");
        grow[2 * k + 1] = want[k] - have;
      }
    }
    PrimExpr total = intImm(1);
    for (auto& d : inferred) total = mul(total, d);
    Expr flat = c.op("zeros", {ex(shapeExpr({simplify(total)}))}, {{"dtype", s(c.dtype(0).str())}});
    auto flatten = [&](Expr e) { return c.op("reshape", {ex(e), ex(shapeExpr({intImm(-1)}))}); };
    Expr scattered = c.op("scatter_elements", {ex(flat), ex(flatten(c.x(1))), ex(flatten(c.x(0)))}, {{"axis", i(0)}});
    Expr y = c.op("reshape", {ex(scattered), ex(shapeExpr(inferred))});
    bool pad = false;
    for (auto g : grow) pad |= g != 0;
    if (pad) y = c.op("nn.pad", {ex(y)}, {{"pad_width", ints(grow)}, {"pad_value", f(0.0)}, {"pad_mode", s("constant")}});
    return {{y}};
  });
  onnxOp("BatchNormalization", {1, 6, 7, 9, 14, 15}, [](NodeCtx& c) -> Outputs {
    if (c.since < 7 && c.i("is_test", 0) == 0 && c.node.output_size() > 1) fail("training-mode BatchNormalization is not supported");
    int64_t r = c.ndim(0);
    DataType t = c.dtype(0);
    double eps = c.f("epsilon", 1e-5);
    if (r < 2) fail("the input must be (N, C, ...)");
    if (c.since >= 14 && c.i("training_mode", 0)) {
      // Normalized by the batch's own statistics (biased variance); the running statistics
      // move towards them: running = running * momentum + batch * (1 - momentum).
      std::vector<int64_t> axes = {0};
      for (int64_t k = 2; k < r; ++k) axes.push_back(k);
      auto [centered, mean] = standardize(c, c.x(0), axes, eps);
      Expr y = c.op("add", {ex(c.op("multiply", {ex(centered), ex(channelVector(c, c.x(1), r))})), ex(channelVector(c, c.x(2), r))});
      Expr diff = c.op("subtract", {ex(c.x(0)), ex(mean)});
      Expr var = c.op("mean", {ex(c.op("multiply", {ex(diff), ex(diff)}))}, {{"axis", ints(axes)}});
      double m = c.f("momentum", 0.9);
      auto blend = [&](Expr running, Expr batch) {
        DataType rt = tensorInfo(running)->dtype;
        return c.op("add", {ex(c.op("multiply", {ex(running), ex(c.scalar(m, rt))})), ex(c.op("multiply", {ex(c.cast(batch, rt)), ex(c.scalar(1 - m, rt))}))});
      };
      Expr flatMean = c.op("reshape", {ex(mean), ex(shapeExpr({c.dim(0, 1)}))});
      return {{y}, {blend(c.x(3), flatMean)}, {blend(c.x(4), var)}};
    }
    // y = (x - mean) * scale / sqrt(var + eps) + bias, per channel.
    Expr inv = c.op("rsqrt", {ex(c.op("add", {ex(c.cast(c.x(4), t)), ex(c.scalar(eps, t))}))});
    Expr k = c.op("multiply", {ex(c.x(1)), ex(inv)});
    Expr y = c.op("multiply", {ex(c.op("subtract", {ex(c.x(0)), ex(channelVector(c, c.cast(c.x(3), t), r))})), ex(channelVector(c, k, r))});
    return {{c.op("add", {ex(y), ex(channelVector(c, c.x(2), r))})}};
  });
  onnxOp("InstanceNormalization", {}, [](NodeCtx& c) -> Outputs {
    int64_t r = c.ndim(0);
    std::vector<int64_t> axes;
    for (int64_t k = 2; k < r; ++k) axes.push_back(k);
    auto [norm, mean] = standardize(c, c.x(0), axes, c.f("epsilon", 1e-5));
    Expr y = c.op("multiply", {ex(norm), ex(channelVector(c, c.x(1), r))});
    return {{c.op("add", {ex(y), ex(channelVector(c, c.x(2), r))})}};
  });
  onnxOp("LayerNormalization", {17}, [](NodeCtx& c) -> Outputs {
    int64_t r = c.ndim(0);
    int64_t axis = normAxis(c.i("axis", -1), r);
    std::vector<int64_t> axes;
    for (int64_t k = axis; k < r; ++k) axes.push_back(k);
    Expr inv;
    auto [norm, mean] = standardize(c, c.x(0), axes, c.f("epsilon", 1e-5), &inv);
    Expr y = c.op("multiply", {ex(norm), ex(c.x(1))});
    if (c.has(2)) y = c.op("add", {ex(y), ex(c.x(2))});
    return {{y}, {mean}, {inv}};
  });
  onnxOp("GroupNormalization", {18, 21}, [](NodeCtx& c) -> Outputs {
    auto dims = c.dims(0);
    int64_t r = int64_t(dims.size());
    if (r < 2) fail("the input must be (N, C, ...)");
    int64_t g = c.i("num_groups", 0);
    if (g <= 0) fail("num_groups must be positive");
    auto cdim = dims[1].as<IntImm>();
    if (!cdim || cdim->value % g) fail("the channel count must be a known multiple of num_groups");
    std::vector<PrimExpr> grouped = {dims[0], intImm(g), intImm(cdim->value / g)};
    for (int64_t k = 2; k < r; ++k) grouped.push_back(dims[size_t(k)]);
    Expr xg = c.op("reshape", {ex(c.x(0)), ex(shapeExpr(grouped))});
    std::vector<int64_t> axes;
    for (int64_t k = 2; k < r + 1; ++k) axes.push_back(k);
    auto [norm, mean] = standardize(c, xg, axes, c.f("epsilon", 1e-5));
    Expr y = c.op("reshape", {ex(norm), ex(shapeExpr(dims))});
    Expr scale = c.x(1), bias = c.x(2);
    if (c.since < 21) {
      // Opset 18: scale and bias are per group; each applies to the group's channels.
      scale = c.op("repeat", {ex(scale)}, {{"repeats", i(cdim->value / g)}, {"axis", i(0)}});
      bias = c.op("repeat", {ex(bias)}, {{"repeats", i(cdim->value / g)}, {"axis", i(0)}});
    }
    y = c.op("multiply", {ex(y), ex(channelVector(c, scale, r))});
    return {{c.op("add", {ex(y), ex(channelVector(c, bias, r))})}};
  });
  onnxOp("RMSNormalization", {23}, [](NodeCtx& c) -> Outputs {
    // x / sqrt(mean(x^2 over axis..end) + epsilon) * scale, computed in stash_type (float32).
    int64_t r = c.ndim(0);
    int64_t axis = normAxis(c.i("axis", -1), r);
    std::vector<int64_t> axes;
    for (int64_t k = axis; k < r; ++k) axes.push_back(k);
    DataType t = c.dtype(0), f32 = DataType::float32();
    Expr x = c.cast(c.x(0), f32);
    Expr ms = c.op("mean", {ex(c.op("multiply", {ex(x), ex(x)}))}, {{"axis", ints(axes)}, {"keepdims", b(true)}});
    Expr inv = c.op("rsqrt", {ex(c.op("add", {ex(ms), ex(c.scalar(c.f("epsilon", 1e-5), f32))}))});
    Expr y = c.cast(c.op("multiply", {ex(x), ex(inv)}), t);
    return {{c.op("multiply", {ex(y), ex(c.x(1))})}};
  });
  onnxOp("MeanVarianceNormalization", {}, [](NodeCtx& c) -> Outputs {
    auto axes = c.ints("axes", {0, 2, 3});
    return {{standardize(c, c.x(0), axes, 1e-9).first}};
  });
  onnxOp("LRN", {}, [](NodeCtx& c) -> Outputs {
    // y = x / (bias + alpha / size * sum of x^2 over the `size` channels around c)^beta.
    int64_t size = c.i("size", 0);
    if (size <= 0) fail("size must be positive");
    if (c.ndim(0) < 2) fail("the input must be (N, C, ...)");
    double alpha = c.f("alpha", 1e-4), beta = c.f("beta", 0.75), bias = c.f("bias", 1.0);
    DataType t = c.dtype(0);
    int64_t r = c.ndim(0);
    auto dims = c.dims(0);
    auto ch = dims[1].as<IntImm>();
    if (!ch) fail("the channel count must be known");
    Expr sq = c.op("multiply", {ex(c.x(0)), ex(c.x(0))});
    // A window reaching past every channel adds only zeros there: at most ch - 1 on each side.
    int64_t before = std::min((size - 1) / 2, ch->value - 1), after = std::min(size - 1 - (size - 1) / 2, ch->value - 1);
    std::vector<int64_t> padWidth(size_t(2 * r), 0);
    padWidth[2] = before, padWidth[3] = after;
    Expr padded = c.op("nn.pad", {ex(sq)}, {{"pad_width", ints(padWidth)}, {"pad_value", f(0.0)}, {"pad_mode", s("constant")}});
    Expr sum;
    for (int64_t k = 0; k < before + after + 1; ++k) {
      Expr part = c.op("strided_slice", {ex(padded), ints({1}), ints({k}), ints({k + ch->value}), ints({1})});
      sum = sum ? c.op("add", {ex(sum), ex(part)}) : part;
    }
    Expr denom = c.op("power", {ex(c.op("add", {ex(c.op("multiply", {ex(sum), ex(c.scalar(alpha / double(size), t))})), ex(c.scalar(bias, t))})), ex(c.scalar(beta, t))});
    return {{c.op("divide", {ex(c.x(0)), ex(denom)})}};
  });
  onnxOp("Dropout", {}, [](NodeCtx& c) -> Outputs {
    // Inference: the input passes through; the mask (when asked for) is all true.
    if (c.since >= 12 && c.has(2)) {
      // Training mode with ratio 0 drops nothing; any other ratio is random and not supported.
      auto training = c.constInts(2);
      auto ratio = c.has(1) ? c.constScalar(1) : std::optional<double>(0.5);
      bool dropsNothing = ratio && *ratio == 0.0;
      if (!dropsNothing && (!training || (!training->empty() && (*training)[0] != 0))) fail("training-mode Dropout is random and not supported (inference only)");
    }
    Outputs outs = {c.in(0)};
    if (c.node.output_size() > 1 && !c.node.output(1).empty()) outs.push_back({c.op("ones", {ex(shapeExpr(c.dims(0)))}, {{"dtype", s("bool")}})});
    return outs;
  });
}

}  // namespace rlx::onnx
