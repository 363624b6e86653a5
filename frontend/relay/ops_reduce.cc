// Relay's reductions (axis, keepdims, exclude = reduce every axis but these), variance / std (Relay
// passes the mean as an argument), argmax / argmin (int32 in Relay), scans and sorting.
#include <algorithm>

#include "frontend/relay/ops.h"

namespace rlx::relay::ops {

namespace {

// The axes a Relay reduction reduces: nullopt for all of them (axis None), else normalized axes,
// complemented under exclude=True.
std::optional<std::vector<int64_t>> reduceAxes(OpCtx& c) {
  auto axes = c.intsOpt("axis");
  if (!axes) return std::nullopt;
  int64_t rank = c.ndim(0);
  std::vector<int64_t> norm = normAxes(c, *axes, rank);
  if (!c.b("exclude", false)) return norm;
  std::vector<int64_t> rest;
  for (int64_t k = 0; k < rank; ++k)
    if (std::find(norm.begin(), norm.end(), k) == norm.end()) rest.push_back(k);
  return rest;
}

RExpr reduceAs(OpCtx& c, const char* relax, const RExpr& x) {
  auto axes = reduceAxes(c);
  bool keep = c.b("keepdims", false);
  // exclude=True over every axis leaves nothing to reduce: the value itself.
  if (axes && axes->empty()) return x;
  KwArgs kw;
  if (axes) kw.push_back({"axis", ints(*axes)});
  kw.push_back({"keepdims", b(keep)});
  return c.call(relax, {ex(x)}, std::move(kw));
}

RExpr reduce(OpCtx& c, const char* relax) {
  c.expectArgs(1, 1);
  c.allowAttrs({"axis", "keepdims", "exclude"});
  return reduceAs(c, relax, c.arg(0));
}

// all / any on bool tensors: min / max over 0 / 1 values.
RExpr boolReduce(OpCtx& c, const char* relax) {
  c.expectArgs(1, 1);
  c.allowAttrs({"axis", "keepdims", "exclude"});
  RExpr asInt = astype(c, c.arg(0), DataType(DataType::Int, 8));
  RExpr r = reduceAs(c, relax, asInt);
  return astype(c, r, DataType::boolean());
}

// variance(data, mean, ...): the mean of (data - mean)^2, times n / (n - 1) when unbiased.
RExpr varianceOf(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"axis", "keepdims", "exclude", "unbiased"});
  RExpr d = c.call("subtract", {ex(c.arg(0)), ex(c.arg(1))});
  RExpr sq = c.call("multiply", {ex(d), ex(d)});
  RExpr v = reduceAs(c, "mean", sq);
  if (!c.b("unbiased", false)) return v;
  std::vector<PrimExpr> dims = c.dims(0);
  auto axes = reduceAxes(c);
  if (!axes) {
    axes.emplace();
    for (size_t k = 0; k < dims.size(); ++k) axes->push_back(int64_t(k));
  }
  int64_t n = 1;
  for (int64_t a : *axes) {
    auto k = asIntImm(dims[size_t(a)]);
    if (!k) c.fail("an unbiased variance over a symbolic extent is not supported");
    n *= k->value;
  }
  if (n < 2) c.fail("an unbiased variance needs at least 2 elements per reduction");
  return c.call("multiply", {ex(v), f(double(n) / double(n - 1))});
}

RExpr argReduce(OpCtx& c, const char* relax) {
  c.expectArgs(1, 1);
  c.allowAttrs({"axis", "keepdims", "exclude", "select_last_index"});
  if (c.b("select_last_index", false)) c.fail("select_last_index=True has no Relax form");
  auto axes = reduceAxes(c);
  KwArgs kw;
  if (axes) {
    if (axes->size() != 1) c.fail("reduces " + std::to_string(axes->size()) + " axes; Relax's arg reductions take one axis or all");
    kw.push_back({"axis", i((*axes)[0])});
  }
  kw.push_back({"keepdims", b(c.b("keepdims", false))});
  RExpr r = c.call(relax, {ex(c.arg(0))}, std::move(kw));
  // Relay's arg reductions return int32 indices; Relax's int64.
  return astype(c, r, DataType::int32());
}

RExpr scan(OpCtx& c, const char* relax) {
  c.expectArgs(1, 1);
  c.allowAttrs({"axis", "dtype", "exclusive"});
  KwArgs kw;
  if (c.has("axis")) kw.push_back({"axis", i(c.i("axis", 0))});
  kw.push_back({"dtype", s(outDType(c, "dtype"))});
  kw.push_back({"exclusive", b(c.b("exclusive", false))});
  return c.call(relax, {ex(c.arg(0))}, std::move(kw));
}

}  // namespace

RExpr sum(OpCtx& c) { return reduce(c, "sum"); }
RExpr mean(OpCtx& c) { return reduce(c, "mean"); }
RExpr max(OpCtx& c) { return reduce(c, "max"); }
RExpr min(OpCtx& c) { return reduce(c, "min"); }
RExpr prod(OpCtx& c) { return reduce(c, "prod"); }
RExpr all(OpCtx& c) { return boolReduce(c, "min"); }
RExpr any(OpCtx& c) { return boolReduce(c, "max"); }
RExpr variance(OpCtx& c) { return varianceOf(c); }
RExpr std_(OpCtx& c) { return c.call("sqrt", {ex(varianceOf(c))}); }
RExpr argmax(OpCtx& c) { return argReduce(c, "argmax"); }
RExpr argmin(OpCtx& c) { return argReduce(c, "argmin"); }
RExpr cumsum(OpCtx& c) { return scan(c, "cumsum"); }
RExpr cumprod(OpCtx& c) { return scan(c, "cumprod"); }

// sort(x, axis, is_ascend): Relax's `descending` is the negation.
RExpr sort(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"axis", "is_ascend", "dtype"});
  return c.call("sort", {ex(c.arg(0))}, {{"axis", i(c.i("axis", -1))}, {"descending", b(!c.b("is_ascend", true))}});
}

RExpr argsort(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"axis", "is_ascend", "dtype"});
  return c.call("argsort", {ex(c.arg(0))}, {{"axis", i(c.i("axis", -1))}, {"descending", b(!c.b("is_ascend", true))}, {"dtype", s(c.dtypeAttr("dtype", DataType::int32()).str())}});
}

// topk(x, k, axis, ret_type, is_ascend, dtype): k < 1 selects the whole axis in Relay.
RExpr topk(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"k", "axis", "ret_type", "is_ascend", "dtype"});
  if (!c.has("k")) c.fail("needs k (a tensor-valued k is dyn.topk's)");
  int64_t axis = c.i("axis", -1), k = c.i("k", 1);
  if (k < 1) {
    auto d = asIntImm(c.dims(0)[size_t(normAxis(c, axis, c.ndim(0)))]);
    if (!d) c.fail("k < 1 (the whole axis) needs a known extent");
    k = d->value;
  }
  std::string ret = c.s("ret_type", "both");
  if (ret != "both" && ret != "values" && ret != "indices") c.fail("ret_type must be both, values or indices");
  return c.call("topk", {ex(c.arg(0))},
                {{"k", i(k)}, {"axis", i(axis)}, {"ret_type", s(ret)}, {"largest", b(!c.b("is_ascend", false))}, {"dtype", s(c.dtypeAttr("dtype", DataType::int32()).str())}});
}

}  // namespace rlx::relay::ops
