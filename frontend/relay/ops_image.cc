// Relay's image ops: nn.upsampling rewritten into R.image.resize2d at the scaled size (what TOPI's
// upsampling computes), and image.resize2d itself with Relay's defaults made explicit.
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

// image.resize2d(x, size, roi, layout, method, ...): Relax's op with Relay's defaults (cubic_alpha
// -0.5, rounding "round"; an empty rounding method is TOPI's per-mode default).
RExpr resize2d(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"size", "roi", "layout", "method", "coordinate_transformation_mode", "rounding_method", "cubic_alpha", "cubic_exclude", "extrapolation_value", "out_dtype"});
  std::vector<int64_t> size = c.ints("size");
  if (size.size() != 2) c.fail("size must have 2 values (height, width)");
  std::vector<double> roi = c.floats("roi");
  if (roi.empty()) roi = {0, 0, 0, 0};
  if (roi.size() != 4) c.fail("roi must have 4 values");
  std::string method = c.s("method", "linear");
  std::string coord = c.s("coordinate_transformation_mode", "half_pixel");
  std::string rounding = c.s("rounding_method", "round");
  if (rounding.empty()) rounding = defaultRounding(method, coord);
  return c.call("image.resize2d", {ex(c.arg(0)), ints(size)},
                {{"roi", floatList(roi)},
                 {"layout", s(c.s("layout", "NCHW"))},
                 {"method", s(method)},
                 {"coordinate_transformation_mode", s(coord)},
                 {"rounding_method", s(rounding)},
                 {"cubic_alpha", f(c.f("cubic_alpha", -0.5))},
                 {"cubic_exclude", i(c.i("cubic_exclude", 0))},
                 {"extrapolation_value", f(c.f("extrapolation_value", 0.0))},
                 {"out_dtype", s(outDType(c))}});
}

}  // namespace rlx::relay::ops
