// Legalization of the training ops grad.* (what Gradient emits): the markers no_grad and
// start/end_checkpoint are their input; nll_loss_backward as TVM's legalization computes it; the
// backward kernels of take and max/avg_pool2d as gathers agreeing with the reference evaluator
// (ir/ops/eval_grad.cc): take's gradient sums output_grad over the index positions reading an
// element; pool gradients sum, over the window taps that can reach an element, the gradient of the
// window whose tap it is (max: only where the window's first maximum was that tap).
#include "ir/arith.h"
#include "ir/ops/infer_util.h"
#include "passes/legalize/legalize.h"

namespace rlx::legalize {

namespace {

using te::Indices;
using te::Tensor;

PrimExpr i64c(int64_t v) { return intImm(v); }
PrimExpr andAll(const std::vector<PrimExpr>& cs) {
  PrimExpr out;
  for (auto& c : cs) out = out ? te::bin(NodeKind::And, out, c) : c;
  return out;
}
PrimExpr ifThenElse(const PrimExpr& c, const PrimExpr& t, const PrimExpr& f) { return te::call("tir.if_then_else", t->dtype, {c, t, f}); }

// ---------------------------------------------------------------- nll_loss_backward

// TVM's stages: weights_new (ignore_index >= 0 zeroes that class's weight), all_weights (the
// weight of each target), the output gradient broadcast to the targets' shape (divided by the
// summed weights for "mean"), then pred_grad = -all_weights * g at the target class, 0 elsewhere.
std::vector<Tensor> nllLossBackward(Ctx& ctx) {
  auto g = ctx.arg(0), pred = ctx.arg(1), target = ctx.arg(2);
  std::optional<Tensor> weights = ctx.call.args.size() > 3 ? ctx.arg(3) : std::nullopt;
  if (!g || !pred || !target || !pred->dtype().isFloat() || target->dtype().isFloat()) return {};
  size_t tn = target->ndim();
  if (pred->ndim() != (tn == 0 ? 1 : tn + 1) || (weights && weights->ndim() != 1)) return {};
  std::string reduction = ops::attrString(ctx.call, "reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") return {};
  int64_t ignore = ops::attrInt(ctx.call, "ignore_index", -100);
  DataType t = pred->dtype();
  if (weights && ignore >= 0) {
    Tensor w = *weights;
    weights = ctx.kb.compute("weights_new", w.shape(), t, [&](const Indices& i) {
      return PrimExpr(make<Select>(te::bin(NodeKind::EQ, i[0], intImm(ignore, i[0]->dtype)), te::constant(0, t), w(i)));
    }, "i");
  }
  Tensor allWeights = ctx.kb.compute("all_weights", target->shape(), t, [&](const Indices& i) {
    if (!weights) return te::constant(1, t);
    return (*weights)({(*target)(i)});
  }, "i");
  Tensor grad = *g;
  if (reduction != "none") {
    Tensor g0 = *g;
    grad = ctx.kb.compute("T_broadcast_to", target->shape(), t, [&](const Indices&) { return g0({}); }, "ax");
  }
  if (reduction == "mean") {
    Tensor sum = allWeights;
    if (tn) {
      std::vector<te::ReduceAxis> axes;
      for (size_t d = 0; d < tn; ++d) axes.push_back(ctx.kb.reduceAxis(target->shape()[d], "k" + std::to_string(d)));
      sum = ctx.kb.reduce("all_weights_red", {}, t, axes, te::Combiner::Sum, [&](const Indices&, const Indices& r) { return allWeights(r); }, "ax");
    }
    Tensor b = grad;
    grad = ctx.kb.compute("T_divide", target->shape(), t, [&](const Indices& i) { return te::bin(NodeKind::Div, b(i), sum({})); }, "ax");
  }
  PrimExpr minusOne = te::constant(-1, t);
  return {ctx.kb.compute("pred_grad", pred->shape(), t, [&](const Indices& i) {
    Indices ti;
    if (tn) {
      ti.push_back(i[0]);
      ti.insert(ti.end(), i.begin() + 2, i.end());
    }
    PrimExpr cls = tn ? i[1] : i[0];
    PrimExpr tgt = (*target)(ti);
    PrimExpr v = te::bin(NodeKind::Mul, te::bin(NodeKind::Mul, allWeights(ti), minusOne), grad(ti));
    return PrimExpr(make<Select>(te::bin(NodeKind::EQ, cls, tgt->dtype == cls->dtype ? tgt : PrimExpr(make<Cast>(cls->dtype, tgt))), v, te::constant(0, t)));
  }, "i")};
}

// ---------------------------------------------------------------- take_backward

// x's shape, zero but where take read: out[pre, j, post] = sum over the index positions p with
// indices[p] == j of output_grad[pre, p, post]. axis=None indexes the flattened x. Fast mode only,
// as the forward take's legalization (out-of-range indices then contribute nothing).
std::vector<Tensor> takeBackward(Ctx& ctx) {
  auto g = ctx.arg(0), x = ctx.arg(1), ind = ctx.arg(2);
  if (!g || !x || !ind || ind->dtype().isFloat() || ops::attrString(ctx.call, "mode", "fast") != "fast") return {};
  auto takeAxis = takeAxisOf(ctx.call, x->ndim());
  if (!takeAxis) return {};
  auto [flat, axis] = *takeAxis;
  size_t ni = ind->ndim();
  if (g->ndim() != (flat ? ni : x->ndim() - 1 + ni)) return {};
  std::vector<te::ReduceAxis> axes;
  for (size_t d = 0; d < ni; ++d) axes.push_back(ctx.kb.reduceAxis(ind->shape()[d], "l" + std::to_string(d)));
  DataType t = x->dtype();
  std::vector<PrimExpr> xShape = x->shape();
  return {ctx.kb.reduce("take_backward", xShape, t, axes, te::Combiner::Sum, [&](const Indices& o, const Indices& p) {
    PrimExpr row = (*ind)(p);
    if (row->dtype != DataType::int64()) row = make<Cast>(DataType::int64(), row);
    PrimExpr at;  // the element of x this output element is, in take's indexing
    Indices gi;
    if (flat) {
      at = intImm(0);
      for (size_t d = 0; d < o.size(); ++d) at = te::idxAdd(te::idxMul(at, xShape[d]), o[d]);
      gi = p;
    } else {
      at = o[size_t(axis)];
      gi.assign(o.begin(), o.begin() + axis);
      gi.insert(gi.end(), p.begin(), p.end());
      gi.insert(gi.end(), o.begin() + axis + 1, o.end());
    }
    return ifThenElse(te::bin(NodeKind::EQ, row, at), (*g)(gi), te::constant(0, t));
  }, "ax")};
}

// ---------------------------------------------------------------- max/avg_pool2d_backward

struct PoolAxis {
  int pos;  // position in the layout
  int64_t kernel, stride, dil, before, after;
  PrimExpr extent, outExtent;
};

// The number of taps k in [0, kernel) with lo <= start + k * dil < hi (the forward's divisor along
// one axis: lo, hi are the data bounds, or the padded bounds with count_include_pad).
PrimExpr tapsInside(const PoolAxis& a, const PrimExpr& start, const PrimExpr& lo, const PrimExpr& hi) {
  auto ceilDiv = [&](const PrimExpr& n) { return te::bin(NodeKind::FloorDiv, te::bin(NodeKind::Add, n, i64c(a.dil - 1)), i64c(a.dil)); };
  PrimExpr first = te::bin(NodeKind::Max, i64c(0), ceilDiv(te::bin(NodeKind::Sub, lo, start)));
  PrimExpr end = te::bin(NodeKind::Min, i64c(a.kernel), ceilDiv(te::bin(NodeKind::Sub, hi, start)));
  return te::bin(NodeKind::Max, i64c(0), te::bin(NodeKind::Sub, end, first));
}

Rule poolBackward(bool isMax) {
  return [isMax](Ctx& ctx) -> std::vector<Tensor> {
    std::string layout = ops::attrString(ctx.call, "layout", "NCHW");
    if (ops::attrString(ctx.call, "out_layout", layout) != layout || layout.size() != 4) return {};
    auto g = ctx.arg(0), x = ctx.arg(1);
    if (!g || !x || x->ndim() != 4 || g->ndim() != 4 || !x->dtype().isFloat()) return {};
    std::vector<int64_t> kernel = ops::attrInts(ctx.call, "pool_size"), stride = ops::attrInts(ctx.call, "strides"), dil = ops::attrInts(ctx.call, "dilation"),
                         pad = ops::attrInts(ctx.call, "padding");
    if (pad.size() == 2) pad = {pad[0], pad[1], pad[0], pad[1]};
    if (kernel.size() != 2 || stride.size() != 2 || dil.size() != 2 || pad.size() != 4) return {};
    std::vector<PoolAxis> ax;
    for (int a = 0; a < 2; ++a) {
      auto pos = layout.find("HW"[a]);
      if (pos == std::string::npos || kernel[a] <= 0 || stride[a] <= 0 || dil[a] <= 0) return {};
      ax.push_back({int(pos), kernel[a], stride[a], dil[a], pad[a], pad[2 + a], x->shape()[pos], g->shape()[pos]});
    }
    bool includePad = ops::attrBool(ctx.call, "count_include_pad");
    DataType t = x->dtype();
    Tensor data = *x, grad = *g;
    // The window of output position o along axis a starts at o * stride - before.
    auto windowStart = [&](const PoolAxis& a, const PrimExpr& o) { return te::bin(NodeKind::Sub, te::idxMul(o, i64c(a.stride)), i64c(a.before)); };

    // Max: the flat tap (kh * KW + kw) of each window's first maximum; -1 none yet, -2 padding.
    std::optional<Tensor> argmaxTap;
    if (isMax) {
      std::vector<te::ReduceAxis> taps = {ctx.kb.reduceAxis(i64c(ax[0].kernel), "rv0"), ctx.kb.reduceAxis(i64c(ax[1].kernel), "rv1")};
      auto outs = ctx.kb.reduceTuple("pool_argmax", grad.shape(), {DataType::int64(), t}, taps, {i64c(-1), te::identity(te::Combiner::Max, t)},
                                     [&](const Indices& o, const Indices& k, const std::vector<PrimExpr>& acc) -> std::vector<PrimExpr> {
        Indices at = o;
        std::vector<PrimExpr> inside;
        for (int a = 0; a < 2; ++a) {
          PrimExpr h = te::bin(NodeKind::Add, windowStart(ax[a], o[ax[a].pos]), te::idxMul(k[a], i64c(ax[a].dil)));
          at[ax[a].pos] = h;
          inside.push_back(te::bin(NodeKind::GE, h, i64c(0)));
          inside.push_back(te::bin(NodeKind::LT, h, ax[a].extent));
        }
        PrimExpr in = andAll(inside);
        PrimExpr v = ifThenElse(in, data(at), te::identity(te::Combiner::Max, t));
        PrimExpr tap = make<Select>(in, te::bin(NodeKind::Add, te::idxMul(k[0], i64c(ax[1].kernel)), k[1]), i64c(-2));
        PrimExpr notNaN = make<PrimNot>(te::call("tir.isnan", DataType::boolean(), {v}));
        PrimExpr takes = te::bin(NodeKind::Or, te::bin(NodeKind::And, te::bin(NodeKind::EQ, acc[0], i64c(-1)), notNaN), te::bin(NodeKind::GT, v, acc[1]));
        return {PrimExpr(make<Select>(takes, tap, acc[0])), PrimExpr(make<Select>(takes, v, acc[1]))};
      }, "ax");
      argmaxTap = outs[0];
    }

    std::vector<te::ReduceAxis> taps = {ctx.kb.reduceAxis(i64c(ax[0].kernel), "wh"), ctx.kb.reduceAxis(i64c(ax[1].kernel), "ww")};
    return {ctx.kb.reduce("T_pool_grad", data.shape(), t, taps, te::Combiner::Sum, [&](const Indices& i, const Indices& k) {
      // Tap k of window o covers element i when o * stride - before + k * dil == i.
      Indices o = i;
      std::vector<PrimExpr> valid;
      for (int a = 0; a < 2; ++a) {
        PrimExpr num = te::bin(NodeKind::Sub, te::bin(NodeKind::Add, i[ax[a].pos], i64c(ax[a].before)), te::idxMul(k[a], i64c(ax[a].dil)));
        PrimExpr oa = te::bin(NodeKind::FloorDiv, num, i64c(ax[a].stride));
        valid.push_back(te::bin(NodeKind::GE, num, i64c(0)));
        if (ax[a].stride != 1) valid.push_back(te::bin(NodeKind::EQ, te::bin(NodeKind::FloorMod, num, i64c(ax[a].stride)), i64c(0)));
        valid.push_back(te::bin(NodeKind::LT, oa, ax[a].outExtent));
        o[ax[a].pos] = oa;
      }
      PrimExpr share;
      if (isMax) {
        valid.push_back(te::bin(NodeKind::EQ, (*argmaxTap)(o), te::bin(NodeKind::Add, te::idxMul(k[0], i64c(ax[1].kernel)), k[1])));
        share = grad(o);
      } else {
        PrimExpr count = i64c(1);
        for (int a = 0; a < 2; ++a) {
          PrimExpr lo = includePad ? i64c(-ax[a].before) : i64c(0);
          PrimExpr hi = includePad ? te::bin(NodeKind::Add, ax[a].extent, i64c(ax[a].after)) : ax[a].extent;
          count = te::bin(NodeKind::Mul, count, tapsInside(ax[a], windowStart(ax[a], o[ax[a].pos]), lo, hi));
        }
        share = te::bin(NodeKind::Div, grad(o), make<Cast>(t, te::bin(NodeKind::Max, count, i64c(1))));
      }
      return ifThenElse(andAll(valid), share, te::constant(0, t));
    }, "ax")};
  };
}

Expr firstArgument(const Call& call) { return call.args.empty() ? Expr() : call.args[0]; }

}  // namespace

void registerGradRules() {
  for (const char* marker : {"relax.grad.no_grad", "relax.grad.start_checkpoint", "relax.grad.end_checkpoint"}) registerFold(marker, firstArgument);
  registerRule("relax.grad.nll_loss_backward", "nll_loss_backward", nllLossBackward);
  registerRule("relax.grad.take_backward", "take_backward", takeBackward);
  registerRule("relax.grad.max_pool2d_backward", "max_pool2d_backward", poolBackward(true));
  registerRule("relax.grad.avg_pool2d_backward", "avg_pool2d_backward", poolBackward(false));
}

}  // namespace rlx::legalize
