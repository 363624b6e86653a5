// Shape manipulation ops: reshape (with -1 resolved at build time), permute_dims, expand_dims,
// squeeze, flatten, concat, split, broadcast_to, stack, tile, repeat, flip, layout_transform, collapse_sum_*.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "ir/arith.h"
#include "ir/ops/infer_util.h"
#include "ir/struct_info.h"

namespace rlx {
namespace ops {
void registerGatherScatterOps();  // gather_scatter.cc
}
namespace {
using namespace ops;
using KwArgs = std::vector<std::pair<std::string, PyValue>>;

// The known dims of a tensor: its ShapeExpr, or the values of a Shape-typed shape var.
std::optional<std::vector<PrimExpr>> knownDims(const TensorRef& t) {
  if (auto d = t->dims()) return *d;
  if (t->shape)
    if (auto s = sinfoOf(t->shape).as<ShapeSInfo>(); s && s->values) return *s->values;
  return std::nullopt;
}

// R.reshape(x, shape): a -1 in a literal shape is resolved from x's known shape, as TVM's builder does.
// TVM keeps no separators as an empty list (None is how Python spells "none").
Status emptySeparators(Call& c) {
  for (const char* key : {"axis_separators", "input_axis_separators"})
    if (const Attr* a = findAttr(c, key); !a || !*a) setAttr(c, key, AttrValue::ints({}));
  return okStatus();
}

Status resolveReshape(Call& c) {
  if (c.args.size() != 2) return okStatus();
  auto se = c.args[1].as<ShapeExpr>();
  if (!se) return okStatus();
  int infer = -1;
  PrimExpr prod = i64(1);
  for (size_t i = 0; i < se->values.size(); ++i) {
    const PrimExpr& v = se->values[i];
    if (!v->dtype.isInt()) return opError(c, fmt::format("shape values must be integers, but got {}", primStr(v)));
    auto k = asConst(v);
    if (k && *k == -1) {
      if (infer >= 0) return opError(c, fmt::format("at most one -1 is allowed in the new shape {}", shapeStr(se->values)));
      infer = int(i);
    } else if (k && *k <= 0) {
      return opError(c, fmt::format("shape values must be positive except a single -1, but the new shape is {}", shapeStr(se->values)));
    } else {
      prod = mul(prod, v);
    }
  }
  if (infer < 0) return okStatus();
  auto x = probeSInfo(c.args[0]).as<TensorSInfo>();
  std::optional<std::vector<PrimExpr>> old = x ? knownDims(x) : std::nullopt;
  if (!old) return opError(c, "a -1 in the new shape needs the input's shape to be known");
  std::vector<PrimExpr> dims = se->values;
  dims[size_t(infer)] = floordiv(shapeProduct(*old), prod);
  auto ns = make<ShapeExpr>(dims);
  ns->sinfo = makeShape(dims);
  ns->span = se->span;
  c.args[1] = ns;
  return okStatus();
}

// Whether two dim lists obviously hold the same number of elements: equal products of their
// constant dims and the same symbolic dims (deep-equal, in any order). Reshapes that split or merge
// constant dims (the usual ones) are settled here without building and simplifying both products.
bool sameProductTrivially(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  int64_t ka = 1, kb = 1;
  std::vector<const PrimExpr*> sa, sb;
  auto split = [](const std::vector<PrimExpr>& dims, int64_t& k, std::vector<const PrimExpr*>& sym) {
    for (auto& d : dims) {
      if (auto c = asConst(d)) {
        if (__builtin_mul_overflow(k, *c, &k)) return false;
      } else {
        sym.push_back(&d);
      }
    }
    return true;
  };
  if (!split(a, ka, sa) || !split(b, kb, sb) || ka != kb || sa.size() != sb.size()) return false;
  for (const PrimExpr* d : sa) {
    auto it = std::find_if(sb.begin(), sb.end(), [&](const PrimExpr* e) { return e->get() == d->get() || exprDeepEqual(*e, *d); });
    if (it == sb.end()) return false;
    sb.erase(it);
  }
  return true;
}

Result<StructInfo> inferReshape(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 2, 2));
  RLX_TRY(x, tensorArg(c, 0, "x"));
  RLX_TRY(ns, shapeArg(c, 1, "shape"));
  auto old = knownDims(x);
  if (ns->values && old && !sameProductTrivially(*old, *ns->values)) {
    PrimExpr a = shapeProduct(*old), b = shapeProduct(*ns->values);
    if (provablyDifferent(a, b))
      return opError(c, fmt::format("cannot reshape {} ({} elements) to {} ({} elements)", shapeStr(*old), primStr(a), shapeStr(*ns->values), primStr(b)));
  }
  const Expr& target = c.args[1];
  if (auto se = target.as<ShapeExpr>()) return makeTensor(se->values, x->dtype, x->vdevice);
  if (target.is<Var>() && ns->values) return makeTensor(*ns->values, x->dtype, x->vdevice);
  return StructInfo(make<TensorSInfo>(target, x->dtype, ns->ndim, x->vdevice));
}

