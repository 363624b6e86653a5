// Relay's convolutions and pools: same ops in Relax, attributes brought to Relax's form (padding to
// 2n values, out_dtype "" -> "void", out_layout "" -> the data layout; channels / kernel_size
// dropped, Relax infers them from the weight). Global pools are rewritten (adaptive pool / max);
// adaptive max pools whose windows tile the input become max pools; pool gradients are R.grad's.
#include "frontend/relay/ops.h"

namespace rlx::relay::ops {

namespace {

const char* dataLayout(size_t n) { return n == 1 ? "NCW" : n == 2 ? "NCHW" : "NCDHW"; }
const char* kernelLayout(size_t n, bool transpose) {
  if (transpose) return n == 1 ? "IOW" : n == 2 ? "IOHW" : "IODHW";
  return n == 1 ? "OIW" : n == 2 ? "OIHW" : "OIDHW";
}

RExpr conv(OpCtx& c, size_t n, bool transpose) {
  c.expectArgs(2, 2);
  if (transpose)
    c.allowAttrs({"channels", "kernel_size", "strides", "padding", "output_padding", "dilation", "groups", "data_layout", "kernel_layout", "out_layout", "out_dtype"});
  else
    c.allowAttrs({"strides", "padding", "dilation", "groups", "channels", "kernel_size", "data_layout", "kernel_layout", "out_layout", "out_dtype",
                  "auto_scheduler_rewritten_layout", "meta_schedule_original_shape"});
  if (!transpose) requireNoTuningLayout(c);
  std::string data = c.s("data_layout", dataLayout(n));
  KwArgs kw = {{"strides", ints(spatialInts(c, n, "strides", 1))}, {"padding", ints(spatialPadding(c, n))}};
  if (transpose) kw.push_back({"output_padding", ints(spatialInts(c, n, "output_padding", 0))});
  kw.push_back({"dilation", ints(spatialInts(c, n, "dilation", 1))});
  kw.push_back({"groups", i(c.i("groups", 1))});
  kw.push_back({"data_layout", s(data)});
  kw.push_back({"kernel_layout", s(c.s("kernel_layout", kernelLayout(n, transpose)))});
  std::string out = c.s("out_layout", "");
  kw.push_back({"out_layout", s(out.empty() ? data : out)});
  kw.push_back({"out_dtype", s(outDType(c))});
  std::string name = "nn.conv" + std::to_string(n) + "d" + (transpose ? "_transpose" : "");
  return c.call(name, {ex(c.arg(0)), ex(c.arg(1))}, std::move(kw));
}

RExpr pool(OpCtx& c, size_t n, const char* kind) {
  c.expectArgs(1, 1);
  bool avg = std::string(kind) == "avg";
  if (avg)
    c.allowAttrs({"pool_size", "strides", "dilation", "padding", "layout", "out_layout", "ceil_mode", "count_include_pad"});
  else
    c.allowAttrs({"pool_size", "strides", "dilation", "padding", "layout", "out_layout", "ceil_mode"});
  if (!c.has("pool_size")) c.fail("needs pool_size");
  std::string layout = c.s("layout", dataLayout(n));
  std::string out = c.s("out_layout", "");
  KwArgs kw = {{"pool_size", ints(spatialInts(c, n, "pool_size", 1))},
               {"strides", ints(spatialInts(c, n, "strides", 1))},
               {"padding", ints(spatialPadding(c, n))},
               {"dilation", ints(spatialInts(c, n, "dilation", 1))},
               {"ceil_mode", b(c.b("ceil_mode", false))},
               {"count_include_pad", b(avg && c.b("count_include_pad", false))},
               {"layout", s(layout)},
               {"out_layout", s(out.empty() ? layout : out)}};
  return c.call(std::string("nn.") + kind + "_pool" + std::to_string(n) + "d", {ex(c.arg(0))}, std::move(kw));
}

RExpr adaptiveAvg(OpCtx& c, size_t n) {
  c.expectArgs(1, 1);
  c.allowAttrs({"output_size", "layout", "out_layout"});
  std::string layout = c.s("layout", dataLayout(n));
  std::string out = c.s("out_layout", "");
  KwArgs kw;
  // Relay's empty output_size keeps the input's spatial extents, as Relax's None does.
  if (auto size = c.intsOpt("output_size"); size && !size->empty()) kw.push_back({"output_size", ints(*size)});
  kw.push_back({"layout", s(layout)});
  kw.push_back({"out_layout", s(out.empty() ? layout : out)});
  return c.call("nn.adaptive_avg_pool" + std::to_string(n) + "d", {ex(c.arg(0))}, std::move(kw));
}

// Relay's adaptive max pool: window k of an axis spans [floor(k*in/out), ceil((k+1)*in/out)). When
// out divides in, those windows are the max pool with kernel = stride = in/out, no padding.
RExpr adaptiveMax(OpCtx& c, size_t n) {
  c.expectArgs(1, 1);
  c.allowAttrs({"output_size", "layout", "out_layout"});
  std::string layout = c.s("layout", dataLayout(n));
  std::string out = c.s("out_layout", "");
  if (int(layout.size()) != c.ndim(0)) c.fail("layout \"" + layout + "\" does not match the input's rank");
  std::vector<PrimExpr> d = c.dims(0);
  std::vector<int64_t> size = c.ints("output_size");
  if (size.size() == 1 && n > 1) size = std::vector<int64_t>(n, size[0]);
  const char* spatial = n == 1 ? "W" : n == 2 ? "HW" : "DHW";
  std::vector<int64_t> kernel;
  for (size_t k = 0; k < n; ++k) {
    auto pos = layout.find(spatial[k]);
    if (pos == std::string::npos) c.fail("layout \"" + layout + "\" has no " + std::string(1, spatial[k]) + " axis");
    auto in = asIntImm(d[pos]);
    if (!in) c.fail("a symbolic spatial extent has no fixed pooling window");
    int64_t o = size.empty() ? in->value : size[k];
    if (o < 1 || in->value % o != 0)
      c.fail("output size " + std::to_string(o) + " does not divide the input extent " + std::to_string(in->value) + " (Relax v0.23 has no adaptive max pool for overlapping windows)");
    kernel.push_back(in->value / o);
  }
  KwArgs kw = {{"pool_size", ints(kernel)},
               {"strides", ints(kernel)},
               {"padding", ints(std::vector<int64_t>(2 * n, 0))},
               {"dilation", ints(std::vector<int64_t>(n, 1))},
               {"ceil_mode", b(false)},
               {"count_include_pad", b(false)},
               {"layout", s(layout)},
               {"out_layout", s(out.empty() ? layout : out)}};
  return c.call("nn.max_pool" + std::to_string(n) + "d", {ex(c.arg(0))}, std::move(kw));
}

// nn.{max,avg}_pool2d_grad(out_grad, data, pool attrs): R.grad.{max,avg}_pool2d_backward.
RExpr poolGrad(OpCtx& c, const char* kind) {
  c.expectArgs(2, 2);
  bool avg = std::string(kind) == "avg";
  if (avg)
    c.allowAttrs({"pool_size", "strides", "dilation", "padding", "layout", "out_layout", "ceil_mode", "count_include_pad"});
  else
    c.allowAttrs({"pool_size", "strides", "dilation", "padding", "layout", "out_layout", "ceil_mode"});
  if (!c.has("pool_size")) c.fail("needs pool_size");
  std::string layout = c.s("layout", "NCHW");
  std::string out = c.s("out_layout", "");
  KwArgs kw = {{"pool_size", ints(spatialInts(c, 2, "pool_size", 1))},
               {"strides", ints(spatialInts(c, 2, "strides", 1))},
               {"padding", ints(spatialPadding(c, 2))},
               {"dilation", ints(spatialInts(c, 2, "dilation", 1))},
               {"ceil_mode", b(c.b("ceil_mode", false))},
               {"count_include_pad", b(avg && c.b("count_include_pad", false))},
               {"layout", s(layout)},
               {"out_layout", s(out.empty() ? layout : out)}};
  return c.call(std::string("grad.") + kind + "_pool2d_backward", {ex(c.arg(0)), ex(c.arg(1))}, std::move(kw));
}

}  // namespace

RExpr adaptive_max_pool1d(OpCtx& c) { return adaptiveMax(c, 1); }
RExpr adaptive_max_pool2d(OpCtx& c) { return adaptiveMax(c, 2); }
RExpr adaptive_max_pool3d(OpCtx& c) { return adaptiveMax(c, 3); }
RExpr max_pool2d_grad(OpCtx& c) { return poolGrad(c, "max"); }
RExpr avg_pool2d_grad(OpCtx& c) { return poolGrad(c, "avg"); }

RExpr conv1d(OpCtx& c) { return conv(c, 1, false); }
RExpr conv2d(OpCtx& c) { return conv(c, 2, false); }
RExpr conv3d(OpCtx& c) { return conv(c, 3, false); }
RExpr conv1d_transpose(OpCtx& c) { return conv(c, 1, true); }
RExpr conv2d_transpose(OpCtx& c) { return conv(c, 2, true); }

RExpr max_pool1d(OpCtx& c) { return pool(c, 1, "max"); }
RExpr max_pool2d(OpCtx& c) { return pool(c, 2, "max"); }
RExpr max_pool3d(OpCtx& c) { return pool(c, 3, "max"); }
RExpr avg_pool1d(OpCtx& c) { return pool(c, 1, "avg"); }
RExpr avg_pool2d(OpCtx& c) { return pool(c, 2, "avg"); }
RExpr avg_pool3d(OpCtx& c) { return pool(c, 3, "avg"); }

RExpr adaptive_avg_pool1d(OpCtx& c) { return adaptiveAvg(c, 1); }
RExpr adaptive_avg_pool2d(OpCtx& c) { return adaptiveAvg(c, 2); }
RExpr adaptive_avg_pool3d(OpCtx& c) { return adaptiveAvg(c, 3); }

// nn.global_avg_pool2d: the mean over H and W keeping them as 1s, which is
// R.nn.adaptive_avg_pool2d with output_size [1, 1].
RExpr global_avg_pool2d(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"layout", "out_layout"});
  std::string layout = c.s("layout", "NCHW");
  std::string out = c.s("out_layout", "");
  return c.call("nn.adaptive_avg_pool2d", {ex(c.arg(0))}, {{"output_size", ints({1, 1})}, {"layout", s(layout)}, {"out_layout", s(out.empty() ? layout : out)}});
}

// nn.global_max_pool2d: Relax v0.23 has no adaptive max pool; the max over H and W with
// keepdims is the same value and shape.
RExpr global_max_pool2d(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"layout", "out_layout"});
  std::string layout = c.s("layout", "NCHW");
  std::string out = c.s("out_layout", "");
  if (!out.empty() && out != layout) c.fail("an out_layout other than the layout (" + out + " vs " + layout + ") is not supported");
  auto h = layout.find('H'), w = layout.find('W');
  if (h == std::string::npos || w == std::string::npos || int(layout.size()) != c.ndim(0))
    c.fail("layout \"" + layout + "\" must name H and W and match the input's rank");
  return c.call("max", {ex(c.arg(0))}, {{"axis", ints({int64_t(h), int64_t(w)})}, {"keepdims", b(true)}});
}

}  // namespace rlx::relay::ops
