// Reference evaluators of the indexing ops (index.cc): take, strided_slice, dynamic_strided_slice and
// slice_scatter. Data moves as raw element bytes, so every dtype is exact.
//
// Index policy, following the TVM v0.23 kernels each op legalizes to:
// - take: mode "fast" (the default; topi reads unchecked) accepts only 0 <= i < n and reports any
//   other index as an error; "clip" clamps into [0, n-1]; "wrap" wraps modulo n (negatives too).
// - strided_slice, dynamic_strided_slice, slice_scatter: python slicing (negative counts from the
//   end, then clamped), as the shape functions do.
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdint>

#include "ir/ops/eval_manipulate.h"

namespace rlx {
namespace {
using namespace ops;

// ---------------------------------------------------------------- take and slicing

// take: x[..., indices, ...] along the axis (axis=None: the flattened data), out-of-range indices
// handled by `mode` (see the file header).
Result<Value> evalTake(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  RLX_TRY(ind, tensorValue(call, args, 1, "indices"));
  RLX_TRY_OK(requireIntegral(call, *ind, "indices"));
  RLX_TRY(t, takeRows(call, *x, *ind));
  const Shape& dims = t.dims;
  int axis = t.axis;
  int64_t n = dims[size_t(axis)];
  const Shape& shape = t.shape;
  RLX_TRY(out, newTensor(call, x->dtype, shape));
  int64_t outer = prodOf(dims, 0, size_t(axis)), inner = prodOf(dims, size_t(axis) + 1, dims.size());
  int64_t pos = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t r : t.rows) {
      copyRun(*out, pos, *x, (o * n + r) * inner, inner);
      pos += inner;
    }
  return Value::ofTensor(out);
}

struct SliceDim {
  int64_t begin = 0, stride = 1, length = 0;
};

// Python slicing of an axis of extent n: negative begin/end count from the end, then both are
// clamped ([0, n] for a positive stride, [-1, n-1] for a negative one).
SliceDim canonicalSlice(int64_t begin, int64_t end, int64_t stride, int64_t n) {
  auto canon = [&](int64_t v) {
    if (v < 0) v += n;
    return stride < 0 ? std::clamp<int64_t>(v, -1, n - 1) : std::clamp<int64_t>(v, 0, n);
  };
  int64_t b = canon(begin), e = canon(end);
  int64_t span = stride > 0 ? e - b : b - e;
  int64_t step = stride > 0 ? stride : stride == INT64_MIN ? INT64_MAX : -stride;
  return {b, stride, span <= 0 ? 0 : 1 + (span - 1) / step};
}

// x sliced per axis (axes not in `dims` are kept whole).
Result<Value> sliceTensor(const Call& call, const NDArray& x, const std::vector<SliceDim>& dims) {
  Shape shape, xs = stridesOf(x.shape);
  for (auto& s : dims) shape.push_back(s.length);
  RLX_TRY(out, newTensor(call, x.dtype, shape));
  gatherFrom(*out, x, [&](const Shape& idx) {
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) off += (dims[d].begin + idx[d] * dims[d].stride) * xs[d];
    return off;
  });
  return Value::ofTensor(out);
}

std::vector<SliceDim> wholeAxes(const NDArray& x) {
  std::vector<SliceDim> dims;
  for (auto n : x.shape) dims.push_back({0, 1, n});
  return dims;
}