Result<StructInfo> inferPermuteDims(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, "x"));
  auto axes = attrOptInts(c, "axes");
  if (axes && x->ndim >= 0 && int(axes->size()) != x->ndim)
    return opError(c, fmt::format("expects {} axes (one per dimension of the input), but got {}", x->ndim, axes->size()));
  if (x->ndim < 0) return makeTensorNdim(x->dtype, axes ? int(axes->size()) : -1, x->vdevice);
  std::vector<int> perm;
  if (axes) {
    RLX_TRY(n, normalizeAxes(c, x->ndim, *axes));
    perm = n;
  } else {
    for (int i = x->ndim - 1; i >= 0; --i) perm.push_back(i);
  }
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == int(i);
  if (identity) return StructInfo(x);
  auto d = x->dims();
  if (!d) return makeTensorNdim(x->dtype, x->ndim, x->vdevice);
  std::vector<PrimExpr> out;
  for (int p : perm) out.push_back((*d)[size_t(p)]);
  return makeTensor(out, x->dtype, x->vdevice);
}

Result<StructInfo> inferExpandDims(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, "x"));
  auto axes = attrInts(c, "axis");
  if (axes.empty()) return StructInfo(x);
  if (x->ndim < 0) return makeTensorNdim(x->dtype, -1, x->vdevice);
  int outNdim = x->ndim + int(axes.size());
  RLX_TRY(norm, normalizeAxes(c, outNdim, axes));
  auto d = x->dims();
  if (!d) return makeTensorNdim(x->dtype, outNdim, x->vdevice);
  std::vector<PrimExpr> out(static_cast<size_t>(outNdim));
  for (int a : norm) out[size_t(a)] = i64(1);
  size_t k = 0;
  for (auto& e : out)
    if (!e) e = (*d)[k++];
  return makeTensor(out, x->dtype, x->vdevice);
}

Result<StructInfo> inferSqueeze(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, "x"));
  auto axes = attrOptInts(c, "axis");
  if (axes && axes->empty()) return StructInfo(x);
  if (x->ndim < 0) return makeTensorNdim(x->dtype, -1, x->vdevice);
  auto d = knownDims(x);
  std::vector<bool> drop(size_t(x->ndim), false);
  if (axes) {
    RLX_TRY(norm, normalizeAxes(c, x->ndim, *axes));
    if (!d) return makeTensorNdim(x->dtype, x->ndim - int(norm.size()), x->vdevice);
    for (int a : norm) {
      // An axis whose extent is known not to be 1 stays (TVM v0.23 keeps it, as torch.squeeze).
      auto k = asConst((*d)[size_t(a)]);
      drop[size_t(a)] = !k || *k == 1;
    }
  } else {
    if (!d) return makeTensorNdim(x->dtype, -1, x->vdevice);
    for (size_t i = 0; i < d->size(); ++i) drop[i] = isConstInt((*d)[i], 1);
  }
  std::vector<PrimExpr> out;
  for (size_t i = 0; i < d->size(); ++i)
    if (!drop[i]) out.push_back((*d)[i]);
  return makeTensor(out, x->dtype, x->vdevice);
}

Result<StructInfo> inferFlatten(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, "x"));
  if (x->ndim == 0) return makeTensor({i64(1)}, x->dtype, x->vdevice);
  if (x->ndim == 1) return StructInfo(x);
  auto d = x->dims();
  if (!d) return makeTensorNdim(x->dtype, 1, x->vdevice);
  return makeTensor({shapeProduct(*d)}, x->dtype, x->vdevice);
}

