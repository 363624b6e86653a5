// Legalization of image.resize2d (topi.image.resize2d: every method, coordinate and rounding mode),
// image.grid_sample (topi's bilinear / nearest / bicubic sampling) and nn.pixel_shuffle.
#include <array>
#include <cmath>

#include "ir/arith.h"
#include "ir/ops/eval_nn.h"
#include "ir/ops/infer_util.h"
#include "passes/legalize/legalize.h"

namespace rlx::legalize {

namespace {

using te::Indices;
using te::Tensor;

// Small expression helpers over one float dtype (TVM's "float" is float32; float64 data keeps
// double precision here so that it loses nothing).
struct F {
  DataType t;
  PrimExpr c(double v) const { return te::constant(v, t); }
  PrimExpr of(const PrimExpr& e) const {
    if (auto i = asIntImm(e)) return c(double(i->value));
    return e->dtype == t ? e : PrimExpr(make<Cast>(t, e));
  }
  PrimExpr add(const PrimExpr& a, const PrimExpr& b) const { return te::bin(NodeKind::Add, a, b); }
  PrimExpr sub(const PrimExpr& a, const PrimExpr& b) const { return te::bin(NodeKind::Sub, a, b); }
  PrimExpr mul(const PrimExpr& a, const PrimExpr& b) const { return te::bin(NodeKind::Mul, a, b); }
  PrimExpr div(const PrimExpr& a, const PrimExpr& b) const { return te::bin(NodeKind::Div, a, b); }
  PrimExpr call(const char* f, const PrimExpr& a) const { return te::call(std::string("tir.") + f, t, {a}); }
  // A ratio of two extents, folded when both are constant (in the dtype's precision, as TVM folds).
  PrimExpr ratio(const PrimExpr& num, const PrimExpr& den) const {
    auto n = asIntImm(num), d = asIntImm(den);
    if (n && d) return c(t.bits == 32 ? double(float(n->value) / float(d->value)) : double(n->value) / double(d->value));
    return div(of(num), of(den));
  }
};

PrimExpr toIndex(const PrimExpr& v) { return make<Cast>(DataType::int64(), v); }
PrimExpr clampIndex(const PrimExpr& i, const PrimExpr& size) {
  return te::bin(NodeKind::Max, te::bin(NodeKind::Min, i, simplify(sub(size, intImm(1)))), intImm(0));
}
PrimExpr select(const PrimExpr& c, const PrimExpr& a, const PrimExpr& b) { return make<Select>(c, a, b); }
PrimExpr all(const std::vector<PrimExpr>& cs) {
  PrimExpr r;
  for (auto& c : cs) r = r ? te::bin(NodeKind::And, r, c) : c;
  return r;
}

// ---------------------------------------------------------------- resize2d
struct ResizeAxis {
  PrimExpr in, out;
  double roiStart = 0, roiEnd = 0;
  int64_t intDivFactor = 0;  // TVM's exact o // (out / in) for nearest + asymmetric integer upscaling
};

struct ResizeSpec {
  std::string method, mode, rounding;
  double alpha = -0.75, extrapolation = 0;
  bool exclude = false;
};

// topi's can_convert_multiply_to_intdiv: a static integer upscale factor that is not too large.
// As topi (and the reference evaluator), whatever the rounding method: the division floors, where
// ONNX would round the source coordinate (x = 2 at factor 3 is 0.67: index 1 under round_prefer_floor).
int64_t intDivFactor(const ResizeSpec& s, const PrimExpr& in, const PrimExpr& out) {
  auto i = asIntImm(in), o = asIntImm(out);
  if (s.method != "nearest_neighbor" || s.mode != "asymmetric" || !i || !o || i->value <= 0 || o->value % i->value) return 0;
  int64_t f = o->value / i->value;
  return double(f) <= 1 / (1e-5 * double(i->value) + 1e-5) ? f : 0;
}

// The source coordinate of output position o along one axis (topi's get_inx); null for an unknown mode.
PrimExpr sourceCoord(const F& f, const ResizeSpec& s, const ResizeAxis& a, const PrimExpr& o) {
  PrimExpr x = f.of(o);
  PrimExpr moreThanOne = te::bin(NodeKind::LT, intImm(1), a.out);
  // Modes guarded by out > 1: fold the guard when the extent is known.
  auto guarded = [&](const PrimExpr& general, const PrimExpr& single) -> PrimExpr {
    if (auto k = asIntImm(a.out)) return k->value > 1 ? general : single;
    return select(moreThanOne, general, single);
  };
  PrimExpr scale = f.ratio(a.in, a.out);
  PrimExpr centred = f.sub(f.mul(f.add(x, f.c(0.5)), scale), f.c(0.5));
  if (s.mode == "half_pixel") return centred;
  if (s.mode == "pytorch_half_pixel") return guarded(centred, f.c(0));
  if (s.mode == "tf_half_pixel_for_nn") return f.mul(f.add(x, f.c(0.5)), scale);
  if (s.mode == "asymmetric") return f.mul(scale, x);
  PrimExpr inM1 = simplify(sub(a.in, intImm(1))), outM1 = simplify(sub(a.out, intImm(1)));
  // With one output position TVM divides by zero; 0 is what ONNX and the reference evaluator use.
  if (s.mode == "align_corners") return guarded(f.mul(f.ratio(inM1, outM1), x), f.c(0));
  if (s.mode == "tf_crop_and_resize") {
    PrimExpr start = f.mul(f.c(a.roiStart), f.of(inM1));
    PrimExpr step = f.mul(f.c(a.roiEnd - a.roiStart), f.ratio(inM1, outM1));
    return guarded(f.add(start, f.mul(x, step)), f.mul(f.c(0.5 * (a.roiStart + a.roiEnd)), f.of(inM1)));
  }
  return nullptr;
}

// topi's get_closest_index (the small epsilons guard against rounding noise, as TVM's).
PrimExpr nearestIndex(const F& f, const std::string& rounding, const PrimExpr& x) {
  if (rounding == "round") return toIndex(f.call("round", x));
  if (rounding == "round_prefer_floor") return toIndex(f.call("ceil", f.sub(x, f.c(0.5))));
  if (rounding == "round_prefer_ceil") return toIndex(f.call("floor", f.add(x, f.c(0.5))));
  if (rounding == "floor") return toIndex(f.call("floor", f.add(x, f.c(1e-5))));
  if (rounding == "ceil") return toIndex(f.call("ceil", f.sub(x, f.c(1e-5))));
  return nullptr;
}

std::array<PrimExpr, 4> cubicWeights(const F& f, const PrimExpr& t, double alpha) {
  PrimExpr t2 = f.mul(t, t), t3 = f.mul(t2, t), a = f.c(alpha);
  return {f.mul(a, f.add(f.sub(t3, f.mul(f.c(2), t2)), t)),
          f.add(f.sub(f.mul(f.c(alpha + 2), t3), f.mul(f.c(3 + alpha), t2)), f.c(1)),
          f.sub(f.add(f.mul(f.c(-(alpha + 2)), t3), f.mul(f.c(3 + 2 * alpha), t2)), f.mul(a, t)),
          f.add(f.mul(f.c(-alpha), t3), f.mul(a, t2))};
}

// With cubic_exclude, taps outside the image weigh 0 and the others are renormalized.
std::array<PrimExpr, 4> excludeOutside(const F& f, std::array<PrimExpr, 4> w, const PrimExpr& base, const PrimExpr& size) {
  PrimExpr sum;
  for (int64_t i = 0; i < 4; ++i) {
    PrimExpr tap = te::idxAdd(base, intImm(i - 1));
    PrimExpr outside = te::bin(NodeKind::Or, te::bin(NodeKind::LT, tap, intImm(0)), te::bin(NodeKind::LE, size, tap));
    w[size_t(i)] = select(outside, f.c(0), w[size_t(i)]);
    sum = sum ? f.add(sum, w[size_t(i)]) : w[size_t(i)];
  }
  for (auto& x : w) x = f.div(x, sum);
  return w;
}

std::vector<Tensor> resize2d(Ctx& ctx) {
  auto x = ctx.arg(0);
  auto shape = ctx.outShape();
  std::string layout = ops::attrString(ctx.call, "layout", "NCHW");
  if (!x || !shape || x->ndim() != 4 || (layout != "NCHW" && layout != "NHWC")) return {};
  bool nhwc = layout == "NHWC";
  size_t hAxis = nhwc ? 1 : 2, wAxis = nhwc ? 2 : 3;
  ResizeSpec s{ops::attrString(ctx.call, "method", "linear"), ops::attrString(ctx.call, "coordinate_transformation_mode", "half_pixel"),
               ops::attrString(ctx.call, "rounding_method", "round"), ops::attrReal(ctx.call, "cubic_alpha", -0.75), ops::attrReal(ctx.call, "extrapolation_value", 0),
               ops::attrInt(ctx.call, "cubic_exclude", 0) != 0};
  if (s.rounding.empty()) s.rounding = s.mode == "align_corners" ? "round" : "floor";
  std::vector<double> roi = ops::attrReals(ctx.call, "roi");
  roi.resize(4, 0.0);  // [start_h, start_w, end_h, end_w]
  ResizeAxis ay{x->shape()[hAxis], (*shape)[hAxis], roi[0], roi[2], 0}, ax{x->shape()[wAxis], (*shape)[wAxis], roi[1], roi[3], 0};
  ay.intDivFactor = intDivFactor(s, ay.in, ay.out);
  ax.intDivFactor = intDivFactor(s, ax.in, ax.out);
  F f{x->dtype().isFloat() && x->dtype().bits == 64 ? DataType::float64() : DataType::float32()};
  if (s.method != "nearest_neighbor" && s.method != "linear" && s.method != "cubic") return {};
  if (s.method == "nearest_neighbor" && !nearestIndex(f, s.rounding, f.c(0))) return {};
  PrimExpr probe = intImm(0);
  if (!sourceCoord(f, s, ay, probe)) return {};
  // The cubic taps' clamped indices come from small stages of their own (one row per output
  // position): inline, the 16 distinct clamp expressions make the access-region union very costly.
  std::optional<Tensor> tapY, tapX;
  if (s.method == "cubic") {
    auto taps = [&](const ResizeAxis& a, const char* name) {
      return ctx.kb.compute(name, {a.out, intImm(4)}, DataType::int64(), [&](const Indices& i) {
        PrimExpr base = toIndex(f.call("floor", sourceCoord(f, s, a, i[0])));
        return clampIndex(te::idxAdd(base, te::bin(NodeKind::Sub, i[1], intImm(1))), a.in);
      });
    };
    tapY = taps(ay, "cubic_tap_y"), tapX = taps(ax, "cubic_tap_x");
  }

  return {ctx.kb.compute("resize", *shape, ctx.outDtype(), [&](const Indices& i) {
    // Pixel (y, x) of the image, indices clamped to the border (topi's get_2d_pixel).
    auto pixelAt = [&](const PrimExpr& y, const PrimExpr& xx) {
      Indices idx = i;
      idx[hAxis] = y, idx[wAxis] = xx;
      return f.of((*x)(idx));
    };
    auto pixel = [&](const PrimExpr& y, const PrimExpr& xx) { return pixelAt(clampIndex(y, ay.in), clampIndex(xx, ax.in)); };
    PrimExpr cy = sourceCoord(f, s, ay, i[hAxis]), cx = sourceCoord(f, s, ax, i[wAxis]);
    PrimExpr value;
    if (s.method == "nearest_neighbor") {
      auto index = [&](const ResizeAxis& a, const PrimExpr& o, const PrimExpr& c) {
        return a.intDivFactor ? te::bin(NodeKind::FloorDiv, o, intImm(a.intDivFactor)) : nearestIndex(f, s.rounding, c);
      };
      value = pixel(index(ay, i[hAxis], cy), index(ax, i[wAxis], cx));
    } else if (s.method == "linear") {
      PrimExpr y0 = toIndex(f.call("floor", cy)), x0 = toIndex(f.call("floor", cx));
      PrimExpr fy = f.sub(cy, f.of(y0)), fx = f.sub(cx, f.of(x0));
      auto lerp = [&](const PrimExpr& a, const PrimExpr& b, const PrimExpr& t) { return f.add(f.mul(a, f.sub(f.c(1), t)), f.mul(b, t)); };
      auto y1 = te::idxAdd(y0, intImm(1)), x1 = te::idxAdd(x0, intImm(1));
      value = lerp(lerp(pixel(y0, x0), pixel(y0, x1), fx), lerp(pixel(y1, x0), pixel(y1, x1), fx), fy);
    } else {
      PrimExpr yf = f.call("floor", cy), xf = f.call("floor", cx);
      PrimExpr y0 = toIndex(yf), x0 = toIndex(xf);
      auto wy = cubicWeights(f, f.sub(cy, yf), s.alpha), wx = cubicWeights(f, f.sub(cx, xf), s.alpha);
      if (s.exclude) wy = excludeOutside(f, wy, y0, ay.in), wx = excludeOutside(f, wx, x0, ax.in);
      for (int64_t j = 0; j < 4; ++j) {
        PrimExpr row;
        for (int64_t k = 0; k < 4; ++k) {
          PrimExpr term = f.mul(pixelAt((*tapY)({i[hAxis], intImm(j)}), (*tapX)({i[wAxis], intImm(k)})), wx[size_t(k)]);
          row = row ? f.add(row, term) : term;
        }
        PrimExpr term = f.mul(row, wy[size_t(j)]);
        value = value ? f.add(value, term) : term;
      }
    }
    if (s.mode == "tf_crop_and_resize") {
      // Outside the image the result is extrapolation_value.
      PrimExpr e = f.c(s.extrapolation);
      auto outside = [&](const PrimExpr& c, const PrimExpr& size) {
        return te::bin(NodeKind::Or, te::bin(NodeKind::LT, c, f.c(0)), te::bin(NodeKind::LT, f.of(simplify(sub(size, intImm(1)))), c));
      };
      value = te::call("tir.if_then_else", f.t, {te::bin(NodeKind::Or, outside(cy, ay.in), outside(cx, ax.in)), e, value});
    }
    return value;
  })};
}

// ---------------------------------------------------------------- grid_sample
// The grid is (N, H_out, W_out, 2) holding (x, y) in [-1, 1], as the op's struct info (and
// PyTorch / ONNX) define it; topi's kernel reads (N, 2, H_out, W_out), so the grid is read
// transposed here. Coordinates are computed in the grid's dtype.
struct GridSpec {
  std::string method, padding;
  bool align = false;
};

struct Sampler {
  const F& f;
  const GridSpec& s;
  const Tensor& data;
  const Indices& out;  // n, c, h, w of the output element
  // Bicubic tap indices after the padding mode, per (n, h, w, tap), computed by stages of their
  // own (inline, 16 distinct clamp / reflect index expressions make the region union very costly).
  const Tensor* tapY = nullptr;
  const Tensor* tapX = nullptr;

