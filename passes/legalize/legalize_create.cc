// Legalization of tensor creation as topi computes it: full / ones / zeros (T_full, ax loops),
// full_like / ones_like / zeros_like, tril / triu (trilu, i loops, Select on the diagonal offset),
// arange (an R.const when its bounds are constants, else T_arange).
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
  if (!v) {
    // A 0-d tensor value: the kernel reads it (rxplaceholder[()]), converted to the output dtype.
    auto t = ctx.arg(i);
    if (!t || t->ndim() != 0) return nullptr;
    PrimExpr load = (*t)(Indices{});
    return load->dtype == ctx.outDtype() ? load : PrimExpr(make<Cast>(ctx.outDtype(), load));
  }
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

// R.arange(start, end, step): start + step * i in the output dtype, the length from struct info.
std::vector<Tensor> arange(Ctx& ctx) {
  PrimExpr start = ctx.primArg(0), step = ctx.primArg(2);
  auto shape = ctx.outShape();
  DataType t = ctx.outDtype();
  if (!start || !step || !shape || shape->size() != 1 || t.isVoid()) return {};
  // A length like (n - 2) // 3 would need the kernel's n passed as a tir_var; only n or a constant.
  if (!(*shape)[0].as<PrimVar>() && !asIntImm((*shape)[0])) return {};
  return {ctx.kb.compute("T_arange", *shape, t, [&](const Indices& i) {
    PrimExpr idx = i[0];
    PrimExpr s = step, b = start;
    if (s->dtype != idx->dtype) idx = make<Cast>(s->dtype, idx);
    PrimExpr v = te::idxAdd(b, te::idxMul(s, idx));  // folds 0 + x and 1 * x as TVM's operators do
    return v->dtype == t ? v : PrimExpr(make<Cast>(t, v));
  }, "ax")};
}

// Constant bounds: numpy's arange as a constant (TVM builds it with np.arange).
Expr arangeConst(const Call& call) {
  auto out = call.sinfo.as<TensorSInfo>();
  if (!out || !out->dims() || out->dims()->size() != 1 || call.args.size() != 3) return nullptr;
  auto n = asIntImm((*out->dims())[0]);
  std::vector<double> v;
  std::vector<int64_t> iv;
  bool exact = !out->dtype.isFloat();
  for (size_t k = 0; k < 3; ++k) {
    auto p = call.args[k].as<PrimValue>();
    if (!p) return nullptr;
    if (auto f = p->value.as<FloatImm>()) {
      v.push_back(f->value), iv.push_back(int64_t(f->value));
      exact = false;
    } else if (auto i = asIntImm(p->value)) {
      v.push_back(double(i->value)), iv.push_back(i->value);
    } else {
      return nullptr;
    }
  }
  if (!n) return nullptr;
  auto arr = make<NDArray>(out->dtype, std::vector<int64_t>{n->value});
  for (int64_t i = 0; i < n->value; ++i) {
    if (exact) arr->setInt(i, iv[0] + i * iv[2]);
    else arr->setDouble(i, v[0] + double(i) * v[2]);
  }
  return make<Constant>(arr);
}

}  // namespace

void registerCreateRules() {
  registerRule("relax.arange", "arange", arange);
  registerFold("relax.arange", arangeConst);
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
