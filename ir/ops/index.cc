// Indexing ops: take (embedding lookup), strided_slice (axes/begin/end/strides as tuples of
// PrimValues, python slicing semantics on known values) and dynamic_strided_slice.
#include <fmt/format.h>

#include "ir/ops/infer_util.h"

namespace rlx {
namespace {
using namespace ops;

Result<StructInfo> inferTake(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 2, 2));
  RLX_TRY(x, tensorArg(c, 0, "x"));
  StructInfo is = sinfoOf(c.args[1]);
  TensorRef idx;
  if (auto t = is.as<TensorSInfo>()) idx = t;
  else if (auto p = is.as<PrimSInfo>()) idx = makeTensor({}, p->dtype, "").as<TensorSInfo>();
  else return opError(c, fmt::format("expects indices to be a tensor or a prim value, but it is {}", sinfoStr(is)));
  if (!idx->dtype.isVoid() && !idx->dtype.isInt() && !idx->dtype.isUInt())
    return opError(c, fmt::format("expects integer indices, but their dtype is {}", idx->dtype.str()));
  bool hasAxis = !attrIsNone(c, "axis");
  if (!hasAxis && x->ndim != 1)
    return opError(c, fmt::format("without an axis the data must be 1-D, but it has {} dimensions", x->ndim));
  if (x->ndim < 0 || idx->ndim < 0) return makeTensorNdim(x->dtype, -1, x->vdevice);
  int axis = 0;
  if (hasAxis) {
    RLX_TRY(a, normalizeAxis(c, x->ndim, attrInt(c, "axis")));
    axis = a;
  }
  std::string mode = attrString(c, "mode", "fast");
  if (mode != "fast" && mode != "clip" && mode != "wrap") return opError(c, fmt::format("mode must be \"fast\", \"clip\" or \"wrap\", but it is \"{}\"", mode));
  auto xd = x->dims(), id = idx->dims();
  if (!xd || !id) return makeTensorNdim(x->dtype, idx->ndim + x->ndim - 1, x->vdevice);
  std::vector<PrimExpr> out;
  for (int i = 0; i < x->ndim; ++i) {
    if (i == axis) out.insert(out.end(), id->begin(), id->end());
    else out.push_back((*xd)[size_t(i)]);
  }
  return makeTensor(out, x->dtype, x->vdevice);
}

// The clamped index python slicing uses: negative counts from the end, then clamp into range.
PrimExpr canonicalIndex(const PrimExpr& index, const PrimExpr& extent, bool negStride) {
  PrimExpr idx = index;
  if (auto k = asConst(index)) {
    if (*k < 0) idx = add(index, extent);
    else if (*k >= (int64_t(1) << 31) && !negStride) return extent;  // "to the end" sentinels
  }
  PrimExpr lo = negStride ? i64(-1) : i64(0);
  PrimExpr hi = negStride ? sub(extent, i64(1)) : extent;
  auto ci = asConst(idx), ce = asConst(extent);
  if (ci && ce) return i64(std::min(std::max(*ci, *asConst(lo)), *asConst(simplify(hi))));
  if (ci && !negStride && *ci == 0) return i64(0);
  if (proveEqual(idx, extent) && !negStride) return extent;
  // A symbolic index may be negative (counting from the end) unless shape vars prove it is not:
  // TVM's if_then_else(idx < 0, idx + extent, idx), then the clamp, as its analyzer simplifies them.
  if (!ci && !proveNonNegativeShape(idx)) {
    PrimExpr neg = simplify(binary(NodeKind::LT, idx, i64(0)));
    if (auto k = asConst(neg)) idx = *k ? simplify(add(idx, extent)) : idx;
    else idx = make<PrimCall>(idx->dtype, "tir.if_then_else", std::vector<PrimExpr>{neg, simplify(add(idx, extent)), idx});
  }
  PrimExpr clampedLo = !negStride && proveNonNegativeShape(idx) ? idx : maxExpr(idx, lo);
  return minExpr(clampedLo, hi);
}

// What TVM's analyzer makes of `end - clamp(begin)` once shape vars are non-negative:
// a - min(p, a) = max(a - p, 0), and max(x, 0) = x for a non-negative x.
PrimExpr simplifySliceLength(const PrimExpr& len) {
  auto* d = len->kind() == NodeKind::Sub ? static_cast<const PrimBinary*>(len.get()) : nullptr;
  auto* m = d && d->b->kind() == NodeKind::Min ? static_cast<const PrimBinary*>(d->b.get()) : nullptr;
  if (!m) return len;
  PrimExpr other = proveEqual(m->b, d->a) ? m->a : proveEqual(m->a, d->a) ? m->b : PrimExpr();
  if (!other) return len;
  PrimExpr rest = simplify(sub(d->a, other));
  return proveNonNegativeShape(rest) ? rest : maxExpr(rest, i64(0));
}

std::optional<PrimExpr> sliceLength(const PrimExpr& begin, const PrimExpr& end, const PrimExpr& stride, const PrimExpr& extent, bool inbound) {
  auto s = asConst(stride);
  if (inbound) {
    PrimExpr len = ceilDiv(sub(end, begin), stride);
    return len;
  }
  if (!s) return std::nullopt;
  bool neg = *s < 0;
  PrimExpr b = canonicalIndex(begin, extent, neg), e = canonicalIndex(end, extent, neg);
  PrimExpr len = neg ? ceilDiv(sub(b, e), i64(-*s)) : ceilDiv(sub(e, b), stride);
  if (auto k = asConst(len); k && *k < 0) return i64(0);
  return len;
}

