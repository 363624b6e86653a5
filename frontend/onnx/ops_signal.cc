// ONNX signal ops: Hann/Hamming/Blackman windows and MelWeightMatrix as constants built at import,
// DFT and STFT as matmuls with DFT matrices built at import (the transform sizes must be static).
#include <algorithm>
#include <cmath>

#include "frontend/onnx/converter.h"
#include "frontend/onnx/tensor.h"

namespace rlx::onnx {

namespace {

constexpr double kPi = 3.14159265358979323846;

int64_t staticDim(const PrimExpr& d, const char* what) {
  auto imm = d.as<IntImm>();
  if (!imm) fail(std::string("the ") + what + " must be known at import (rlx builds the transform as a constant)");
  return imm->value;
}

int64_t scalarInt(NodeCtx& c, size_t input, const char* what) {
  auto v = c.requireInts(input, what);
  if (v.size() != 1) fail(std::string(what) + " must hold one value");
  return v[0];
}

double scalarReal(NodeCtx& c, size_t input, const char* what) {
  auto v = c.constScalar(input);
  if (!v) fail(std::string(what) + " (input " + std::to_string(input) + ") must be a constant scalar; rlx cannot use a value computed at run time here");
  return *v;
}

// Looks up every listed input that must be known at import before any lookup can fail, so that
// all of them are reported as needed at once (the caller may then bind them and import again).
void noteConstInputs(NodeCtx& c, std::initializer_list<size_t> inputs) {
  for (size_t i : inputs)
    if (c.has(i)) c.constant(i);
}

DataType outputType(NodeCtx& c) {
  auto t = dtypeOf(int32_t(c.i("output_datatype", 1)));
  if (!t) fail("output_datatype: " + t.error().message);
  return *t;
}

Expr vectorConst(NodeCtx& c, DataType t, const std::vector<double>& v) {
  auto a = make<NDArray>(t, std::vector<int64_t>{int64_t(v.size())});
  for (size_t k = 0; k < v.size(); ++k) a->setDouble(int64_t(k), v[k]);
  return c.constant(a);
}

// A window of `size` points, w(n, N) with N = size when periodic, size - 1 otherwise (the ONNX
// definitions; a symmetric window of one point divides 0 by 0, as ONNX's reference does).
Outputs window(NodeCtx& c, double (*w)(double, double)) {
  int64_t size = scalarInt(c, 0, "size");
  if (size < 0) fail("size must not be negative");
  double N = double(c.i("periodic", 1) ? size : size - 1);
  std::vector<double> v;
  for (int64_t n = 0; n < size; ++n) v.push_back(w(double(n), N));
  return {{vectorConst(c, outputType(c), v)}};
}

// cos and sin of 2*pi*(t*k mod n)/n: reducing the product first keeps the angles exact multiples
// of 2*pi/n, so bins that are exactly real (DC, Nyquist) stay real to rounding.
struct Twiddle {
  double cos, sin;
};
Twiddle twiddle(int64_t t, int64_t k, int64_t n) {
  double a = 2 * kPi * double((t * k) % n) / double(n);
  return {std::cos(a), std::sin(a)};
}

// The n-point DFT of x (last dim 1 = real, 2 = (real, imaginary)) along `axis`, as one matmul:
// the axis moves next to the last dim, the two are flattened to (sample, part) and multiplied by a
// constant [samples * parts, bins * 2] matrix. Input samples beyond n (beyond n/2 + 1 bins for the
// one-sided inverse) are dropped and missing ones count as zeros, as numpy's n argument does.
// inverse: the 1/n-scaled inverse; inverse + onesided: numpy's irfft (real output, last dim 1,
// the bins mirrored; the imaginary parts of the DC and Nyquist bins are ignored).
Expr dft(NodeCtx& c, Expr x, int64_t axis, int64_t n, bool inverse, bool onesided) {
  auto t = tensorInfo(x);
  if (!t || !t->dims()) fail("the input shape must be known");
  std::vector<PrimExpr> dims = *t->dims();
  int64_t r = int64_t(dims.size());
  DataType dtype = t->dtype;
  if (!dtype.isFloat()) fail("the input must be a float tensor");
  // Move the transformed axis to r - 2.
  std::vector<int64_t> perm, back(size_t(r), 0);
  for (int64_t a = 0; a < r - 1; ++a)
    if (a != axis) perm.push_back(a);
  perm.push_back(axis);
  perm.push_back(r - 1);
  bool moved = axis != r - 2;
  if (moved) {
    x = c.op("permute_dims", {ex(x)}, {{"axes", ints(perm)}});
    std::vector<PrimExpr> p;
    for (auto a : perm) p.push_back(dims[size_t(a)]);
    dims = p;
  }
  for (int64_t k = 0; k < r; ++k) back[size_t(perm[size_t(k)])] = k;
  int64_t length = staticDim(dims[size_t(r - 2)], "transformed dim"), parts = staticDim(dims[size_t(r - 1)], "last dim");
  if (parts != 1 && parts != 2) fail("the last dim must be 1 (real) or 2 (complex), not " + std::to_string(parts));
  bool irfft = inverse && onesided;
  int64_t used = std::min(length, irfft ? n / 2 + 1 : n);
  if (used < length) x = c.op("strided_slice", {ex(x), ints({r - 2}), ints({0}), ints({used}), ints({1})});
  int64_t bins = !inverse && onesided ? n / 2 + 1 : n, outParts = irfft ? 1 : 2;

  auto m = make<NDArray>(dtype, std::vector<int64_t>{used * parts, bins * outParts});
  auto set = [&](int64_t s, int64_t part, int64_t k, int64_t outPart, double v) {
    if (part < parts) m->setDouble((s * parts + part) * bins * outParts + k * outParts + outPart, v);
  };
  for (int64_t s = 0; s < used; ++s)
    for (int64_t k = 0; k < bins; ++k) {
      Twiddle w = twiddle(s, k, n);
      if (irfft) {
        // Input bin s, output sample k: bins other than DC and Nyquist stand for their mirror too.
        bool self = s == 0 || (n % 2 == 0 && s == n / 2);
        double scale = (self ? 1.0 : 2.0) / double(n);
        set(s, 0, k, 0, scale * w.cos);
        set(s, 1, k, 0, self ? 0.0 : -scale * w.sin);
      } else if (inverse) {
        double scale = 1.0 / double(n);
        set(s, 0, k, 0, scale * w.cos), set(s, 0, k, 1, scale * w.sin);
        set(s, 1, k, 0, -scale * w.sin), set(s, 1, k, 1, scale * w.cos);
      } else {
        set(s, 0, k, 0, w.cos), set(s, 0, k, 1, -w.sin);
        set(s, 1, k, 0, w.sin), set(s, 1, k, 1, w.cos);
      }
    }

  std::vector<PrimExpr> flat(dims.begin(), dims.end() - 2);
  flat.push_back(intImm(used * parts));
  Expr y = c.op("matmul", {ex(c.op("reshape", {ex(x), ex(shapeExpr(flat))})), ex(c.constant(m))});
  std::vector<PrimExpr> outDims(dims.begin(), dims.end() - 2);
  outDims.push_back(intImm(bins));
  outDims.push_back(intImm(outParts));
  y = c.op("reshape", {ex(y), ex(shapeExpr(outDims))});
  if (moved) y = c.op("permute_dims", {ex(y)}, {{"axes", ints(back)}});
  return y;
}

// numpy's float floor division (npy_divmod): the quotient of a - fmod(a, b), rounded, which can
// differ from floor(a / b) by one where a / b rounds up to an integer.
double numpyFloorDiv(double a, double b) {
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1.0;
  if (div == 0) return std::copysign(0.0, a / b);
  double fl = std::floor(div);
  return div - fl > 0.5 ? fl + 1.0 : fl;
}

}  // namespace

void registerSignalConverters() {
  onnxOp("HannWindow", {17}, [](NodeCtx& c) -> Outputs {
    return window(c, [](double n, double N) {
      double s = std::sin(kPi * n / N);
      return s * s;
    });
  });
  onnxOp("HammingWindow", {17}, [](NodeCtx& c) -> Outputs {
    // ONNX's alpha is 25/46 (about 0.5435), not the textbook 0.54; beta is 1 - alpha.
    return window(c, [](double n, double N) {
      double alpha = 25.0 / 46.0;
      return alpha - (1 - alpha) * std::cos(2 * kPi * n / N);
    });
  });
  onnxOp("BlackmanWindow", {17}, [](NodeCtx& c) -> Outputs {
    // Summed in the reference's order, so that exact values (1 at the centre) truncate to the
    // same integers when output_datatype is an integer type.
    return window(c, [](double n, double N) { return std::cos(n * (2 * kPi) / N) * -0.5 + std::cos(n * (4 * kPi) / N) * 0.08 + 0.42; });
  });

  onnxOp("DFT", {17, 20}, [](NodeCtx& c) -> Outputs {
    int64_t r = c.ndim(0);
    if (r < 2) fail("the input must have a signal dim and a last dim of 1 or 2");
    bool inverse = c.i("inverse", 0) != 0, onesided = c.i("onesided", 0) != 0;
    // Opset 17 has axis as an attribute (default 1), opset 20 as an optional input (default -2).
    noteConstInputs(c, {1, 2});
    int64_t axis = c.since >= 20 ? (c.has(2) ? scalarInt(c, 2, "axis") : -2) : c.i("axis", 1);
    if (axis < -r || axis > r - 2 || axis == -1) fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(r) + " (the last dim holds the complex parts)");
    if (axis < 0) axis += r;
    int64_t length = staticDim(c.dim(0, axis), "transformed dim");
    // The one-sided inverse (irfft) of m bins is 2 * (m - 1) samples long by default.
    int64_t n = c.has(1) ? scalarInt(c, 1, "dft_length") : inverse && onesided ? 2 * (length - 1) : length;
    if (n < 1) fail("the DFT length must be positive, not " + std::to_string(n));
    return {{dft(c, c.x(0), axis, n, inverse, onesided)}};
  });

