// Reference evaluators of the statistical reductions, scans, search/sort and set ops, with the
// semantics of TVM's kernels: numpy's in nearly every case (notes at each op where they differ).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "ir/ops/eval_util.h"

namespace rlx {
namespace {
using namespace ops;

// ---------------------------------------------------------------- slices
// A tensor seen as slices: element outer[o] + inner[k] is element k of slice o. Both lists are
// row-major over their own dims, so slice o is also element o of the (keepdims or not) result.
struct SliceLayout {
  std::vector<int64_t> outer, inner;
};

// Flat offsets of every index over the dims whose `pick` flag equals `want`.
std::vector<int64_t> offsetsOver(const Shape& shape, const std::vector<bool>& pick, bool want) {
  Shape strides = stridesOf(shape), dims, st;
  for (size_t k = 0; k < shape.size(); ++k)
    if (pick[k] == want) {
      dims.push_back(shape[k]);
      st.push_back(strides[k]);
    }
  std::vector<int64_t> offs;
  forEachIndex(dims, [&](const Shape& idx, int64_t) {
    int64_t off = 0;
    for (size_t k = 0; k < idx.size(); ++k) off += idx[k] * st[k];
    offs.push_back(off);
  });
  return offs;
}

// Slices over the dims flagged in `reduced` (one slice per index of the other dims).
SliceLayout sliceLayout(const Shape& shape, const std::vector<bool>& reduced) {
  return {offsetsOver(shape, reduced, false), offsetsOver(shape, reduced, true)};
}

std::vector<bool> axisMask(size_t ndim, int axis) {
  std::vector<bool> m(ndim, false);
  m[size_t(axis)] = true;
  return m;
}

// A checked axis (inference validated it already; this keeps bad direct calls from crashing).
Result<int> checkedAxis(const Call& call, int64_t axis, size_t ndim) {
  int64_t n = int64_t(ndim);
  if (axis < -n || axis >= n) return evalError(call, fmt::format("axis {} is out of range for {} dimensions", axis, n));
  return normAxis(axis, int(n));
}

// The reduced dims of a StatisticalAttrs op: `axis` = None reduces every dim, as inference does.
Result<std::vector<bool>> reducedDims(const Call& call, size_t ndim) {
  auto axes = attrOptInts(call, "axis");
  std::vector<bool> m(ndim, !axes);
  if (axes)
    for (auto a : *axes) {
      RLX_TRY(k, checkedAxis(call, a, ndim));
      m[size_t(k)] = true;
    }
  return m;
}

// The elements of one slice, read once in the widest type of the dtype's family.
struct SliceValues {
  bool isFloat = false, isU64 = false;
  std::vector<double> f;
  std::vector<int64_t> i;
  int64_t size() const { return int64_t(isFloat ? f.size() : i.size()); }
  bool less(int64_t a, int64_t b) const;
  bool isNaN(int64_t k) const { return isFloat && std::isnan(f[size_t(k)]); }
};

// Element j of `a` before element k of `b` (same dtype) in the total order of numpy's sorts:
// NaN after everything; uint64 compared unsigned.
bool lessAcross(const SliceValues& a, int64_t j, const SliceValues& b, int64_t k) {
  if (a.isFloat) {
    double p = a.f[size_t(j)], q = b.f[size_t(k)];
    return !std::isnan(p) && (std::isnan(q) || p < q);
  }
  int64_t p = a.i[size_t(j)], q = b.i[size_t(k)];
  return a.isU64 ? uint64_t(p) < uint64_t(q) : p < q;
}

bool SliceValues::less(int64_t a, int64_t b) const { return lessAcross(*this, a, *this, b); }

SliceValues readSlice(const NDArray& t, int64_t base, const std::vector<int64_t>& inner) {
  SliceValues v;
  v.isFloat = t.dtype.isFloat();
  v.isU64 = t.dtype.isUInt() && t.dtype.bits == 64;
  for (auto off : inner) {
    if (v.isFloat) v.f.push_back(t.getDouble(base + off));
    else v.i.push_back(t.getInt(base + off));
  }
  return v;
}

// Positions 0..n-1 of a slice in sorted order; stable, so equal elements keep their index order
// in both directions (TVM sorts with a stable sort and a flipped comparison for descending).
std::vector<int64_t> sortedPositions(const SliceValues& v, bool descending) {
  std::vector<int64_t> pos(size_t(v.size()));
  std::iota(pos.begin(), pos.end(), 0);
  if (descending) std::stable_sort(pos.begin(), pos.end(), [&](int64_t a, int64_t b) { return v.less(b, a); });
  else std::stable_sort(pos.begin(), pos.end(), [&](int64_t a, int64_t b) { return v.less(a, b); });
  return pos;
}

void copyElem(const NDArray& src, int64_t from, NDArray& dst, int64_t to) {
  if (dst.dtype.isFloat()) dst.setDouble(to, src.getDouble(from));
  else dst.setInt(to, src.getInt(from));
}

// An integer wrapped to the width of `t` (how the kernels' intermediate values overflow).
int64_t wrapTo(DataType t, int64_t v) {
  if (t.isBool()) return v != 0;
  if (t.bits >= 64) return v;
  int shift = 64 - t.bits;
  if (t.isUInt()) return int64_t(uint64_t(v) << shift >> shift);
  return int64_t(uint64_t(v) << shift) >> shift;
}

// Integer division as the kernels do it: truncating, unsigned for unsigned dtypes.
int64_t divTrunc(DataType t, int64_t a, int64_t n) {
  if (t.isUInt()) return int64_t(uint64_t(a) / uint64_t(n));
  return a / n;
}

// ---------------------------------------------------------------- reductions
// One reduction: writes the result of slice `v` to element `o` of `out` (error for empty slices
// where the op has no identity).
using Reducer = std::function<Status(const Call&, const SliceValues& v, NDArray& out, int64_t o)>;

Status emptyError(const Call& call, const char* what) {
  return evalError(call, fmt::format("cannot take the {} of an empty axis (zero-size reduction)", what));
}

Status reduceSum(const Call&, const SliceValues& v, NDArray& out, int64_t o) {
  if (v.isFloat) out.setDouble(o, std::accumulate(v.f.begin(), v.f.end(), 0.0));
  else out.setInt(o, int64_t(std::accumulate(v.i.begin(), v.i.end(), uint64_t(0), [](uint64_t a, int64_t b) { return a + uint64_t(b); })));
  return okStatus();
}

Status reduceProd(const Call&, const SliceValues& v, NDArray& out, int64_t o) {
  if (v.isFloat) out.setDouble(o, std::accumulate(v.f.begin(), v.f.end(), 1.0, std::multiplies<double>()));
  else out.setInt(o, int64_t(std::accumulate(v.i.begin(), v.i.end(), uint64_t(1), [](uint64_t a, int64_t b) { return a * uint64_t(b); })));
  return okStatus();
}

// Position of the max (or min) element: the first one among ties, the first NaN if any (numpy).
int64_t extremePos(const SliceValues& v, bool wantMax) {
  int64_t best = 0;
  for (int64_t k = 0; k < v.size(); ++k) {
    if (v.isNaN(k)) return k;
    if (wantMax ? v.less(best, k) : v.less(k, best)) best = k;
  }
  return best;
}

Reducer reduceExtreme(bool wantMax) {
  return [wantMax](const Call& call, const SliceValues& v, NDArray& out, int64_t o) -> Status {
    if (v.size() == 0) return emptyError(call, wantMax ? "max" : "min");
    int64_t k = extremePos(v, wantMax);
    if (v.isFloat) out.setDouble(o, v.f[size_t(k)]);
    else out.setInt(o, v.i[size_t(k)]);
    return okStatus();
  };
}

Reducer reduceArgExtreme(bool wantMax) {
  return [wantMax](const Call& call, const SliceValues& v, NDArray& out, int64_t o) -> Status {
    if (v.size() == 0) return emptyError(call, wantMax ? "argmax" : "argmin");
    out.setInt(o, extremePos(v, wantMax));
    return okStatus();
  };
}

// Integer mean as TVM's kernel computes it: the sum wrapped to the dtype, divided truncating.
Result<int64_t> intMean(const Call& call, DataType t, const std::vector<int64_t>& xs) {
  if (xs.empty()) return evalError(call, "integer division by zero (the mean of an empty axis)");
  uint64_t s = 0;
  for (auto x : xs) s += uint64_t(x);
  return divTrunc(t, wrapTo(t, int64_t(s)), int64_t(xs.size()));
}

Status reduceMean(const Call& call, const SliceValues& v, NDArray& out, int64_t o) {
  if (v.isFloat) {
    out.setDouble(o, std::accumulate(v.f.begin(), v.f.end(), 0.0) / double(v.f.size()));  // 0/0 = NaN
    return okStatus();
  }
  RLX_TRY(m, intMean(call, out.dtype, v.i));
  out.setInt(o, m);
  return okStatus();
}

// Population variance, two-pass (TVM: mean((x - mean(x))^2)). Integers follow the kernel's
// integer arithmetic: truncating means, wrapping differences and squares.
Result<double> variance(const Call& call, const SliceValues& v, DataType t) {
  if (v.isFloat) {
    double m = std::accumulate(v.f.begin(), v.f.end(), 0.0) / double(v.f.size()), s = 0;
    for (auto x : v.f) s += (x - m) * (x - m);
    return s / double(v.f.size());
  }
  RLX_TRY(m, intMean(call, t, v.i));
  std::vector<int64_t> sq;
  for (auto x : v.i) {
    int64_t d = wrapTo(t, int64_t(uint64_t(x) - uint64_t(m)));
    sq.push_back(wrapTo(t, int64_t(uint64_t(d) * uint64_t(d))));
  }
  RLX_TRY(var, intMean(call, t, sq));
  return t.isUInt() && t.bits == 64 ? double(uint64_t(var)) : double(var);
}

Reducer reduceVariance(bool takeSqrt) {
  return [takeSqrt](const Call& call, const SliceValues& v, NDArray& out, int64_t o) -> Status {
    RLX_TRY(var, variance(call, v, out.dtype));
    out.setDouble(o, takeSqrt ? std::sqrt(var) : var);  // integer std truncates
    return okStatus();
  };
}

// Runs `fn` on every slice of x over the reduced dims; slice o is result element o.
Status forEachSlice(const Call& call, const NDArray& x, const std::vector<bool>& reduced, NDArray& out, const Reducer& fn) {
  SliceLayout l = sliceLayout(x.shape, reduced);
  if (int64_t(l.outer.size()) != out.numel()) return evalError(call, "the result shape does not match the reduction");
  for (size_t o = 0; o < l.outer.size(); ++o) RLX_TRY_STATUS(fn(call, readSlice(x, l.outer[o], l.inner), out, int64_t(o)));
  return okStatus();
}

EvalFn statisticalEval(Reducer fn) {
  return [fn](const Call& call, const std::vector<Value>& args) -> Result<Value> {
    RLX_TRY(x, tensorValue(call, args, 0, "x"));
    RLX_TRY(out, allocResult(call));
    RLX_TRY(reduced, reducedDims(call, x->shape.size()));
    RLX_TRY_STATUS(forEachSlice(call, *x, reduced, *out, fn));
    return Value::ofTensor(out);
  };
}

// argmax/argmin reduce one axis (or all, giving the flat index): the position within the slice.
EvalFn argExtremeEval(bool wantMax) {
  return [wantMax](const Call& call, const std::vector<Value>& args) -> Result<Value> {
    RLX_TRY(x, tensorValue(call, args, 0, "x"));
    RLX_TRY(out, allocResult(call));
    std::vector<bool> reduced(x->shape.size(), true);
    if (!attrIsNone(call, "axis")) {
      RLX_TRY(axis, checkedAxis(call, attrInt(call, "axis"), x->shape.size()));
      reduced = axisMask(x->shape.size(), axis);
    }
    RLX_TRY_STATUS(forEachSlice(call, *x, reduced, *out, reduceArgExtreme(wantMax)));
    return Value::ofTensor(out);
  };
}

// ---------------------------------------------------------------- median
// TVM's median is torch's: the lower middle element (no averaging) and, over one axis, its index
// within the axis. Like numpy (and torch), any NaN makes the result NaN (index of the first NaN).
// Several axes reduce as one combined slice (TVM's kernel only handles one; inference allows more).
Result<Value> evalMedian(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  RLX_TRY(reduced, reducedDims(call, x->shape.size()));
  bool withIndices = call.sinfo && call.sinfo.as<TupleSInfo>();
  RLX_TRY(vals, withIndices ? allocResultField(call, 0) : allocResult(call));
  NDArrayRef idx = allocTensor(DataType::int64(), vals->shape);
  auto lowerMedian = [&](const Call& c, const SliceValues& v, NDArray& out, int64_t o) -> Status {
    if (v.size() == 0) return emptyError(c, "median");
    int64_t pos = extremePos(v, true);  // the first NaN, when there is one
    if (!v.isNaN(pos)) pos = sortedPositions(v, false)[size_t((v.size() - 1) / 2)];
    if (v.isFloat) out.setDouble(o, v.f[size_t(pos)]);
    else out.setInt(o, v.i[size_t(pos)]);
    idx->setInt(o, pos);
    return okStatus();
  };
  RLX_TRY_STATUS(forEachSlice(call, *x, reduced, *vals, lowerMedian));
  if (!withIndices) return Value::ofTensor(vals);
  return Value::ofTuple({Value::ofTensor(vals), Value::ofTensor(idx)});
}

// ---------------------------------------------------------------- scans
// cumsum/cumprod: the input is first cast to the result dtype (the `dtype` attr), then scanned
// with wrapping integer or double float arithmetic. `exclusive` shifts by one (0 or 1 first).
// axis = None scans the flattened tensor.
EvalFn scanEval(bool isProd) {
  return [isProd](const Call& call, const std::vector<Value>& args) -> Result<Value> {
    RLX_TRY(data, tensorValue(call, args, 0, "data"));
    RLX_TRY(out, allocResult(call));
    if (out->numel() != data->numel()) return evalError(call, "the result size does not match the input");
    NDArrayRef x = castTensor(*data, out->dtype);
    Shape shape = x->shape;
    std::vector<bool> mask;
    if (attrIsNone(call, "axis")) {
      shape = {x->numel()};
      mask = {true};
    } else {
      RLX_TRY(axis, checkedAxis(call, attrInt(call, "axis"), shape.size()));
      mask = axisMask(shape.size(), axis);
    }
    bool exclusive = attrBool(call, "exclusive"), isFloat = out->dtype.isFloat();
    SliceLayout l = sliceLayout(shape, mask);
    for (int64_t base : l.outer) {
      double accF = isProd ? 1 : 0;
      uint64_t accI = isProd ? 1 : 0;  // wraps; the store truncates to the dtype's width
      auto step = [&](int64_t at) {
        if (isFloat) accF = isProd ? accF * x->getDouble(at) : accF + x->getDouble(at);
        else accI = isProd ? accI * uint64_t(x->getInt(at)) : accI + uint64_t(x->getInt(at));
      };
      for (int64_t off : l.inner) {
        int64_t at = base + off;
        if (!exclusive) step(at);
        if (isFloat) out->setDouble(at, accF);
        else out->setInt(at, int64_t(accI));
        if (exclusive) step(at);
      }
    }
    return Value::ofTensor(out);
  };
}

// ---------------------------------------------------------------- sort, argsort, topk
// Calls fn(values, positions, inBase, o) for slice o along `axis`, with its positions sorted
// stably (descending: larger first, NaN first).
using SortedSliceFn = std::function<void(const SliceValues&, const std::vector<int64_t>& pos, int64_t inBase, int64_t outSlice)>;

void forEachSortedSlice(const NDArray& x, int axis, bool descending, const SortedSliceFn& fn) {
  SliceLayout l = sliceLayout(x.shape, axisMask(x.shape.size(), axis));
  for (size_t o = 0; o < l.outer.size(); ++o) {
    SliceValues v = readSlice(x, l.outer[o], l.inner);
    fn(v, sortedPositions(v, descending), l.outer[o], int64_t(o));
  }
}

// The slices of a tensor along one axis: at(o, j) is element j of slice o. Results of sort-like
// ops have the input's slices in the same order, only the axis extent may differ (topk).
struct AxisSlices {
  SliceLayout l;
  AxisSlices(const Shape& shape, int axis) : l(sliceLayout(shape, axisMask(shape.size(), axis))) {}
  int64_t at(int64_t o, int64_t j) const { return l.outer[size_t(o)] + l.inner[size_t(j)]; }
};

Result<int> sortAxis(const Call& call, const NDArray& x) {
  if (x.shape.empty()) return evalError(call, "cannot sort a 0-d tensor");
  return checkedAxis(call, attrInt(call, "axis", -1), x.shape.size());
}

Result<Value> evalSort(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  RLX_TRY(axis, sortAxis(call, *x));
  RLX_TRY(out, allocResult(call));
  AxisSlices w(out->shape, axis), src(x->shape, axis);
  forEachSortedSlice(*x, axis, attrBool(call, "descending"), [&](const SliceValues&, const std::vector<int64_t>& pos, int64_t inBase, int64_t o) {
    for (size_t j = 0; j < pos.size(); ++j) copyElem(*x, inBase + src.l.inner[size_t(pos[j])], *out, w.at(o, int64_t(j)));
  });
  return Value::ofTensor(out);
}

Result<Value> evalArgsort(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(axis, sortAxis(call, *x));
  RLX_TRY(out, allocResult(call));
  AxisSlices w(out->shape, axis);
  forEachSortedSlice(*x, axis, attrBool(call, "descending"), [&](const SliceValues&, const std::vector<int64_t>& pos, int64_t, int64_t o) {
    for (size_t j = 0; j < pos.size(); ++j) out->setInt(w.at(o, int64_t(j)), pos[j]);
  });
  return Value::ofTensor(out);
}

// topk: the first k of a stable sort (descending when `largest`), so ties keep index order; k < 1
// means the whole axis. ret_type "both" gives (values, indices).
Result<Value> evalTopK(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(axis, sortAxis(call, *x));
  std::string ret = attrString(call, "ret_type", "both");
  NDArrayRef values, indices;
  if (ret == "both") {
    RLX_TRY(v, allocResultField(call, 0));
    RLX_TRY(i, allocResultField(call, 1));
    values = v, indices = i;
  } else {
    RLX_TRY(r, allocResult(call));
    (ret == "values" ? values : indices) = r;
  }
  const NDArray& shaped = values ? *values : *indices;
  int64_t n = x->shape[size_t(axis)], k = attrInt(call, "k", 1);
  if (k < 1) k = n;
  if (k > n || shaped.shape[size_t(axis)] != k) return evalError(call, fmt::format("k = {} does not fit the extent {} of axis {}", k, n, axis));
  AxisSlices w(shaped.shape, axis), src(x->shape, axis);
  forEachSortedSlice(*x, axis, attrBool(call, "largest", true), [&](const SliceValues&, const std::vector<int64_t>& pos, int64_t inBase, int64_t o) {
    for (int64_t j = 0; j < k; ++j) {
      if (values) copyElem(*x, inBase + src.l.inner[size_t(pos[size_t(j)])], *values, w.at(o, j));
      if (indices) indices->setInt(w.at(o, j), pos[size_t(j)]);
    }
  });
  if (ret != "both") return Value::ofTensor(values ? values : indices);
  return Value::ofTuple({Value::ofTensor(values), Value::ofTensor(indices)});
}

// ---------------------------------------------------------------- bucketize
// torch.bucketize (TVM: searchsorted on the boundaries): right=false gives the first i with
// boundaries[i] >= x, right=true the first i with boundaries[i] > x. NaN sorts last.
Result<Value> evalBucketize(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "input_tensor"));
  RLX_TRY(b, tensorValue(call, args, 1, "boundaries"));
  RLX_TRY(out, allocResult(call));
  if (b->shape.size() != 1) return evalError(call, "expects 1-D boundaries");
  if (out->numel() != x->numel()) return evalError(call, "the result size does not match the input");
  bool right = attrBool(call, "right"), asFloat = x->dtype.isFloat() || b->dtype.isFloat();
  SliceValues keys;  // boundaries followed by the probe value, compared in one total order
  keys.isFloat = asFloat;
  for (int64_t k = 0; k < b->numel(); ++k) {
    if (asFloat) keys.f.push_back(b->getDouble(k));
    else keys.i.push_back(b->getInt(k));
  }
  int64_t probe = b->numel();
  if (asFloat) keys.f.push_back(0);
  else keys.i.push_back(0);
  for (int64_t k = 0; k < x->numel(); ++k) {
    if (asFloat) keys.f.back() = x->getDouble(k);
    else keys.i.back() = x->getInt(k);
    int64_t lo = 0, hi = probe;  // binary search over the (assumed sorted) boundaries
    while (lo < hi) {
      int64_t mid = (lo + hi) / 2;
      bool goRight = right ? !keys.less(probe, mid) : keys.less(mid, probe);
      if (goRight) lo = mid + 1;
      else hi = mid;
    }
    out->setInt(k, lo);
  }
  return Value::ofTensor(out);
}

