// Neural-network ops: convolutions, norms, activations, attention, resize, timestep embeddings.
#include <cmath>

#include "frontend/nn/op.h"
#include "frontend/nn/op_util.h"

namespace rlx::nn::op {

using namespace detail;

namespace {

// One value per spatial dim (a single value is repeated).
Axes perDim(const Axes& v, size_t nd, const char* what) {
  if (v.size() == 1) return Axes(nd, v[0]);
  if (v.size() == nd) return v;
  fail(std::string(what) + " needs 1 or " + std::to_string(nd) + " values, got " + std::to_string(v.size()));
}

// Padding as (before..., after...) for every spatial dim.
Axes padding(const Axes& v, size_t nd) {
  if (v.size() == 1) return Axes(2 * nd, v[0]);
  if (v.size() == nd) {
    Axes out = v;
    out.insert(out.end(), v.begin(), v.end());
    return out;
  }
  if (v.size() == 2 * nd) return v;
  fail("padding needs 1, " + std::to_string(nd) + " or " + std::to_string(2 * nd) + " values, got " + std::to_string(v.size()));
}

// conv + bias: the bias reshaped to (1, C, 1, ...) and added, the sum bound under `name`.
Tensor withBias(const Expr& conv, const Tensor& bias, size_t nd, const std::string& name) {
  if (!bias.defined()) return wrap(conv, name);
  std::vector<PrimExpr> dims = {intImm(1), bias.dim(0)};
  for (size_t i = 0; i < nd; ++i) dims.push_back(intImm(1));
  Expr b = call("reshape", {ex(bias), ex(shapeExpr(dims))});
  return wrap(call("add", {ex(conv), ex(b)}), name);
}

Tensor conv(const char* op, size_t nd, const char* layout, const char* kernelLayout, const Tensor& x, const Tensor& weight, const ConvOptions& o, const std::string& name) {
  Expr c = call(op, {ex(x), ex(weight)},
                {{"strides", build::ints(perDim(o.stride, nd, "stride"))},
                 {"padding", build::ints(padding(o.padding, nd))},
                 {"dilation", build::ints(perDim(o.dilation, nd, "dilation"))},
                 {"groups", build::i(o.groups)},
                 {"data_layout", build::s(o.dataLayout.value_or(layout))},
                 {"kernel_layout", build::s(kernelLayout)}});
  return withBias(c, o.bias, nd, name);
}

}  // namespace

Tensor conv1d(const Tensor& x, const Tensor& weight, const ConvOptions& opts, const std::string& name) { return conv("nn.conv1d", 1, "NCW", "OIW", x, weight, opts, name); }
Tensor conv2d(const Tensor& x, const Tensor& weight, const ConvOptions& opts, const std::string& name) { return conv("nn.conv2d", 2, "NCHW", "OIHW", x, weight, opts, name); }

Tensor conv1dTranspose(const Tensor& x, const Tensor& weight, const ConvTransposeOptions& o, const std::string& name) {
  Expr c = call("nn.conv1d_transpose", {ex(x), ex(weight)},
                {{"strides", build::ints(perDim(o.stride, 1, "stride"))},
                 {"padding", build::ints(padding(o.padding, 1))},
                 {"output_padding", build::ints(perDim(o.outputPadding, 1, "output_padding"))},
                 {"dilation", build::ints(perDim(o.dilation, 1, "dilation"))},
                 {"groups", build::i(o.groups)},
                 {"data_layout", build::s("NCW")},
                 {"kernel_layout", build::s("IOW")}});
  return withBias(c, o.bias, 1, name);
}

Tensor layerNorm(const Tensor& x, const std::vector<int64_t>& normalizedShape, const Tensor& weight, const Tensor& bias, double eps, const std::string& name) {
  if (!weight.defined() || !bias.defined()) fail("layer_norm needs both weight and bias");
  Axes axes;
  for (int64_t i = int64_t(normalizedShape.size()); i > 0; --i) axes.push_back(-i);
  return wrap(call("nn.layer_norm", {ex(x), ex(weight), ex(bias)}, {{"axes", build::ints(axes)}, {"epsilon", build::f(eps)}, {"center", build::b(true)}, {"scale", build::b(true)}}),
              name);
}

Tensor rmsNorm(const Tensor& x, const Tensor& weight, const Axes& axes, double epsilon, const std::string& name) {
  return wrap(call("nn.rms_norm", {ex(x), ex(weight)}, {{"axes", build::ints(axes)}, {"epsilon", build::f(epsilon)}}), name);
}

Tensor groupNorm(const Tensor& x, int64_t numGroups, const Tensor& weight, const Tensor& bias, double eps, int64_t channelAxis, std::optional<Axes> axes, const std::string& name) {
  if (!weight.defined() || !bias.defined()) fail("group_norm needs both weight and bias");
  if (!axes) {
    axes.emplace();
    for (int64_t i = normalizeAxis(channelAxis, x.ndim(), "group_norm") + 1; i < int64_t(x.ndim()); ++i) axes->push_back(i);
  }
  return wrap(call("nn.group_norm", {ex(x), ex(weight), ex(bias)},
                   {{"num_groups", build::i(numGroups)}, {"channel_axis", build::i(channelAxis)}, {"axes", build::ints(*axes)}, {"epsilon", build::f(eps)},
                    {"center", build::b(true)}, {"scale", build::b(true)}}),
              name);
}

Tensor relu(const Tensor& x, const std::string& name) { return wrap(call("nn.relu", {ex(x)}), name); }
Tensor relu6(const Tensor& x, const std::string& name) { return wrap(call("clip", {ex(x), build::i(0), build::i(6)}), name); }
Tensor silu(const Tensor& x, const std::string& name) { return wrap(call("nn.silu", {ex(x)}), name); }

Tensor gelu(const Tensor& x, const std::string& approximate, const std::string& name) {
  if (approximate == "tanh") return wrap(call("nn.gelu_tanh", {ex(x)}), name);
  if (approximate != "none") fail("gelu: approximate must be \"none\" or \"tanh\", got \"" + approximate + "\"");
  return wrap(call("nn.gelu", {ex(x)}), name);
}

Tensor softplus(const Tensor& x, double beta, double threshold, const std::string& name) {
  return wrap(call("nn.softplus", {ex(x)}, {{"beta", build::f(beta)}, {"threshold", build::f(threshold)}}), name);
}

Tensor prelu(const Tensor& x, const Tensor& alpha, int64_t axis, const std::string& name) {
  return wrap(call("nn.prelu", {ex(x), ex(alpha)}, {{"axis", build::i(axis)}}), name);
}

Tensor softmax(const Tensor& x, int64_t axis, const std::string& name) { return wrap(call("nn.softmax", {ex(x)}, {{"axis", build::i(axis)}}), name); }

Tensor scaledDotProductAttention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& o, const std::string& name) {
  if (o.attnMask.defined()) fail("scaled_dot_product_attention: attn_mask is not supported", "use is_causal for a causal mask");
  return wrap(call("nn.attention", {ex(q), ex(k), ex(v)},
                   {{"scale", o.scale ? prim(floatImm(*o.scale, DataType::float32())) : none()},
                    {"causal_mask", o.isCausal ? build::s("TopLeft") : none()},
                    {"window_size", none()}}),
              name);
}