  onnxOp("STFT", {17}, [](NodeCtx& c) -> Outputs {
    // Frames gathered from [batch, length, parts], weighted by the window, then a DFT per frame.
    if (c.ndim(0) != 3) fail("the signal must be [batch, length, 1 or 2]");
    int64_t length = staticDim(c.dim(0, 1), "signal length");
    noteConstInputs(c, {1, 3});
    int64_t step = scalarInt(c, 1, "frame_step");
    if (step < 1) fail("frame_step must be positive");
    int64_t windowLength = -1;
    if (c.has(2)) {
      if (c.ndim(2) != 1) fail("the window must be 1-D");
      windowLength = staticDim(c.dim(2, 0), "window length");
    }
    int64_t frameLength = c.has(3) ? scalarInt(c, 3, "frame_length") : windowLength >= 0 ? windowLength : length;
    if (windowLength >= 0 && windowLength != frameLength) fail("a window of " + std::to_string(windowLength) + " points with frame_length " + std::to_string(frameLength) + " is not supported");
    if (frameLength < 1 || frameLength > length) fail("frame_length " + std::to_string(frameLength) + " must be in [1, " + std::to_string(length) + "]");
    int64_t frames = 1 + (length - frameLength) / step;
    auto idx = make<NDArray>(DataType::int64(), std::vector<int64_t>{frames, frameLength});
    for (int64_t f = 0; f < frames; ++f)
      for (int64_t j = 0; j < frameLength; ++j) idx->setInt(f * frameLength + j, f * step + j);
    Expr x = c.op("take", {ex(c.x(0)), ex(c.constant(idx))}, {{"axis", i(1)}});
    if (c.has(2)) {
      Expr w = c.cast(c.x(2), c.dtype(0));
      w = c.op("reshape", {ex(w), ex(shapeExpr({intImm(1), intImm(1), intImm(frameLength), intImm(1)}))});
      x = c.op("multiply", {ex(x), ex(w)});
    }
    return {{dft(c, x, 2, frameLength, false, c.i("onesided", 1) != 0)}};
  });

