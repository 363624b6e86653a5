// Reference evaluators of the creation ops: full/zeros/ones and their *_like forms, arange, eye,
// eye_like, hamming_window, tril/triu. Values follow numpy/PyTorch, as TVM's kernels compute them.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <numbers>

#include "ir/ops/eval_util.h"

namespace rlx {
namespace {
using namespace ops;

// The call's result tensor, allocated from its inferred (static) struct info.
Result<NDArrayRef> newResult(const Call& call) {
  RLX_TRY(shape, resultShape(call));
  RLX_TRY(dtype, resultDType(call));
  return newTensor(call, dtype, shape);
}

// Fills every element of `out` with the single element of `scalar` converted to out's dtype (the
// conversion astype does, then a byte copy so every dtype fills exactly).
void fillWith(NDArray& out, const NDArray& scalar) {
  NDArrayRef v = castTensor(scalar, out.dtype);
  size_t w = size_t(out.dtype.bytes());
  auto* dst = static_cast<char*>(out.data());
  for (int64_t k = 0; k < out.numel(); ++k) std::memcpy(dst + size_t(k) * w, v->data(), w);
}

NDArrayRef intScalar(int64_t v) {
  NDArrayRef t = allocTensor(DataType::int64(), {});
  t->setInt(0, v);
  return t;
}

Result<NDArrayRef> fillScalar(const Call& call, const std::vector<Value>& args, size_t i) {
  RLX_TRY(fill, tensorValue(call, args, i, "fill_value"));
  if (fill->numel() != 1) return evalError(call, fmt::format("expects fill_value to hold one element, got {}", args[i].describe()));
  return fill;
}

// Fills `out` with `constant` (zeros, ones) or, without one, with the fill_value argument args[1].
Status fillFrom(const Call& call, const std::vector<Value>& args, std::optional<int64_t> constant, NDArray& out) {
  if (constant) {
    fillWith(out, *intScalar(*constant));
  } else {
    RLX_TRY(fill, fillScalar(call, args, 1));
    fillWith(out, *fill);
  }
  return okStatus();
}

// R.full(shape, fill_value) / R.zeros(shape) / R.ones(shape): the shape argument's concrete value
// gives the extents, the inferred struct info the dtype.
Result<Value> evalFullOfShape(const Call& call, const std::vector<Value>& args, std::optional<int64_t> constant) {
  RLX_TRY(shape, shapeValue(call, args, 0, "shape"));
  RLX_TRY(dtype, resultDType(call));
  RLX_TRY(out, newTensor(call, dtype, shape));
  RLX_TRY_STATUS(fillFrom(call, args, constant, *out));
  return Value::ofTensor(out);
}

// R.full_like(x, fill) / R.zeros_like(x) / R.ones_like(x): x's shape, the inferred dtype.
Result<Value> evalFullLike(const Call& call, const std::vector<Value>& args, std::optional<int64_t> constant) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  RLX_TRY(dtype, resultDType(call));
  RLX_TRY(out, newTensor(call, dtype, x->shape));
  RLX_TRY_STATUS(fillFrom(call, args, constant, *out));
  return Value::ofTensor(out);
}

// start + i * step for every i of the inferred length. Integer bounds are computed exactly in
// int64; any float bound makes the computation double (then stored into the dtype, truncating for
// integer dtypes like a C cast).
Result<Value> evalArange(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(start, primValueArg(call, args, 0, "start"));
  RLX_TRY(end, primValueArg(call, args, 1, "end"));
  RLX_TRY(step, primValueArg(call, args, 2, "step"));
  (void)end;  // the length is the inferred one
  if (step.primDouble() == 0) return evalError(call, "step must not be zero");
  RLX_TRY(out, newResult(call));
  bool exactInt = !start.dtype.isFloat() && !step.dtype.isFloat() && !out->dtype.isFloat();
  for (int64_t i = 0; i < out->numel(); ++i) {
    if (exactInt) out->setInt(i, int64_t(uint64_t(start.primInt()) + uint64_t(i) * uint64_t(step.primInt())));
    else out->setDouble(i, start.primDouble() + double(i) * step.primDouble());
  }
  return Value::ofTensor(out);
}

// Ones on the k-th diagonal (column - row == k) of every trailing 2-D matrix of `out`.
void setDiagonal(NDArray& out, int64_t k) {
  size_t nd = out.shape.size();
  forEachIndex(out.shape, [&](const Shape& idx, int64_t flat) {
    if (idx[nd - 1] - idx[nd - 2] == k) out.setInt(flat, 1);
  });
}

Result<Value> evalEye(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(k, primValueArg(call, args, 2, "k"));
  RLX_TRY(out, newResult(call));
  setDiagonal(*out, k.primInt());
  return Value::ofTensor(out);
}

Result<Value> evalEyeLike(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  RLX_TRY(k, primValueArg(call, args, 1, "k"));
  if (x->shape.size() != 2) return evalError(call, fmt::format("expects a 2-D tensor, got {}", args[0].describe()));
  RLX_TRY(dtype, resultDType(call));
  RLX_TRY(out, newTensor(call, dtype, x->shape));
  setDiagonal(*out, k.primInt());
  return Value::ofTensor(out);
}

// PyTorch's definition: w[n] = alpha - beta * cos(2 pi n / D) with D = N for a periodic window and
// N - 1 for a symmetric one; a window of one sample is [1].
Result<Value> evalHamming(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(size, primValueArg(call, args, 0, "window_size"));
  RLX_TRY(periodic, primValueArg(call, args, 1, "periodic"));
  RLX_TRY(alpha, primValueArg(call, args, 2, "alpha"));
  RLX_TRY(beta, primValueArg(call, args, 3, "beta"));
  RLX_TRY(out, newResult(call));
  int64_t n = out->numel();
  if (n != size.primInt()) return evalError(call, "the result length does not match window_size");
  double denom = double(periodic.primDouble() != 0 ? n : n - 1);
  for (int64_t i = 0; i < n; ++i) {
    double w = n == 1 ? 1.0 : alpha.primDouble() - beta.primDouble() * std::cos(2 * std::numbers::pi * double(i) / denom);
    out->setDouble(i, w);
  }
  return Value::ofTensor(out);
}

// tril keeps the elements with column - row <= k, triu those with column - row >= k, of every
// trailing 2-D matrix; the rest are zero.
Result<Value> evalTrilu(const Call& call, const std::vector<Value>& args, bool upper) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  RLX_TRY(kv, primValueArg(call, args, 1, "k"));
  size_t nd = x->shape.size();
  if (nd < 2) return evalError(call, fmt::format("expects a tensor of at least 2 dimensions, got {}", args[0].describe()));
  RLX_TRY(out, newTensor(call, x->dtype, x->shape));
  int64_t k = kv.primInt();
  size_t w = size_t(x->dtype.bytes());
  forEachIndex(x->shape, [&](const Shape& idx, int64_t flat) {
    int64_t diff = idx[nd - 1] - idx[nd - 2];
    if (upper ? diff >= k : diff <= k) std::memcpy(static_cast<char*>(out->data()) + size_t(flat) * w, static_cast<const char*>(x->data()) + size_t(flat) * w, w);
  });
  return Value::ofTensor(out);
}

}  // namespace