// ---------------------------------------------------------------- unique
// numpy.unique over the flattened tensor, or over slices along `axis` (compared lexicographically).
// sorted=false keeps the order of first occurrence (TVM's packed function does the same). NaNs
// collapse into one (numpy's equal_nan). Extra results are int64: first index, inverse, counts.
struct UniqueGroups {
  std::vector<int64_t> first, counts, inverse;  // per group: first item; per item: group
};

// Items are the slices of `l` (one element each when flattened).
UniqueGroups groupItems(const NDArray& x, const SliceLayout& l, bool keepSorted) {
  std::vector<SliceValues> items;
  for (int64_t base : l.outer) items.push_back(readSlice(x, base, l.inner));
  auto cmp = [&](int64_t a, int64_t b) {  // lexicographic, -1/0/1
    const SliceValues &va = items[size_t(a)], &vb = items[size_t(b)];
    for (int64_t j = 0; j < va.size(); ++j) {
      if (lessAcross(va, j, vb, j)) return -1;
      if (lessAcross(vb, j, va, j)) return 1;
    }
    return 0;
  };
  std::vector<int64_t> order(items.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return cmp(a, b) < 0; });
  UniqueGroups g;
  g.inverse.assign(items.size(), 0);
  for (size_t k = 0; k < order.size(); ++k) {
    if (k == 0 || cmp(order[k - 1], order[k]) != 0) {
      g.first.push_back(order[k]);  // stable: the smallest index of its group
      g.counts.push_back(0);
    }
    g.counts.back()++;
    g.inverse[size_t(order[k])] = int64_t(g.first.size()) - 1;
  }
  if (keepSorted) return g;
  std::vector<int64_t> byFirst(g.first.size()), rank(g.first.size());
  std::iota(byFirst.begin(), byFirst.end(), 0);
  std::sort(byFirst.begin(), byFirst.end(), [&](int64_t a, int64_t b) { return g.first[size_t(a)] < g.first[size_t(b)]; });
  UniqueGroups r;
  for (size_t k = 0; k < byFirst.size(); ++k) {
    rank[size_t(byFirst[k])] = int64_t(k);
    r.first.push_back(g.first[size_t(byFirst[k])]);
    r.counts.push_back(g.counts[size_t(byFirst[k])]);
  }
  for (auto gi : g.inverse) r.inverse.push_back(rank[size_t(gi)]);
  return r;
}