  PrimExpr size(size_t axis) const { return data.shape()[axis]; }

  // Zero outside the image (topi's _get_pixel_value).
  PrimExpr pixel(const PrimExpr& y, const PrimExpr& x) const {
    PrimExpr inside = all({te::bin(NodeKind::LE, intImm(0), y), te::bin(NodeKind::LE, intImm(0), x), te::bin(NodeKind::LT, y, size(2)), te::bin(NodeKind::LT, x, size(3))});
    return f.of(te::call("tir.if_then_else", data.dtype(), {inside, data({out[0], out[1], y, x}), te::constant(0, data.dtype())}));
  }
  PrimExpr unnormalize(const PrimExpr& g, const PrimExpr& n) const {
    PrimExpr g1 = f.add(g, f.c(1));
    if (s.align) return f.mul(g1, f.ratio(simplify(sub(n, intImm(1))), intImm(2)));
    return f.add(f.c(-0.5), f.mul(g1, f.ratio(n, intImm(2))));
  }
  PrimExpr clip(const PrimExpr& x, const PrimExpr& n) const {
    return te::bin(NodeKind::Min, te::bin(NodeKind::Max, x, f.c(0)), f.of(simplify(sub(n, intImm(1)))));
  }
  // Mirrors x into [corner, corner + span] as often as needed (topi's _reflect_coordinates).
  PrimExpr reflect(const PrimExpr& x, const PrimExpr& n) const {
    PrimExpr span = s.align ? simplify(sub(n, intImm(1))) : n;
    PrimExpr corner = f.c(s.align ? 0 : -0.5);
    if (auto k = asIntImm(span); k && k->value <= 0) return corner;  // a single aligned pixel
    PrimExpr inside = all({te::bin(NodeKind::LE, corner, x), te::bin(NodeKind::LE, x, f.add(f.of(span), corner))});
    PrimExpr d = f.call("fabs", f.sub(corner, x));
    PrimExpr times = te::bin(NodeKind::Div, toIndex(d), span);
    PrimExpr extra = f.sub(d, f.mul(f.of(times), f.of(span)));
    PrimExpr even = te::bin(NodeKind::EQ, te::bin(NodeKind::Mod, times, intImm(2)), intImm(0));
    return select(inside, x, select(even, f.add(extra, corner), f.add(f.sub(f.of(span), extra), corner)));
  }
  PrimExpr source(const PrimExpr& g, const PrimExpr& n) const {
    PrimExpr c = unnormalize(g, n);
    if (s.padding == "reflection") return clip(reflect(c, n), n);
    if (s.padding == "border") return clip(c, n);
    return c;
  }
  PrimExpr bilinear(const PrimExpr& gy, const PrimExpr& gx) const {
    PrimExpr y = source(gy, size(2)), x = source(gx, size(3));
    PrimExpr y0 = toIndex(f.call("floor", y)), x0 = toIndex(f.call("floor", x));
    PrimExpr y1 = te::idxAdd(y0, intImm(1)), x1 = te::idxAdd(x0, intImm(1));
    PrimExpr dy = f.sub(y, f.of(y0)), dx = f.sub(x, f.of(x0));
    PrimExpr ry = f.sub(f.c(1), dy), rx = f.sub(f.c(1), dx);
    return f.add(f.add(f.add(f.mul(f.mul(pixel(y0, x0), ry), rx), f.mul(f.mul(pixel(y0, x1), ry), dx)), f.mul(f.mul(pixel(y1, x0), dy), rx)),
                 f.mul(f.mul(pixel(y1, x1), dy), dx));
  }
  PrimExpr nearest(const PrimExpr& gy, const PrimExpr& gx) const {
    return pixel(toIndex(f.call("nearbyint", source(gy, size(2)))), toIndex(f.call("nearbyint", source(gx, size(3)))));
  }
  // A bicubic tap index after the padding mode (reflection mirrors the integer tap).
  PrimExpr tap(const PrimExpr& i, const PrimExpr& n) const {
    if (s.padding == "border") return te::bin(NodeKind::Min, te::bin(NodeKind::Max, i, intImm(0)), simplify(sub(n, intImm(1))));
    if (s.padding == "reflection") return toIndex(clip(reflect(f.of(i), n), n));
    return i;
  }
  PrimExpr bicubic(const PrimExpr& gy, const PrimExpr& gx) const {
    const double a = -0.75;  // PyTorch's coefficient, fixed in topi
    auto w1 = [&](const PrimExpr& t) { return f.add(f.mul(f.mul(f.sub(f.mul(f.c(a + 2), t), f.c(a + 3)), t), t), f.c(1)); };
    auto w2 = [&](const PrimExpr& t) { return f.sub(f.mul(f.add(f.mul(f.sub(f.mul(f.c(a), t), f.c(5 * a)), t), f.c(8 * a)), t), f.c(4 * a)); };
    auto interp = [&](const std::array<PrimExpr, 4>& p, const PrimExpr& t) {
      return f.add(f.add(f.add(f.mul(p[0], w2(f.add(t, f.c(1)))), f.mul(p[1], w1(t))), f.mul(p[2], w1(f.sub(f.c(1), t)))), f.mul(p[3], w2(f.sub(f.c(2), t))));
    };
    PrimExpr y = unnormalize(gy, size(2)), x = unnormalize(gx, size(3));
    PrimExpr y0 = toIndex(f.call("floor", y)), x0 = toIndex(f.call("floor", x));
    PrimExpr ty = f.sub(y, f.of(y0)), tx = f.sub(x, f.of(x0));
    auto tapAt = [&](const Tensor* t, int64_t k) { return (*t)({out[0], out[2], out[3], intImm(k)}); };
    std::array<PrimExpr, 4> rows;
    for (int64_t j = 0; j < 4; ++j) {
      PrimExpr yy = tapAt(tapY, j);
      std::array<PrimExpr, 4> p;
      for (int64_t k = 0; k < 4; ++k) p[size_t(k)] = pixel(yy, tapAt(tapX, k));
      rows[size_t(j)] = interp(p, tx);
    }
    return interp(rows, ty);
  }
};

// Volumetric (layout NCDHW, grid (N, D_out, H_out, W_out, 3) holding (x, y, z)): topi's 3-D
// kernel, trilinear for "bilinear", or nearest.
std::vector<Tensor> gridSample3d(Ctx& ctx, const Tensor& x, const Tensor& grid, const std::vector<PrimExpr>& shape, const GridSpec& s) {
  if (s.method == "bicubic" || x.ndim() != 5 || grid.ndim() != 5) return {};
  F f{grid.dtype()};
  return {ctx.kb.compute("compute", shape, ctx.outDtype(), [&](const Indices& i) {
    Sampler sm{f, s, x, i};
    auto at = [&](int64_t k) { return grid({i[0], i[2], i[3], i[4], intImm(k)}); };
    const auto& size = x.shape();
    PrimExpr z = sm.source(at(2), size[2]), y = sm.source(at(1), size[3]), xx = sm.source(at(0), size[4]);
    auto voxel = [&](const PrimExpr& zi, const PrimExpr& yi, const PrimExpr& xi) {
      PrimExpr inside = all({te::bin(NodeKind::LE, intImm(0), zi), te::bin(NodeKind::LE, intImm(0), yi), te::bin(NodeKind::LE, intImm(0), xi),
                             te::bin(NodeKind::LT, zi, size[2]), te::bin(NodeKind::LT, yi, size[3]), te::bin(NodeKind::LT, xi, size[4])});
      return f.of(te::call("tir.if_then_else", x.dtype(), {inside, x({i[0], i[1], zi, yi, xi}), te::constant(0, x.dtype())}));
    };
    if (s.method == "nearest") return voxel(toIndex(f.call("nearbyint", z)), toIndex(f.call("nearbyint", y)), toIndex(f.call("nearbyint", xx)));
    PrimExpr z0 = toIndex(f.call("floor", z)), y0 = toIndex(f.call("floor", y)), x0 = toIndex(f.call("floor", xx));
    PrimExpr fz = f.sub(z, f.of(z0)), fy = f.sub(y, f.of(y0)), fx = f.sub(xx, f.of(x0));
    PrimExpr sum;
    for (int dz = 0; dz < 2; ++dz)
      for (int dy = 0; dy < 2; ++dy)
        for (int dx = 0; dx < 2; ++dx) {
          PrimExpr wz = dz ? fz : f.sub(f.c(1), fz), wy = dy ? fy : f.sub(f.c(1), fy), wx = dx ? fx : f.sub(f.c(1), fx);
          PrimExpr term = f.mul(f.mul(f.mul(voxel(te::idxAdd(z0, intImm(dz)), te::idxAdd(y0, intImm(dy)), te::idxAdd(x0, intImm(dx))), wz), wy), wx);
          sum = sum ? f.add(sum, term) : term;
        }
    return sum;
  })};
}

std::vector<Tensor> gridSample(Ctx& ctx) {
  auto x = ctx.arg(0), grid = ctx.arg(1);
  auto shape = ctx.outShape();
  if (!x || !grid || !shape || !grid->dtype().isFloat()) return {};
  GridSpec s{ops::attrString(ctx.call, "method", "bilinear"), ops::attrString(ctx.call, "padding_mode", "zeros"), ops::attrBool(ctx.call, "align_corners")};
  if (s.method != "bilinear" && s.method != "nearest" && s.method != "bicubic") return {};
  if (s.padding != "zeros" && s.padding != "border" && s.padding != "reflection") return {};
  if (ops::attrString(ctx.call, "layout", "NCHW") == "NCDHW") return gridSample3d(ctx, *x, *grid, *shape, s);
  if (ops::attrString(ctx.call, "layout", "NCHW") != "NCHW" || x->ndim() != 4 || grid->ndim() != 4) return {};  // topi's 2-D layout
  F f{grid->dtype()};
  auto gridAt = [&](const Indices& nhw, int64_t k) { return (*grid)({nhw[0], nhw[1], nhw[2], intImm(k)}); };
  std::optional<Tensor> tapY, tapX;
  if (s.method == "bicubic") {
    auto taps = [&](size_t axis, int64_t gridField, const char* name) {
      return ctx.kb.compute(name, {grid->shape()[0], grid->shape()[1], grid->shape()[2], intImm(4)}, DataType::int64(), [&](const Indices& i) {
        Indices none;
        Sampler sm{f, s, *x, none};
        PrimExpr base = toIndex(f.call("floor", sm.unnormalize(gridAt(i, gridField), sm.size(axis))));
        return sm.tap(te::idxAdd(base, te::bin(NodeKind::Sub, i[3], intImm(1))), sm.size(axis));
      });
    };
    tapY = taps(2, 1, "bicubic_tap_y"), tapX = taps(3, 0, "bicubic_tap_x");
  }
  return {ctx.kb.compute("compute", *shape, ctx.outDtype(), [&](const Indices& i) {
    Sampler sm{f, s, *x, i, tapY ? &*tapY : nullptr, tapX ? &*tapX : nullptr};
    Indices nhw = {i[0], i[2], i[3]};
    PrimExpr gx = gridAt(nhw, 0), gy = gridAt(nhw, 1);
    if (s.method == "nearest") return sm.nearest(gy, gx);
    if (s.method == "bicubic") return sm.bicubic(gy, gx);
    return sm.bilinear(gy, gx);
  })};
}

// ---------------------------------------------------------------- pixel_shuffle
// topi.nn.pixel_shuffle: out[..., c, h, w] = x[..., c * r * r + (h % r) * r + w % r, h // r, w // r].
std::vector<Tensor> pixelShuffle(Ctx& ctx) {
  auto x = ctx.arg(0);
  auto shape = ctx.outShape();
  int64_t r = ops::attrInt(ctx.call, "upscale_factor", 0);
  if (!x || !shape || x->ndim() < 3 || r <= 0) return {};
  size_t n = x->ndim();
  return {ctx.kb.compute("PixelShuffle", *shape, x->dtype(), [&](const Indices& i) {
    Indices idx(i.begin(), i.end());
    PrimExpr c = i[n - 3], h = i[n - 2], w = i[n - 1], rr = intImm(r, h->dtype);
    PrimExpr hOff = te::bin(NodeKind::FloorMod, h, rr), wOff = te::bin(NodeKind::FloorMod, w, rr);
    idx[n - 3] = te::idxAdd(te::idxAdd(te::idxMul(c, intImm(r * r)), te::idxMul(hOff, rr)), wOff);
    idx[n - 2] = idxFloorDiv(h, r), idx[n - 1] = idxFloorDiv(w, r);
    return (*x)(idx);
  })};
}

}  // namespace

void registerImageRules() {
  registerRule("relax.image.resize2d", "resize2d", resize2d);
  registerRule("relax.image.grid_sample", "grid_sample", gridSample);
  registerRule("relax.nn.pixel_shuffle", "pixel_shuffle", pixelShuffle);
}

}  // namespace rlx::legalize
