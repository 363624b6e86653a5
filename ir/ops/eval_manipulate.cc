// Reference evaluators of the shape manipulation ops (manipulate.cc): reshape family, permute_dims,
// flip, concat/stack/split, broadcast_to/tile/repeat, collapse_sum_*; and the shared helpers.
//
// Data moves as raw element bytes, so every dtype is exact. Layout, indexing and gather/scatter
// live in eval_layout.cc, eval_index.cc and eval_gather_scatter.cc, registered from here.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "ir/ops/eval_manipulate.h"

namespace rlx {
namespace ops {

int64_t prodOf(const Shape& s, size_t lo, size_t hi) {
  int64_t n = 1;
  for (size_t k = lo; k < hi; ++k) n *= s[k];
  return n;
}

std::string shapeText(const Shape& s) {
  std::string out = "(";
  for (size_t k = 0; k < s.size(); ++k) out += (k ? ", " : "") + std::to_string(s[k]);
  return out + (s.size() == 1 ? ",)" : ")");
}

void copyRun(NDArray& dst, int64_t di, const NDArray& src, int64_t si, int64_t n) {
  if (n <= 0) return;
  size_t w = size_t(src.dtype.bytes());
  std::memcpy(static_cast<char*>(dst.data()) + size_t(di) * w, static_cast<const char*>(src.data()) + size_t(si) * w, size_t(n) * w);
}
void copyElem(NDArray& dst, int64_t di, const NDArray& src, int64_t si) { copyRun(dst, di, src, si, 1); }

void gatherFrom(NDArray& out, const NDArray& src, const std::function<int64_t(const Shape&)>& srcOffset) {
  forEachIndex(out.shape, [&](const Shape& idx, int64_t flat) { copyElem(out, flat, src, srcOffset(idx)); });
}

namespace {

// dst[i] = src[i * step] for i < n, elements of T.
template <class T>
void stridedRun(char* dst, const char* src, int64_t step, int64_t n) {
  T* d = reinterpret_cast<T*>(dst);
  const T* s = reinterpret_cast<const T*>(src);
  for (int64_t i = 0; i < n; ++i) std::memcpy(d + i, s + i * step, sizeof(T));
}

}  // namespace

void stridedCopy(NDArray& out, const NDArray& src, const Shape& srcStrides) {
  const int64_t n = out.numel(), nd = int64_t(out.shape.size());
  if (n == 0) return;
  const size_t w = size_t(src.dtype.bytes());
  const int64_t inner = nd ? out.shape[size_t(nd - 1)] : 1, step = nd ? srcStrides[size_t(nd - 1)] : 0;
  char* dst = static_cast<char*>(out.data());
  const char* base = static_cast<const char*>(src.data());
  Shape idx(size_t(std::max<int64_t>(nd - 1, 0)), 0);
  int64_t offset = 0;  // the source element of idx (the outer dims), kept as idx steps
  for (int64_t flat = 0; flat < n; flat += inner) {
    char* d = dst + size_t(flat) * w;
    const char* s = base + size_t(offset) * w;
    switch (w) {
      case 1: stridedRun<uint8_t>(d, s, step, inner); break;
      case 2: stridedRun<uint16_t>(d, s, step, inner); break;
      case 4: stridedRun<uint32_t>(d, s, step, inner); break;
      case 8: stridedRun<uint64_t>(d, s, step, inner); break;
      default:
        for (int64_t i = 0; i < inner; ++i) std::memcpy(d + size_t(i) * w, s + size_t(i * step) * w, w);
    }
    for (int64_t k = nd - 2; k >= 0; --k) {
      offset += srcStrides[size_t(k)];
      if (++idx[size_t(k)] < out.shape[size_t(k)]) break;
      offset -= idx[size_t(k)] * srcStrides[size_t(k)];
      idx[size_t(k)] = 0;
    }
  }
}

NDArrayRef copyOf(const NDArray& x) {
  NDArrayRef out = allocTensor(x.dtype, x.shape);
  copyRun(*out, 0, x, 0, x.numel());
  return out;
}

Result<int64_t> checkedIndex(const Call& call, int64_t v, int64_t n, bool allowNegative, const char* what) {
  int64_t r = allowNegative && v < 0 ? v + n : v;
  if (r < 0 || r >= n) {
    std::string range = allowNegative ? fmt::format("[{}, {})", -n, n) : fmt::format("[0, {})", n);
    return evalError(call, fmt::format("{} {} is out of range {} for an axis of extent {}", what, v, range, n));
  }
  return r;
}

Status requireIntegral(const Call& call, const NDArray& t, const char* name) {
  if (!t.dtype.isIntegral()) return evalError(call, fmt::format("expects {} to have an integer dtype, got {}", name, t.dtype.str()));
  return okStatus();
}

Result<TakeRows> takeRows(const Call& call, const NDArray& x, const NDArray& ind) {
  std::string mode = attrString(call, "mode", "fast");
  if (mode != "fast" && mode != "clip" && mode != "wrap") return evalError(call, fmt::format("unknown mode \"{}\"", mode));
  RLX_TRY(ad, axisOrFlattened(call, x));
  TakeRows t{std::move(ad.dims), ad.axis, {}, {}};
  int64_t n = t.dims[size_t(t.axis)];
  for (int64_t k = 0; k < ind.numel(); ++k) {
    int64_t v = ind.getInt(k);
    if (mode == "clip" && n > 0) v = std::clamp<int64_t>(v, 0, n - 1);
    else if (mode == "wrap" && n > 0) v = ((v % n) + n) % n;
    RLX_TRY(r, checkedIndex(call, v, n, false, "index"));
    t.rows.push_back(r);
  }
  t.shape.assign(t.dims.begin(), t.dims.begin() + t.axis);
  t.shape.insert(t.shape.end(), ind.shape.begin(), ind.shape.end());
  t.shape.insert(t.shape.end(), t.dims.begin() + t.axis + 1, t.dims.end());
  return t;
}

}  // namespace ops

namespace {
using namespace ops;

// ---------------------------------------------------------------- reshape family

// The target shape with a -1 resolved against the element count (numpy), checked to hold as many
// elements as the input.
Result<Shape> resolveTarget(const Call& call, Shape target, int64_t numel) {
  int infer = -1;
  int64_t known = 1;
  for (size_t k = 0; k < target.size(); ++k) {
    if (target[k] == -1 && infer < 0) infer = int(k);
    else if (target[k] < 0) return evalError(call, fmt::format("invalid target shape {}", shapeText(target)));
    else known *= target[k];
  }
  if (infer >= 0) {
    if (known == 0 || numel % known != 0) return evalError(call, fmt::format("cannot reshape {} elements to {}", numel, shapeText(target)));
    target[size_t(infer)] = numel / known;
    known *= target[size_t(infer)];
  }
  if (known != numel) return evalError(call, fmt::format("cannot reshape {} elements to {} ({} elements)", numel, shapeText(target), known));
  return target;
}

// Row-major data is unchanged by every reshape-like op: copy the buffer under the new shape.
Result<Value> reshapeTo(const Call& call, const NDArray& x, const Shape& target) {
  RLX_TRY(shape, resolveTarget(call, target, x.numel()));
  RLX_TRY(out, newTensor(call, x.dtype, shape));
  copyRun(*out, 0, x, 0, x.numel());
  return Value::ofTensor(out);
}

Result<Value> evalReshape(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  RLX_TRY(shape, shapeValue(call, args, 1, "shape"));
  return reshapeTo(call, *x, shape);
}

Result<Value> evalExpandDims(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  auto axes = attrInts(call, "axis");
  int outNdim = int(x->shape.size() + axes.size());
  RLX_TRY(norm, normalizeAxes(call, outNdim, axes));
  std::vector<bool> unit(size_t(outNdim), false);
  for (int a : norm) unit[size_t(a)] = true;
  Shape shape;
  size_t k = 0;
  for (int d = 0; d < outNdim; ++d) shape.push_back(unit[size_t(d)] ? 1 : x->shape[k++]);
  return reshapeTo(call, *x, shape);
}

Result<Value> evalSqueeze(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  int nd = int(x->shape.size());
  std::vector<bool> drop(size_t(nd), false);
  if (auto axes = attrOptInts(call, "axis")) {
    RLX_TRY(norm, normalizeAxes(call, nd, *axes));
    for (int a : norm) drop[size_t(a)] = x->shape[size_t(a)] == 1;  // other extents stay
  } else {
    for (int d = 0; d < nd; ++d) drop[size_t(d)] = x->shape[size_t(d)] == 1;
  }
  Shape shape;
  for (int d = 0; d < nd; ++d)
    if (!drop[size_t(d)]) shape.push_back(x->shape[size_t(d)]);
  return reshapeTo(call, *x, shape);
}

Result<Value> evalFlatten(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  return reshapeTo(call, *x, {x->numel()});
}

// ---------------------------------------------------------------- axis reordering

Result<Value> evalPermuteDims(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  int nd = int(x->shape.size());
  std::vector<int> perm;
  if (auto axes = attrOptInts(call, "axes")) {
    if (int(axes->size()) != nd) return evalError(call, fmt::format("expects {} axes, got {}", nd, axes->size()));
    RLX_TRY(norm, normalizeAxes(call, nd, *axes));
    perm = norm;
  } else {
    for (int d = nd - 1; d >= 0; --d) perm.push_back(d);
  }
  Shape shape, xs = stridesOf(x->shape);
  for (int p : perm) shape.push_back(x->shape[size_t(p)]);
  RLX_TRY(out, newTensor(call, x->dtype, shape));
  Shape from;
  for (int p : perm) from.push_back(xs[size_t(p)]);
  stridedCopy(*out, *x, from);
  return Value::ofTensor(out);
}

Result<Value> evalFlip(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(axis, normalizeAxis(call, int(x->shape.size()), attrInt(call, "axis")));
  Shape xs = stridesOf(x->shape);
  RLX_TRY(out, newTensor(call, x->dtype, x->shape));
  int64_t n = x->shape[size_t(axis)];
  gatherFrom(*out, *x, [&](const Shape& idx) {
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) off += (int(d) == axis ? n - 1 - idx[d] : idx[d]) * xs[d];
    return off;
  });
  return Value::ofTensor(out);
}

// ---------------------------------------------------------------- joining and splitting

// Tensors of a tuple argument, checked to share dtype and rank.
Result<std::vector<NDArrayRef>> uniformTensors(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(ts, tensorTupleValue(call, args, 0, "tensors"));
  if (ts.empty()) return evalError(call, "expects at least one tensor");
  for (auto& t : ts) {
    if (t->dtype != ts[0]->dtype) return evalError(call, fmt::format("all tensors must have the same dtype, got {} and {}", ts[0]->dtype.str(), t->dtype.str()));
    if (t->shape.size() != ts[0]->shape.size())
      return evalError(call, fmt::format("all tensors must have the same number of dimensions, got {} and {}", ts[0]->shape.size(), t->shape.size()));
  }
  return ts;
}

// axis=None concatenates the flattened tensors.
Result<Value> evalConcat(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(ts, uniformTensors(call, args));
  bool flat = attrIsNone(call, "axis");
  auto dimsOf = [&](const NDArrayRef& t) { return flat ? Shape{t->numel()} : t->shape; };
  Shape shape = dimsOf(ts[0]);
  int axis = 0;
  if (!flat) {
    RLX_TRY(a, normalizeAxis(call, int(shape.size()), attrInt(call, "axis")));
    axis = a;
  }
  int64_t total = 0;
  for (auto& t : ts) {
    Shape s = dimsOf(t);
    for (size_t d = 0; d < s.size(); ++d)
      if (int(d) != axis && s[d] != shape[d])
        return evalError(call, fmt::format("tensors must agree on every dimension but axis {}, got {} and {}", axis, shapeText(shape), shapeText(s)));
    total += s[size_t(axis)];
  }
  shape[size_t(axis)] = total;
  RLX_TRY(out, newTensor(call, ts[0]->dtype, shape));
  int64_t outer = prodOf(shape, 0, size_t(axis)), inner = prodOf(shape, size_t(axis) + 1, shape.size());
  int64_t pos = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (auto& t : ts) {
      int64_t run = dimsOf(t)[size_t(axis)] * inner;
      copyRun(*out, pos, *t, o * run, run);
      pos += run;
    }
  return Value::ofTensor(out);
}

Result<Value> evalStack(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(ts, uniformTensors(call, args));
  Shape base = ts[0]->shape;
  RLX_TRY(axis, normalizeAxis(call, int(base.size()) + 1, attrIsNone(call, "axis") ? 0 : attrInt(call, "axis")));
  for (auto& t : ts)
    if (t->shape != base) return evalError(call, fmt::format("all tensors must have the same shape, got {} and {}", shapeText(base), shapeText(t->shape)));
  Shape shape = base;
  shape.insert(shape.begin() + axis, int64_t(ts.size()));
  RLX_TRY(out, newTensor(call, ts[0]->dtype, shape));
  int64_t outer = prodOf(base, 0, size_t(axis)), inner = prodOf(base, size_t(axis), base.size());
  int64_t pos = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (auto& t : ts) {
      copyRun(*out, pos, *t, o * inner, inner);
      pos += inner;
    }
  return Value::ofTensor(out);
}

// Copies x[..., lo:lo+len, ...] (along `axis`) into a new tensor.
NDArrayRef sliceAxis(const NDArray& x, int axis, int64_t lo, int64_t len) {
  Shape shape = x.shape;
  int64_t ext = shape[size_t(axis)];
  shape[size_t(axis)] = len;
  NDArrayRef out = allocTensor(x.dtype, shape);
  int64_t outer = prodOf(shape, 0, size_t(axis)), inner = prodOf(shape, size_t(axis) + 1, shape.size());
  for (int64_t o = 0; o < outer; ++o) copyRun(*out, o * len * inner, x, (o * ext + lo) * inner, len * inner);
  return out;
}

// Sections split evenly; indices split at the given points, each clamped into [0, extent] as the
// struct-info inference does (a piece between decreasing points is empty).
Result<Value> evalSplit(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  RLX_TRY(axis, normalizeAxis(call, int(x->shape.size()), attrInt(call, "axis")));
  const Attr* ios = findAttr(call, "indices_or_sections");
  if (!ios || !*ios) return evalError(call, "missing indices_or_sections");
  int64_t ext = x->shape[size_t(axis)];
  std::vector<std::pair<int64_t, int64_t>> pieces;  // (start, length)
  if ((*ios)->kind == AttrValue::Array) {
    auto points = attrInts(call, "indices_or_sections");
    int64_t lo = 0;
    for (size_t k = 0; k <= points.size(); ++k) {
      int64_t hi = k == points.size() ? ext : std::clamp<int64_t>(points[k], 0, ext);
      pieces.push_back({lo, std::max<int64_t>(hi - lo, 0)});
      lo = hi;
    }
  } else {
    int64_t n = (*ios)->i;
    if (n <= 0 || ext % n != 0) return evalError(call, fmt::format("cannot split axis {} of extent {} into {} equal sections", axis, ext, n));
    for (int64_t k = 0; k < n; ++k) pieces.push_back({k * (ext / n), ext / n});
  }
  std::vector<Value> fields;
  for (auto [lo, len] : pieces) fields.push_back(Value::ofTensor(sliceAxis(*x, axis, lo, len)));
  return Value::ofTuple(std::move(fields));
}

// ---------------------------------------------------------------- broadcasting and repetition

Result<Value> evalBroadcastTo(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  RLX_TRY(target, shapeValue(call, args, 1, "shape"));
  size_t xn = x->shape.size(), tn = target.size();
  bool ok = tn >= xn;
  for (size_t k = 1; ok && k <= xn; ++k) ok = x->shape[xn - k] == 1 || x->shape[xn - k] == target[tn - k];
  if (!ok) return evalError(call, fmt::format("cannot broadcast {} to {}", shapeText(x->shape), shapeText(target)));
  RLX_TRY(out, newTensor(call, x->dtype, target));
  // Each target dim steps through x at its stride, or not at all where x has 1 (or no dim).
  Shape xs = stridesOf(x->shape), from(tn, 0);
  for (size_t k = 1; k <= xn; ++k)
    if (x->shape[xn - k] != 1) from[tn - k] = xs[xn - k];
  stridedCopy(*out, *x, from);
  return Value::ofTensor(out);
}

// numpy tile: the shorter of data rank and repeats is padded with leading ones.
Result<Value> evalTile(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  auto reps = attrInts(call, "repeats");
  size_t nd = std::max(x->shape.size(), reps.size());
  Shape xdims(nd - x->shape.size(), 1), shape;
  xdims.insert(xdims.end(), x->shape.begin(), x->shape.end());
  for (size_t d = 0; d < nd; ++d) {
    int64_t r = d < nd - reps.size() ? 1 : reps[d - (nd - reps.size())];
    if (r < 0) return evalError(call, fmt::format("repeats must be non-negative, got {}", r));
    shape.push_back(xdims[d] * r);
  }
  RLX_TRY(out, newTensor(call, x->dtype, shape));
  Shape xs = stridesOf(xdims);
  gatherFrom(*out, *x, [&](const Shape& idx) {
    int64_t off = 0;
    for (size_t d = 0; d < nd; ++d) off += (idx[d] % xdims[d]) * xs[d];
    return off;
  });
  return Value::ofTensor(out);
}

// numpy repeat: each element `repeats` times along the axis (axis=None: of the flattened data).
Result<Value> evalRepeat(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  int64_t reps = attrInt(call, "repeats");
  if (reps <= 0) return evalError(call, fmt::format("repeats must be positive, got {}", reps));
  RLX_TRY(ad, axisOrFlattened(call, *x));
  const Shape& dims = ad.dims;
  int axis = ad.axis;
  Shape shape = dims;
  shape[size_t(axis)] *= reps;
  RLX_TRY(out, newTensor(call, x->dtype, shape));
  Shape xs = stridesOf(dims);
  gatherFrom(*out, *x, [&](const Shape& idx) {
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) off += (int(d) == axis ? idx[d] / reps : idx[d]) * xs[d];
    return off;
  });
  return Value::ofTensor(out);
}