Result<StructInfo> inferConcat(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(ts, tensorTupleArg(c, 0, "tensors"));
  if (ts.empty()) return opError(c, "expects at least one tensor");
  bool hasAxis = !attrIsNone(c, "axis");
  int ndim = hasAxis ? -1 : 1;
  DataType dt = DataType::void_();
  bool voidDType = false, shapeUnknown = false;
  std::string vdev;
  std::vector<std::vector<PrimExpr>> shapes;
  for (size_t i = 0; i < ts.size(); ++i) {
    auto& t = ts[i];
    if (t->dtype.isVoid()) voidDType = true;
    else if (dt.isVoid()) dt = t->dtype;
    else if (t->dtype != dt) return opError(c, fmt::format("all tensors must have the same dtype, but got {} and {}", dt.str(), t->dtype.str()));
    if (ndim < 0) ndim = t->ndim;
    else if (t->ndim >= 0 && t->ndim != ndim) return opError(c, fmt::format("all tensors must have the same number of dimensions, but got {} and {}", ndim, t->ndim));
    RLX_TRY(v, unifyVDevice(c, vdev, t->vdevice));
    vdev = v;
    if (auto d = t->dims()) {
      shapes.push_back(*d);
      continue;
    }
    shapeUnknown = true;
    if (auto d = knownDims(t)) shapes.push_back(*d);
  }
  if (voidDType) dt = DataType::void_();
  if (ndim < 0) return ts.size() == 1 ? StructInfo(ts[0]) : makeTensorNdim(dt, -1, vdev);
  int axis = 0;
  if (hasAxis) {
    RLX_TRY(a, normalizeAxis(c, ndim, attrInt(c, "axis")));
    axis = a;
  }
  if (ts.size() == 1) return StructInfo(ts[0]);
  if (shapes.empty()) return makeTensorNdim(dt, ndim, vdev);
  bool allSame = true;
  for (auto& s : shapes) allSame &= proveEqual(s[size_t(axis)], shapes[0][size_t(axis)]);
  PrimExpr sum = i64(0);
  if (allSame) sum = mul(shapes[0][size_t(axis)], i64(int64_t(shapes.size())));
  else
    for (auto& s : shapes) sum = add(sum, s[size_t(axis)]);
  for (int d = 0; d < ndim; ++d) {
    if (d == axis) continue;
    for (size_t i = 1; i < shapes.size(); ++i) {
      if (provablyDifferent(shapes[i][size_t(d)], shapes[0][size_t(d)]))
        return opError(c, fmt::format("tensors must agree on every dimension but the concatenation axis {}, but dim {} is {} and {}", axis, d, primStr(shapes[0][size_t(d)]), primStr(shapes[i][size_t(d)])));
      if (!proveEqual(shapes[i][size_t(d)], shapes[0][size_t(d)])) shapeUnknown = true;
    }
  }
  if (shapeUnknown) return makeTensorNdim(dt, ndim, vdev);
  std::vector<PrimExpr> out = shapes[0];
  out[size_t(axis)] = sum;
  return makeTensor(out, dt, vdev);
}

Result<StructInfo> inferSplit(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, "x"));
  int axis = -1;
  if (x->ndim >= 0) {
    RLX_TRY(a, normalizeAxis(c, x->ndim, attrInt(c, "axis")));
    axis = a;
  }
  const Attr* ios = findAttr(c, "indices_or_sections");
  if (!ios || !*ios) return opError(c, "missing indices_or_sections");
  auto d = x->dims();
  StructInfo unknown = makeTensorNdim(x->dtype, x->ndim, x->vdevice);
  if ((*ios)->kind == AttrValue::Array) {
    auto idx = attrInts(c, "indices_or_sections");
    if (!d) return StructInfo(make<TupleSInfo>(std::vector<StructInfo>(idx.size() + 1, unknown)));
    PrimExpr ext = (*d)[size_t(axis)];
    std::vector<StructInfo> outs;
    for (size_t i = 0; i <= idx.size(); ++i) {
      PrimExpr l = i == 0 ? i64(0) : i64(idx[i - 1]);
      PrimExpr r = i == idx.size() ? ext : i64(idx[i]);
      l = minExpr(maxExpr(l, i64(0)), ext);
      r = minExpr(maxExpr(r, i64(0)), ext);
      std::vector<PrimExpr> shape = *d;
      shape[size_t(axis)] = maxExpr(sub(r, l), i64(0));
      outs.push_back(makeTensor(shape, x->dtype, x->vdevice));
    }
    return StructInfo(make<TupleSInfo>(std::move(outs)));
  }
  int64_t n = (*ios)->i;
  if (n <= 0) return opError(c, fmt::format("the number of sections must be positive, but it is {}", n));
  if (!d) return StructInfo(make<TupleSInfo>(std::vector<StructInfo>(size_t(n), unknown)));
  PrimExpr ext = (*d)[size_t(axis)];
  if (auto k = asConst(ext); k && *k % n != 0)
    return opError(c, fmt::format("cannot split axis {} of extent {} into {} equal sections", axis, *k, n));
  PrimExpr len = ceilDiv(ext, i64(n));
  std::vector<PrimExpr> shape = *d;
  shape[size_t(axis)] = len;
  std::vector<StructInfo> outs(size_t(n - 1), makeTensor(shape, x->dtype, x->vdevice));
  shape[size_t(axis)] = sub(ext, mul(len, i64(n - 1)));
  outs.push_back(makeTensor(shape, x->dtype, x->vdevice));
  return StructInfo(make<TupleSInfo>(std::move(outs)));
}

