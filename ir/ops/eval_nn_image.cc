// Reference evaluators of image.resize2d and image.grid_sample (every method, coordinate and
// padding mode of TVM's kernels), vision.all_class_non_max_suppression, quantize, dequantize.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "ir/ops/eval_nn.h"

namespace rlx {
namespace {
using namespace ops;

// A 4-D image batch moved to canonical NCHW (doubles), with the permutation back.
struct Image {
  std::vector<double> v;
  int64_t n, c, h, w;
  double at(int64_t b, int64_t ch, int64_t y, int64_t x) const { return v[size_t(((b * c + ch) * h + y) * w + x)]; }
  // TVM's get_2d_pixel: indices clamp to the border.
  double clamped(int64_t b, int64_t ch, int64_t y, int64_t x) const {
    return at(b, ch, std::clamp<int64_t>(y, 0, h - 1), std::clamp<int64_t>(x, 0, w - 1));
  }
};

Image toNCHW(const NDArray& t, const std::vector<int>& perm) {
  Shape s = permuteShape(t.shape, perm);
  return {transposeBuf(loadAs<double>(t), t.shape, perm), s[0], s[1], s[2], s[3]};
}

// Writes canonical NCHW values into `out` (whose layout is `perm`), converting like a cast.
void storeFromNCHW(NDArray& out, const std::vector<double>& v, const std::vector<int>& perm) {
  storeAs(out, transposeBuf(v, permuteShape(out.shape, perm), inversePerm(perm)));
}

// ---------------------------------------------------------------- resize2d
struct ResizeAxis {
  int64_t in, out;
  double roiStart, roiEnd;
  bool intDiv;  // TVM's exact integer path for nearest + asymmetric upsampling by an integer factor
};

Result<double> sourceCoord(const Call& call, const std::string& mode, const ResizeAxis& a, int64_t o) {
  double scale = double(a.in) / double(a.out), x = double(o);
  if (mode == "half_pixel") return (x + 0.5) * scale - 0.5;
  if (mode == "align_corners") return a.out > 1 ? double(a.in - 1) / double(a.out - 1) * x : 0.0;
  if (mode == "asymmetric") return a.intDiv ? double(o / (a.out / a.in)) : scale * x;
  if (mode == "pytorch_half_pixel") return a.out > 1 ? (x + 0.5) * scale - 0.5 : 0.0;
  if (mode == "tf_half_pixel_for_nn") return (x + 0.5) * scale;
  if (mode == "tf_crop_and_resize")
    return a.out > 1 ? a.roiStart * double(a.in - 1) + x * (a.roiEnd - a.roiStart) * double(a.in - 1) / double(a.out - 1)
                     : 0.5 * (a.roiStart + a.roiEnd) * double(a.in - 1);
  return evalError(call, fmt::format("unknown coordinate_transformation_mode \"{}\"", mode));
}

Result<int64_t> nearestIndex(const Call& call, const std::string& rounding, double x) {
  if (rounding == "round") return coordToIndex(std::nearbyint(x));  // half to even, like tir.round
  if (rounding == "round_prefer_floor") return coordToIndex(std::ceil(x - 0.5));
  if (rounding == "round_prefer_ceil") return coordToIndex(std::floor(x + 0.5));
  if (rounding == "floor") return coordToIndex(std::floor(x + 1e-5));  // TVM's epsilon against rounding noise
  if (rounding == "ceil") return coordToIndex(std::ceil(x - 1e-5));
  return evalError(call, fmt::format("unknown rounding_method \"{}\"", rounding));
}

std::array<double, 4> cubicWeights(double t, double alpha) {
  double t2 = t * t, t3 = t2 * t;
  return {alpha * (t3 - 2 * t2 + t), (alpha + 2) * t3 - (3 + alpha) * t2 + 1, -(alpha + 2) * t3 + (3 + 2 * alpha) * t2 - alpha * t, -alpha * t3 + alpha * t2};
}

// With cubic_exclude, taps outside the image get weight 0 and the rest are renormalized.
std::array<double, 4> cubicTaps(double coord, int64_t size, double alpha, bool exclude, int64_t& base) {
  base = coordToIndex(std::floor(coord)) - 1;
  auto w = cubicWeights(coord - std::floor(coord), alpha);
  if (!exclude) return w;
  double sum = 0;
  for (int64_t i = 0; i < 4; ++i) {
    if (base + i < 0 || base + i >= size) w[size_t(i)] = 0;
    sum += w[size_t(i)];
  }
  for (auto& x : w) x /= sum;
  return w;
}

struct ResizeSpec {
  std::string method, mode, rounding;
  double alpha, extrapolation;
  bool exclude;
};

Result<double> resizeSample(const Call& call, const Image& img, const ResizeSpec& s, int64_t b, int64_t ch, double y, double x) {
  if (s.method == "nearest_neighbor") {
    RLX_TRY(iy, nearestIndex(call, s.rounding, y));
    RLX_TRY(ix, nearestIndex(call, s.rounding, x));
    return img.clamped(b, ch, iy, ix);
  }
  if (s.method == "linear") {
    int64_t y0 = coordToIndex(std::floor(y)), x0 = coordToIndex(std::floor(x));
    double fy = y - double(y0), fx = x - double(x0);
    auto lerp = [](double a, double c, double t) { return a * (1 - t) + c * t; };
    double top = lerp(img.clamped(b, ch, y0, x0), img.clamped(b, ch, y0, x0 + 1), fx);
    double bottom = lerp(img.clamped(b, ch, y0 + 1, x0), img.clamped(b, ch, y0 + 1, x0 + 1), fx);
    return lerp(top, bottom, fy);
  }
  if (s.method == "cubic") {
    int64_t by, bx;
    auto wy = cubicTaps(y, img.h, s.alpha, s.exclude, by), wx = cubicTaps(x, img.w, s.alpha, s.exclude, bx);
    double v = 0;
    for (int64_t j = 0; j < 4; ++j) {
      double row = 0;
      for (int64_t i = 0; i < 4; ++i) row += img.clamped(b, ch, by + j, bx + i) * wx[size_t(i)];
      v += row * wy[size_t(j)];
    }
    return v;
  }
  return evalError(call, fmt::format("unknown method \"{}\"", s.method));
}

// TVM converts exactly when the upscale factor is an integer (and not absurdly large).
bool useIntDiv(const ResizeSpec& s, int64_t in, int64_t out) {
  if (s.method != "nearest_neighbor" || s.mode != "asymmetric" || in <= 0 || out % in != 0) return false;
  return double(out / in) <= 1 / (1e-5 * double(in) + 1e-5);
}

Result<Value> evalResize2d(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(out, allocResult(call));
  RLX_TRY(perm, layoutPerm(call, attrString(call, "layout", "NCHW"), "NCHW", "data"));
  if (x->shape.size() != 4 || out->shape.size() != 4) return evalError(call, "expects 4-D data");
  Image img = toNCHW(*x, perm);
  Shape os = permuteShape(out->shape, perm);
  if (os[0] != img.n || os[1] != img.c) return evalError(call, "the result's batch and channels do not match the data");
  if ((img.h == 0 || img.w == 0) && os[2] * os[3] > 0) return evalError(call, "cannot resize an empty image");
  ResizeSpec s{attrString(call, "method", "linear"), attrString(call, "coordinate_transformation_mode", "half_pixel"), attrString(call, "rounding_method", "round"),
               attrReal(call, "cubic_alpha", -0.75), attrReal(call, "extrapolation_value", 0.0), attrInt(call, "cubic_exclude", 0) != 0};
  if (s.rounding.empty()) s.rounding = s.mode == "align_corners" ? "round" : "floor";
  std::vector<double> roi = attrReals(call, "roi");
  roi.resize(4, 0.0);  // [start_h, start_w, end_h, end_w]
  ResizeAxis ay{img.h, os[2], roi[0], roi[2], useIntDiv(s, img.h, os[2])}, ax{img.w, os[3], roi[1], roi[3], useIntDiv(s, img.w, os[3])};
  std::vector<double> res(size_t(out->numel()));
  size_t f = 0;
  for (int64_t b = 0; b < img.n; ++b)
    for (int64_t ch = 0; ch < img.c; ++ch)
      for (int64_t oy = 0; oy < os[2]; ++oy) {
        RLX_TRY(y, sourceCoord(call, s.mode, ay, oy));
        for (int64_t ox = 0; ox < os[3]; ++ox) {
          RLX_TRY(xc, sourceCoord(call, s.mode, ax, ox));
          RLX_TRY(v, resizeSample(call, img, s, b, ch, y, xc));
          bool outside = y < 0 || y > double(img.h - 1) || xc < 0 || xc > double(img.w - 1);
          res[f++] = s.mode == "tf_crop_and_resize" && outside ? s.extrapolation : v;
        }
      }
  storeFromNCHW(*out, res, perm);
  return Value::ofTensor(out);
}

// ---------------------------------------------------------------- grid_sample
// The grid is (N, H_out, W_out, 2) with (x, y) pairs in [-1, 1] (the inferred struct info's
// convention); interpolation, padding and reflection follow TVM's topi kernel.
struct GridSpec {
  std::string method, padding;
  bool alignCorners;
};

double unnormalize(double g, int64_t size, bool align) { return align ? (g + 1) * double(size - 1) / 2 : -0.5 + (g + 1) * double(size) / 2; }

// Mirrors a coordinate into [corner, corner + span] (span = size - 1 with aligned corners, else
// size with corner -0.5), as often as needed.
double reflectCoord(double x, int64_t size, bool align) {
  double span = align ? double(size - 1) : double(size), corner = align ? 0.0 : -0.5;
  if (x >= corner && x <= span + corner) return x;
  if (span <= 0) return corner;
  double d = std::fabs(corner - x);
  int64_t times = coordToIndex(d) / int64_t(span);
  double extra = d - double(times) * span;
  return times % 2 == 0 ? extra + corner : span - extra + corner;
}

double clipCoord(double x, int64_t size) { return std::min(std::max(x, 0.0), double(size - 1)); }

double pixelOrZero(const Image& img, int64_t b, int64_t ch, int64_t y, int64_t x) {
  return y >= 0 && x >= 0 && y < img.h && x < img.w ? img.at(b, ch, y, x) : 0.0;
}

// Source coordinate after the padding mode (bilinear / nearest).
double sourceOf(double g, int64_t size, const GridSpec& s) {
  double c = unnormalize(g, size, s.alignCorners);
  if (s.padding == "reflection") return clipCoord(reflectCoord(c, size, s.alignCorners), size);
  if (s.padding == "border") return clipCoord(c, size);
  return c;
}

// A bicubic tap index after the padding mode.
int64_t bicubicTap(int64_t i, int64_t size, const GridSpec& s) {
  if (s.padding == "border") return coordToIndex(clipCoord(double(i), size));
  if (s.padding == "reflection") return coordToIndex(clipCoord(reflectCoord(double(i), size, s.alignCorners), size));
  return i;
}

double bicubicSample(const Image& img, int64_t b, int64_t ch, double gy, double gx, const GridSpec& s) {
  const double a = -0.75;
  auto w1 = [a](double t) { return ((a + 2) * t - (a + 3)) * t * t + 1; };
  auto w2 = [a](double t) { return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a; };
  auto interp = [&](const std::array<double, 4>& p, double t) { return p[0] * w2(t + 1) + p[1] * w1(t) + p[2] * w1(1 - t) + p[3] * w2(2 - t); };
  double y = unnormalize(gy, img.h, s.alignCorners), x = unnormalize(gx, img.w, s.alignCorners);
  int64_t y0 = coordToIndex(std::floor(y)), x0 = coordToIndex(std::floor(x));
  std::array<double, 4> rows;
  for (int64_t j = 0; j < 4; ++j) {
    std::array<double, 4> p;
    int64_t yy = bicubicTap(y0 - 1 + j, img.h, s);
    for (int64_t i = 0; i < 4; ++i) p[size_t(i)] = pixelOrZero(img, b, ch, yy, bicubicTap(x0 - 1 + i, img.w, s));
    rows[size_t(j)] = interp(p, x - double(x0));
  }
  return interp(rows, y - double(y0));
}

double gridSampleOne(const Image& img, int64_t b, int64_t ch, double gy, double gx, const GridSpec& s) {
  if (s.method == "bicubic") return bicubicSample(img, b, ch, gy, gx, s);
  double y = sourceOf(gy, img.h, s), x = sourceOf(gx, img.w, s);
  if (s.method == "nearest") return pixelOrZero(img, b, ch, coordToIndex(std::nearbyint(y)), coordToIndex(std::nearbyint(x)));
  int64_t y0 = coordToIndex(std::floor(y)), x0 = coordToIndex(std::floor(x));
  double fy = y - double(y0), fx = x - double(x0);
  return pixelOrZero(img, b, ch, y0, x0) * (1 - fy) * (1 - fx) + pixelOrZero(img, b, ch, y0, x0 + 1) * (1 - fy) * fx +
         pixelOrZero(img, b, ch, y0 + 1, x0) * fy * (1 - fx) + pixelOrZero(img, b, ch, y0 + 1, x0 + 1) * fy * fx;
}

// Volumetric sampling (layout NCDHW, grid (N, D_out, H_out, W_out, 3) holding (x, y, z)):
// trilinear for "bilinear", or nearest, as topi's 3-D kernel.
Result<Value> gridSample3d(const Call& call, const NDArray& x, const NDArray& grid, const NDArrayRef& out, const GridSpec& s) {
  if (s.method == "bicubic") return evalError(call, "bicubic sampling needs 4-D data");
  if (x.shape.size() != 5 || grid.shape.size() != 5 || grid.shape[4] != 3) return evalError(call, "expects 5-D data and a (N, D_out, H_out, W_out, 3) grid");
  int64_t n = x.shape[0], c = x.shape[1], d = x.shape[2], h = x.shape[3], w = x.shape[4];
  int64_t od = grid.shape[1], oh = grid.shape[2], ow = grid.shape[3];
  if (grid.shape[0] != n || out->shape != Shape{n, c, od, oh, ow}) return evalError(call, "the grid and result shapes do not match the data");
  std::vector<double> v = loadAs<double>(x), g = loadAs<double>(grid), res;
  auto voxel = [&](int64_t b, int64_t ch, int64_t z, int64_t y, int64_t xx) {
    return z >= 0 && y >= 0 && xx >= 0 && z < d && y < h && xx < w ? v[size_t((((b * c + ch) * d + z) * h + y) * w + xx)] : 0.0;
  };
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t oz = 0; oz < od; ++oz)
        for (int64_t oy = 0; oy < oh; ++oy)
          for (int64_t ox = 0; ox < ow; ++ox) {
            size_t gi = size_t((((b * od + oz) * oh + oy) * ow + ox) * 3);
            double z = sourceOf(g[gi + 2], d, s), y = sourceOf(g[gi + 1], h, s), xx = sourceOf(g[gi], w, s);
            if (s.method == "nearest") {
              res.push_back(voxel(b, ch, coordToIndex(std::nearbyint(z)), coordToIndex(std::nearbyint(y)), coordToIndex(std::nearbyint(xx))));
              continue;
            }
            int64_t z0 = coordToIndex(std::floor(z)), y0 = coordToIndex(std::floor(y)), x0 = coordToIndex(std::floor(xx));
            double fz = z - double(z0), fy = y - double(y0), fx = xx - double(x0), sum = 0;
            for (int dz = 0; dz < 2; ++dz)
              for (int dy = 0; dy < 2; ++dy)
                for (int dx = 0; dx < 2; ++dx)
                  sum += voxel(b, ch, z0 + dz, y0 + dy, x0 + dx) * (dz ? fz : 1 - fz) * (dy ? fy : 1 - fy) * (dx ? fx : 1 - fx);
            res.push_back(sum);
          }
  storeAs(*out, res);
  return Value::ofTensor(out);
}

Result<Value> evalGridSample(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(grid, tensorValue(call, args, 1, "grid"));
  RLX_TRY(out, allocResult(call));
  GridSpec s{attrString(call, "method", "bilinear"), attrString(call, "padding_mode", "zeros"), attrBool(call, "align_corners")};
  if (s.method != "bilinear" && s.method != "nearest" && s.method != "bicubic") return evalError(call, fmt::format("unknown method \"{}\"", s.method));
  if (s.padding != "zeros" && s.padding != "border" && s.padding != "reflection") return evalError(call, fmt::format("unknown padding_mode \"{}\"", s.padding));
  if (attrString(call, "layout", "NCHW") == "NCDHW") return gridSample3d(call, *x, *grid, out, s);
  RLX_TRY(perm, layoutPerm(call, attrString(call, "layout", "NCHW"), "NCHW", "data"));
  if (x->shape.size() != 4 || grid->shape.size() != 4 || grid->shape[3] != 2) return evalError(call, "expects 4-D data and a (N, H_out, W_out, 2) grid");
  Image img = toNCHW(*x, perm);
  Shape os = permuteShape(out->shape, perm);
  if (grid->shape[0] != img.n || os[0] != img.n || os[1] != img.c || os[2] != grid->shape[1] || os[3] != grid->shape[2])
    return evalError(call, "the grid and result shapes do not match the data");
  std::vector<double> g = loadAs<double>(*grid), res;
  for (int64_t b = 0; b < img.n; ++b)
    for (int64_t ch = 0; ch < img.c; ++ch)
      for (int64_t oy = 0; oy < os[2]; ++oy)
        for (int64_t ox = 0; ox < os[3]; ++ox) {
          size_t gi = size_t(((b * os[2] + oy) * os[3] + ox) * 2);
          res.push_back(gridSampleOne(img, b, ch, g[gi + 1], g[gi], s));
        }
  storeFromNCHW(*out, res, perm);
  return Value::ofTensor(out);
}

// ---------------------------------------------------------------- quantize / dequantize
// A quantization parameter's value for element `flat`: one value for all, or one per index
// along `axis`.
struct QParam {
  NDArrayRef t;
  int64_t inner = 1, len = 1;
  double at(int64_t flat) const { return t->numel() == 1 ? t->getDouble(0) : t->getDouble((flat / inner) % len); }
};

Result<QParam> qparam(const Call& call, const NDArrayRef& t, const Shape& shape, const char* name) {
  int ndim = int(shape.size());
  int64_t axis = attrInt(call, "axis", -1);
  if (ndim == 0 || t->numel() == 1) return QParam{t};
  if (axis < -ndim || axis >= ndim) return evalError(call, fmt::format("axis {} is out of range for {} dimensions", axis, ndim));
  int a = normAxis(axis, ndim);
  QParam q{t, 1, shape[size_t(a)]};
  for (int k = a + 1; k < ndim; ++k) q.inner *= shape[size_t(k)];
  if (t->numel() != q.len) return evalError(call, fmt::format("{} has {} entries but axis {} has extent {}", name, t->numel(), a, q.len));
  return q;
}

double clipTo(double v, DataType t) { return std::min(std::max(v, dtypeLowest(t)), dtypeHighest(t)); }

// quantize: clip(round(x / scale) + zero_point) (no rounding for float out dtypes);
// dequantize: (x - zero_point) * scale, clipped unless the result is float32.
Result<Value> evalQDQ(const Call& call, const std::vector<Value>& args, bool quantize) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(scale, tensorValue(call, args, 1, "scale"));
  RLX_TRY(zp, tensorValue(call, args, 2, "zero_point"));
  RLX_TRY(out, allocResult(call));
  RLX_TRY(qs, qparam(call, scale, x->shape, "scale"));
  RLX_TRY(qz, qparam(call, zp, x->shape, "zero_point"));
  if (out->numel() != x->numel()) return evalError(call, "the result shape does not match the data");
  DataType od = out->dtype;
  for (int64_t f = 0; f < x->numel(); ++f) {
    double v;
    if (quantize) {
      double scaled = x->getDouble(f) / qs.at(f);
      v = clipTo((od.isFloat() ? scaled : std::nearbyint(scaled)) + qz.at(f), od);
    } else {
      v = (x->getDouble(f) - qz.at(f)) * qs.at(f);
      if (od != DataType::float32()) v = clipTo(v, od);
    }
    out->setDouble(f, v);
  }
  return Value::ofTensor(out);
}