Result<StructInfo> inferStridedSlice(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 4, 5));
  RLX_TRY(x, tensorArg(c, 0, "x"));
  static const char* names[] = {"axes", "begin", "end", "strides"};
  for (size_t i = 1; i < c.args.size(); ++i) {
    StructInfo s = sinfoOf(c.args[i]);
    if (c.args[i].is<Tuple>() || s.is<ObjectSInfo>()) continue;
    auto t = s.as<TupleSInfo>();
    bool ok = t != nullptr;
    if (t)
      for (auto& f : t->fields) ok &= f.is<PrimSInfo>() && (f.as<PrimSInfo>()->dtype.isInt() || f.as<PrimSInfo>()->dtype.isVoid());
    if (!ok) return opError(c, fmt::format("expects {} to be a tuple of int64 prim values, but it is {}", names[i - 1], sinfoStr(s)));
  }
  StructInfo unknown = makeTensorNdim(x->dtype, x->ndim, x->vdevice);
  if (!x->shape) return unknown;
  auto axes = primTupleArg(c, 1);
  if (!axes) return unknown;
  auto begin = primTupleArg(c, 2);
  if (!begin) return unknown;
  if (begin->size() != axes->size()) return opError(c, fmt::format("{} axes but {} begin indices", axes->size(), begin->size()));
  auto end = primTupleArg(c, 3);
  if (!end) return unknown;
  if (end->size() != axes->size()) return opError(c, fmt::format("{} axes but {} end indices", axes->size(), end->size()));
  std::vector<PrimExpr> strides(axes->size(), i64(1));
  if (c.args.size() == 5) {
    auto s = primTupleArg(c, 4);
    if (!s) return unknown;
    if (s->size() != axes->size()) return opError(c, fmt::format("{} axes but {} strides", axes->size(), s->size()));
    strides = *s;
  }
  for (auto& s : strides)
    if (isConstInt(s, 0)) return opError(c, "strides must not be zero");
  auto d = x->dims();
  if (axes->empty() && !d) return StructInfo(make<TensorSInfo>(x->shape, x->dtype, x->ndim, x->vdevice));
  if (!d) return unknown;
  std::vector<int64_t> axisInts;
  for (auto& a : *axes) {
    auto k = asConst(a);
    if (!k) return unknown;
    axisInts.push_back(*k);
  }
  RLX_TRY(norm, normalizeAxes(c, x->ndim, axisInts));
  bool inbound = attrBool(c, "assume_inbound");
  std::vector<PrimExpr> out = *d;
  for (size_t i = 0; i < norm.size(); ++i) {
    auto len = sliceLength((*begin)[i], (*end)[i], strides[i], out[size_t(norm[i])], inbound);
    if (!len) return unknown;
    out[size_t(norm[i])] = simplifySliceLength(simplify(*len));
  }
  return makeTensor(out, x->dtype, x->vdevice);
}

Result<StructInfo> inferDynStridedSlice(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 4, 4));
  RLX_TRY(x, tensorArg(c, 0, "x"));
  static const char* names[] = {"begin", "end", "strides"};
  for (size_t i = 1; i < 4; ++i) {
    RLX_TRY(t, tensorArg(c, i, names[i - 1]));
    if (t->ndim >= 0 && t->ndim != 1) return opError(c, fmt::format("expects {} to be a 1-D tensor, but it has {} dimensions", names[i - 1], t->ndim));
    if (!t->dtype.isVoid() && !t->dtype.isInt()) return opError(c, fmt::format("expects {} to be an integer tensor, but its dtype is {}", names[i - 1], t->dtype.str()));
    if (auto d = t->dims(); d && x->ndim >= 0)
      if (auto n = asConst((*d)[0]); n && *n != x->ndim)
        return opError(c, fmt::format("{} has {} entries but the input has {} dimensions", names[i - 1], *n, x->ndim));
  }
  return makeTensorNdim(x->dtype, x->ndim, x->vdevice);
}

}  // namespace

void registerIndexOps() {
  OpDef("relax.take")
      .attrs("relax.attrs.TakeAttrs")
      .params({arg("x"), arg("indices"), attr("axis", OpParam::OptIntAttr, aNone()), attr("mode", OpParam::StrAttr, aStr("fast"))})
      .infer(inferTake)
      .pattern(OpPattern::Injective)
      .doc("gather entries along an axis")
      .done();
  OpDef("relax.strided_slice")
      .attrs("relax.attrs.StridedSliceAttrs")
      .params({arg("x"), arg("axes", OpParam::PrimTuple), arg("begin", OpParam::PrimTuple), arg("end", OpParam::PrimTuple), optArg("strides", OpParam::PrimTuple),
               attr("assume_inbound", OpParam::BoolAttr, aBool(false))})
      .fixup([](Call& c) -> Status {
        size_t n = 0;
        for (size_t i = 1; i < c.args.size(); ++i) {
          auto t = c.args[i].as<Tuple>();
          if (!t) continue;
          if (n && t->fields.size() != n)
            return opError(c, fmt::format("axes, begin, end and strides must have the same length, but got {} and {}", n, t->fields.size()));
          n = t->fields.size();
        }
        return okStatus();
      })
      .infer(inferStridedSlice)
      .pattern(OpPattern::Injective)
      .doc("slice with begin/end/strides per axis")
      .done();
  OpDef("relax.dynamic_strided_slice").params({arg("x"), arg("begin"), arg("end"), arg("strides")}).infer(inferDynStridedSlice).pattern(OpPattern::Injective).doc("strided slice with tensor-valued bounds").done();
}

}  // namespace rlx
