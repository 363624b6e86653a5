// Relay's image and vision ops: nn.upsampling rewritten into R.image.resize2d at the scaled size
// (what TOPI's upsampling computes), image.resize2d with Relay's defaults made explicit, resize1d as
// a resize2d of height 1, grid_sample, affine_grid (TOPI's float32 arithmetic written out), and
// vision.all_class_non_max_suppression (the same TOPI op).
#include <cmath>

#include "frontend/relay/ops.h"
#include "ir/arith.h"

namespace rlx::relay::ops {

namespace {

// TOPI's nearest-neighbour rounding when none is given: "round" under align_corners, else "floor".
std::string defaultRounding(const std::string& method, const std::string& coord) {
  if (method != "nearest_neighbor") return "round";
  return coord == "align_corners" ? "round" : "floor";
}

}  // namespace

// nn.upsampling(x, scale_h, scale_w, layout, method, align_corners): TOPI resizes to
// round(H * scale_h) x round(W * scale_w), "align_corners" or "asymmetric" coordinates, and
// bilinear / bicubic spelled "linear" / "cubic".
RExpr upsampling(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"scale_h", "scale_w", "layout", "method", "align_corners"});
  std::string layout = c.s("layout", "NCHW");
  size_t hIdx, wIdx;
  if (layout == "NCHW") hIdx = 2, wIdx = 3;
  else if (layout == "NHWC") hIdx = 1, wIdx = 2;
  else c.fail("layout \"" + layout + "\" is not supported (NCHW or NHWC)");
  if (c.ndim(0) != 4) c.fail("expects a 4-D input");
  std::vector<PrimExpr> d = c.dims(0);
  auto scaled = [&](size_t axis, const char* key) -> PrimExpr {
    double scale = c.f(key, 1.0);
    if (auto k = asIntImm(d[axis])) return intImm(int64_t(std::nearbyint(double(k->value) * scale)));
    if (scale == std::floor(scale) && scale >= 1) return rlx::mul(d[axis], intImm(int64_t(scale)));
    c.fail(std::string("a symbolic extent scaled by the non-integral ") + key + " has no exact size");
  };
  PrimExpr h = scaled(hIdx, "scale_h"), w = scaled(wIdx, "scale_w");
  std::string method = c.s("method", "nearest_neighbor");
  if (method == "bilinear") method = "linear";
  else if (method == "bicubic") method = "cubic";
  else if (method != "nearest_neighbor") c.fail("unknown method \"" + method + "\" (nearest_neighbor, bilinear or bicubic)");
  std::string coord = c.b("align_corners", false) ? "align_corners" : "asymmetric";
  return c.call("image.resize2d", {ex(c.arg(0)), primList({h, w})},
                {{"layout", s(layout)},
                 {"method", s(method)},
                 {"coordinate_transformation_mode", s(coord)},
                 {"rounding_method", s(defaultRounding(method, coord))},
                 {"cubic_alpha", f(-0.5)}});
}

// R.image.resize2d of x to `size` over `roi` with the call's interpolation attributes and Relay's
// defaults for them (shared by resize2d and resize1d, which resizes a height-1 image).
static RExpr resizeCall(OpCtx& c, const RExpr& x, std::vector<int64_t> size, std::vector<double> roi, const std::string& layout) {
  std::string method = c.s("method", "linear");
  std::string coord = c.s("coordinate_transformation_mode", "half_pixel");
  std::string rounding = c.s("rounding_method", "round");
  if (rounding.empty()) rounding = defaultRounding(method, coord);
  return c.call("image.resize2d", {ex(x), ints(size)},
                {{"roi", floatList(roi)},
                 {"layout", s(layout)},
                 {"method", s(method)},
                 {"coordinate_transformation_mode", s(coord)},
                 {"rounding_method", s(rounding)},
                 {"cubic_alpha", f(c.f("cubic_alpha", -0.5))},
                 {"cubic_exclude", i(c.i("cubic_exclude", 0))},
                 {"extrapolation_value", f(c.f("extrapolation_value", 0.0))},
                 {"out_dtype", s(outDType(c))}});
}

// The one input, the attributes resize2d and resize1d take, and their `size` (`dims` values, named
// `what`) and `roi` (2 * dims values, zeros when absent).
static std::pair<std::vector<int64_t>, std::vector<double>> resizeGeometry(OpCtx& c, size_t dims, const std::string& what) {
  c.expectArgs(1, 1);
  c.allowAttrs({"size", "roi", "layout", "method", "coordinate_transformation_mode", "rounding_method", "cubic_alpha", "cubic_exclude", "extrapolation_value", "out_dtype"});
  std::vector<int64_t> size = c.ints("size");
  if (size.size() != dims) c.fail("size must have " + std::to_string(dims) + (dims == 1 ? " value " : " values ") + what);
  std::vector<double> roi = c.floats("roi");
  if (roi.empty()) roi.assign(2 * dims, 0.0);
  if (roi.size() != 2 * dims) c.fail("roi must have " + std::to_string(2 * dims) + " values");
  return {size, roi};
}

// image.resize2d(x, size, roi, layout, method, ...): Relax's op with Relay's defaults (cubic_alpha
// -0.5, rounding "round"; an empty rounding method is TOPI's per-mode default).
RExpr resize2d(OpCtx& c) {
  auto [size, roi] = resizeGeometry(c, 2, "(height, width)");
  return resizeCall(c, c.arg(0), size, roi, c.s("layout", "NCHW"));
}