// Sums `data` into `target` (numpy's reverse of broadcasting): target dims are right-aligned and
// each is 1 or the data's extent. Floats accumulate in double, integers wrap in int64.
Result<Value> collapseSum(const Call& call, const NDArray& data, const Shape& target) {
  size_t dn = data.shape.size(), tn = target.size();
  bool ok = tn <= dn;
  for (size_t k = 1; ok && k <= tn; ++k) ok = target[tn - k] == 1 || target[tn - k] == data.shape[dn - k];
  if (!ok) return evalError(call, fmt::format("cannot collapse {} to {}", shapeText(data.shape), shapeText(target)));
  RLX_TRY(out, newTensor(call, data.dtype, target));
  Shape ts = stridesOf(target);
  bool isFloat = data.dtype.isFloat();
  std::vector<double> fsum(size_t(out->numel()), 0);
  std::vector<uint64_t> isum(size_t(out->numel()), 0);
  forEachIndex(data.shape, [&](const Shape& idx, int64_t flat) {
    size_t o = size_t(broadcastOffset(idx, target, ts));
    if (isFloat) fsum[o] += data.getDouble(flat);
    else isum[o] += uint64_t(data.getInt(flat));
  });
  for (int64_t k = 0; k < out->numel(); ++k) {
    if (isFloat) out->setDouble(k, fsum[size_t(k)]);
    else out->setInt(k, int64_t(isum[size_t(k)]));
  }
  return Value::ofTensor(out);
}

Result<Value> evalCollapseSumLike(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(t, tensorValue(call, args, 1, "collapse_target"));
  return collapseSum(call, *x, t->shape);
}

Result<Value> evalCollapseSumTo(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(shape, shapeValue(call, args, 1, "shape"));
  return collapseSum(call, *x, shape);
}

}  // namespace

void registerManipulateEvals() {
  registerEval("relax.reshape", evalReshape);
  registerEval("relax.permute_dims", evalPermuteDims);
  registerEval("relax.expand_dims", evalExpandDims);
  registerEval("relax.squeeze", evalSqueeze);
  registerEval("relax.flatten", evalFlatten);
  registerEval("relax.concat", evalConcat);
  registerEval("relax.split", evalSplit);
  registerEval("relax.broadcast_to", evalBroadcastTo);
  registerEval("relax.stack", evalStack);
  registerEval("relax.tile", evalTile);
  registerEval("relax.repeat", evalRepeat);
  registerEval("relax.flip", evalFlip);
  registerEval("relax.collapse_sum_like", evalCollapseSumLike);
  registerEval("relax.collapse_sum_to", evalCollapseSumTo);
  registerLayoutEvals();
  registerIndexEvals();
  registerGatherScatterEvals();
}

}  // namespace rlx