NDArrayRef int64Vector(const std::vector<int64_t>& v) {
  NDArrayRef t = allocTensor(DataType::int64(), {int64_t(v.size())});
  for (size_t k = 0; k < v.size(); ++k) t->setInt(int64_t(k), v[k]);
  return t;
}

Result<Value> evalUnique(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  bool flags[4];
  const char* names[4] = {"sorted", "return_index", "return_inverse", "return_counts"};
  for (size_t k = 0; k < 4; ++k) {
    RLX_TRY(f, primValueArg(call, args, k + 1, names[k]));
    flags[k] = f.primInt() != 0;
  }
  Shape shape = {x->numel()};
  int axis = 0;
  if (args.size() > 5) {
    RLX_TRY(a, primValueArg(call, args, 5, "axis"));
    if (x->shape.empty()) return evalError(call, "cannot take unique slices of a 0-d tensor");
    RLX_TRY(ax, checkedAxis(call, a.primInt(), x->shape.size()));
    shape = x->shape, axis = ax;
  }
  std::vector<bool> itemDims(shape.size(), true);  // items along `axis`, each spanning the rest
  itemDims[size_t(axis)] = false;
  SliceLayout in = sliceLayout(shape, itemDims);
  UniqueGroups g = groupItems(*x, in, flags[0]);
  Shape outShape = shape;
  outShape[size_t(axis)] = int64_t(g.first.size());
  NDArrayRef vals = allocTensor(x->dtype, outShape);
  SliceLayout out = sliceLayout(outShape, itemDims);
  for (size_t k = 0; k < g.first.size(); ++k)
    for (size_t j = 0; j < in.inner.size(); ++j) copyElem(*x, in.outer[size_t(g.first[k])] + in.inner[j], *vals, out.outer[k] + out.inner[j]);
  std::vector<Value> results = {Value::ofTensor(vals)};
  if (flags[1]) results.push_back(Value::ofTensor(int64Vector(g.first)));
  if (flags[2]) results.push_back(Value::ofTensor(int64Vector(g.inverse)));
  if (flags[3]) results.push_back(Value::ofTensor(int64Vector(g.counts)));
  if (results.size() == 1) return results[0];
  return Value::ofTuple(std::move(results));
}