  onnxOp("MelWeightMatrix", {17}, [](NodeCtx& c) -> Outputs {
    // Triangular filters over the one-sided spectrum, computed as ONNX's reference does: the mel
    // edges in the type of the hertz inputs (float32 arithmetic for float32), the rest in float64.
    noteConstInputs(c, {0, 1, 2, 3, 4});
    int64_t mels = scalarInt(c, 0, "num_mel_bins"), dftLength = scalarInt(c, 1, "dft_length"), rate = scalarInt(c, 2, "sample_rate");
    double lowerHz = scalarReal(c, 3, "lower_edge_hertz"), upperHz = scalarReal(c, 4, "upper_edge_hertz");
    if (mels < 1 || dftLength < 1 || rate < 1) fail("num_mel_bins, dft_length and sample_rate must be positive");
    int64_t spectrumBins = dftLength / 2 + 1;
    double lowMel, melStep;
    if (c.dtype(3) == DataType::float64()) {
      lowMel = 2595 * std::log10(1 + lowerHz / 700);
      melStep = (2595 * std::log10(1 + upperHz / 700) - lowMel) / double(mels + 2);
    } else {
      float lo = 2595.0f * std::log10(1.0f + float(lowerHz) / 700.0f), hi = 2595.0f * std::log10(1.0f + float(upperHz) / 700.0f);
      lowMel = lo;
      melStep = float((hi - lo) / float(mels + 2));
    }
    std::vector<int64_t> edges;
    for (int64_t k = 0; k < mels + 2; ++k) {
      double hz = 700 * (std::pow(10.0, (double(k) * melStep + lowMel) / 2595) - 1);
      edges.push_back(int64_t(numpyFloorDiv(double(dftLength + 1) * hz, double(rate))));
      if (edges.back() < 0 || edges.back() >= spectrumBins)
        fail("mel band edge " + std::to_string(k) + " falls on spectrum bin " + std::to_string(edges.back()) + ", outside the " + std::to_string(spectrumBins) + " bins");
    }
    std::vector<double> w(size_t(spectrumBins * mels), 0.0);
    auto at = [&](int64_t bin, int64_t mel) -> double& { return w[size_t(bin * mels + mel)]; };
    for (int64_t m = 0; m < mels; ++m) {
      int64_t lo = edges[size_t(m)], centre = edges[size_t(m + 1)], hi = edges[size_t(m + 2)];
      // Rising edge up to and including the centre (1 there), then the falling edge from the
      // centre; an empty rising edge still puts 1 at the centre.
      if (centre == lo) at(centre, m) = 1;
      else
        for (int64_t j = lo; j <= centre; ++j) at(j, m) = double(j - lo) / double(centre - lo);
      if (hi > centre)
        for (int64_t j = centre; j < hi; ++j) at(j, m) = double(hi - j) / double(hi - centre);
    }
    auto a = make<NDArray>(outputType(c), std::vector<int64_t>{spectrumBins, mels});
    for (size_t k = 0; k < w.size(); ++k) a->setDouble(int64_t(k), w[k]);
    return {{c.constant(a)}};
  });
}

}  // namespace rlx::onnx
