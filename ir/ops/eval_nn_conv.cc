// Reference evaluators of conv1d/2d/3d and conv1d/2d_transpose: strides, padding, dilation, groups,
// any permutation of the canonical layouts, out_dtype; all run one 3-D kernel (size-1 dims).
#include <fmt/format.h>

#include <array>

#include "ir/ops/eval_nn.h"

namespace rlx {
namespace {
using namespace ops;

using Dims3 = std::array<int64_t, 3>;

// Everything a 3-D (transposed) convolution loop needs, in canonical NC(DHW) / O|I,I|O,(DHW) order.
struct ConvGeom {
  int64_t batch = 1, inCh = 1, outCh = 1, groups = 1;
  Dims3 in{1, 1, 1}, kernel{1, 1, 1}, out{1, 1, 1}, stride{1, 1, 1}, dil{1, 1, 1}, pad{0, 0, 0};
};

int64_t vol(const Dims3& d) { return d[0] * d[1] * d[2]; }

// Spatial attr values right-aligned into 3 slots (leading slots keep their neutral value).
void place(Dims3& dst, const std::vector<int64_t>& v, size_t n) {
  for (size_t i = 0; i < n && i < v.size(); ++i) dst[3 - n + i] = v[i];
}

// Per spatial dim, the positions p in [0, count) whose coordinate p * stride - pad + k * dil under
// kernel tap k lies in [0, limit): output positions reading the input (count out, limit in) for the
// convolution, input positions writing the output (count in, limit out) for the transpose.
std::array<IndexRange, 3> tapRanges(const ConvGeom& g, const Dims3& count, const Dims3& limit, const Dims3& k) {
  std::array<IndexRange, 3> r{};
  for (size_t i = 0; i < 3; ++i) r[i] = validRange(count[i], g.stride[i], k[i] * g.dil[i] - g.pad[i], limit[i]);
  return r;
}

// y[n, oc, o] += w[oc, icg, k] * x[n, g * inPerGroup + icg, o * stride - pad + k * dil]
template <typename T>
void convForward(const std::vector<T>& x, const std::vector<T>& w, std::vector<T>& y, const ConvGeom& g) {
  int64_t cinG = g.inCh / g.groups, coutG = g.outCh / g.groups, inVol = vol(g.in), outVol = vol(g.out), kVol = vol(g.kernel);
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t oc = 0; oc < g.outCh; ++oc) {
      T* yp = y.data() + ((n * g.outCh + oc) * outVol);
      for (int64_t icg = 0; icg < cinG; ++icg) {
        const T* xp = x.data() + ((n * g.inCh + (oc / coutG) * cinG + icg) * inVol);
        const T* wp = w.data() + ((oc * cinG + icg) * kVol);
        for (int64_t kd = 0; kd < g.kernel[0]; ++kd)
          for (int64_t kh = 0; kh < g.kernel[1]; ++kh)
            for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
              T wv = wp[(kd * g.kernel[1] + kh) * g.kernel[2] + kw];
              auto [rd, rh, rw] = tapRanges(g, g.out, g.in, {kd, kh, kw});
              for (int64_t od = rd.lo; od < rd.hi; ++od)
                for (int64_t oh = rh.lo; oh < rh.hi; ++oh) {
                  int64_t id = od * g.stride[0] - g.pad[0] + kd * g.dil[0], ih = oh * g.stride[1] - g.pad[1] + kh * g.dil[1];
                  int64_t xbase = (id * g.in[1] + ih) * g.in[2] + kw * g.dil[2] - g.pad[2];  // + ow * stride >= 0
                  T* yrow = yp + (od * g.out[1] + oh) * g.out[2];
                  for (int64_t ow = rw.lo; ow < rw.hi; ++ow) yrow[ow] += wv * xp[xbase + ow * g.stride[2]];
                }
            }
      }
    }
}

// The transpose scatters: y[n, g * outPerGroup + ocg, i * stride - pad + k * dil] += x[n, ic, i] * w[ic, ocg, k]
template <typename T>
void convTransposeForward(const std::vector<T>& x, const std::vector<T>& w, std::vector<T>& y, const ConvGeom& g) {
  int64_t cinG = g.inCh / g.groups, coutG = g.outCh / g.groups, inVol = vol(g.in), outVol = vol(g.out), kVol = vol(g.kernel);
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t ic = 0; ic < g.inCh; ++ic) {
      const T* xp = x.data() + ((n * g.inCh + ic) * inVol);
      for (int64_t ocg = 0; ocg < coutG; ++ocg) {
        T* yp = y.data() + ((n * g.outCh + (ic / cinG) * coutG + ocg) * outVol);
        const T* wp = w.data() + ((ic * coutG + ocg) * kVol);
        for (int64_t kd = 0; kd < g.kernel[0]; ++kd)
          for (int64_t kh = 0; kh < g.kernel[1]; ++kh)
            for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
              T wv = wp[(kd * g.kernel[1] + kh) * g.kernel[2] + kw];
              auto [rd, rh, rw] = tapRanges(g, g.in, g.out, {kd, kh, kw});
              for (int64_t id = rd.lo; id < rd.hi; ++id)
                for (int64_t ih = rh.lo; ih < rh.hi; ++ih) {
                  int64_t od = id * g.stride[0] - g.pad[0] + kd * g.dil[0], oh = ih * g.stride[1] - g.pad[1] + kh * g.dil[1];
                  int64_t ybase = (od * g.out[1] + oh) * g.out[2] + kw * g.dil[2] - g.pad[2];  // + iw * stride >= 0
                  const T* xrow = xp + (id * g.in[1] + ih) * g.in[2];
                  for (int64_t iw = rw.lo; iw < rw.hi; ++iw) yp[ybase + iw * g.stride[2]] += wv * xrow[iw];
                }
            }
      }
    }
}

