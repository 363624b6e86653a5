// Reference evaluators of the elementwise nn activations (formulas of TVM's legalizations), softmax
// and log_softmax, prelu, dropout (inference: identity), pad (all modes) and pixel_shuffle.
#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "ir/ops/eval_nn.h"

namespace rlx {
namespace {
using namespace ops;

// An activation's float formula, given the call for its attrs.
using ActFn = std::function<UnaryF(const Call&)>;

void registerActivation(const char* name, ActFn makeFn, UnaryI intFn = nullptr) {
  registerEval(std::string("relax.nn.") + name, [makeFn, intFn](const Call& call, const std::vector<Value>& args) -> Result<Value> {
    RLX_TRY(x, tensorValue(call, args, 0, "data"));
    RLX_TRY(out, allocResult(call));
    if (!intFn && !x->dtype.isFloat()) return evalError(call, "requires a float tensor");
    RLX_TRY_STATUS(expectShape(call, *out, x->shape, "the result"));
    mapUnary(*x, *out, makeFn(call), intFn);
    return Value::ofTensor(out);
  });
}

double sigmoidOf(double x) { return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x)); }

void registerActivations() {
  auto fixed = [](double (*f)(double)) { return [f](const Call&) -> UnaryF { return f; }; };
  registerActivation("relu", fixed([](double x) { return x > 0 ? x : (std::isnan(x) ? x : 0.0); }), [](int64_t v) { return std::max<int64_t>(v, 0); });
  registerActivation("gelu", fixed([](double x) { return x * (0.5 + std::erf(x * std::sqrt(0.5)) * 0.5); }));
  registerActivation("gelu_tanh", fixed([](double x) { return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * x * (1 + 0.044715 * x * x))); }));
  registerActivation("silu", fixed([](double x) { return x * sigmoidOf(x); }));
  registerActivation("selu", fixed([](double x) {
    const double alpha = 1.6732632423543772848170429916717, scale = 1.0507009873554804934193349852946;
    return scale * (std::max(x, 0.0) + std::min(0.0, alpha * (std::exp(x) - 1)));
  }));
  registerActivation("leakyrelu", [](const Call& call) -> UnaryF {
    double alpha = attrReal(call, "alpha", 0.01);
    return [alpha](double x) { return x > 0 ? x : x * alpha; };
  });
  // TVM's softplus: x once beta * x passes the threshold (exp would overflow), else log1p(exp)/beta.
  registerActivation("softplus", [](const Call& call) -> UnaryF {
    double beta = attrReal(call, "beta", 1.0), threshold = attrReal(call, "threshold", 20.0);
    return [beta, threshold](double x) { return beta * x > threshold ? x : std::log1p(std::exp(beta * x)) / beta; };
  });
}

// The tensor seen as (outer, axis, inner) around one axis.
struct AxisSplit {
  int64_t outer = 1, len = 1, inner = 1;
};

AxisSplit splitAt(const Shape& shape, int axis) {
  AxisSplit s;
  for (int k = 0; k < int(shape.size()); ++k) {
    if (k < axis) s.outer *= shape[size_t(k)];
    else if (k == axis) s.len = shape[size_t(k)];
    else s.inner *= shape[size_t(k)];
  }
  return s;
}

// Stable softmax (max subtracted first); log_softmax = x - max - log(sum(exp(x - max))).
Result<Value> evalSoftmax(const Call& call, const std::vector<Value>& args, bool logOf) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(out, allocResult(call));
  RLX_TRY_STATUS(expectShape(call, *out, x->shape, "the result"));
  int ndim = int(x->shape.size());
  int64_t axis = attrInt(call, "axis", -1);
  if (axis < -ndim || axis >= ndim) return evalError(call, fmt::format("axis {} is out of range for {} dimensions", axis, ndim));
  AxisSplit s = splitAt(x->shape, normAxis(axis, ndim));
  std::vector<double> v = loadAs<double>(*x);
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t i = 0; i < s.inner; ++i) {
      auto at = [&](int64_t k) -> double& { return v[size_t((o * s.len + k) * s.inner + i)]; };
      double mx = -INFINITY, sum = 0;
      for (int64_t k = 0; k < s.len; ++k) mx = std::max(mx, at(k));
      for (int64_t k = 0; k < s.len; ++k) sum += std::exp(at(k) - mx);
      for (int64_t k = 0; k < s.len; ++k) at(k) = logOf ? at(k) - mx - std::log(sum) : std::exp(at(k) - mx) / sum;
    }
  storeAs(*out, v);
  return Value::ofTensor(out);
}

// x > 0 ? x : alpha[c] * x, c the index along `axis`; a 1-element alpha applies to every channel.
Result<Value> evalPRelu(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(alpha, tensorValue(call, args, 1, "alpha"));
  RLX_TRY(out, allocResult(call));
  RLX_TRY_STATUS(expectShape(call, *out, x->shape, "the result"));
  int ndim = int(x->shape.size());
  int64_t axis = attrInt(call, "axis", 1);
  if (axis < -ndim || axis >= ndim) return evalError(call, fmt::format("axis {} is out of range for {} dimensions", axis, ndim));
  AxisSplit s = splitAt(x->shape, normAxis(axis, ndim));
  if (alpha->shape.size() != 1 || (alpha->numel() != 1 && alpha->numel() != s.len))
    return evalError(call, fmt::format("alpha must have 1 or {} entries", s.len));
  for (int64_t f = 0; f < x->numel(); ++f) {
    double v = x->getDouble(f), a = alpha->getDouble(alpha->numel() == 1 ? 0 : (f / s.inner) % s.len);
    out->setDouble(f, v > 0 ? v : v * a);
  }
  return Value::ofTensor(out);
}