// The result shape is the shape argument itself (a ShapeExpr or a Shape var).
StructInfo tensorWithShapeArg(const Call& c, size_t i, const Ref<ShapeSInfo>& s, DataType t, const std::string& vdev) {
  if (auto se = c.args[i].as<ShapeExpr>()) return makeTensor(se->values, t, vdev);
  return make<TensorSInfo>(c.args[i], t, s->ndim, vdev);
}

Result<StructInfo> inferBroadcastTo(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 2, 2));
  RLX_TRY(x, tensorArg(c, 0, "x"));
  RLX_TRY(s, shapeArg(c, 1, "shape"));
  if (x->ndim >= 0 && s->ndim >= 0 && s->ndim < x->ndim)
    return opError(c, fmt::format("the target shape has {} dimensions, fewer than the input's {}", s->ndim, x->ndim));
  auto old = knownDims(x);
  if (old && s->values) {
    size_t on = old->size(), tn = s->values->size();
    for (size_t i = 0; i < on; ++i) {
      const PrimExpr& o = (*old)[on - 1 - i];
      const PrimExpr& t = (*s->values)[tn - 1 - i];
      if (isConstInt(o, 1)) continue;
      if (provablyDifferent(o, t))
        return opError(c, fmt::format("cannot broadcast {} to {}: dim {} of the input is {} but the target has {}", shapeStr(*old), shapeStr(*s->values), on - 1 - i, primStr(o), primStr(t)));
    }
  }
  return tensorWithShapeArg(c, 1, s, x->dtype, x->vdevice);
}

Result<StructInfo> inferStack(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(ts, tensorTupleArg(c, 0, "tensors"));
  if (ts.empty()) return opError(c, "expects at least one tensor");
  DataType dt = ts[0]->dtype;
  int ndim = -1;
  std::string vdev;
  for (auto& t : ts) {
    if (!t->dtype.isVoid() && !dt.isVoid() && t->dtype != dt) return opError(c, fmt::format("all tensors must have the same dtype, but got {} and {}", dt.str(), t->dtype.str()));
    if (t->dtype.isVoid()) dt = DataType::void_();
    if (ndim < 0) ndim = t->ndim;
    else if (t->ndim >= 0 && t->ndim != ndim) return opError(c, fmt::format("all tensors must have the same number of dimensions, but got {} and {}", ndim, t->ndim));
    RLX_TRY(v, unifyVDevice(c, vdev, t->vdevice));
    vdev = v;
  }
  if (ndim < 0) return makeTensorNdim(dt, -1, vdev);
  RLX_TRY(axis, normalizeAxis(c, ndim + 1, attrIsNone(c, "axis") ? 0 : attrInt(c, "axis")));
  std::vector<PrimExpr> base;
  for (size_t i = 0; i < ts.size(); ++i) {
    auto d = ts[i]->dims();
    if (!d) return makeTensorNdim(dt, ndim + 1, vdev);
    if (i == 0) {
      base = *d;
      continue;
    }
    for (int k = 0; k < ndim; ++k) {
      if (provablyDifferent((*d)[size_t(k)], base[size_t(k)]))
        return opError(c, fmt::format("all tensors must have the same shape, but got {} and {}", shapeStr(base), shapeStr(*d)));
      if (!proveEqual((*d)[size_t(k)], base[size_t(k)])) return makeTensorNdim(dt, ndim + 1, vdev);
    }
  }
  base.insert(base.begin() + axis, i64(int64_t(ts.size())));
  return makeTensor(base, dt, vdev);
}

