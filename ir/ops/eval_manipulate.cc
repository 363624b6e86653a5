// Reference evaluators of the shape manipulation (manipulate.cc), indexing (index.cc) and
// gather/scatter (gather_scatter.cc) ops. Data moves as raw element bytes, so every dtype is exact.
//
// Index policy, following the TVM v0.23 kernels each op legalizes to:
// - take: mode "fast" (the default; topi reads unchecked) accepts only 0 <= i < n and reports any
//   other index as an error; "clip" clamps into [0, n-1]; "wrap" wraps modulo n (negatives too).
// - gather_elements, gather_nd, scatter_nd: the kernels read/write unchecked, so indices must lie
//   in [0, n); anything else is an error.
// - scatter_elements, index_put: the kernels add n to negative indices; [-n, n) is accepted.
// - index_tensor: numpy advanced indexing; [-n, n) is accepted.
// - strided_slice, dynamic_strided_slice, slice_scatter: python slicing (negative counts from the
//   end, then clamped), as the shape functions do.
#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <unordered_map>

#include "ir/ops/eval_util.h"

namespace rlx {
namespace {
using namespace ops;

// ---------------------------------------------------------------- helpers

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

// Copies `n` consecutive elements (same dtype) as bytes.
void copyRun(NDArray& dst, int64_t di, const NDArray& src, int64_t si, int64_t n) {
  if (n <= 0) return;
  size_t w = size_t(src.dtype.bytes());
  std::memcpy(static_cast<char*>(dst.data()) + size_t(di) * w, static_cast<const char*>(src.data()) + size_t(si) * w, size_t(n) * w);
}
void copyElem(NDArray& dst, int64_t di, const NDArray& src, int64_t si) { copyRun(dst, di, src, si, 1); }

// Fills `out` element by element; srcOffset maps an output index to the flat source element.
void gatherFrom(NDArray& out, const NDArray& src, const std::function<int64_t(const Shape&)>& srcOffset) {
  forEachIndex(out.shape, [&](const Shape& idx, int64_t flat) { copyElem(out, flat, src, srcOffset(idx)); });
}

NDArrayRef copyOf(const NDArray& x) {
  NDArrayRef out = allocTensor(x.dtype, x.shape);
  copyRun(*out, 0, x, 0, x.numel());
  return out;
}

// An index read from an index tensor, checked against the extent it addresses. With
// `allowNegative`, [-n, 0) counts from the end (kernels that shift negatives); otherwise only
// [0, n) is valid (kernels that read unchecked).
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
    for (int a : norm) {
      if (x->shape[size_t(a)] != 1) return evalError(call, fmt::format("cannot squeeze axis {} of extent {}", a, x->shape[size_t(a)]));
      drop[size_t(a)] = true;
    }
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
  gatherFrom(*out, *x, [&](const Shape& idx) {
    int64_t off = 0;
    for (size_t d = 0; d < perm.size(); ++d) off += idx[d] * xs[size_t(perm[d])];
    return off;
  });
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
  Shape xs = stridesOf(x->shape);
  gatherFrom(*out, *x, [&](const Shape& idx) { return broadcastOffset(idx, x->shape, xs); });
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
  Shape dims = x->shape;
  int axis = 0;
  if (attrIsNone(call, "axis")) {
    dims = {x->numel()};
  } else {
    RLX_TRY(a, normalizeAxis(call, int(dims.size()), attrInt(call, "axis")));
    axis = a;
  }
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

// ---------------------------------------------------------------- layout_transform

using IndexEnv = std::unordered_map<const PrimVar*, int64_t>;

int64_t floorDivInt(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// The integer value of an index-map expression under `env`; nullopt for unsupported forms or a
// division by zero.
std::optional<int64_t> evalIndex(const PrimExpr& e, const IndexEnv& env) {
  if (auto imm = asIntImm(e)) return imm->value;
  switch (e->kind()) {
    case NodeKind::PrimVar: {
      auto it = env.find(e.as<PrimVar>().get());
      if (it == env.end()) return std::nullopt;
      return it->second;
    }
    case NodeKind::Cast: return evalIndex(e.as<Cast>()->value, env);
    case NodeKind::Not: {
      auto a = evalIndex(e.as<PrimNot>()->a, env);
      if (!a) return std::nullopt;
      return int64_t(*a == 0);
    }
    case NodeKind::Select: {
      auto s = e.as<Select>();
      auto c = evalIndex(s->cond, env);
      if (!c) return std::nullopt;
      return evalIndex(*c ? s->trueValue : s->falseValue, env);
    }
    default: break;
  }
  auto bin = e.as<PrimBinary>();
  if (!bin) return std::nullopt;
  auto a = evalIndex(bin->a, env), b = evalIndex(bin->b, env);
  if (!a || !b) return std::nullopt;
  int64_t x = *a, y = *b;
  switch (e->kind()) {
    case NodeKind::Add: return x + y;
    case NodeKind::Sub: return x - y;
    case NodeKind::Mul: return x * y;
    case NodeKind::Div: return y == 0 ? std::nullopt : std::optional<int64_t>(x / y);
    case NodeKind::Mod: return y == 0 ? std::nullopt : std::optional<int64_t>(x % y);
    case NodeKind::FloorDiv: return y == 0 ? std::nullopt : std::optional<int64_t>(floorDivInt(x, y));
    case NodeKind::FloorMod: return y == 0 ? std::nullopt : std::optional<int64_t>(x - floorDivInt(x, y) * y);
    case NodeKind::Min: return std::min(x, y);
    case NodeKind::Max: return std::max(x, y);
    case NodeKind::EQ: return int64_t(x == y);
    case NodeKind::NE: return int64_t(x != y);
    case NodeKind::LT: return int64_t(x < y);
    case NodeKind::LE: return int64_t(x <= y);
    case NodeKind::GT: return int64_t(x > y);
    case NodeKind::GE: return int64_t(x >= y);
    case NodeKind::And: return int64_t(x && y);
    case NodeKind::Or: return int64_t(x || y);
    default: return std::nullopt;
  }
}

// The pad value as a 0-d tensor (None → 0, as TVM's legalization chooses).
NDArrayRef padScalar(const Attr& pad) {
  NDArrayRef t = allocTensor(DataType::float64(), {});
  if (!pad) return t;
  if (pad->kind == AttrValue::Int || pad->kind == AttrValue::Bool) t->setDouble(0, double(pad->kind == AttrValue::Int ? pad->i : pad->b));
  else if (pad->kind == AttrValue::Double) t->setDouble(0, pad->d);
  else if (pad->kind == AttrValue::Prim && pad->prim.is<FloatImm>()) t->setDouble(0, pad->prim.as<FloatImm>()->value);
  else if (pad->kind == AttrValue::Prim && asIntImm(pad->prim)) t->setDouble(0, double(asIntImm(pad->prim)->value));
  return t;
}

// Each input element moves to the index the map computes from its own index; output elements no
// input reaches are padding. The output shape is the inferred one (the map's image of the input).
Result<Value> evalLayoutTransform(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  const Attr* m = findAttr(call, "index_map");
  bool wellFormed = m && *m && (*m)->kind == AttrValue::Array && (*m)->array.size() == 2 && (*m)->array[0] && (*m)->array[1] &&
                    (*m)->array[0]->kind == AttrValue::Array && (*m)->array[1]->kind == AttrValue::Array;
  if (!wellFormed) return evalError(call, "expects index_map as [[vars...], [results...]]");
  auto& vars = (*m)->array[0]->array;
  auto& results = (*m)->array[1]->array;
  if (vars.size() != x->shape.size()) return evalError(call, fmt::format("the index map takes {} indices but the input has {} dimensions", vars.size(), x->shape.size()));
  std::vector<const PrimVar*> varNodes;
  for (auto& v : vars) {
    if (!v || v->kind != AttrValue::Prim || !v->prim.is<PrimVar>()) return evalError(call, "the index map's parameters must be variables");
    varNodes.push_back(v->prim.as<PrimVar>().get());
  }
  for (auto& r : results)
    if (!r || r->kind != AttrValue::Prim) return evalError(call, "the index map's results must be index expressions");
  RLX_TRY(shape, resultShape(call));
  if (shape.size() != results.size()) return evalError(call, "the inferred result rank does not match the index map");
  RLX_TRY(out, newTensor(call, x->dtype, shape));
  const Attr* pad = findAttr(call, "pad_value");
  NDArrayRef padValue = castTensor(*padScalar(pad ? *pad : Attr()), x->dtype);
  for (int64_t k = 0; k < out->numel(); ++k) copyElem(*out, k, *padValue, 0);
  Shape os = stridesOf(shape);
  IndexEnv env;
  std::optional<Error> err;
  forEachIndex(x->shape, [&](const Shape& idx, int64_t flat) {
    if (err) return;
    for (size_t d = 0; d < idx.size(); ++d) env[varNodes[d]] = idx[d];
    int64_t off = 0;
    for (size_t d = 0; d < results.size(); ++d) {
      auto v = evalIndex(results[d]->prim, env);
      if (!v) return void(err = evalError(call, "cannot evaluate the index map expression " + primStr(results[d]->prim)));
      if (*v < 0 || *v >= shape[d]) return void(err = evalError(call, fmt::format("the index map sends {} outside the result shape {}", shapeText(idx), shapeText(shape))));
      off += *v * os[d];
    }
    copyElem(*out, off, *x, flat);
  });
  if (err) return std::move(*err);
  return Value::ofTensor(out);
}

// ---------------------------------------------------------------- take and slicing

// take: x[..., indices, ...] along the axis (axis=None: the flattened data), out-of-range indices
// handled by `mode` (see the file header).
Result<Value> evalTake(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  RLX_TRY(ind, tensorValue(call, args, 1, "indices"));
  RLX_TRY_OK(requireIntegral(call, *ind, "indices"));
  std::string mode = attrString(call, "mode", "fast");
  if (mode != "fast" && mode != "clip" && mode != "wrap") return evalError(call, fmt::format("unknown mode \"{}\"", mode));
  Shape dims = x->shape;
  int axis = 0;
  if (attrIsNone(call, "axis")) {
    dims = {x->numel()};
  } else {
    RLX_TRY(a, normalizeAxis(call, int(dims.size()), attrInt(call, "axis")));
    axis = a;
  }
  int64_t n = dims[size_t(axis)];
  std::vector<int64_t> rows;
  for (int64_t k = 0; k < ind->numel(); ++k) {
    int64_t v = ind->getInt(k);
    if (mode == "clip" && n > 0) v = std::clamp<int64_t>(v, 0, n - 1);
    else if (mode == "wrap" && n > 0) v = ((v % n) + n) % n;
    RLX_TRY(r, checkedIndex(call, v, n, false, "index"));
    rows.push_back(r);
  }
  Shape shape(dims.begin(), dims.begin() + axis);
  shape.insert(shape.end(), ind->shape.begin(), ind->shape.end());
  shape.insert(shape.end(), dims.begin() + axis + 1, dims.end());
  RLX_TRY(out, newTensor(call, x->dtype, shape));
  int64_t outer = prodOf(dims, 0, size_t(axis)), inner = prodOf(dims, size_t(axis) + 1, dims.size());
  int64_t pos = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t r : rows) {
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

// ---------------------------------------------------------------- gather

// out[p] = data[p with the axis coordinate replaced by indices[p]] (ONNX GatherElements).
Result<Value> evalGatherElements(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(ind, tensorValue(call, args, 1, "indices"));
  RLX_TRY_OK(requireIntegral(call, *ind, "indices"));
  size_t nd = x->shape.size();
  if (ind->shape.size() != nd) return evalError(call, fmt::format("data and indices must have the same rank, got {} and {}", nd, ind->shape.size()));
  RLX_TRY(axis, normalizeAxis(call, int(nd), attrInt(call, "axis")));
  for (size_t d = 0; d < nd; ++d)
    if (int(d) != axis && ind->shape[d] > x->shape[d])
      return evalError(call, fmt::format("indices {} exceed data {} outside the gather axis", shapeText(ind->shape), shapeText(x->shape)));
  RLX_TRY(out, newTensor(call, x->dtype, ind->shape));
  Shape xs = stridesOf(x->shape);
  std::optional<Error> err;
  forEachIndex(ind->shape, [&](const Shape& idx, int64_t flat) {
    if (err) return;
    auto r = checkedIndex(call, ind->getInt(flat), x->shape[size_t(axis)], false, "index");
    if (!r.ok()) return void(err = r.error());
    int64_t off = 0;
    for (size_t d = 0; d < nd; ++d) off += (int(d) == axis ? *r : idx[d]) * xs[d];
    copyElem(*out, flat, *x, off);
  });
  if (err) return std::move(*err);
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
  for (size_t d = 0; d < nd; ++d)
    if (int(d) != axis && ind->shape[d] > x->shape[d])
      return evalError(call, fmt::format("indices {} exceed data {} outside the scatter axis", shapeText(ind->shape), shapeText(x->shape)));
  NDArrayRef out = copyOf(*x);
  Shape xs = stridesOf(x->shape);
  std::optional<Error> err;
  forEachIndex(ind->shape, [&](const Shape& idx, int64_t flat) {
    if (err) return;
    auto r = checkedIndex(call, ind->getInt(flat), x->shape[size_t(axis)], true, "index");
    if (!r.ok()) return void(err = r.error());
    int64_t off = 0;
    for (size_t d = 0; d < nd; ++d) off += (int(d) == axis ? *r : idx[d]) * xs[d];
    combine(*out, off, *upd, flat, red);
  });
  if (err) return std::move(*err);
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
  registerEval("relax.layout_transform", evalLayoutTransform);
  registerEval("relax.collapse_sum_like", evalCollapseSumLike);
  registerEval("relax.collapse_sum_to", evalCollapseSumTo);
  registerEval("relax.take", evalTake);
  registerEval("relax.strided_slice", evalStridedSlice);
  registerEval("relax.dynamic_strided_slice", evalDynStridedSlice);
  registerEval("relax.slice_scatter", evalSliceScatter);
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
