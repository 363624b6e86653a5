// Reference evaluators of the gather/scatter ops (gather_scatter.cc): gather_elements/_nd,
// index_tensor, scatter_elements/_nd, index_put, meshgrid, one_hot. Data moves as raw element bytes.
//
// Index policy, following the TVM v0.23 kernels each op legalizes to:
// - gather_elements, gather_nd, scatter_nd: the kernels read/write unchecked, so indices must lie
//   in [0, n); anything else is an error.
// - scatter_elements, index_put: the kernels add n to negative indices; [-n, n) is accepted.
// - index_tensor: numpy advanced indexing; [-n, n) is accepted.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>

#include "ir/ops/eval_manipulate.h"

namespace rlx {
namespace {
using namespace ops;

// ---------------------------------------------------------------- gather

// GatherElements and ScatterElements walk their indices alike. checkIndicesFit: an error unless
// `ind` (of x's rank) is within x's extents on every axis but `axis` ("... outside the {what} axis").
Status checkIndicesFit(const Call& call, const NDArray& x, const NDArray& ind, int axis, const char* what) {
  for (size_t d = 0; d < x.shape.size(); ++d)
    if (int(d) != axis && ind.shape[d] > x.shape[d])
      return evalError(call, fmt::format("indices {} exceed data {} outside the {} axis", shapeText(ind.shape), shapeText(x.shape), what));
  return okStatus();
}

// Calls fn(flat, off) for every position p of `ind` in row-major order, `off` the flat offset into
// x of p with its `axis` coordinate replaced by ind[p] (checked against the axis extent, negatives
// counting from the end when allowNegative); stops at the first bad index with its error.
Status forEachAxisIndex(const Call& call, const NDArray& x, const NDArray& ind, int axis, bool allowNegative, const std::function<void(int64_t flat, int64_t off)>& fn) {
  size_t nd = x.shape.size();
  Shape xs = stridesOf(x.shape);
  std::optional<Error> err;
  forEachIndex(ind.shape, [&](const Shape& idx, int64_t flat) {
    if (err) return;
    auto r = checkedIndex(call, ind.getInt(flat), x.shape[size_t(axis)], allowNegative, "index");
    if (!r.ok()) return void(err = r.error());
    int64_t off = 0;
    for (size_t d = 0; d < nd; ++d) off += (int(d) == axis ? *r : idx[d]) * xs[d];
    fn(flat, off);
  });
  if (err) return std::move(*err);
  return okStatus();
}

// out[p] = data[p with the axis coordinate replaced by indices[p]] (ONNX GatherElements).
Result<Value> evalGatherElements(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(ind, tensorValue(call, args, 1, "indices"));
  RLX_TRY_OK(requireIntegral(call, *ind, "indices"));
  size_t nd = x->shape.size();
  if (ind->shape.size() != nd) return evalError(call, fmt::format("data and indices must have the same rank, got {} and {}", nd, ind->shape.size()));
  RLX_TRY(axis, normalizeAxis(call, int(nd), attrInt(call, "axis")));
  RLX_TRY_OK(checkIndicesFit(call, *x, *ind, axis, "gather"));
  RLX_TRY(out, newTensor(call, x->dtype, ind->shape));
  RLX_TRY_OK(forEachAxisIndex(call, *x, *ind, axis, false, [&](int64_t flat, int64_t off) { copyElem(*out, flat, *x, off); }));
  return Value::ofTensor(out);
}

// The flat data offset a tuple of `depth` indices (indices[p, 0..depth)) addresses, starting at
// data axis `first`; checked against each extent.
Result<int64_t> tupleOffset(const Call& call, const NDArray& ind, int64_t p, int64_t depth, const NDArray& data, const Shape& ds, size_t first, bool allowNegative) {
  int64_t off = 0;
  for (int64_t j = 0; j < depth; ++j) {
    size_t axis = first + size_t(j);
    RLX_TRY(r, checkedIndex(call, ind.getInt(p * depth + j), data.shape[axis], allowNegative, "index"));
    off += r * ds[axis];
  }
  return off;
}

// ONNX GatherND: indices (..., L) pick slices data[b..., i_0, ..., i_{L-1}, ...] where the first
// batch_dims axes of indices and data correspond.
Result<Value> evalGatherND(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(ind, tensorValue(call, args, 1, "indices"));
  RLX_TRY_OK(requireIntegral(call, *ind, "indices"));
  int64_t b = attrInt(call, "batch_dims");
  if (ind->shape.empty()) return evalError(call, "expects indices of at least one dimension");
  int64_t depth = ind->shape.back();
  size_t nd = x->shape.size();
  if (b < 0 || b + depth > int64_t(nd) || b >= int64_t(ind->shape.size()))
    return evalError(call, fmt::format("batch_dims {} and index depth {} do not fit data {} and indices {}", b, depth, shapeText(x->shape), shapeText(ind->shape)));
  for (int64_t d = 0; d < b; ++d)
    if (ind->shape[size_t(d)] != x->shape[size_t(d)]) return evalError(call, "the batch dimensions of data and indices must agree");
  Shape shape(ind->shape.begin(), ind->shape.end() - 1);
  shape.insert(shape.end(), x->shape.begin() + b + depth, x->shape.end());
  RLX_TRY(out, newTensor(call, x->dtype, shape));
  Shape positions(ind->shape.begin(), ind->shape.end() - 1), xs = stridesOf(x->shape);
  int64_t inner = prodOf(x->shape, size_t(b + depth), nd);
  std::optional<Error> err;
  forEachIndex(positions, [&](const Shape& p, int64_t flat) {
    if (err) return;
    auto off = tupleOffset(call, *ind, flat, depth, *x, xs, size_t(b), false);
    if (!off.ok()) return void(err = off.error());
    int64_t base = *off;
    for (int64_t d = 0; d < b; ++d) base += p[size_t(d)] * xs[size_t(d)];
    copyRun(*out, flat * inner, *x, base, inner);
  });
  if (err) return std::move(*err);
  return Value::ofTensor(out);
}

// numpy advanced indexing data[i_0, ..., i_{k-1}] with the index tensors broadcast together; the
// result is broadcast-shape + data.shape[k:].
struct AdvancedIndex {
  std::vector<NDArrayRef> indices;
  std::vector<Shape> strides;  // of each index tensor
  Shape bshape;                // the broadcast shape of the index tensors
};

Result<AdvancedIndex> advancedIndex(const Call& call, const std::vector<Value>& args, const NDArray& data) {
  RLX_TRY(ts, tensorTupleValue(call, args, 1, "indices"));
  if (ts.empty() || ts.size() > data.shape.size())
    return evalError(call, fmt::format("{} index tensors given for a {}-D tensor", ts.size(), data.shape.size()));
  AdvancedIndex ai{ts, {}, ts[0]->shape};
  for (auto& t : ts) {
    RLX_TRY_OK(requireIntegral(call, *t, "indices"));
    RLX_TRY(b, broadcastShape(call, ai.bshape, t->shape));
    ai.bshape = b;
    ai.strides.push_back(stridesOf(t->shape));
  }
  return ai;
}

// The data offset of element `idx` of the indexed shape (bshape + data.shape[k:]).
Result<int64_t> advancedOffset(const Call& call, const AdvancedIndex& ai, const NDArray& data, const Shape& ds, const Shape& idx) {
  size_t bn = ai.bshape.size(), k = ai.indices.size();
  int64_t off = 0;
  Shape pos(idx.begin(), idx.begin() + int64_t(bn));
  for (size_t j = 0; j < k; ++j) {
    const NDArray& t = *ai.indices[j];
    int64_t v = t.getInt(broadcastOffset(pos, t.shape, ai.strides[j]));
    RLX_TRY(r, checkedIndex(call, v, data.shape[j], true, "index"));
    off += r * ds[j];
  }
  for (size_t j = k; j < data.shape.size(); ++j) off += idx[bn + j - k] * ds[j];
  return off;
}

Shape indexedShape(const AdvancedIndex& ai, const NDArray& data) {
  Shape shape = ai.bshape;
  shape.insert(shape.end(), data.shape.begin() + int64_t(ai.indices.size()), data.shape.end());
  return shape;
}

Result<Value> evalIndexTensor(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(ai, advancedIndex(call, args, *x));
  RLX_TRY(out, newTensor(call, x->dtype, indexedShape(ai, *x)));
  Shape xs = stridesOf(x->shape);
  std::optional<Error> err;
  forEachIndex(out->shape, [&](const Shape& idx, int64_t flat) {
    if (err) return;
    auto off = advancedOffset(call, ai, *x, xs, idx);
    if (!off.ok()) return void(err = off.error());
    copyElem(*out, flat, *x, *off);
  });
  if (err) return std::move(*err);
  return Value::ofTensor(out);
}

// ---------------------------------------------------------------- scatter

enum class Reduction { Update, Add, Mul, Mean, Min, Max };

Result<Reduction> reductionOf(const Call& call, bool allowMean) {
  std::string r = attrString(call, "reduction", "update");
  if (r == "update") return Reduction::Update;
  if (r == "add") return Reduction::Add;
  if (r == "mul") return Reduction::Mul;
  if (r == "min") return Reduction::Min;
  if (r == "max") return Reduction::Max;
  if (r == "mean" && allowMean) return Reduction::Mean;
  return evalError(call, fmt::format("reduction \"{}\" is not supported by this op's kernel", r));
}

// Combines updates[ui] into out[oi] the way TVM's scatter kernels do, one update at a time in
// index order: mean is the running pairwise average (out + u) / 2. Integers wrap; an integer mean
// truncates.
void combine(NDArray& out, int64_t oi, const NDArray& upd, int64_t ui, Reduction r) {
  if (r == Reduction::Update) return copyElem(out, oi, upd, ui);
  if (out.dtype.isFloat()) {
    double a = out.getDouble(oi), u = upd.getDouble(ui);
    double v = r == Reduction::Add ? a + u : r == Reduction::Mul ? a * u : r == Reduction::Mean ? (a + u) / 2 : r == Reduction::Min ? std::min(a, u) : std::max(a, u);
    return out.setDouble(oi, v);
  }
  int64_t a = out.getInt(oi), u = upd.getInt(ui);
  uint64_t ua = uint64_t(a), uu = uint64_t(u);
  int64_t v = r == Reduction::Add ? int64_t(ua + uu) : r == Reduction::Mul ? int64_t(ua * uu) : r == Reduction::Mean ? int64_t(ua + uu) / 2 : r == Reduction::Min ? std::min(a, u) : std::max(a, u);
  out.setInt(oi, v);
}

// ONNX ScatterElements: out = data; out[p with axis → indices[p]] ⊕= updates[p].
Result<Value> evalScatterElements(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(ind, tensorValue(call, args, 1, "indices"));
  RLX_TRY(upd, tensorValue(call, args, 2, "updates"));
  RLX_TRY_OK(requireIntegral(call, *ind, "indices"));
  RLX_TRY(red, reductionOf(call, true));
  size_t nd = x->shape.size();
  if (ind->shape.size() != nd || upd->shape != ind->shape)
    return evalError(call, fmt::format("indices and updates must have one shape and the data's rank, got {}, {} for data {}", shapeText(ind->shape), shapeText(upd->shape), shapeText(x->shape)));
  if (upd->dtype != x->dtype) return evalError(call, "updates must have the data's dtype");
  RLX_TRY(axis, normalizeAxis(call, int(nd), attrInt(call, "axis")));
  RLX_TRY_OK(checkIndicesFit(call, *x, *ind, axis, "scatter"));
  NDArrayRef out = copyOf(*x);
  RLX_TRY_OK(forEachAxisIndex(call, *x, *ind, axis, true, [&](int64_t flat, int64_t off) { combine(*out, off, *upd, flat, red); }));
  return Value::ofTensor(out);
}

// ONNX ScatterND: indices (..., M) address slices data[i_0, ..., i_{M-1}, ...], each combined with
// the matching slice of updates (shape indices.shape[:-1] + data.shape[M:]).
Result<Value> evalScatterND(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(ind, tensorValue(call, args, 1, "indices"));
  RLX_TRY(upd, tensorValue(call, args, 2, "updates"));
  RLX_TRY_OK(requireIntegral(call, *ind, "indices"));
  RLX_TRY(red, reductionOf(call, false));
  if (ind->shape.empty() || ind->shape.back() > int64_t(x->shape.size()))
    return evalError(call, fmt::format("indices {} do not fit data {}", shapeText(ind->shape), shapeText(x->shape)));
  int64_t depth = ind->shape.back();
  Shape positions(ind->shape.begin(), ind->shape.end() - 1), expect = positions;
  expect.insert(expect.end(), x->shape.begin() + depth, x->shape.end());
  if (upd->shape != expect) return evalError(call, fmt::format("updates must have shape {}, got {}", shapeText(expect), shapeText(upd->shape)));
  if (upd->dtype != x->dtype) return evalError(call, "updates must have the data's dtype");
  NDArrayRef out = copyOf(*x);
  Shape xs = stridesOf(x->shape);
  int64_t inner = prodOf(x->shape, size_t(depth), x->shape.size());
  for (int64_t p = 0; p < numelOf(positions); ++p) {
    RLX_TRY(base, tupleOffset(call, *ind, p, depth, *x, xs, 0, false));
    for (int64_t t = 0; t < inner; ++t) combine(*out, base + t, *upd, p * inner + t, red);
  }
  return Value::ofTensor(out);
}

// index_put: data[i_0, ..., i_{k-1}] = values (or += with accumulate). values may hold exactly as
// many elements as the indexed region (used in order, as TVM's kernel reads them) or broadcast to it.
Result<Value> evalIndexPut(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(ai, advancedIndex(call, args, *x));
  RLX_TRY(vals, tensorValue(call, args, 2, "values"));
  if (vals->dtype != x->dtype) return evalError(call, "values must have the data's dtype");
  Shape region = indexedShape(ai, *x);
  bool flatValues = vals->numel() == numelOf(region);
  size_t vn = vals->shape.size(), rn = region.size();
  bool broadcasts = vn <= rn;
  for (size_t k = 1; broadcasts && k <= vn; ++k) broadcasts = vals->shape[vn - k] == 1 || vals->shape[vn - k] == region[rn - k];
  if (!flatValues && !broadcasts) return evalError(call, fmt::format("values {} do not fit the indexed region {}", shapeText(vals->shape), shapeText(region)));
  Reduction red = attrBool(call, "accumulate") ? Reduction::Add : Reduction::Update;
  NDArrayRef out = copyOf(*x);
  Shape xs = stridesOf(x->shape), vs = stridesOf(vals->shape);
  std::optional<Error> err;
  forEachIndex(region, [&](const Shape& idx, int64_t flat) {
    if (err) return;
    auto off = advancedOffset(call, ai, *x, xs, idx);
    if (!off.ok()) return void(err = off.error());
    combine(*out, *off, *vals, flatValues ? flat : broadcastOffset(idx, vals->shape, vs), red);
  });
  if (err) return std::move(*err);
  return Value::ofTensor(out);
}

// ---------------------------------------------------------------- meshgrid and one_hot

// numpy meshgrid: output k varies along axis k ("ij"); "xy" swaps the roles of the first two axes.
Result<Value> evalMeshgrid(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(ts, tensorTupleValue(call, args, 0, "tensors"));
  if (ts.empty()) return evalError(call, "expects at least one tensor");
  std::string indexing = attrString(call, "indexing", "ij");
  bool xy = indexing == "xy" && ts.size() >= 2;
  Shape shape;
  for (auto& t : ts) {
    if (t->shape.size() != 1) return evalError(call, "expects 1-D tensors");
    shape.push_back(t->shape[0]);
  }
  if (xy) std::swap(shape[0], shape[1]);
  std::vector<Value> fields;
  for (size_t k = 0; k < ts.size(); ++k) {
    size_t axis = xy && k < 2 ? 1 - k : k;
    RLX_TRY(out, newTensor(call, ts[k]->dtype, shape));
    gatherFrom(*out, *ts[k], [&](const Shape& idx) { return idx[axis]; });
    fields.push_back(Value::ofTensor(out));
  }
  return Value::ofTuple(std::move(fields));
}

// on_value where the index equals the position along the new axis, off_value elsewhere (an
// out-of-range index matches nowhere).
Result<Value> evalOneHot(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(ind, tensorValue(call, args, 0, "indices"));
  RLX_TRY_OK(requireIntegral(call, *ind, "indices"));
  RLX_TRY(on, primValueArg(call, args, 1, "on_value"));
  RLX_TRY(off, primValueArg(call, args, 2, "off_value"));
  int64_t depth = attrInt(call, "depth");
  if (depth <= 0) return evalError(call, fmt::format("depth must be positive, got {}", depth));
  RLX_TRY(axis, normalizeAxis(call, int(ind->shape.size()) + 1, attrInt(call, "axis", -1)));
  RLX_TRY(dtype, resultDType(call));
  Shape shape = ind->shape;
  shape.insert(shape.begin() + axis, depth);
  RLX_TRY(out, newTensor(call, dtype, shape));
  Shape is = stridesOf(ind->shape);
  forEachIndex(shape, [&](const Shape& idx, int64_t flat) {
    int64_t src = 0;
    for (size_t d = 0, k = 0; d < idx.size(); ++d)
      if (int(d) != axis) src += idx[d] * is[k++];
    const Value& v = ind->getInt(src) == idx[size_t(axis)] ? on : off;
    if (dtype.isFloat()) out->setDouble(flat, v.primDouble());
    else out->setInt(flat, v.primInt());
  });
  return Value::ofTensor(out);
}

}  // namespace

void registerGatherScatterEvals() {
  registerEval("relax.gather_elements", evalGatherElements);
  registerEval("relax.gather_nd", evalGatherND);
  registerEval("relax.index_tensor", evalIndexTensor);
  registerEval("relax.scatter_elements", evalScatterElements);
  registerEval("relax.scatter_nd", evalScatterND);
  registerEval("relax.index_put", evalIndexPut);
  registerEval("relax.meshgrid", evalMeshgrid);
  registerEval("relax.one_hot", evalOneHot);
}

}  // namespace rlx