void registerCreateEvals() {
  registerEval("relax.full", [](const Call& c, const std::vector<Value>& a) { return evalFullOfShape(c, a, std::nullopt); });
  registerEval("relax.zeros", [](const Call& c, const std::vector<Value>& a) { return evalFullOfShape(c, a, 0); });
  registerEval("relax.ones", [](const Call& c, const std::vector<Value>& a) { return evalFullOfShape(c, a, 1); });
  registerEval("relax.full_like", [](const Call& c, const std::vector<Value>& a) { return evalFullLike(c, a, std::nullopt); });
  registerEval("relax.zeros_like", [](const Call& c, const std::vector<Value>& a) { return evalFullLike(c, a, 0); });
  registerEval("relax.ones_like", [](const Call& c, const std::vector<Value>& a) { return evalFullLike(c, a, 1); });
  registerEval("relax.arange", evalArange);
  registerEval("relax.eye", evalEye);
  registerEval("relax.eye_like", evalEyeLike);
  registerEval("relax.hamming_window", evalHamming);
  registerEval("relax.tril", [](const Call& c, const std::vector<Value>& a) { return evalTrilu(c, a, false); });
  registerEval("relax.triu", [](const Call& c, const std::vector<Value>& a) { return evalTrilu(c, a, true); });
}

}  // namespace rlx