// ---------------------------------------------------------------- all_class_non_max_suppression
// Per (batch, class): the boxes scoring above score_threshold in descending score order (ties by
// index); greedily keep a box and drop the later ones overlapping it with IoU >= iou_threshold,
// up to max_output_boxes_per_class. Boxes are (y1, x1, y2, x2) as TVM's kernel reads them.
// Quirks of that kernel kept on purpose: iou_threshold <= 0 selects nothing, and a box scoring
// <= 0 is never suppressed. Rows past the detections are zero (the kernel leaves them undefined).
double boxIoU(const std::vector<double>& b, size_t i, size_t j) {
  const double* p = &b[i * 4];
  const double* q = &b[j * 4];
  double w = std::max(0.0, std::min(p[2], q[2]) - std::max(p[0], q[0]));
  double h = std::max(0.0, std::min(p[3], q[3]) - std::max(p[1], q[1]));
  double inter = w * h, uni = (p[2] - p[0]) * (p[3] - p[1]) + (q[2] - q[0]) * (q[3] - q[1]) - inter;
  return uni <= 0 ? 0.0 : inter / uni;
}

// The selected box indices of one (batch, class) row of scores.
std::vector<int64_t> selectBoxes(const std::vector<double>& boxes, size_t boxBase, const double* scores, int64_t numBoxes, int64_t maxOut, double iouThr, double scoreThr) {
  std::vector<int64_t> order;
  for (int64_t k = 0; k < numBoxes; ++k)
    if (scores[k] > scoreThr) order.push_back(k);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return scores[a] > scores[b]; });
  std::vector<int64_t> kept;
  if (iouThr <= 0) return kept;
  std::vector<bool> dropped(order.size(), false);
  for (size_t j = 0; j < order.size() && int64_t(kept.size()) < maxOut; ++j) {
    if (dropped[j]) continue;
    kept.push_back(order[j]);
    for (size_t k = j + 1; k < order.size(); ++k)
      if (!dropped[k] && scores[order[k]] > 0 && boxIoU(boxes, boxBase + size_t(order[j]), boxBase + size_t(order[k])) >= iouThr) dropped[k] = true;
  }
  return kept;
}

