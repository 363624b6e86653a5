// Legalization of reductions as topi's CommReduce: sum / max / min / prod into one <x>_red block
// (ax loops, reduce axes k<dim>), mean as sum then T_divide by the element count, variance and std
// as the mean squared deviation from the kept-dims mean; cumsum / cumprod as a scan along the axis.
#include "ir/ops/infer_util.h"
#include "passes/legalize/legalize.h"

namespace rlx::legalize {

namespace {

using te::Indices;
using te::Tensor;

struct ReduceSetup {
  std::vector<bool> isRed;
  std::vector<te::ReduceAxis> axes;
  PrimExpr count;
};

std::optional<ReduceSetup> setup(Ctx& ctx, const Tensor& x) {
  size_t nd = x.ndim();
  ReduceSetup s;
  s.isRed.assign(nd, false);
  auto axes = ops::attrOptInts(ctx.call, "axis");
  if (!axes)
    s.isRed.assign(nd, true);
  else
    for (auto a : *axes) {
      a = a < 0 ? a + int64_t(nd) : a;
      if (a < 0 || a >= int64_t(nd)) return std::nullopt;
      s.isRed[a] = true;
    }
  for (size_t d = 0; d < nd; ++d)
    if (s.isRed[d]) {
      s.axes.push_back(ctx.kb.reduceAxis(x.shape()[d], "k" + std::to_string(d)));
      s.count = s.count ? te::idxMul(s.count, x.shape()[d]) : x.shape()[d];
    }
  return s;
}

std::optional<Tensor> reduceOp(Ctx& ctx, const std::optional<Tensor>& x, te::Combiner c) {
  auto shape = ctx.outShape();
  if (!x || !shape) return std::nullopt;
  auto s = setup(ctx, *x);
  if (!s) return std::nullopt;
  bool keep = ops::attrBool(ctx.call, "keepdims", false);
  size_t nd = x->ndim();
  return ctx.kb.reduce(x->buf->name + "_red", *shape, ctx.outDtype(), s->axes, c, [&](const Indices& sp, const Indices& r) {
    Indices idx;
    size_t si = 0, ri = 0;
    for (size_t d = 0; d < nd; ++d) {
      if (s->isRed[d]) {
        idx.push_back(r[ri++]);
        if (keep) ++si;
      } else {
        idx.push_back(sp[si++]);
      }
    }
    return (*x)(idx);
  }, "ax");
}

// topi.sum of x over the dims of `s` (keepdims: reduced dims kept as 1), as reduceOp builds it.
Tensor sumOver(Ctx& ctx, const Tensor& x, const ReduceSetup& s, bool keep) {
  std::vector<PrimExpr> shape;
  for (size_t d = 0; d < x.ndim(); ++d)
    if (!s.isRed[d]) shape.push_back(x.shape()[d]);
    else if (keep) shape.push_back(intImm(1));
  std::vector<te::ReduceAxis> axes;
  for (auto& a : s.axes) axes.push_back(ctx.kb.reduceAxis(a.extent, a.var->name));
  return ctx.kb.reduce(x.buf->name + "_red", shape, x.dtype(), axes, te::Combiner::Sum, [&](const Indices& sp, const Indices& r) {
    Indices idx;
    size_t si = 0, ri = 0;
    for (size_t d = 0; d < x.ndim(); ++d) {
      if (s.isRed[d]) {
        idx.push_back(r[ri++]);
        if (keep) ++si;
      } else {
        idx.push_back(sp[si++]);
      }
    }
    return x(idx);
  }, "ax");
}

// TVM's _te_variance: mean with keepdims, the squared deviation, and its mean; std adds a sqrt.
std::vector<Tensor> variance(Ctx& ctx, bool sqrtOf) {
  auto x = ctx.arg(0);
  if (!x || !x->dtype().isFloat()) return {};
  auto s = setup(ctx, *x);
  if (!s) return {};
  DataType t = x->dtype();
  PrimExpr n = asIntImm(s->count) ? te::constant(double(asIntImm(s->count)->value), t) : PrimExpr(make<Cast>(t, s->count));
  auto divide = [&](const Tensor& a) {
    return ctx.kb.compute("T_divide", a.shape(), t, [&](const Indices& i) { return te::bin(NodeKind::Div, a(i), n); }, "ax");
  };
  Tensor mean = divide(sumOver(ctx, *x, *s, true));
  Tensor dev = ctx.kb.compute("T_subtract", x->shape(), t, [&](const Indices& i) { return te::bin(NodeKind::Sub, (*x)(i), mean(broadcastIndex(mean, i, x->shape()))); }, "ax");
  Tensor sq = ctx.kb.compute("T_multiply", x->shape(), t, [&](const Indices& i) { return te::bin(NodeKind::Mul, dev(i), dev(i)); }, "ax");
  Tensor var = divide(sumOver(ctx, sq, *s, ops::attrBool(ctx.call, "keepdims", false)));
  if (!sqrtOf) return {var};
  return {ctx.kb.compute("compute", var.shape(), t, [&](const Indices& i) { return te::call("tir.sqrt", t, {var(i)}); })};
}

Rule simple(te::Combiner c) {
  return [c](Ctx& ctx) -> std::vector<Tensor> {
    auto t = reduceOp(ctx, ctx.arg(0), c);
    if (!t) return {};
    return {*t};
  };
}

}  // namespace

// cumsum / cumprod(x, axis, dtype, exclusive): x cast to the result dtype (flattened when axis is
// None), then out[.., j, ..] = out[.., j-1, ..] (+|*) x[.., j, ..] in order along the axis; exclusive
// shifts by one, starting from 0 (or 1).
Rule scanRule(bool isSum) {
  return [isSum](Ctx& ctx) -> std::vector<Tensor> {
    auto x = ctx.arg(0);
    auto shape = ctx.outShape();
    if (!x || !shape || shape->empty()) return {};
    DataType t = ctx.outDtype();
    size_t nd = shape->size();
    int64_t axis = 0;
    const Attr* axisAttr = ops::findAttr(ctx.call, "axis");
    bool flat = !axisAttr || !*axisAttr;
    if (!flat) {
      axis = ops::attrInt(ctx.call, "axis", 0);
      axis = axis < 0 ? axis + int64_t(nd) : axis;
      if (axis < 0 || axis >= int64_t(nd)) return {};
    }
    bool exclusive = ops::attrBool(ctx.call, "exclusive", false);
    auto element = [&](const Indices& i) -> PrimExpr {
      PrimExpr v = flat && x->ndim() != 1 ? (*x)(reshapeIndex(i, *shape, x->shape())) : (*x)(i);
      return v->dtype == t ? v : PrimExpr(make<Cast>(t, v));
    };
    NodeKind op = isSum ? NodeKind::Add : NodeKind::Mul;
    PrimExpr unit = te::constant(isSum ? 0 : 1, t);
    auto out = ctx.kb.scan(isSum ? "T_cumsum" : "T_cumprod", *shape, t, size_t(axis), [&](const Indices& i, const PrimExpr& prev) -> PrimExpr {
      const PrimExpr& j = i[size_t(axis)];
      PrimExpr first = te::bin(NodeKind::EQ, j, intImm(0, j->dtype));
      if (!exclusive) return te::call("tir.if_then_else", t, {first, element(i), te::bin(op, prev, element(i))});
      Indices before = i;
      before[size_t(axis)] = te::bin(NodeKind::Sub, j, intImm(1, j->dtype));
      // Guarded: the previous element is read only when j > 0.
      return te::call("tir.if_then_else", t, {first, unit, te::bin(op, prev, element(before))});
    });
    return {out};
  };
}

void registerReduceRules() {
  registerRule("relax.cumsum", "cumsum", scanRule(true));
  registerRule("relax.cumprod", "cumprod", scanRule(false));
  registerRule("relax.sum", "sum", simple(te::Combiner::Sum));
  registerRule("relax.prod", "prod", simple(te::Combiner::Prod));
  registerRule("relax.max", "max", simple(te::Combiner::Max));
  registerRule("relax.min", "min", simple(te::Combiner::Min));
  registerRule("relax.variance", "variance", [](Ctx& ctx) { return variance(ctx, false); });
  registerRule("relax.std", "std", [](Ctx& ctx) { return variance(ctx, true); });
  registerRule("relax.mean", "mean", [](Ctx& ctx) -> std::vector<Tensor> {
    if (!ctx.outDtype().isFloat()) return {};
    auto x = ctx.arg(0);
    if (!x) return {};
    auto s = setup(ctx, *x);
    auto sum = reduceOp(ctx, x, te::Combiner::Sum);
    if (!s || !sum) return {};
    DataType t = ctx.outDtype();
    PrimExpr n = asIntImm(s->count) ? te::constant(double(asIntImm(s->count)->value), t) : PrimExpr(make<Cast>(t, s->count));
    return {ctx.kb.compute("T_divide", sum->shape(), t, [&](const Indices& i) { return te::bin(NodeKind::Div, (*sum)(i), n); }, "ax")};
  });
}

}  // namespace rlx::legalize