Tensor interpolate(const Tensor& x, const InterpolateOptions& o, const std::string& name) {
  std::vector<PrimExpr> size;
  if (o.size) {
    for (auto s : *o.size) size.push_back(intImm(s));
  } else {
    if (!o.scaleFactor) fail("interpolate needs size or scaleFactor");
    auto shape = x.shape();
    if (shape.size() < 3) fail("interpolate needs a tensor with spatial dims");
    size_t nd = shape.size() - 2;
    if (o.scaleFactor->size() != 1 && o.scaleFactor->size() != nd) fail("interpolate: scaleFactor needs 1 or " + std::to_string(nd) + " values");
    for (size_t i = 0; i < nd; ++i) {
      auto* d = asIntImm(shape[i + 2]);
      if (!d) fail("interpolate by scaleFactor needs static spatial dims");
      double f = (*o.scaleFactor)[o.scaleFactor->size() == 1 ? 0 : i];
      size.push_back(intImm(int64_t(double(d->value) * f)));
    }
  }
  std::string mode = o.mode;
  if (mode.rfind("nearest", 0) == 0) mode = "nearest_neighbor";
  else if (mode.rfind("bi", 0) == 0) mode = mode.substr(2);
  std::string coord = mode == "nearest_neighbor" ? "asymmetric" : (o.alignCorners.value_or(false) ? "align_corners" : "half_pixel");
  return wrap(call("image.resize2d", {ex(x), ex(shapeExpr(size))},
                   {{"layout", build::s(o.dataLayout)}, {"method", build::s(mode)}, {"coordinate_transformation_mode", build::s(coord)}}),
              name);
}

Tensor getTimestepEmbedding(const Tensor& x, int64_t embeddingDim, const TimestepEmbeddingOptions& o, const std::string& name) {
  // The whole computation is one nested expression: its parts are bound lv, lv1, ... and only the
  // final cast gets `name` (TVM builds it with raw Relax ops and wrap_nested).
  DataType f32 = DataType::float32();
  int64_t half = embeddingDim / 2;
  auto c = [&](double v) { return ex(build::scalar(v, f32)); };
  Expr t = call("expand_dims", {ex(call("astype", {ex(x)}, {{"dtype", build::s("float32")}}))}, {{"axis", build::ints({1})}});
  Expr range = call("arange", {build::i(0), build::i(half), build::i(1)}, {{"dtype", build::s("float32")}});
  Expr exponent = call("multiply", {c(-std::log(double(o.maxPeriod))), ex(range)});
  exponent = call("divide", {ex(exponent), c(double(half) - o.downscaleFreqShift)});
  Expr freqs = call("expand_dims", {ex(call("exp", {ex(exponent)}))}, {{"axis", build::ints({0})}});
  Expr emb = call("multiply", {ex(t), ex(freqs)});
  if (o.scale != 1) emb = call("multiply", {c(o.scale), ex(emb)});
  Expr sin = call("sin", {ex(emb)}), cos = call("cos", {ex(emb)});
  Expr parts = o.flipSinToCos ? make<Tuple>(std::vector<Expr>{cos, sin}) : make<Tuple>(std::vector<Expr>{sin, cos});
  emb = call("concat", {ex(parts)}, {{"axis", build::i(-1)}});
  // TVM pads an odd embedding dim along axis 0 (a quirk kept for equal output).
  if (embeddingDim % 2 == 1) emb = call("nn.pad", {ex(emb)}, {{"pad_width", build::ints({0, 1, 0, 0})}, {"pad_value", build::f(0.0)}, {"pad_mode", build::s("constant")}});
  return wrap(call("astype", {ex(emb)}, {{"dtype", build::s(x.dtype().str())}}), name);
}

}  // namespace rlx::nn::op