Result<double> scalarArg(const Call& call, const std::vector<Value>& args, size_t i, const char* name) {
  if (i < args.size() && args[i].isTensor() && args[i].tensor->numel() >= 1) return args[i].tensor->getDouble(0);
  RLX_TRY(v, primValueArg(call, args, i, name));
  return v.primDouble();
}

Result<Value> evalAllClassNMS(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(boxesT, tensorValue(call, args, 0, "boxes"));
  RLX_TRY(scoresT, tensorValue(call, args, 1, "scores"));
  RLX_TRY(maxOut, scalarArg(call, args, 2, "max_output_boxes_per_class"));
  RLX_TRY(iouThr, scalarArg(call, args, 3, "iou_threshold"));
  RLX_TRY(scoreThr, scalarArg(call, args, 4, "score_threshold"));
  if (scoresT->shape.size() != 3 || boxesT->shape.size() != 3) return evalError(call, "expects boxes (batch, num_boxes, 4) and scores (batch, num_classes, num_boxes)");
  int64_t batch = scoresT->shape[0], classes = scoresT->shape[1], numBoxes = scoresT->shape[2];
  RLX_TRY_STATUS(expectShape(call, *boxesT, {batch, numBoxes, 4}, "boxes"));
  std::vector<double> boxes = loadAs<double>(*boxesT), scores = loadAs<double>(*scoresT);
  int64_t limit = std::isnan(maxOut) ? 0 : int64_t(std::clamp(maxOut, 0.0, double(numBoxes)));
  std::vector<std::vector<int64_t>> kept;  // per batch * classes + class
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t c = 0; c < classes; ++c)
      kept.push_back(selectBoxes(boxes, size_t(b * numBoxes), scores.data() + (b * classes + c) * numBoxes, numBoxes, limit, iouThr, scoreThr));
  bool onnx = attrString(call, "output_format", "onnx") == "onnx";
  if (onnx) {
    RLX_TRY(sel, allocResultField(call, 0));
    RLX_TRY(total, allocResultField(call, 1));
    RLX_TRY_STATUS(expectShape(call, *sel, {batch * classes * numBoxes, 3}, "the selected indices"));
    RLX_TRY_STATUS(expectShape(call, *total, {1}, "the detection count"));
    std::vector<uint64_t> rows(size_t(sel->numel()), 0);
    size_t r = 0;
    for (size_t bc = 0; bc < kept.size(); ++bc)
      for (int64_t box : kept[bc]) {
        rows[r * 3] = uint64_t(int64_t(bc) / classes), rows[r * 3 + 1] = uint64_t(int64_t(bc) % classes), rows[r * 3 + 2] = uint64_t(box);
        ++r;
      }
    storeAs(*sel, rows);
    total->setInt(0, int64_t(r));
    return Value::ofTuple({Value::ofTensor(sel), Value::ofTensor(total)});
  }
  RLX_TRY(sel, allocResultField(call, 0));
  RLX_TRY(selScores, allocResultField(call, 1));
  RLX_TRY(totals, allocResultField(call, 2));
  RLX_TRY_STATUS(expectShape(call, *sel, {batch, classes * numBoxes, 2}, "the selected indices"));
  RLX_TRY_STATUS(expectShape(call, *selScores, {batch, classes * numBoxes}, "the selected scores"));
  RLX_TRY_STATUS(expectShape(call, *totals, {batch}, "the detection counts"));
  std::vector<uint64_t> idx(size_t(sel->numel()), 0);
  std::vector<double> sc(size_t(selScores->numel()), 0.0);
  for (int64_t b = 0; b < batch; ++b) {
    int64_t r = 0;
    for (int64_t c = 0; c < classes; ++c)
      for (int64_t box : kept[size_t(b * classes + c)]) {
        size_t row = size_t(b * classes * numBoxes + r++);
        idx[row * 2] = uint64_t(c), idx[row * 2 + 1] = uint64_t(box);
        sc[row] = scores[size_t((b * classes + c) * numBoxes + box)];
      }
    totals->setInt(b, r);
  }
  storeAs(*sel, idx);
  storeAs(*selScores, sc);
  return Value::ofTuple({Value::ofTensor(sel), Value::ofTensor(selScores), Value::ofTensor(totals)});
}

}  // namespace

void registerImageEvals() {
  registerEval("relax.image.resize2d", evalResize2d);
  registerEval("relax.image.grid_sample", evalGridSample);
  registerEval("relax.vision.all_class_non_max_suppression", evalAllClassNMS);
  registerEval("relax.quantize", [](const Call& c, const std::vector<Value>& a) { return evalQDQ(c, a, true); });
  registerEval("relax.dequantize", [](const Call& c, const std::vector<Value>& a) { return evalQDQ(c, a, false); });
}

}  // namespace rlx