// ---------------------------------------------------------------- nonzero
// The (ndim, count) int64 indices of non-zero elements in row-major order; a 0-d tensor counts
// as 1-D (TVM runs numpy's atleast_1d(x).nonzero()). NaN is non-zero.
Result<Value> evalNonzero(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  Shape shape = x->shape.empty() ? Shape{1} : x->shape;
  std::vector<Shape> hits;
  forEachIndex(shape, [&](const Shape& idx, int64_t flat) {
    if (x->dtype.isFloat() ? x->getDouble(flat) != 0 : x->getInt(flat) != 0) hits.push_back(idx);
  });
  int64_t count = int64_t(hits.size());
  NDArrayRef out = allocTensor(DataType::int64(), {int64_t(shape.size()), count});
  for (size_t d = 0; d < shape.size(); ++d)
    for (int64_t j = 0; j < count; ++j) out->setInt(int64_t(d) * count + j, hits[size_t(j)][d]);
  return Value::ofTensor(out);
}

// ---------------------------------------------------------------- multinomial_from_uniform
// For each sample i: row r = sample_indices[i, 0] of prob, and the first j with
// uniform_sample[i, 0] < cumsum(prob[r])[j] (the last index when there is none), as TVM's
// generic sampling kernel picks it.
Result<Value> evalMultinomial(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(prob, tensorValue(call, args, 0, "prob"));
  RLX_TRY(uni, tensorValue(call, args, 1, "uniform_sample"));
  RLX_TRY(rows, tensorValue(call, args, 2, "sample_indices"));
  RLX_TRY(out, allocResult(call));
  if (prob->shape.size() != 2 || uni->shape.size() != 2 || rows->shape.size() != 2) return evalError(call, "expects 2-D prob, uniform_sample and sample_indices");
  int64_t batch = prob->shape[0], vocab = prob->shape[1], n = out->numel();
  if (uni->numel() != n || rows->numel() != n) return evalError(call, "expects one uniform sample and one row index per output row");
  if (vocab == 0 && n > 0) return evalError(call, "cannot sample from an empty distribution");
  for (int64_t i = 0; i < n; ++i) {
    int64_t r = rows->getInt(i);
    if (r < 0 || r >= batch) return evalError(call, fmt::format("sample index {} is out of range for {} rows of prob", r, batch));
    double u = uni->getDouble(i), c = 0;
    int64_t pick = vocab - 1;
    for (int64_t j = 0; j < vocab; ++j)
      if (u < (c += prob->getDouble(r * vocab + j))) {
        pick = j;
        break;
      }
    out->setInt(i, pick);
  }
  return Value::ofTensor(out);
}

