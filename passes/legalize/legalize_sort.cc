// Legalization of sort, argsort and topk as rank counting (stable, NaN sorted as numpy does): each
// element's place is the count of elements before it, then each place looks up its element.
#include "ir/ops/infer_util.h"
#include "passes/legalize/legalize.h"

namespace rlx::legalize {

namespace {

using te::Indices;
using te::Tensor;

// numpy's total order for sorting: NaN after every number (and equal to NaN).
PrimExpr castTo(const PrimExpr& e, DataType t) { return e->dtype == t ? e : PrimExpr(make<Cast>(t, e)); }

PrimExpr isNaN(const PrimExpr& v) { return te::call("tir.isnan", DataType::boolean(), {v}); }

PrimExpr lessThan(const PrimExpr& a, const PrimExpr& b) {
  PrimExpr lt = te::bin(NodeKind::LT, a, b);
  if (!a->dtype.isFloat()) return lt;
  return te::bin(NodeKind::Or, lt, te::bin(NodeKind::And, isNaN(b), make<PrimNot>(isNaN(a))));
}

PrimExpr equivalent(const PrimExpr& a, const PrimExpr& b) {
  PrimExpr eq = te::bin(NodeKind::EQ, a, b);
  if (!a->dtype.isFloat()) return eq;
  return te::bin(NodeKind::Or, eq, te::bin(NodeKind::And, isNaN(a), isNaN(b)));
}

struct SortSpec {
  int64_t axis = -1;
  bool descending = false;
};

// The sorted order of `x` along the axis, as the source index of each of the first `count`
// places (the output extent along the axis), in dtype `it`. Stage <name>_rank counts, for each
// element, the elements placed before it (ordered before it, or equivalent and earlier: a stable
// sort; descending reverses the order, not the tie-break); stage <name>_index finds, for each
// place, the one element whose rank it is. Both walk the whole axis: O(n^2) per slice.
Tensor sortedIndex(te::KernelBuilder& kb, const Tensor& x, const SortSpec& s, const PrimExpr& count, DataType it, const std::string& name) {
  size_t axis = size_t(s.axis);
  const PrimExpr& n = x.shape()[axis];
  auto k = kb.reduceAxis(n, "k");
  Tensor rank = kb.reduce(name + "_rank", x.shape(), DataType::int64(), {k}, te::Combiner::Sum, [&](const Indices& i, const Indices& r) {
    Indices other = i;
    other[axis] = r[0];
    PrimExpr mine = x(i), theirs = x(other);
    PrimExpr ordered = s.descending ? lessThan(mine, theirs) : lessThan(theirs, mine);
    PrimExpr earlierTie = te::bin(NodeKind::And, equivalent(theirs, mine), te::bin(NodeKind::LT, r[0], i[axis]));
    return PrimExpr(make<Cast>(DataType::int64(), te::bin(NodeKind::Or, ordered, earlierTie)));
  }, "ax");
  std::vector<PrimExpr> places = x.shape();
  places[axis] = count;
  auto j = kb.reduceAxis(n, "j");
  return kb.reduce(name + "_index", places, it, {j}, te::Combiner::Sum, [&](const Indices& i, const Indices& r) {
    Indices src = i;
    src[axis] = r[0];
    PrimExpr mine = te::bin(NodeKind::EQ, rank(src), castTo(i[axis], DataType::int64()));
    return PrimExpr(make<Select>(mine, castTo(r[0], it), te::constant(0, it)));
  }, "ax");
}

// The values at the sorted places: x gathered along the axis by `index`.
Tensor gatherSorted(te::KernelBuilder& kb, const Tensor& x, const Tensor& index, size_t axis, const std::string& name) {
  return kb.compute(name, index.shape(), x.dtype(), [&](const Indices& i) {
    Indices src = i;
    src[axis] = castTo(index(i), x.shape()[axis]->dtype);
    return x(src);
  }, "ax");
}

std::optional<SortSpec> specOf(const Ctx& ctx, const Tensor& x, const char* descendingAttr, bool descendingDefault) {
  if (x.ndim() == 0) return std::nullopt;
  int64_t a = ops::attrInt(ctx.call, "axis", -1);
  a = a < 0 ? a + int64_t(x.ndim()) : a;
  if (a < 0 || a >= int64_t(x.ndim())) return std::nullopt;
  return SortSpec{a, ops::attrBool(ctx.call, descendingAttr, descendingDefault)};
}

std::vector<Tensor> sortRule(Ctx& ctx) {
  auto x = ctx.arg(0);
  if (!x) return {};
  auto s = specOf(ctx, *x, "descending", false);
  if (!s) return {};
  Tensor index = sortedIndex(ctx.kb, *x, *s, x->shape()[s->axis], DataType::int64(), "T_sort");
  return {gatherSorted(ctx.kb, *x, index, size_t(s->axis), "T_sort")};
}

std::vector<Tensor> argsortRule(Ctx& ctx) {
  auto x = ctx.arg(0);
  DataType it = ctx.outDtype();
  if (!x || !it.isInt()) return {};
  auto s = specOf(ctx, *x, "descending", false);
  if (!s) return {};
  return {sortedIndex(ctx.kb, *x, *s, x->shape()[s->axis], it, "T_argsort")};
}

// topk: the first k places of the sort (descending when `largest`); values, indices or both.
std::vector<Tensor> topkRule(Ctx& ctx) {
  auto x = ctx.arg(0);
  if (!x) return {};
  auto s = specOf(ctx, *x, "largest", true);
  if (!s) return {};
  std::string ret = ops::attrString(ctx.call, "ret_type", "both");
  bool values = ret == "both" || ret == "values", indices = ret == "both" || ret == "indices";
  if (!values && !indices) return {};
  DataType it = ctx.outDtype(values ? 1 : 0);
  if (indices && !it.isInt()) return {};
  if (!indices) it = DataType::int64();
  auto shape = ctx.outShape(0);
  if (!shape || shape->size() != x->ndim()) return {};
  Tensor index = sortedIndex(ctx.kb, *x, *s, (*shape)[s->axis], it, "T_topk");
  if (!values) return {index};
  Tensor v = gatherSorted(ctx.kb, *x, index, size_t(s->axis), "T_topk_values");
  if (!indices) return {v};
  return {v, index};
}

}  // namespace

void registerSortRules() {
  registerRule("relax.sort", "sort", sortRule);
  registerRule("relax.argsort", "argsort", argsortRule);
  registerRule("relax.topk", "topk", topkRule);
}

}  // namespace rlx::legalize
