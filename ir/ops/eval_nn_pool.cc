// Reference evaluators of max/avg pool 1d-3d (strides, dilation, padding, ceil_mode,
// count_include_pad, any layout permutation) and adaptive avg pool 1d-3d, windows as TVM's kernels.
#include <fmt/format.h>

#include <array>
#include <cmath>

#include "ir/ops/eval_nn.h"

namespace rlx {
namespace {
using namespace ops;

using Dims3 = std::array<int64_t, 3>;

const char* poolLayoutOf(size_t n) { return n == 1 ? "NCW" : n == 2 ? "NCHW" : "NCDHW"; }

// The data seen as planes (N * C of them) of 3-D spatial extent, in canonical NC(DHW) order.
struct Planes {
  std::vector<int> dperm, operm;
  int64_t planes = 1;
  Dims3 in{1, 1, 1}, out{1, 1, 1};
};

Result<Planes> poolPlanes(const Call& call, const NDArray& x, const NDArray& out, size_t n) {
  std::string canon = poolLayoutOf(n), layout = attrString(call, "layout", canon);
  RLX_TRY(dperm, layoutPerm(call, layout, canon, "data"));
  RLX_TRY(operm, layoutPerm(call, attrString(call, "out_layout", layout), canon, "output"));
  if (x.shape.size() != n + 2 || out.shape.size() != n + 2) return evalError(call, fmt::format("expects {}-D data", n + 2));
  Shape xs = permuteShape(x.shape, dperm), os = permuteShape(out.shape, operm);
  if (xs[0] != os[0] || xs[1] != os[1]) return evalError(call, "the result's batch and channels do not match the data");
  Planes p{dperm, operm, xs[0] * xs[1]};
  for (size_t i = 0; i < n; ++i) p.in[3 - n + i] = xs[2 + i], p.out[3 - n + i] = os[2 + i];
  return p;
}

int64_t vol(const Dims3& d) { return d[0] * d[1] * d[2]; }

struct Window {
  Dims3 kernel{1, 1, 1}, stride{1, 1, 1}, dil{1, 1, 1}, padBefore{0, 0, 0}, padAfter{0, 0, 0};
};

Result<Window> poolWindow(const Call& call, size_t n) {
  auto pool = attrInts(call, "pool_size"), strides = attrInts(call, "strides"), dil = attrInts(call, "dilation"), pad = attrInts(call, "padding");
  if (pool.size() != n || strides.size() != n || dil.size() != n || pad.size() != 2 * n) return evalError(call, "malformed pool_size/strides/dilation/padding attrs");
  Window w;
  for (size_t i = 0; i < n; ++i) {
    if (pool[i] <= 0 || strides[i] <= 0 || dil[i] <= 0) return evalError(call, "pool_size, strides and dilation must be positive");
    size_t s = 3 - n + i;
    w.kernel[s] = pool[i], w.stride[s] = strides[i], w.dil[s] = dil[i], w.padBefore[s] = pad[i], w.padAfter[s] = pad[i + n];
  }
  return w;
}

// One output position's window along one axis: its taps' input positions.
struct Taps {
  int64_t start, dil, count;
  int64_t at(int64_t k) const { return start + k * dil; }
};

// One output element. Taps outside the input read TVM's pad values: the dtype's lowest value for
// max (so a window wholly in the padding yields it), 0 for avg, which divides by the taps inside
// the explicitly padded input (count_include_pad; the ceil_mode overhang is not padding) or else
// by the taps inside the input.
double poolOne(const std::vector<double>& plane, const Planes& p, const Window& w, const Dims3& o, bool isMax, bool includePad, double lowest) {
  std::array<Taps, 3> taps;
  for (size_t a = 0; a < 3; ++a) taps[a] = {o[a] * w.stride[a] - w.padBefore[a], w.dil[a], w.kernel[a]};
  double acc = isMax ? -INFINITY : 0.0;
  int64_t inside = 0, inPadded = 0;
  for (int64_t kd = 0; kd < taps[0].count; ++kd)
    for (int64_t kh = 0; kh < taps[1].count; ++kh)
      for (int64_t kw = 0; kw < taps[2].count; ++kw) {
        Dims3 i{taps[0].at(kd), taps[1].at(kh), taps[2].at(kw)};
        bool in = true, padded = true;
        for (size_t a = 0; a < 3; ++a) {
          in = in && i[a] >= 0 && i[a] < p.in[a];
          padded = padded && i[a] >= -w.padBefore[a] && i[a] < p.in[a] + w.padAfter[a];
        }
        inside += in, inPadded += padded;
        double v = in ? plane[size_t((i[0] * p.in[1] + i[1]) * p.in[2] + i[2])] : (isMax ? lowest : 0.0);
        acc = isMax ? std::max(acc, v) : acc + v;
      }
  if (isMax) return acc;
  return acc / double(std::max<int64_t>(1, includePad ? inPadded : inside));
}

Result<Value> evalPool(const Call& call, const std::vector<Value>& args, size_t n, bool isMax) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(out, allocResult(call));
  RLX_TRY(p, poolPlanes(call, *x, *out, n));
  RLX_TRY(w, poolWindow(call, n));
  bool includePad = attrBool(call, "count_include_pad"), isInt = !out->dtype.isFloat();
  std::vector<double> xv = transposeBuf(loadAs<double>(*x), x->shape, p.dperm), yv(size_t(out->numel()));
  int64_t inVol = vol(p.in), outVol = vol(p.out);
  double lowest = dtypeLowest(x->dtype);
  for (int64_t pl = 0; pl < p.planes; ++pl) {
    std::vector<double> plane(xv.begin() + pl * inVol, xv.begin() + (pl + 1) * inVol);
    for (int64_t f = 0; f < outVol; ++f) {
      Dims3 o{f / (p.out[1] * p.out[2]), (f / p.out[2]) % p.out[1], f % p.out[2]};
      double v = poolOne(plane, p, w, o, isMax, includePad, lowest);
      yv[size_t(pl * outVol + f)] = isInt && !isMax ? std::trunc(v) : v;  // integer averages truncate
    }
  }
  Shape os = permuteShape(out->shape, p.operm);
  storeAs(*out, transposeBuf(yv, os, inversePerm(p.operm)));
  return Value::ofTensor(out);
}

// Output o along an axis of input extent `in` averages [floor(o * in / out), ceil((o + 1) * in / out)).
Result<Value> evalAdaptivePool(const Call& call, const std::vector<Value>& args, size_t n) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(out, allocResult(call));
  RLX_TRY(p, poolPlanes(call, *x, *out, n));
  for (size_t a = 0; a < 3; ++a)
    if (p.out[a] > 0 && p.in[a] == 0) return evalError(call, "cannot pool an empty dimension");
  std::vector<double> xv = transposeBuf(loadAs<double>(*x), x->shape, p.dperm), yv(size_t(out->numel()));
  int64_t inVol = vol(p.in), outVol = vol(p.out);
  bool isInt = !out->dtype.isFloat();
  auto range = [&](size_t a, int64_t o) {
    return std::pair{o * p.in[a] / p.out[a], ((o + 1) * p.in[a] + p.out[a] - 1) / p.out[a]};
  };
  for (int64_t pl = 0; pl < p.planes; ++pl)
    for (int64_t f = 0; f < outVol; ++f) {
      Dims3 o{f / (p.out[1] * p.out[2]), (f / p.out[2]) % p.out[1], f % p.out[2]};
      auto [d0, d1] = range(0, o[0]);
      auto [h0, h1] = range(1, o[1]);
      auto [w0, w1] = range(2, o[2]);
      double sum = 0;
      for (int64_t d = d0; d < d1; ++d)
        for (int64_t h = h0; h < h1; ++h)
          for (int64_t ww = w0; ww < w1; ++ww) sum += xv[size_t(pl * inVol + (d * p.in[1] + h) * p.in[2] + ww)];
      double v = sum / double((d1 - d0) * (h1 - h0) * (w1 - w0));
      yv[size_t(pl * outVol + f)] = isInt ? std::trunc(v) : v;
    }
  Shape os = permuteShape(out->shape, p.operm);
  storeAs(*out, transposeBuf(yv, os, inversePerm(p.operm)));
  return Value::ofTensor(out);
}

}  // namespace

void registerPoolEvals() {
  for (size_t n = 1; n <= 3; ++n) {
    registerEval(fmt::format("relax.nn.max_pool{}d", n), [n](const Call& c, const std::vector<Value>& a) { return evalPool(c, a, n, true); });
    registerEval(fmt::format("relax.nn.avg_pool{}d", n), [n](const Call& c, const std::vector<Value>& a) { return evalPool(c, a, n, false); });
    registerEval(fmt::format("relax.nn.adaptive_avg_pool{}d", n), [n](const Call& c, const std::vector<Value>& a) { return evalAdaptivePool(c, a, n); });
  }
}

}  // namespace rlx