void registerStatistical() {
  registerEval("relax.sum", statisticalEval(reduceSum));
  registerEval("relax.prod", statisticalEval(reduceProd));
  registerEval("relax.max", statisticalEval(reduceExtreme(true)));
  registerEval("relax.min", statisticalEval(reduceExtreme(false)));
  registerEval("relax.mean", statisticalEval(reduceMean));
  registerEval("relax.variance", statisticalEval(reduceVariance(false)));
  registerEval("relax.std", statisticalEval(reduceVariance(true)));
  registerEval("relax.median", evalMedian);
  registerEval("relax.cumsum", scanEval(false));
  registerEval("relax.cumprod", scanEval(true));
}

void registerSearch() {
  registerEval("relax.argmax", argExtremeEval(true));
  registerEval("relax.argmin", argExtremeEval(false));
  registerEval("relax.sort", evalSort);
  registerEval("relax.argsort", evalArgsort);
  registerEval("relax.topk", evalTopK);
  registerEval("relax.bucketize", evalBucketize);
  registerEval("relax.unique", evalUnique);
  registerEval("relax.nonzero", evalNonzero);
  registerEval("relax.multinomial_from_uniform", evalMultinomial);
}

}  // namespace

void registerReduceEvals() {
  registerStatistical();
  registerSearch();
}

}  // namespace rlx