const char* dataLayoutOf(size_t n) { return n == 1 ? "NCW" : n == 2 ? "NCHW" : "NCDHW"; }

Result<Value> evalConv(const Call& call, const std::vector<Value>& args, size_t n, bool transpose) {
  RLX_TRY(x0, tensorValue(call, args, 0, "data"));
  RLX_TRY(w0, tensorValue(call, args, 1, "weight"));
  RLX_TRY(out, allocResult(call));
  std::string canonData = dataLayoutOf(n), canonKernel = std::string(transpose ? "IO" : "OI") + (canonData.c_str() + 2);
  RLX_TRY(dperm, layoutPerm(call, attrString(call, "data_layout", canonData), canonData, "data"));
  RLX_TRY(kperm, layoutPerm(call, attrString(call, "kernel_layout", canonKernel), canonKernel, "kernel"));
  RLX_TRY(operm, layoutPerm(call, attrString(call, "out_layout", attrString(call, "data_layout", canonData)), canonData, "output"));
  if (x0->shape.size() != n + 2 || w0->shape.size() != n + 2) return evalError(call, fmt::format("expects {}-D data and weight", n + 2));
  Shape xs = permuteShape(x0->shape, dperm), ws = permuteShape(w0->shape, kperm), os = permuteShape(out->shape, operm);
  auto strides = attrInts(call, "strides"), dil = attrInts(call, "dilation"), pad = attrInts(call, "padding");
  if (strides.size() != n || dil.size() != n || pad.size() != 2 * n) return evalError(call, "malformed strides/dilation/padding attrs");
  ConvGeom g;
  g.batch = xs[0], g.inCh = xs[1], g.outCh = os[1], g.groups = attrInt(call, "groups", 1);
  place(g.in, Shape(xs.begin() + 2, xs.end()), n);
  place(g.kernel, Shape(ws.begin() + 2, ws.end()), n);
  place(g.out, Shape(os.begin() + 2, os.end()), n);
  place(g.stride, strides, n);
  place(g.dil, dil, n);
  place(g.pad, Shape(pad.begin(), pad.begin() + int64_t(n)), n);
  for (size_t i = 0; i < n; ++i)
    if (strides[i] <= 0 || dil[i] <= 0) return evalError(call, "strides and dilation must be positive");
  if (g.groups <= 0 || g.inCh % g.groups != 0 || g.outCh % g.groups != 0 || os[0] != g.batch)
    return evalError(call, fmt::format("{} input and {} output channels do not split into {} groups", g.inCh, g.outCh, g.groups));
  // canonical kernel: (O, I/groups, k...) forward; (I, O/groups, k...) transposed
  if (transpose ? (ws[0] != g.inCh || ws[1] * g.groups != g.outCh) : (ws[0] != g.outCh || ws[1] * g.groups != g.inCh))
    return evalError(call, "the weight's channels do not match the data and the result");
  NDArrayRef x = castIfNeeded(x0, out->dtype), w = castIfNeeded(w0, out->dtype);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> xv = transposeBuf(loadAs<T>(*x), x->shape, dperm), wv = transposeBuf(loadAs<T>(*w), w->shape, kperm);
    std::vector<T> yv(size_t(out->numel()), T(0));
    if (transpose) convTransposeForward(xv, wv, yv, g);
    else convForward(xv, wv, yv, g);
    storeAs(*out, transposeBuf(yv, os, inversePerm(operm)));
  };
  if (out->dtype.isFloat()) run(double{});
  else run(uint64_t{});
  return Value::ofTensor(out);
}

}  // namespace

void registerConvEvals() {
  for (size_t n = 1; n <= 3; ++n)
    registerEval(fmt::format("relax.nn.conv{}d", n), [n](const Call& c, const std::vector<Value>& a) { return evalConv(c, a, n, false); });
  for (size_t n = 1; n <= 2; ++n)
    registerEval(fmt::format("relax.nn.conv{}d_transpose", n), [n](const Call& c, const std::vector<Value>& a) { return evalConv(c, a, n, true); });
}

}  // namespace rlx
