// Legalization of nn.prelu (topi's slope_broadcasted + compute stages), nn.instance_norm (one
// tuple reduction of sum and sum of squares over `axes`, then T_instance_norm) and
// nn.cross_entropy_with_logits (-sum(x * y), over the batch when 2-D) and nn.nll_loss (weighted
// negative log-likelihood, reduced by sum or weighted mean), as topi builds them.
#include "ir/ops/infer_util.h"
#include "passes/legalize/legalize.h"

namespace rlx::legalize {

namespace {

using te::Indices;
using te::Tensor;

int64_t normAxis(int64_t a, size_t nd) { return a < 0 ? a + int64_t(nd) : a; }

// Select(0 < x, x, x * slope[c]) with the slope broadcast over the channel axis first (a 1-entry
// slope is shared by every channel).
std::vector<Tensor> prelu(Ctx& ctx) {
  auto x = ctx.arg(0), slope = ctx.arg(1);
  if (!x || !slope || !x->dtype().isFloat() || slope->ndim() != 1) return {};
  int64_t axis = normAxis(ops::attrInt(ctx.call, "axis", 1), x->ndim());
  if (axis < 0 || axis >= int64_t(x->ndim())) return {};
  auto one = asIntImm(slope->shape()[0]);
  bool shared = one && one->value == 1;
  Tensor sb = ctx.kb.compute("slope_broadcasted", {x->shape()[axis]}, slope->dtype(), [&](const Indices& i) { return (*slope)({shared ? intImm(0) : i[0]}); },
                             te::LoopNames(std::vector<std::string>{"c"}));
  DataType t = x->dtype();
  return {ctx.kb.compute("compute", x->shape(), t, [&](const Indices& i) {
    PrimExpr v = (*x)(i);
    return PrimExpr(make<Select>(te::bin(NodeKind::LT, te::constant(0, t), v), v, te::bin(NodeKind::Mul, v, sb({i[axis]}))));
  })};
}

// As TVM, gamma and beta always apply (center / scale are not passed to topi, and the reference
// evaluator agrees); the variance is E[x^2] - E[x]^2.
std::vector<Tensor> instanceNorm(Ctx& ctx) {
  auto x = ctx.arg(0), gamma = ctx.arg(1), beta = ctx.arg(2);
  if (!x || !gamma || !beta || !x->dtype().isFloat()) return {};
  size_t nd = x->ndim();
  int64_t ch = normAxis(ops::attrInt(ctx.call, "channel_axis", 1), nd);
  if (ch < 0 || ch >= int64_t(nd)) return {};
  std::vector<bool> red(nd, false);
  for (auto a : ops::attrInts(ctx.call, "axes")) {
    a = normAxis(a, nd);
    if (a < 0 || a >= int64_t(nd) || a == ch) return {};
    red[size_t(a)] = true;
  }
  DataType t = x->dtype();
  std::vector<PrimExpr> keep;
  std::vector<te::ReduceAxis> axes;
  PrimExpr count;
  for (size_t d = 0; d < nd; ++d) {
    if (!red[d]) {
      keep.push_back(x->shape()[d]);
      continue;
    }
    axes.push_back(ctx.kb.reduceAxis(x->shape()[d], "k" + std::to_string(d)));
    count = count ? te::idxMul(count, x->shape()[d]) : x->shape()[d];
  }
  if (axes.empty()) return {};
  PrimExpr n = asIntImm(count) ? te::constant(double(asIntImm(count)->value), t) : PrimExpr(make<Cast>(t, count));
  auto sums = ctx.kb.reduceTuple(x->buf->name + "_red_temp", keep, {t, t}, axes, {te::constant(0, t), te::constant(0, t)},
                                 [&](const Indices& s, const Indices& r, const std::vector<PrimExpr>& acc) -> std::vector<PrimExpr> {
                                   Indices idx;
                                   size_t si = 0, ri = 0;
                                   for (size_t d = 0; d < nd; ++d) idx.push_back(red[d] ? r[ri++] : s[si++]);
                                   PrimExpr v = (*x)(idx);
                                   return {te::bin(NodeKind::Add, acc[0], v), te::bin(NodeKind::Add, acc[1], te::bin(NodeKind::Mul, v, v))};
                                 });
  double eps = ops::attrReal(ctx.call, "epsilon", 1e-5);
  return {ctx.kb.compute("T_instance_norm", x->shape(), t, [&](const Indices& i) {
    Indices s;
    for (size_t d = 0; d < nd; ++d)
      if (!red[d]) s.push_back(i[d]);
    PrimExpr mean = te::bin(NodeKind::Div, sums[0](s), n);
    PrimExpr var = te::bin(NodeKind::Sub, te::bin(NodeKind::Div, sums[1](s), n), te::bin(NodeKind::Mul, mean, mean));
    PrimExpr v = te::bin(NodeKind::Mul, te::bin(NodeKind::Sub, (*x)(i), mean), te::call("tir.rsqrt", t, {te::bin(NodeKind::Add, var, te::constant(eps, t))}));
    return te::bin(NodeKind::Add, te::bin(NodeKind::Mul, v, (*gamma)({i[size_t(ch)]})), (*beta)({i[size_t(ch)]}));
  }, "ax")};
}

// TVM's legalizer: -sum(x * y), divided by the batch size when the input is 2-D.
std::vector<Tensor> crossEntropyWithLogits(Ctx& ctx) {
  auto x = ctx.arg(0), y = ctx.arg(1);
  if (!x || !y || !x->dtype().isFloat() || x->ndim() != y->ndim() || x->ndim() == 0) return {};
  DataType t = x->dtype();
  Tensor prod = ctx.kb.compute("T_multiply", x->shape(), t, [&](const Indices& i) { return te::bin(NodeKind::Mul, (*x)(i), (*y)(i)); }, "ax");
  std::vector<te::ReduceAxis> axes;
  for (size_t d = 0; d < x->ndim(); ++d) axes.push_back(ctx.kb.reduceAxis(x->shape()[d], "k" + std::to_string(d)));
  Tensor sum = ctx.kb.reduce("T_multiply_red", {}, t, axes, te::Combiner::Sum, [&](const Indices&, const Indices& r) { return prod(r); }, "ax");
  Tensor neg = ctx.kb.compute("T_multiply", {}, t, [&](const Indices& i) { return te::bin(NodeKind::Mul, sum(i), te::constant(-1, t)); }, "ax");
  if (x->ndim() == 1) return {neg};
  PrimExpr batch = x->shape()[0];
  PrimExpr n = asIntImm(batch) ? te::constant(double(asIntImm(batch)->value), t) : PrimExpr(make<Cast>(t, batch));
  return {ctx.kb.compute("T_divide", {}, t, [&](const Indices& i) { return te::bin(NodeKind::Div, neg(i), n); }, "ax")};
}

// topi.nn.nll_loss: per target element -w[t] * pred[.., t, ..] (0 where t is ignore_index), then
// summed, or divided by the summed weights for "mean"; a 0-d target is not reduced.
std::vector<Tensor> nllLoss(Ctx& ctx) {
  // Without weights (TVM leaves that call alone) every class weighs 1.
  auto pred = ctx.arg(0), target = ctx.arg(1);
  std::optional<Tensor> weights = ctx.call.args.size() > 2 ? ctx.arg(2) : std::nullopt;
  if (!pred || !target || (ctx.call.args.size() > 2 && !weights) || !pred->dtype().isFloat() || (weights && weights->ndim() != 1)) return {};
  auto weightOf = [&](const PrimExpr& cls) { return weights ? (*weights)({cls}) : te::constant(1, pred->dtype()); };
  size_t tn = target->ndim();
  if (pred->ndim() != (tn == 0 ? 1 : tn + 1)) return {};
  std::string reduction = ops::attrString(ctx.call, "reduction", "mean");
  int64_t ignore = ops::attrInt(ctx.call, "ignore_index", -100);
  DataType t = pred->dtype(), it = target->dtype();
  auto keep = [&](const Indices& i) { return te::bin(NodeKind::NE, (*target)(i), intImm(ignore, it)); };
  Tensor loss = ctx.kb.compute("nll_loss", target->shape(), t, [&](const Indices& i) {
    PrimExpr cls = (*target)(i);
    Indices p;
    if (tn == 0) {
      p.push_back(cls);
    } else {
      p.push_back(i[0]);
      p.push_back(cls);
      p.insert(p.end(), i.begin() + 1, i.end());
    }
    PrimExpr v = te::bin(NodeKind::Mul, te::bin(NodeKind::Sub, te::constant(0, t), (*pred)(p)), weightOf(cls));
    return PrimExpr(make<Select>(keep(i), v, te::constant(0, t)));
  }, "ax");
  if (reduction == "none") return {loss};
  auto total = [&](const Tensor& x) {
    if (tn == 0) return x;
    std::vector<te::ReduceAxis> axes;
    for (size_t d = 0; d < tn; ++d) axes.push_back(ctx.kb.reduceAxis(x.shape()[d], "k" + std::to_string(d)));
    return ctx.kb.reduce(x.buf->name + "_red", {}, t, axes, te::Combiner::Sum, [&](const Indices&, const Indices& r) { return x(r); }, "ax");
  };
  Tensor sum = total(loss);
  if (reduction == "sum") return {sum};
  if (reduction != "mean") return {};
  Tensor w = ctx.kb.compute("nll_loss", target->shape(), t, [&](const Indices& i) {
    return PrimExpr(make<Select>(keep(i), weightOf((*target)(i)), te::constant(0, t)));
  }, "ax");
  Tensor wsum = total(w);
  return {ctx.kb.compute("T_divide", {}, t, [&](const Indices& i) { return te::bin(NodeKind::Div, sum(i), wsum(i)); }, "ax")};
}

}  // namespace

void registerNNExtraRules() {
  registerRule("relax.nn.nll_loss", "nll_loss", nllLoss);
  registerRule("relax.nn.cross_entropy_with_logits", "cross_entropy_with_logits", crossEntropyWithLogits);
  registerRule("relax.nn.prelu", "prelu", prelu);
  registerRule("relax.nn.instance_norm", "instance_norm", instanceNorm);
}

}  // namespace rlx::legalize