Result<StructInfo> inferTile(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, "data"));
  auto reps = attrInts(c, "repeats");
  for (auto r : reps)
    if (r < 0) return opError(c, fmt::format("repeats must be non-negative, but got {}", r));
  if (x->ndim < 0) return makeTensorNdim(x->dtype, -1, x->vdevice);
  int outNdim = std::max(x->ndim, int(reps.size()));
  auto d = x->dims();
  if (!d) return makeTensorNdim(x->dtype, outNdim, x->vdevice);
  std::vector<PrimExpr> out;
  for (int i = 0; i < outNdim; ++i) {
    int di = i - (outNdim - x->ndim), ri = i - (outNdim - int(reps.size()));
    PrimExpr dim = di >= 0 ? (*d)[size_t(di)] : i64(1);
    int64_t r = ri >= 0 ? reps[size_t(ri)] : 1;
    out.push_back(mul(dim, i64(r)));
  }
  return makeTensor(out, x->dtype, x->vdevice);
}

Result<StructInfo> inferRepeat(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, "data"));
  int64_t reps = attrInt(c, "repeats");
  if (reps <= 0) return opError(c, fmt::format("repeats must be positive, but it is {}", reps));
  auto d = x->dims();
  if (!attrIsNone(c, "axis")) {
    if (x->ndim < 0) return makeTensorNdim(x->dtype, -1, x->vdevice);
    RLX_TRY(axis, normalizeAxis(c, x->ndim, attrInt(c, "axis")));
    if (!d) return makeTensorNdim(x->dtype, x->ndim, x->vdevice);
    std::vector<PrimExpr> out = *d;
    // TVM writes repeats * dim (2 * a), not canonicalized; constants fold.
    auto k = asConst(out[size_t(axis)]);
    out[size_t(axis)] = k ? i64(*k * reps) : binary(NodeKind::Mul, i64(reps), out[size_t(axis)]);
    return makeTensor(out, x->dtype, x->vdevice);
  }
  if (!d) return makeTensorNdim(x->dtype, 1, x->vdevice);
  return makeTensor({mul(shapeProduct(*d), i64(reps))}, x->dtype, x->vdevice);
}

Result<StructInfo> inferFlip(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, "data"));
  if (x->ndim >= 0) {
    RLX_TRY(axis, normalizeAxis(c, x->ndim, attrInt(c, "axis")));
    (void)axis;
  }
  return StructInfo(x);
}

// ---------------------------------------------------------------- layout_transform shape
// The output shape of an index map over the input box, as TVM's IndexMap::MapShape computes it:
// 1. Rewrite every result as an iterator sum (DetectIterMap, no bijectivity check): a sum of
//    terms floormod(floordiv(var, lower), extent) * scale plus a constant. floordiv/floormod by a
//    positive constant c split a term, padding its var so that every divisor used on it divides
//    the padded extent: i // c then has extent ceildiv(n, c) and i % c extent c.
// 2. Two passes: the first collects each var's padding factor (lcm of c * lower over its splits),
//    the second rewrites with the padded extents.
// 3. A result's extent is its largest term's extent * scale (1 for a constant).
// Any result outside these forms (or with a non-zero offset, or terms that do not fuse densely)
// gives nullopt: the caller then uses the image of the box (TVM's interval fallback).
class IndexMapShape {
 public:
  void addVar(const PrimVar* v, PrimExpr extent) { marks_[v] = Mark{std::move(extent)}; }

  std::optional<std::vector<PrimExpr>> mapShape(const std::vector<PrimExpr>& results) {
    for (auto& r : results)
      if (!rewrite(r)) return std::nullopt;
    for (auto& [v, m] : marks_)
      if (!divisible(m.extent, m.factor)) m.padded = mul(ceilDiv(m.extent, m.factor), i64(m.factor));
    firstPass_ = false;
    std::vector<PrimExpr> out;
    for (auto& r : results) {
      auto sum = rewrite(r);
      if (!sum || sum->base != 0) return std::nullopt;
      auto& ts = sum->terms;
      if (ts.empty()) {
        out.push_back(i64(1));
        continue;
      }
      std::sort(ts.begin(), ts.end(), [](const Term& a, const Term& b) { return a.scale < b.scale; });
      for (size_t k = 1; k < ts.size(); ++k)  // orthogonal terms fuse when their scales chain densely
        if (constInt(mul(ts[k - 1].extent, i64(ts[k - 1].scale))) != ts[k].scale) return std::nullopt;
      out.push_back(simplify(mul(ts.back().extent, i64(ts.back().scale))));
    }
    return out;
  }

 private:
  struct Mark {
    PrimExpr extent;
    int64_t factor = 1;
    PrimExpr padded;  // null: needs no padding
  };
  struct Term {
    const PrimVar* var;  // null: a split of a padded split (never padded again)
    int64_t lower;
    PrimExpr extent;
    int64_t scale;
    bool padded;
  };
  struct Sum {
    std::vector<Term> terms;
    int64_t base = 0;
  };