Result<Value> evalStridedSlice(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  RLX_TRY(axes, shapeValue(call, args, 1, "axes"));
  RLX_TRY(begin, shapeValue(call, args, 2, "begin"));
  RLX_TRY(end, shapeValue(call, args, 3, "end"));
  Shape strides(axes.size(), 1);
  if (args.size() > 4) {
    RLX_TRY(s, shapeValue(call, args, 4, "strides"));
    strides = s;
  }
  if (begin.size() != axes.size() || end.size() != axes.size() || strides.size() != axes.size())
    return evalError(call, "axes, begin, end and strides must have the same length");
  RLX_TRY(norm, normalizeAxes(call, int(x->shape.size()), axes));
  auto dims = wholeAxes(*x);
  for (size_t k = 0; k < norm.size(); ++k) {
    if (strides[k] == 0) return evalError(call, "strides must not be zero");
    dims[size_t(norm[k])] = canonicalSlice(begin[k], end[k], strides[k], x->shape[size_t(norm[k])]);
  }
  RLX_TRY(v, sliceTensor(call, *x, dims));
  // assume_inbound lets inference skip the clamping: a slice that needed it is outside the contract.
  if (auto expect = resultShape(call); expect.ok() && *expect != v.tensor->shape)
    return evalError(call, fmt::format("the slice has shape {} but its inferred shape is {} (bounds outside the tensor with assume_inbound?)", shapeText(v.tensor->shape), shapeText(*expect)));
  return v;
}

Result<Value> evalDynStridedSlice(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  static const char* names[] = {"begin", "end", "strides"};
  std::vector<Shape> bounds;
  for (size_t i = 1; i <= 3; ++i) {
    RLX_TRY(t, tensorValue(call, args, i, names[i - 1]));
    if (t->shape.size() != 1 || t->shape[0] != int64_t(x->shape.size()) || !t->dtype.isIntegral())
      return evalError(call, fmt::format("expects {} to be a 1-D integer tensor with one entry per dimension ({}), got {}", names[i - 1], x->shape.size(), args[i].describe()));
    Shape v;
    for (int64_t k = 0; k < t->numel(); ++k) v.push_back(t->getInt(k));
    bounds.push_back(v);
  }
  std::vector<SliceDim> dims;
  for (size_t d = 0; d < x->shape.size(); ++d) {
    if (bounds[2][d] == 0) return evalError(call, "strides must not be zero");
    dims.push_back(canonicalSlice(bounds[0][d], bounds[1][d], bounds[2][d], x->shape[d]));
  }
  return sliceTensor(call, *x, dims);
}

// slice_scatter: input with input[start:end:step] along the axis replaced by src.
Result<Value> evalSliceScatter(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "input_tensor"));
  RLX_TRY(src, tensorValue(call, args, 1, "src"));
  RLX_TRY(start, primValueArg(call, args, 2, "start"));
  RLX_TRY(end, primValueArg(call, args, 3, "end"));
  RLX_TRY(step, primValueArg(call, args, 4, "step"));
  RLX_TRY(axis, normalizeAxis(call, int(x->shape.size()), attrInt(call, "axis")));
  if (step.primInt() <= 0) return evalError(call, fmt::format("step must be positive, got {}", step.primInt()));
  if (src->dtype != x->dtype) return evalError(call, "src must have the input's dtype");
  SliceDim s = canonicalSlice(start.primInt(), end.primInt(), step.primInt(), x->shape[size_t(axis)]);
  Shape expect = x->shape;
  expect[size_t(axis)] = s.length;
  if (src->shape != expect) return evalError(call, fmt::format("src has shape {} but the slice has shape {}", shapeText(src->shape), shapeText(expect)));
  NDArrayRef out = copyOf(*x);
  Shape xs = stridesOf(x->shape);
  forEachIndex(src->shape, [&](const Shape& idx, int64_t flat) {
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) off += (int(d) == axis ? s.begin + idx[d] * s.stride : idx[d]) * xs[d];
    copyElem(*out, off, *src, flat);
  });
  return Value::ofTensor(out);
}

}  // namespace

void registerIndexEvals() {
  registerEval("relax.take", evalTake);
  registerEval("relax.strided_slice", evalStridedSlice);
  registerEval("relax.dynamic_strided_slice", evalDynStridedSlice);
  registerEval("relax.slice_scatter", evalSliceScatter);
}

}  // namespace rlx
