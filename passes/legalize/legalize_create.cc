// Legalization of tensor creation as topi computes it: full / ones / zeros (T_full, ax loops),
// full_like / ones_like / zeros_like, tril / triu (trilu, i loops, Select on the diagonal offset).
#include "ir/arith.h"
#include "passes/legalize/legalize.h"

namespace rlx::legalize {

namespace {

using te::Indices;
using te::Tensor;

std::vector<Tensor> fill(Ctx& ctx, PrimExpr value) {
  auto shape = ctx.outShape();
  DataType t = ctx.outDtype();
  if (!shape || t.isVoid() || !value) return {};
  return {ctx.kb.compute("T_full", *shape, t, [&](const Indices&) { return value; }, "ax")};
}

PrimExpr constOf(double v, DataType t) { return te::constant(v, t); }

// The fill value of R.full(shape, v): a 0-d constant converted to the output dtype.
PrimExpr fillValue(Ctx& ctx, size_t i) {
  if (i >= ctx.call.args.size()) return nullptr;
  PrimExpr v = ctx.scalarConst(ctx.call.args[i]);
  if (!v) return nullptr;
  double d = v->dtype.isFloat() ? static_cast<const FloatImm&>(*v).value : double(asIntImm(v)->value);
  return constOf(d, ctx.outDtype());
}

Rule trilu(bool upper) {
  return [upper](Ctx& ctx) -> std::vector<Tensor> {
    auto x = ctx.arg(0);
    PrimExpr k = ctx.primArg(1);
    if (!x || x->ndim() < 2) return {};
    if (!k) k = intImm(0);
    return {ctx.kb.compute("trilu", x->shape(), x->dtype(), [&](const Indices& i) {
      PrimExpr row = i[i.size() - 2], col = i[i.size() - 1];
      // upper: row <= col - k; lower: row >= col - k (as TVM's simplifier prints them).
      PrimExpr cond;
      auto kc = asIntImm(k);
      if (kc && kc->value == 0) cond = upper ? te::bin(NodeKind::LE, row, col) : te::bin(NodeKind::LE, col, row);
      else if (kc && kc->value == 1 && upper) cond = te::bin(NodeKind::LT, row, col);
      else if (kc && kc->value == -1 && !upper) cond = te::bin(NodeKind::LT, col, row);
      else cond = upper ? te::bin(NodeKind::LE, row, simplify(sub(col, k))) : te::bin(NodeKind::LE, simplify(sub(col, k)), row);
      return PrimExpr(make<Select>(cond, (*x)(i), constOf(0, x->dtype())));
    })};
  };
}

}  // namespace

void registerCreateRules() {
  registerRule("relax.ones", "ones", [](Ctx& ctx) { return fill(ctx, constOf(1, ctx.outDtype())); });
  registerRule("relax.zeros", "zeros", [](Ctx& ctx) { return fill(ctx, constOf(0, ctx.outDtype())); });
  registerRule("relax.full", "full", [](Ctx& ctx) { return fill(ctx, fillValue(ctx, 1)); });
  registerRule("relax.ones_like", "ones", [](Ctx& ctx) { return fill(ctx, constOf(1, ctx.outDtype())); });
  registerRule("relax.zeros_like", "zeros", [](Ctx& ctx) { return fill(ctx, constOf(0, ctx.outDtype())); });
  registerRule("relax.full_like", "full", [](Ctx& ctx) { return fill(ctx, fillValue(ctx, 1)); });
  registerRule("relax.triu", "triu", trilu(true));
  registerRule("relax.tril", "tril", trilu(false));
}

}  // namespace rlx::legalize