  static bool divisible(const PrimExpr& e, int64_t c) { return c == 1 || constInt(floormod(e, i64(c))) == 0; }
  // TVM's form of ceildiv(e, c): (e - e % -c) // c (e rounded up to a multiple of c, divided).
  static PrimExpr ceilDiv(const PrimExpr& e, int64_t c) { return floordiv(sub(e, floormod(e, i64(-c))), i64(c)); }

  // Pads the term's var for division by c: the first pass records the factor, the second gives an
  // unpadded split of a padded var its share of the padded extent.
  bool pad(Term& t, int64_t c) {
    if (!t.var) return true;
    Mark& m = marks_[t.var];
    if (firstPass_) {
      int64_t f, lcm;
      if (__builtin_mul_overflow(c, t.lower, &f) || __builtin_mul_overflow(m.factor / std::gcd(m.factor, f), f, &lcm)) return false;
      m.factor = lcm;
      if (!divisible(t.extent, c)) t.extent = mul(ceilDiv(t.extent, c), i64(c));
    } else if (m.padded && !t.padded) {
      t.extent = floordiv(m.padded, i64(t.lower));
      t.padded = true;
    }
    return true;
  }

  std::optional<Sum> split(Term t, int64_t base, int64_t c, bool mod) {
    if (c <= 0) return std::nullopt;
    if (c == 1) return mod ? Sum{} : Sum{{t}, base};
    if (t.scale != 1) {  // fold the scale into the divisor, as TVM's SplitFloorDivConst/ModConst do
      if (t.scale % c == 0 && base % c == 0) {
        if (mod) return Sum{};
        t.scale /= c;
        return Sum{{t}, base / c};
      }
      if (c % t.scale != 0 || base % t.scale != 0) return std::nullopt;
      c /= t.scale;
      base /= t.scale;
      if (!mod) t.scale = 1;
    }
    if (base != 0 || !pad(t, c)) return std::nullopt;
    if (mod) {
      t.extent = i64(c);
    } else if (divisible(t.extent, c)) {
      t.lower *= c;
      t.extent = floordiv(t.extent, i64(c));
    } else {
      const Mark* m = t.var ? &marks_[t.var] : nullptr;
      if (!m || t.lower != 1 || !proveEqual(t.extent, t.padded ? m->padded : m->extent)) t.var = nullptr;
      t.lower *= c;
      t.extent = ceilDiv(t.extent, c);
    }
    return Sum{{t}, 0};
  }

  std::optional<Sum> rewrite(const PrimExpr& e) {
    if (auto imm = asIntImm(e)) return Sum{{}, imm->value};
    if (auto v = e.as<PrimVar>()) {
      auto it = marks_.find(v.get());
      if (it == marks_.end()) return std::nullopt;
      return Sum{{Term{v.get(), 1, it->second.extent, 1, false}}, 0};
    }
    if (auto cast = e.as<Cast>()) return rewrite(cast->value);
    auto bin = e.as<PrimBinary>();
    if (!bin) return std::nullopt;
    auto a = rewrite(bin->a), b = rewrite(bin->b);
    if (!a || !b) return std::nullopt;
    switch (e->kind()) {
      case NodeKind::Add: {
        for (auto& t : b->terms) {
          auto same = std::find_if(a->terms.begin(), a->terms.end(), [&](const Term& u) {
            return t.var && u.var == t.var && u.lower == t.lower && u.padded == t.padded && proveEqual(u.extent, t.extent);
          });
          if (same != a->terms.end()) same->scale += t.scale;
          else a->terms.push_back(t);
        }
        a->base += b->base;
        return a;
      }
      case NodeKind::Sub:
        if (!b->terms.empty()) return std::nullopt;
        a->base -= b->base;
        return a;
      case NodeKind::Mul: {
        if (!a->terms.empty() && !b->terms.empty()) return std::nullopt;
        if (a->terms.empty() && b->terms.empty()) {
          if (__builtin_mul_overflow(a->base, b->base, &a->base)) return std::nullopt;
          return a;
        }
        if (a->terms.empty()) std::swap(a, b);
        int64_t k = b->base;
        if (k == 0) return Sum{};
        if (k < 0) return std::nullopt;
        for (auto& t : a->terms)
          if (__builtin_mul_overflow(t.scale, k, &t.scale)) return std::nullopt;
        if (__builtin_mul_overflow(a->base, k, &a->base)) return std::nullopt;
        return a;
      }
      case NodeKind::FloorDiv:
      case NodeKind::FloorMod: {
        bool mod = e->kind() == NodeKind::FloorMod;
        if (!b->terms.empty() || b->base <= 0) return std::nullopt;
        int64_t c = b->base;
        if (a->terms.empty()) return Sum{{}, mod ? a->base - (a->base / c - (a->base % c < 0)) * c : a->base / c - (a->base % c < 0)};
        if (a->terms.size() != 1) return std::nullopt;
        return split(a->terms[0], a->base, c, mod);
      }
      default: return std::nullopt;
    }
  }