// Inference semantics: the data passes through and the mask keeps every element (all ones).
Result<Value> evalDropout(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(out, allocResultField(call, 0));
  RLX_TRY(mask, allocResultField(call, 1));
  RLX_TRY_STATUS(expectShape(call, *out, x->shape, "the result"));
  RLX_TRY_STATUS(expectShape(call, *mask, x->shape, "the mask"));
  std::memcpy(out->data(), x->data(), x->nbytes());
  for (int64_t i = 0; i < mask->numel(); ++i) mask->setDouble(i, 1.0);
  return Value::ofTuple({Value::ofTensor(out), Value::ofTensor(mask)});
}

// The source index along one axis for output position `o`, or -1 for the constant pad value.
int64_t padSource(const std::string& mode, int64_t o, int64_t before, int64_t size) {
  int64_t i = o - before;
  if (i >= 0 && i < size) return i;
  if (mode == "constant") return -1;
  if (mode == "edge" || mode == "replicate") return i < 0 ? 0 : size - 1;
  if (mode == "circular") return ((i % size) + size) % size;
  return i < 0 ? -i : 2 * size - 2 - i;  // reflect (the edge is not repeated)
}

Result<Value> evalPad(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(out, allocResult(call));
  auto pw = attrInts(call, "pad_width");
  std::string mode = attrString(call, "pad_mode", "constant");
  size_t n = x->shape.size();
  if (pw.size() != 2 * n) return evalError(call, fmt::format("pad_width must have {} values", 2 * n));
  Shape padded;
  for (size_t d = 0; d < n; ++d) padded.push_back(x->shape[d] + pw[2 * d] + pw[2 * d + 1]);
  RLX_TRY_STATUS(expectShape(call, *out, padded, "the result"));
  for (size_t d = 0; d < n; ++d) {
    int64_t size = x->shape[d], lo = pw[2 * d], hi = pw[2 * d + 1];
    if (lo < 0 || hi < 0) return evalError(call, "negative pad widths are not supported");
    bool padded = lo > 0 || hi > 0;
    if (padded && size == 0 && mode != "constant") return evalError(call, fmt::format("cannot {}-pad an empty dimension", mode));
    if (padded && mode == "reflect" && (lo >= size || hi >= size))
      return evalError(call, fmt::format("reflect padding ({}, {}) must be smaller than the dimension {} ({})", lo, hi, d, size));
  }
  double padValue = attrReal(call, "pad_value", 0.0);
  Shape st = stridesOf(x->shape);
  bool isFloat = out->dtype.isFloat();
  forEachIndex(out->shape, [&](const Shape& idx, int64_t flat) {
    int64_t off = 0;
    for (size_t d = 0; d < n && off >= 0; ++d) {
      int64_t src = padSource(mode, idx[d], pw[2 * d], x->shape[d]);
      off = src < 0 ? -1 : off + src * st[d];
    }
    if (off < 0) out->setDouble(flat, padValue);
    else if (isFloat) out->setDouble(flat, x->getDouble(off));
    else out->setInt(flat, x->getInt(off));
  });
  return Value::ofTensor(out);
}

// out[..., c, h*r + i, w*r + j] = in[..., c*r*r + i*r + j, h, w]
Result<Value> evalPixelShuffle(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(out, allocResult(call));
  int64_t r = attrInt(call, "upscale_factor");
  size_t n = out->shape.size();
  if (n < 3 || r <= 0) return evalError(call, "expects at least 3 dimensions and a positive upscale_factor");
  Shape source = out->shape;
  source[n - 3] *= r * r, source[n - 2] /= r, source[n - 1] /= r;
  RLX_TRY_STATUS(expectShape(call, *x, source, "the data"));
  Shape st = stridesOf(x->shape);
  bool isFloat = out->dtype.isFloat();
  forEachIndex(out->shape, [&](const Shape& idx, int64_t flat) {
    int64_t off = 0;
    for (size_t d = 0; d + 3 < n; ++d) off += idx[d] * st[d];
    int64_t c = idx[n - 3], h = idx[n - 2], w = idx[n - 1];
    off += (c * r * r + (h % r) * r + (w % r)) * st[n - 3] + (h / r) * st[n - 2] + (w / r) * st[n - 1];
    if (isFloat) out->setDouble(flat, x->getDouble(off));
    else out->setInt(flat, x->getInt(off));
  });
  return Value::ofTensor(out);
}

}  // namespace

void registerActivationEvals() {
  registerActivations();
  registerEval("relax.nn.softmax", [](const Call& c, const std::vector<Value>& a) { return evalSoftmax(c, a, false); });
  registerEval("relax.nn.log_softmax", [](const Call& c, const std::vector<Value>& a) { return evalSoftmax(c, a, true); });
  registerEval("relax.nn.prelu", evalPRelu);
  registerEval("relax.nn.dropout", evalDropout);
  registerEval("relax.nn.pad", evalPad);
  registerEval("relax.nn.pixel_shuffle", evalPixelShuffle);
}

}  // namespace rlx
