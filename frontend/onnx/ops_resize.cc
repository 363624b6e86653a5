// ONNX Resize and Upsample. What TVM's image.resize2d expresses exactly (4-D, H and W only, a
// scale equal to out / in, no antialiasing) becomes R.image.resize2d, as TVM imports it; every
// other case is resized axis by axis with an interpolation matrix built at import by ONNX's
// rules (scale-based coordinates, antialias, exclude_outside, extrapolation, any axes).
#include <cmath>

#include "frontend/onnx/converter.h"

namespace rlx::onnx {

namespace {

struct ResizePlan {
  int64_t rank = 0;
  std::vector<int64_t> in, out;        // per dim
  std::vector<double> scale;           // per dim (1 for dims not resized)
  std::vector<double> roiStart, roiEnd;  // per dim, in [0, 1]
  std::string mode, coord, nearest;
  double cubicA = -0.75, extrapolation = 0;
  bool exclude = false, antialias = false;
};

// The output coordinate x mapped into the input (ONNX's coordinate_transformation_mode), and
// whether it falls outside the input (tf_crop_and_resize extrapolates there).
double sourceCoord(const ResizePlan& p, size_t d, int64_t x, bool& outside) {
  double s = p.scale[d], in = double(p.in[d]), width = s * in;
  outside = false;
  const std::string& m = p.coord;
  if (m == "align_corners") return width == 1 ? 0.0 : double(x) * (in - 1) / (width - 1);
  if (m == "asymmetric") return double(x) / s;
  if (m == "pytorch_half_pixel") return width == 1 ? -0.5 : (double(x) + 0.5) / s - 0.5;
  if (m == "half_pixel") return (double(x) + 0.5) / s - 0.5;
  if (m == "half_pixel_symmetric") {
    double offset = in / 2 * (1 - double(p.out[d]) / width);
    return offset + (double(x) + 0.5) / s - 0.5;
  }
  if (m == "tf_crop_and_resize") {
    double span = p.roiEnd[d] - p.roiStart[d];
    double v = (width == 1 ? span * (in - 1) / 2 : double(x) * span * (in - 1) / (width - 1)) + p.roiStart[d] * (in - 1);
    outside = v < 0 || v > in - 1;
    return v;
  }
  fail("unknown coordinate_transformation_mode '" + m + "'");
}

double cubicKernel(double x, double a) {
  x = std::fabs(x);
  if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

// The tap weights for a point `ratio` past its left neighbour (ratio in (0, 1]).
std::vector<double> tapWeights(const ResizePlan& p, size_t d, double ratio) {
  double s = std::min(p.scale[d], 1.0);
  if (p.mode == "nearest") {
    if (ratio == 1) return {0, 1};
    const std::string& n = p.nearest;
    if (n == "round_prefer_floor") return {double(ratio <= 0.5), double(ratio > 0.5)};
    if (n == "round_prefer_ceil") return {double(ratio < 0.5), double(ratio >= 0.5)};
    if (n == "floor") return {1, 0};
    if (n == "ceil") return {0, 1};
    fail("unknown nearest_mode '" + n + "'");
  }
  std::vector<double> w;
  if (p.mode == "linear") {
    if (!p.antialias) return {1 - ratio, ratio};
    // The triangle filter stretched by 1 / scale when downscaling.
    int64_t start = int64_t(std::floor(-1 / s) + 1);
    for (int64_t k = start; k < start + 2 - 2 * start; ++k) w.push_back(std::clamp(1 - std::fabs((double(k) - ratio) * s), 0.0, 1.0));
  } else {
    if (!p.antialias) return {cubicKernel(ratio + 1, p.cubicA), cubicKernel(ratio, p.cubicA), cubicKernel(1 - ratio, p.cubicA), cubicKernel(2 - ratio, p.cubicA)};
    int64_t start = int64_t(std::floor(-2 / s) + 1);
    for (int64_t k = start; k < 2 - start; ++k) w.push_back(cubicKernel(s * (double(k) - ratio), p.cubicA));
  }
  double sum = 0;
  for (double v : w) sum += v;
  for (double& v : w) v /= sum;
  return w;
}

// The (out, in) matrix taking dim d from its input size to its output size, and the rows that
// are extrapolated (their weights are zero).
std::vector<double> interpolationMatrix(const ResizePlan& p, size_t d, std::vector<bool>& extrapolated) {
  int64_t in = p.in[d], out = p.out[d];
  std::vector<double> m(size_t(in * out), 0.0);
  extrapolated.assign(size_t(out), false);
  for (int64_t x = 0; x < out; ++x) {
    bool outside;
    double src = sourceCoord(p, d, x, outside);
    if (outside) {
      extrapolated[size_t(x)] = true;
      continue;
    }
    double left = std::floor(src);
    bool integral = src == left;
    auto w = tapWeights(p, d, integral ? 1.0 : src - left);
    int64_t n = int64_t(w.size());
    // The n taps nearest to src, the smaller ones first on a tie (ONNX's neighbour choice).
    int64_t first = int64_t(left) + (integral ? -(n / 2) : -(n / 2) + 1);
    if (n % 2) first = int64_t(left) - (n - 1) / 2 + (src - left > 0.5 ? 1 : 0);
    if (p.exclude) {
      double sum = 0;
      for (int64_t t = 0; t < n; ++t) {
        int64_t at = first + t;
        if (at < 0 || at >= in) w[size_t(t)] = 0;
        sum += w[size_t(t)];
      }
      if (sum != 0)
        for (double& v : w) v /= sum;
    }
    for (int64_t t = 0; t < n; ++t) m[size_t(x * in + std::clamp<int64_t>(first + t, 0, in - 1))] += w[size_t(t)];
  }
  return m;
}

// x resized along dim d by an interpolation matrix (a matmul on the last two dims, otherwise a
// transposition around one).
Expr resizeAxis(NodeCtx& c, Expr x, const ResizePlan& p, size_t d) {
  DataType t = tensorInfo(x)->dtype;
  std::vector<bool> extrapolated;
  auto weights = interpolationMatrix(p, d, extrapolated);
  int64_t in = p.in[d], out = p.out[d], r = p.rank;
  bool lastDim = int64_t(d) == r - 1;
  // W (out, in) multiplies from the left for dim r - 2; W^T (in, out) from the right otherwise.
  auto w = make<NDArray>(t, lastDim || int64_t(d) < r - 2 ? std::vector<int64_t>{in, out} : std::vector<int64_t>{out, in});
  for (int64_t o = 0; o < out; ++o)
    for (int64_t k = 0; k < in; ++k) w->setDouble(w->shape[0] == in ? k * out + o : o * in + k, weights[size_t(o * in + k)]);
  Expr wc = c.constant(w);
  Expr y;
  if (int64_t(d) == r - 2) {
    y = c.op("matmul", {ex(wc), ex(x)});
  } else if (lastDim) {
    y = c.op("matmul", {ex(x), ex(wc)});
  } else {
    std::vector<int64_t> perm;
    for (int64_t k = 0; k < r; ++k)
      if (k != int64_t(d)) perm.push_back(k);
    perm.push_back(int64_t(d));
    std::vector<int64_t> back(static_cast<size_t>(r));
    for (int64_t k = 0; k < r; ++k) back[size_t(perm[size_t(k)])] = k;
    y = c.op("permute_dims", {ex(c.op("matmul", {ex(c.op("permute_dims", {ex(x)}, {{"axes", ints(perm)}})), ex(wc)}))}, {{"axes", ints(back)}});
  }
  bool any = false;
  for (bool e : extrapolated) any |= e;
  if (!any) return y;
  std::vector<int64_t> shape(size_t(r), 1);
  shape[d] = out;
  auto fill = make<NDArray>(t, shape);
  for (int64_t o = 0; o < out; ++o) fill->setDouble(o, extrapolated[size_t(o)] ? p.extrapolation : 0.0);
  return c.op("add", {ex(y), ex(c.constant(fill))});
}

// Whether R.image.resize2d computes exactly what ONNX asks for.
bool fitsResize2d(const ResizePlan& p) {
  if (p.rank != 4 || p.antialias) return false;
  for (size_t d = 0; d < 2; ++d)
    if (p.out[d] != p.in[d]) return false;
  for (size_t d = 2; d < 4; ++d) {
    if (p.in[d] == 0 || double(p.out[d]) / double(p.in[d]) != p.scale[d]) return false;
  }
  // TVM's nearest with asymmetric coordinates rounds down whatever the rounding method.
  if (p.mode == "nearest" && p.coord == "asymmetric" && p.nearest != "floor") return false;
  if (p.coord == "half_pixel_symmetric") return false;
  return true;
}

Outputs resize(NodeCtx& c, bool upsample) {
  auto dims = c.dims(0);
  ResizePlan p;
  p.rank = int64_t(dims.size());
  for (auto& dim : dims) {
    auto v = dim.as<IntImm>();
    if (!v) fail("symbolic dims are not supported by Resize");
    p.in.push_back(v->value);
  }
  size_t r = size_t(p.rank);
  std::vector<int64_t> axes;
  if (auto a = c.intsOpt("axes"))
    for (auto x : *a) axes.push_back(normAxis(x, p.rank));
  else
    for (int64_t k = 0; k < p.rank; ++k) axes.push_back(k);
  std::vector<double> scales;
  std::optional<std::vector<int64_t>> sizes;
  if (!upsample && c.since >= 11 && c.has(3)) sizes = c.requireInts(3, "sizes");
  if (sizes && sizes->empty()) sizes.reset();
  size_t scalesInput = upsample || c.since < 11 ? 1 : 2;
  if (upsample && c.since < 9) {
    scales = c.floats("scales");
  } else if (!sizes && c.has(scalesInput)) {
    auto a = c.constant(scalesInput);
    if (!a) fail("scales (input " + std::to_string(scalesInput) + ") must be a constant; rlx cannot use a value computed at run time here");
    for (int64_t k = 0; k < a->numel(); ++k) scales.push_back(a->getDouble(k));
  }
  p.scale.assign(r, 1.0);
  p.out = p.in;
  if (sizes) {
    if (sizes->size() != axes.size()) fail("sizes must have one value per resized axis");
    std::string policy = c.s("keep_aspect_ratio_policy", "stretch");
    for (size_t k = 0; k < axes.size(); ++k) p.scale[size_t(axes[k])] = double((*sizes)[k]) / double(p.in[size_t(axes[k])]);
    if (policy == "stretch") {
      for (size_t k = 0; k < axes.size(); ++k) p.out[size_t(axes[k])] = (*sizes)[k];
    } else {
      if (policy != "not_larger" && policy != "not_smaller") fail("unknown keep_aspect_ratio_policy '" + policy + "'");
      double s = p.scale[size_t(axes[0])];
      for (auto a : axes) s = policy == "not_larger" ? std::min(s, p.scale[size_t(a)]) : std::max(s, p.scale[size_t(a)]);
      for (auto a : axes) p.scale[size_t(a)] = s, p.out[size_t(a)] = int64_t(s * double(p.in[size_t(a)]) + 0.5);
    }
  } else {
    if (scales.size() != axes.size()) fail("scales must have one value per resized axis (or sizes must be given)");
    for (size_t k = 0; k < axes.size(); ++k) {
      if (!(scales[k] > 0)) fail("scales must be positive");
      size_t a = size_t(axes[k]);
      p.scale[a] = scales[k];
      p.out[a] = int64_t(std::floor(double(p.in[a]) * scales[k]));
    }
  }
  p.mode = c.s("mode", "nearest");
  if (p.mode == "bilinear") p.mode = "linear";
  if (p.mode != "nearest" && p.mode != "linear" && p.mode != "cubic") fail("unknown resize mode '" + p.mode + "'");
  bool legacy = upsample || c.since < 11;
  p.coord = legacy ? "asymmetric" : c.s("coordinate_transformation_mode", "half_pixel");
  p.nearest = legacy ? "floor" : c.s("nearest_mode", "round_prefer_floor");
  p.cubicA = c.f("cubic_coeff_a", -0.75);
  p.exclude = c.i("exclude_outside", 0) != 0;
  p.extrapolation = c.f("extrapolation_value", 0.0);
  p.antialias = c.i("antialias", 0) != 0 && p.mode != "nearest";
  p.roiStart.assign(r, 0.0);
  p.roiEnd.assign(r, 1.0);
  if (p.coord == "tf_crop_and_resize") {
    auto roi = c.constant(1);
    if (!roi) fail("roi (input 1) must be a constant for tf_crop_and_resize");
    if (roi->numel() != int64_t(2 * axes.size())) fail("roi must have two values per resized axis");
    for (size_t k = 0; k < axes.size(); ++k) p.roiStart[size_t(axes[k])] = roi->getDouble(int64_t(k)), p.roiEnd[size_t(axes[k])] = roi->getDouble(int64_t(k + axes.size()));
  }
  if (fitsResize2d(p)) {
    std::string method = p.mode == "nearest" ? "nearest_neighbor" : p.mode;
    PyValue roiList;
    roiList.kind = PyValue::List;
    for (double v : {p.roiStart[2], p.roiStart[3], p.roiEnd[2], p.roiEnd[3]}) roiList.items.push_back(f(p.coord == "tf_crop_and_resize" ? v : 0.0));
    return {{c.op("image.resize2d", {ex(c.x(0)), ex(shapeExpr({intImm(p.out[2]), intImm(p.out[3])}))},
                  {{"roi", roiList}, {"layout", s("NCHW")}, {"method", s(method)}, {"coordinate_transformation_mode", s(p.coord)}, {"rounding_method", s(p.nearest)},
                   {"cubic_alpha", f(p.cubicA)}, {"cubic_exclude", i(p.exclude)}, {"extrapolation_value", f(p.extrapolation)}})}};
  }
  if (!c.dtype(0).isFloat()) fail("resizing a " + c.dtype(0).str() + " tensor this way is not supported (only float tensors)");
  Expr y = c.x(0);
  for (size_t d = 0; d < r; ++d) {
    bool trivialRoi = p.roiStart[d] == 0 && p.roiEnd[d] == 1;
    if (p.out[d] == p.in[d] && std::fabs(p.scale[d] - 1) < 1e-9 && trivialRoi) continue;
    y = resizeAxis(c, y, p, d);
  }
  return {{y}};
}

}  // namespace

void registerResizeConverters() {
  onnxOp("Resize", {10, 11, 13, 18, 19}, [](NodeCtx& c) { return resize(c, false); });
  onnxOp("Upsample", {}, [](NodeCtx& c) { return resize(c, true); });
}

}  // namespace rlx::onnx