  std::unordered_map<const PrimVar*, Mark> marks_;
  bool firstPass_ = true;
};

// index_map is T.index_map([vars...], [results...]) (PrimExprs; the parser's form of a lambda),
// the output shape is the extent of each result over the input box (IndexMapShape above).
Result<StructInfo> inferLayoutTransform(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, "x"));
  const Attr* m = findAttr(c, "index_map");
  bool mapForm = m && *m && ((*m)->kind == AttrValue::Array || ((*m)->kind == AttrValue::Ctor && (*m)->s == "T.index_map"));
  if (!mapForm || (*m)->array.size() != 2) return makeTensorNdim(x->dtype, -1, x->vdevice);
  auto& vars = (*m)->array[0];
  auto& results = (*m)->array[1];
  if (!vars || !results || vars->kind != AttrValue::Array || results->kind != AttrValue::Array) return makeTensorNdim(x->dtype, -1, x->vdevice);
  int outNdim = int(results->array.size());
  if (x->ndim >= 0 && int(vars->array.size()) != x->ndim)
    return opError(c, fmt::format("the index map takes {} indices but the input has {} dimensions", vars->array.size(), x->ndim));
  auto d = x->dims();
  if (!d) return makeTensorNdim(x->dtype, outNdim, x->vdevice);
  IndexMapShape iters;
  PrimVarMap sub1;
  for (size_t i = 0; i < vars->array.size(); ++i) {
    auto& v = vars->array[i];
    if (!v || v->kind != AttrValue::Prim || !v->prim.is<PrimVar>()) return makeTensorNdim(x->dtype, outNdim, x->vdevice);
    iters.addVar(v->prim.as<PrimVar>().get(), (*d)[i]);
    sub1[v->prim.as<PrimVar>().get()] = sub((*d)[i], i64(1));
  }
  std::vector<PrimExpr> exprs;
  for (auto& r : results->array) {
    if (!r || r->kind != AttrValue::Prim) return makeTensorNdim(x->dtype, outNdim, x->vdevice);
    exprs.push_back(r->prim);
  }
  if (auto shape = iters.mapShape(exprs)) return makeTensor(*shape, x->dtype, x->vdevice);
  // Fallback for monotone maps: the image of a box [0, e) is each result with every var replaced
  // by its extent minus one, plus one.
  std::vector<PrimExpr> out;
  for (auto& r : exprs) out.push_back(simplify(add(primSubstitute(r, sub1), i64(1))));
  return makeTensor(out, x->dtype, x->vdevice);
}

Result<StructInfo> inferCollapseSumLike(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 2, 2));
  RLX_TRY(x, tensorArg(c, 0, "data"));
  RLX_TRY(t, tensorArg(c, 1, "collapse_target"));
  if (x->ndim >= 0 && t->ndim >= 0 && t->ndim > x->ndim)
    return opError(c, fmt::format("the target has more dimensions ({}) than the data ({})", t->ndim, x->ndim));
  if (t->shape) return StructInfo(make<TensorSInfo>(t->shape, x->dtype, t->ndim, x->vdevice));
  return makeTensorNdim(x->dtype, t->ndim, x->vdevice);
}

Result<StructInfo> inferCollapseSumTo(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 2, 2));
  RLX_TRY(x, tensorArg(c, 0, "data"));
  RLX_TRY(s, shapeArg(c, 1, "shape"));
  if (x->ndim >= 0 && s->ndim >= 0 && s->ndim > x->ndim)
    return opError(c, fmt::format("the target shape has more dimensions ({}) than the data ({})", s->ndim, x->ndim));
  auto d = knownDims(x);
  if (d && s->values) {
    size_t on = d->size(), tn = s->values->size();
    for (size_t i = 0; i < tn; ++i) {
      const PrimExpr& t = (*s->values)[tn - 1 - i];
      const PrimExpr& o = (*d)[on - 1 - i];
      if (!isConstInt(t, 1) && provablyDifferent(o, t))
        return opError(c, fmt::format("cannot collapse {} to {}", shapeStr(*d), shapeStr(*s->values)));
    }
  }
  return tensorWithShapeArg(c, 1, s, x->dtype, x->vdevice);
}

}  // namespace