// image.resize1d(x, size=[w], roi=[start, end], layout NCW / NWC, ...): a resize2d of a height-1
// image. Every coordinate mode maps the single output row to input row 0, where each interpolation
// reads that row alone, so the widths are resized exactly as Relay's 1-D kernel does.
RExpr resize1d(OpCtx& c) {
  auto [size, roi] = resizeGeometry(c, 1, "(width)");
  std::string layout = c.s("layout", "NCW");
  if (layout != "NCW" && layout != "NWC") c.fail("layout \"" + layout + "\" is not supported (NCW or NWC)");
  if (c.ndim(0) != 3) c.fail("expects a 3-D input");
  int64_t hAxis = layout == "NCW" ? 2 : 1;
  RExpr x = c.call("expand_dims", {ex(c.arg(0))}, {{"axis", ints({hAxis})}});
  RExpr y = resizeCall(c, x, {1, size[0]}, {0, roi[0], 0, roi[1]}, layout == "NCW" ? "NCHW" : "NHWC");
  return c.call("squeeze", {ex(y)}, {{"axis", ints({hAxis})}});
}

// image.grid_sample(x, grid, method, layout, padding_mode, align_corners): Relay's grid is
// (N, 2, H, W) (or (N, 3, D, H, W)) with the coordinates first, Relax's (N, H, W, 2) with them last,
// both holding (x, y[, z]); Relay's align_corners defaults to true, Relax's to false.
RExpr grid_sample(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"method", "layout", "padding_mode", "align_corners"});
  int rank = c.ndim(1);
  if (rank != 4 && rank != 5) c.fail("expects a 4-D or 5-D grid");
  RExpr grid = c.call("permute_dims", {ex(c.arg(1))}, {{"axes", ints(rank == 4 ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{0, 2, 3, 4, 1})}});
  return c.call("image.grid_sample", {ex(c.arg(0)), ex(grid)},
                {{"method", s(c.s("method", "bilinear"))},
                 {"layout", s(c.s("layout", rank == 4 ? "NCHW" : "NCDHW"))},
                 {"padding_mode", s(c.s("padding_mode", "zeros"))},
                 {"align_corners", b(c.b("align_corners", true))}});
}

// image.affine_grid(theta (N, 2, 3), target_shape (H, W)) -> (N, 2, H, W): TOPI computes, in
// float32, x_j = -1 + j * (2 / (W - 1)), y_i = -1 + i * (2 / (H - 1)) and
// out[n, k, i, j] = theta[n, k, 0] * x_j + theta[n, k, 1] * y_i + theta[n, k, 2], left to right;
// the same products and sums here, broadcast over (N, 2, H, W).
RExpr affine_grid(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"target_shape"});
  std::vector<int64_t> hw = c.ints("target_shape");
  if (hw.size() != 2 || hw[0] < 2 || hw[1] < 2) c.fail("target_shape must be (H, W) with both at least 2");
  std::vector<PrimExpr> d = c.dims(0);
  if (d.size() != 3 || !asIntImm(d[1]) || asIntImm(d[1])->value != 2 || !asIntImm(d[2]) || asIntImm(d[2])->value != 3) c.fail("expects theta of shape (N, 2, 3)");
  DataType t = c.dtype(0);
  auto coords = [&](int64_t n, std::vector<int64_t> shape) {
    PyValue zero, one, end;
    zero.kind = one.kind = end.kind = PyValue::Prim;
    zero.prim = intImm(0);
    one.prim = intImm(1);
    end.prim = intImm(n);
    RExpr idx = c.call("arange", {zero, end, one}, {{"dtype", s(t.str())}});
    RExpr step = c.call("multiply", {ex(idx), ex(scalarConst(2.0 / double(n - 1), t))});
    return c.call("reshape", {ex(c.call("add", {ex(scalarConst(-1, t)), ex(step)})), ints(shape)});
  };
  RExpr y = coords(hw[0], {1, 1, hw[0], 1}), x = coords(hw[1], {1, 1, 1, hw[1]});
  auto column = [&](int64_t k) {
    RExpr col = c.call("strided_slice", {ex(c.arg(0)), ints({2}), primList({intImm(k)}), primList({intImm(k + 1)})});
    return c.call("expand_dims", {ex(col)}, {{"axis", ints({3})}});
  };
  RExpr sum = c.call("add", {ex(c.call("multiply", {ex(column(0)), ex(x)})), ex(c.call("multiply", {ex(column(1)), ex(y)}))});
  return c.call("add", {ex(sum), ex(column(2))});
}

// vision.all_class_non_max_suppression(boxes, scores, max_output_boxes_per_class, iou_threshold,
// score_threshold, output_format): Relax's op is the same TOPI kernel with the same outputs.
RExpr all_class_non_max_suppression(OpCtx& c) {
  c.expectArgs(5, 5);
  c.allowAttrs({"output_format"});
  std::vector<PyValue> args;
  for (size_t k = 0; k < 5; ++k) args.push_back(ex(c.arg(k)));
  return c.call("vision.all_class_non_max_suppression", std::move(args), {{"output_format", s(c.s("output_format", "onnx"))}});
}

}  // namespace rlx::relay::ops
