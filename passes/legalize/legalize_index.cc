// Legalization of indexing as topi computes it: take (T_take, fast mode: indices read as given),
// strided_slice (T_strided_slice_with_axes, begins canonicalized as Python slicing does).
#include <algorithm>

#include "ir/arith.h"
#include "ir/ops/infer_util.h"
#include "passes/legalize/legalize.h"

namespace rlx::legalize {

namespace {

using te::Indices;
using te::Tensor;

// take with an R.Prim index: one slice, the index a scalar parameter (a constant one folded in).
std::vector<Tensor> takeScalar(Ctx& ctx, const Tensor& x, PrimExpr index) {
  auto shape = ctx.outShape();
  if (!shape || !index->dtype.isInt()) return {};
  int64_t axis = ops::attrInt(ctx.call, "axis", 0);
  if (axis < 0) axis += int64_t(x.ndim());
  if (axis < 0 || axis >= int64_t(x.ndim())) return {};
  return {ctx.kb.compute("T_take", *shape, x.dtype(), [&](const Indices& o) {
    Indices idx(o.begin(), o.begin() + axis);
    idx.push_back(index);
    idx.insert(idx.end(), o.begin() + axis, o.end());
    return x(idx);
  }, "ax")};
}

std::vector<Tensor> take(Ctx& ctx) {
  auto x = ctx.arg(0);
  if (x && ctx.call.args.size() > 1 && sinfoOf(ctx.call.args[1]).is<PrimSInfo>() && ops::attrString(ctx.call, "mode", "fast") == "fast") {
    PrimExpr index = ctx.scalarConst(ctx.call.args[1]);
    if (!index) index = ctx.scalarInput(ctx.call.args[1]);
    if (!index) return {};
    return takeScalar(ctx, *x, index);
  }
  auto ind = ctx.arg(1);
  auto shape = ctx.outShape();
  if (!x || !ind || !shape || ind->dtype().isFloat()) return {};
  // Fast mode reads the index as given; the clip and wrap modes are not legalized here.
  if (ops::attrString(ctx.call, "mode", "fast") != "fast") return {};
  auto takeAxis = takeAxisOf(ctx.call, x->ndim());
  if (!takeAxis) return {};
  auto [flat, axis] = *takeAxis;
  size_t ni = ind->ndim();
  return {ctx.kb.compute("T_take", *shape, x->dtype(), [&](const Indices& o) {
    Indices pos(o.begin() + axis, o.begin() + axis + ni);
    PrimExpr row = (*ind)(pos);
    if (flat) {
      // axis=None takes from the flattened data: unravel the index into the data's shape.
      PrimExpr n = intImm(1);
      for (auto& d : x->shape()) n = te::idxMul(n, d);
      return (*x)(reshapeIndex({row}, {n}, x->shape()));
    }
    Indices idx(o.begin(), o.begin() + axis);
    idx.push_back(row);
    idx.insert(idx.end(), o.begin() + axis + ni, o.end());
    return (*x)(idx);
  }, "ax")};
}

// Python's slice begin on an axis of extent n: negative counts from the end, then clamped.
PrimExpr canonicalBegin(const PrimExpr& b, const PrimExpr& n, int64_t stride) {
  auto bc = asIntImm(b);
  auto nc = asIntImm(n);
  if (bc && nc) {
    int64_t v = bc->value < 0 ? bc->value + nc->value : bc->value;
    v = stride < 0 ? std::clamp<int64_t>(v, -1, nc->value - 1) : std::clamp<int64_t>(v, 0, nc->value);
    return intImm(v, b->dtype);
  }
  if (bc && bc->value >= 0) return b;
  if (bc) return add(b, n);
  return make<Select>(te::bin(NodeKind::LT, b, intImm(0, b->dtype)), add(b, n), b);
}

std::vector<Tensor> stridedSlice(Ctx& ctx) {
  auto x = ctx.arg(0);
  auto shape = ctx.outShape();
  auto axes = ops::primTupleArg(ctx.call, 1), begin = ops::primTupleArg(ctx.call, 2);
  if (!x || !shape || !axes || !begin || axes->size() != begin->size()) return {};
  std::optional<std::vector<PrimExpr>> strides;
  if (ctx.call.args.size() > 4) {
    strides = ops::primTupleArg(ctx.call, 4);
    if (!strides || strides->size() != axes->size()) return {};
  }
  size_t nd = x->ndim();
  Indices first(nd), step(nd);
  for (size_t d = 0; d < nd; ++d) first[d] = intImm(0), step[d] = intImm(1);
  for (size_t k = 0; k < axes->size(); ++k) {
    auto a = asIntImm((*axes)[k]);
    if (!a) return {};
    int64_t ax = a->value < 0 ? a->value + int64_t(nd) : a->value;
    if (ax < 0 || ax >= int64_t(nd)) return {};
    PrimExpr s = strides ? ctx.kb.mapShape((*strides)[k]) : intImm(1);
    auto sc = asIntImm(s);
    if (!sc || sc->value == 0) return {};
    step[ax] = intImm(sc->value);
    PrimExpr b = ctx.kb.mapShape((*begin)[k]);
    if (b->dtype != DataType::int64()) b = make<Cast>(DataType::int64(), b);
    // assume_inbound: the caller promises an in-range begin, read as given (no wrap or clamp).
    first[ax] = ops::attrBool(ctx.call, "assume_inbound") ? b : canonicalBegin(b, x->shape()[ax], sc->value);
  }
  return {ctx.kb.compute("T_strided_slice_with_axes", *shape, x->dtype(), [&](const Indices& o) {
    Indices idx;
    for (size_t d = 0; d < nd; ++d) {
      // A negative step reads begin - i * |step| (TVM's simplified form of begin + i * step).
      auto st = asIntImm(step[d]);
      if (st && st->value < 0 && !(asIntImm(first[d]) && asIntImm(first[d])->value == 0))
        idx.push_back(te::bin(NodeKind::Sub, first[d], te::idxMul(o[d], intImm(-st->value))));
      else
        idx.push_back(te::idxAdd(te::idxMul(o[d], step[d]), first[d]));
    }
    return (*x)(idx);
  }, "ax")};
}

}  // namespace

void registerIndexRules() {
  registerRule("relax.take", "take", take);
  registerRule("relax.strided_slice", "strided_slice", stridedSlice);
}

}  // namespace rlx::legalize