void registerManipulateOps() {
  OpDef("relax.reshape").params({arg("x"), arg("shape", OpParam::ShapeArg)}).fixup(resolveReshape).infer(inferReshape).pattern(OpPattern::Injective).doc("reshape to a new shape").done();
  OpDef("relax.permute_dims").attrs("relax.attrs.PermuteDimsAttrs").params({arg("x"), attr("axes", OpParam::OptIntArrayAttr, aNone())}).infer(inferPermuteDims).pattern(OpPattern::Injective).doc("transpose axes (None = reverse)").done();
  OpDef("relax.expand_dims").attrs("relax.attrs.ExpandDimsAttrs").params({arg("x"), reqAttr("axis", OpParam::IntArrayAttr)}).infer(inferExpandDims).pattern(OpPattern::Injective).doc("insert unit axes").done();
  OpDef("relax.squeeze").attrs("relax.attrs.SqueezeAttrs").params({arg("x"), attr("axis", OpParam::OptIntArrayAttr, aNone())}).infer(inferSqueeze).pattern(OpPattern::Injective).doc("remove unit axes").done();
  OpDef("relax.flatten").params({arg("x")}).infer(inferFlatten).pattern(OpPattern::Injective).doc("flatten to 1-D").done();
  OpDef("relax.concat").attrs("relax.attrs.ConcatAttrs").params({arg("tensors", OpParam::TupleOfExpr), attr("axis", OpParam::OptIntAttr, aInt(0))}).infer(inferConcat).pattern(OpPattern::Injective).doc("concatenate along an axis").done();
  OpDef("relax.split").attrs("relax.attrs.SplitAttrs").params({arg("x"), reqAttr("indices_or_sections", OpParam::IntOrIntArrayAttr), attr("axis", OpParam::IntAttr, aInt(0))}).infer(inferSplit).pattern(OpPattern::Injective).doc("split into sections or at indices").done();
  OpDef("relax.broadcast_to").params({arg("x"), arg("shape", OpParam::ShapeArg)}).infer(inferBroadcastTo).pattern(OpPattern::Broadcast).doc("broadcast to a shape").done();
  OpDef("relax.stack").attrs("relax.attrs.StackAttrs").params({arg("tensors", OpParam::TupleOfExpr), attr("axis", OpParam::OptIntAttr, aInt(0))}).infer(inferStack).pattern(OpPattern::Injective).doc("stack along a new axis").done();
  OpDef("relax.tile").attrs("relax.attrs.TileAttrs").params({arg("data"), reqAttr("repeats", OpParam::IntArrayAttr)}).infer(inferTile).pattern(OpPattern::Injective).doc("repeat the whole tensor").done();
  OpDef("relax.repeat").attrs("relax.attrs.RepeatAttrs").params({arg("data"), reqAttr("repeats", OpParam::IntAttr), attr("axis", OpParam::OptIntAttr, aNone())}).infer(inferRepeat).pattern(OpPattern::Injective).doc("repeat elements").done();
  OpDef("relax.flip").attrs("relax.attrs.FlipAttrs").params({arg("data"), reqAttr("axis", OpParam::IntAttr)}).infer(inferFlip).pattern(OpPattern::Injective).doc("reverse along an axis").done();
  OpDef("relax.layout_transform")
      .attrs("relax.attrs.LayoutTransformAttrs")
      .params({arg("x"), reqAttr("index_map", OpParam::AnyAttr), attr("pad_value", OpParam::AnyAttr, aNone()), attr("axis_separators", OpParam::OptIntArrayAttr, aNone()),
               attr("input_axis_separators", OpParam::OptIntArrayAttr, aNone())})
      .fixup(emptySeparators)
      .infer(inferLayoutTransform)
      .pattern(OpPattern::Injective)
      .doc("relayout by an index map")
      .done();
  OpDef("relax.collapse_sum_like").params({arg("data"), arg("collapse_target")}).infer(inferCollapseSumLike).pattern(OpPattern::CommReduce).doc("sum to the shape of another tensor").done();
  OpDef("relax.collapse_sum_to").params({arg("data"), arg("shape", OpParam::ShapeArg)}).infer(inferCollapseSumTo).pattern(OpPattern::CommReduce).doc("sum to a shape").done();
  ops::registerGatherScatterOps();
}

}  // namespace rlx
