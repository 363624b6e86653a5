// Legalization of nn ops as topi builds them: dropout (inference), relu, leakyrelu, gelu, gelu_tanh, silu, softmax (maxelem /
// exp / expsum / norm stages), log_softmax, layer_norm (one tuple reduction of sum and sum of squares).
#include <cmath>

#include "ir/ops/infer_util.h"
#include "passes/legalize/legalize.h"

namespace rlx::legalize {

te::Tensor softmaxStages(te::KernelBuilder& kb, const te::Tensor& x, int64_t axis, bool log) {
  using te::Indices;
  using te::Tensor;
  size_t nd = x.ndim();
  DataType t = x.dtype();
  std::vector<PrimExpr> red;
  for (size_t d = 0; d < nd; ++d)
    if (int64_t(d) != axis) red.push_back(x.shape()[d]);
  auto drop = [&](const Indices& i) {
    Indices r;
    for (size_t d = 0; d < i.size(); ++d)
      if (int64_t(d) != axis) r.push_back(i[d]);
    return r;
  };
  auto insertK = [&](const Indices& s, const PrimExpr& k) {
    Indices r(s.begin(), s.end());
    r.insert(r.begin() + axis, k);
    return r;
  };
  auto k1 = kb.reduceAxis(x.shape()[axis], "k");
  Tensor maxel = kb.reduce("T_softmax_maxelem", red, t, {k1}, te::Combiner::Max, [&](const Indices& s, const Indices& r) { return x(insertK(s, r[0])); });
  if (log) {
    // topi.log_softmax: the exp is summed inside the reduction, no exp stage of its own.
    auto k2 = kb.reduceAxis(x.shape()[axis], "k");
    Tensor s = kb.reduce("compute", red, t, {k2}, te::Combiner::Sum, [&](const Indices& sp, const Indices& r) {
      return te::call("tir.exp", t, {te::bin(NodeKind::Sub, x(insertK(sp, r[0])), maxel(sp))});
    });
    AttrsRef attrs = withDictAttr(nullptr, "axis", AttrValue::integer(axis));
    return kb.compute("compute", x.shape(), t, [&](const Indices& i) {
      return te::bin(NodeKind::Sub, te::bin(NodeKind::Sub, x(i), maxel(drop(i))), te::call("tir.log", t, {s(drop(i))}));
    }, "i", attrs);
  }
  Tensor e = kb.compute("T_softmax_exp", x.shape(), t, [&](const Indices& i) { return te::call("tir.exp", t, {te::bin(NodeKind::Sub, x(i), maxel(drop(i)))}); });
  auto k2 = kb.reduceAxis(x.shape()[axis], "k");
  Tensor s = kb.reduce("T_softmax_expsum", red, t, {k2}, te::Combiner::Sum, [&](const Indices& sp, const Indices& r) { return e(insertK(sp, r[0])); });
  AttrsRef attrs = withDictAttr(nullptr, "axis", AttrValue::integer(axis));
  return kb.compute("T_softmax_norm", x.shape(), t, [&](const Indices& i) { return te::bin(NodeKind::Div, e(i), s(drop(i))); }, "i", attrs);
}

namespace {

using te::Indices;
using te::Tensor;

PrimExpr f(double v, DataType t) { return te::constant(v, t); }

// topi-style elementwise helpers for composite activations (each a T_<op> stage, ax loops).
Tensor scale(Ctx& ctx, double c, const Tensor& x, bool constFirst = true) {
  return ctx.kb.compute("T_multiply", x.shape(), x.dtype(), [&](const Indices& i) {
    return constFirst ? te::bin(NodeKind::Mul, f(c, x.dtype()), x(i)) : te::bin(NodeKind::Mul, x(i), f(c, x.dtype()));
  }, "ax");
}
Tensor mul(Ctx& ctx, const Tensor& x, const Tensor& y) {
  return ctx.kb.compute("T_multiply", x.shape(), x.dtype(), [&](const Indices& i) { return te::bin(NodeKind::Mul, x(i), y(i)); }, "ax");
}
Tensor addConst(Ctx& ctx, double c, const Tensor& x) {
  return ctx.kb.compute("T_add", x.shape(), x.dtype(), [&](const Indices& i) { return te::bin(NodeKind::Add, f(c, x.dtype()), x(i)); }, "ax");
}
Tensor unary(Ctx& ctx, const std::string& intrin, const Tensor& x) {
  return ctx.kb.compute("compute", x.shape(), x.dtype(), [&](const Indices& i) { return te::call("tir." + intrin, x.dtype(), {x(i)}); });
}

int64_t normAxis(int64_t a, size_t nd) { return a < 0 ? a + int64_t(nd) : a; }

std::vector<Tensor> softmaxRule(Ctx& ctx, bool log) {
  auto x = ctx.arg(0);
  if (!x || x->ndim() == 0 || !x->dtype().isFloat()) return {};
  int64_t axis = normAxis(ops::attrInt(ctx.call, "axis", -1), x->ndim());
  if (axis < 0 || axis >= int64_t(x->ndim())) return {};
  return {softmaxStages(ctx.kb, *x, axis, log)};
}

}  // namespace

void registerNNRules() {
  // dropout at inference (TVM removes it with DecomposeOpsForInference; we run it in place): the
  // output is x and the mask all ones, as SimplifyInference rewrites it.
  registerRule("relax.nn.dropout", "dropout", [](Ctx& ctx) -> std::vector<Tensor> {
    auto x = ctx.arg(0);
    if (!x || ctx.outCount() != 2) return {};
    DataType t = x->dtype();
    return {ctx.kb.compute("T_dropout", x->shape(), t, [&](const Indices& i) { return (*x)(i); }, "ax"),
            ctx.kb.compute("T_dropout_mask", x->shape(), t, [&](const Indices&) { return te::constant(1, t); }, "ax")};
  });
  registerRule("relax.nn.relu", "relu", [](Ctx& ctx) -> std::vector<Tensor> {
    auto x = ctx.arg(0);
    if (!x) return {};
    return {ctx.kb.compute("compute", x->shape(), x->dtype(), [&](const Indices& i) { return te::bin(NodeKind::Max, (*x)(i), te::constant(0, x->dtype())); })};
  });
  registerRule("relax.nn.gelu_tanh", "gelu_tanh", [](Ctx& ctx) -> std::vector<Tensor> {
    auto x = ctx.arg(0);
    if (!x || !x->dtype().isFloat()) return {};
    // 0.5 * x * (1 + tanh(sqrt(2 / pi) * x * (1 + 0.044715 * x * x))), staged as TVM does.
    Tensor half = scale(ctx, 0.5, *x);
    Tensor s = scale(ctx, std::sqrt(2.0 / M_PI), *x);
    Tensor c = scale(ctx, 0.044715, *x);
    Tensor cx = mul(ctx, c, *x);
    Tensor one = addConst(ctx, 1.0, cx);
    Tensor inner = mul(ctx, s, one);
    Tensor th = unary(ctx, "tanh", inner);
    Tensor onePlus = addConst(ctx, 1.0, th);
    return {mul(ctx, half, onePlus)};
  });
  registerRule("relax.nn.gelu", "gelu", [](Ctx& ctx) -> std::vector<Tensor> {
    auto x = ctx.arg(0);
    if (!x || !x->dtype().isFloat()) return {};
    // x * (0.5 + erf(x * 1/sqrt(2)) * 0.5)
    DataType t = x->dtype();
    Tensor a = scale(ctx, M_SQRT1_2, *x, false);
    Tensor e = unary(ctx, "erf", a);
    Tensor b = scale(ctx, 0.5, e, false);
    Tensor c = ctx.kb.compute("T_add", x->shape(), t, [&](const Indices& i) { return te::bin(NodeKind::Add, f(0.5, t), b(i)); }, "ax");
    return {mul(ctx, *x, c)};
  });
  registerRule("relax.nn.silu", "silu", [](Ctx& ctx) -> std::vector<Tensor> {
    auto x = ctx.arg(0);
    if (!x || !x->dtype().isFloat()) return {};
    Tensor s = unary(ctx, "sigmoid", *x);
    return {mul(ctx, *x, s)};
  });
  registerRule("relax.nn.leakyrelu", "leaky_relu", [](Ctx& ctx) -> std::vector<Tensor> {
    auto x = ctx.arg(0);
    if (!x || !x->dtype().isFloat()) return {};
    PrimExpr alpha = f(ops::attrReal(ctx.call, "alpha", 0.01), x->dtype());
    // Select(x > 0, x, x * alpha), the comparison as TVM's simplifier writes it.
    return {ctx.kb.compute("T_leaky_relu", x->shape(), x->dtype(), [&](const Indices& i) {
      return PrimExpr(make<Select>(te::bin(NodeKind::LT, f(0, x->dtype()), (*x)(i)), (*x)(i), te::bin(NodeKind::Mul, (*x)(i), alpha)));
    }, "ax")};
  });
  registerRule("relax.nn.softmax", "softmax", [](Ctx& ctx) { return softmaxRule(ctx, false); });
  registerRule("relax.nn.log_softmax", "log_softmax", [](Ctx& ctx) { return softmaxRule(ctx, true); });

  registerRule("relax.nn.layer_norm", "layer_norm", [](Ctx& ctx) -> std::vector<Tensor> {
    auto x = ctx.arg(0), gamma = ctx.arg(1), beta = ctx.arg(2);
    if (!x || !gamma || !beta || !x->dtype().isFloat()) return {};
    size_t nd = x->ndim();
    std::vector<int64_t> axes = ops::attrInts(ctx.call, "axes");
    std::vector<bool> isRed(nd, false);
    for (auto a : axes) {
      a = normAxis(a, nd);
      if (a < 0 || a >= int64_t(nd)) return {};
      isRed[a] = true;
    }
    // TVM legalizes layer_norm to topi's, which always applies gamma and beta: center/scale are
    // not passed on (the reference evaluator does the same).
    bool center = true, scaleOn = true;
    double eps = ops::attrReal(ctx.call, "epsilon", 1e-5);
    DataType t = x->dtype();
    std::vector<PrimExpr> red;
    std::vector<te::ReduceAxis> raxes;
    PrimExpr count;
    for (size_t d = 0; d < nd; ++d) {
      if (!isRed[d]) {
        red.push_back(x->shape()[d]);
        continue;
      }
      raxes.push_back(ctx.kb.reduceAxis(x->shape()[d], "k" + std::to_string(d)));
      count = count ? te::idxMul(count, x->shape()[d]) : x->shape()[d];
    }
    PrimExpr n = asIntImm(count) ? te::constant(double(asIntImm(count)->value), t) : PrimExpr(make<Cast>(t, count));
    auto full = [&](const Indices& s, const Indices& r) {
      Indices idx;
      size_t si = 0, ri = 0;
      for (size_t d = 0; d < nd; ++d) idx.push_back(isRed[d] ? r[ri++] : s[si++]);
      return idx;
    };
    auto sums = ctx.kb.reduceTuple(x->buf->name + "_red_temp", red, {t, t}, raxes, {f(0, t), f(0, t)},
                                   [&](const Indices& s, const Indices& r, const std::vector<PrimExpr>& acc) -> std::vector<PrimExpr> {
                                     PrimExpr v = (*x)(full(s, r));
                                     return {te::bin(NodeKind::Add, acc[0], v), te::bin(NodeKind::Add, acc[1], te::bin(NodeKind::Mul, v, v))};
                                   });
    auto paramIdx = [&](const Tensor& p, const Indices& i) {
      Indices idx;
      for (size_t d = 0; d < nd; ++d)
        if (isRed[d]) idx.push_back(i[d]);
      return broadcastIndex(p, idx, std::vector<PrimExpr>(idx.size(), intImm(0)));
    };
    return {ctx.kb.compute("T_layer_norm", x->shape(), t, [&](const Indices& i) {
      Indices s;
      for (size_t d = 0; d < nd; ++d)
        if (!isRed[d]) s.push_back(i[d]);
      PrimExpr mean = te::bin(NodeKind::Div, sums[0](s), n);
      PrimExpr var = te::bin(NodeKind::Sub, te::bin(NodeKind::Div, sums[1](s), n), te::bin(NodeKind::Mul, mean, te::bin(NodeKind::Div, sums[0](s), n)));
      PrimExpr v = te::bin(NodeKind::Mul, te::bin(NodeKind::Sub, (*x)(i), mean), te::call("tir.rsqrt", t, {te::bin(NodeKind::Add, var, f(eps, t))}));
      if (scaleOn) v = te::bin(NodeKind::Mul, v, (*gamma)(paramIdx(*gamma, i)));
      if (center) v = te::bin(NodeKind::Add, v, (*beta)(paramIdx(*beta, i)));
      return v;
    }, "ax")};
  });
}

}  // namespace rlx::legalize
