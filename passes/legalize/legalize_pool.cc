// Legalization of pooling as topi's pool_impl_nd / adaptive_pool compute it: pad_temp (when padded),
// pool_max, or pool_sum then pool_avg dividing by the window count; adaptive_pool_sum / _avg.
#include "ir/arith.h"
#include "ir/ops/infer_util.h"
#include "passes/legalize/legalize.h"

namespace rlx::legalize {

namespace {

using te::Indices;
using te::Tensor;

// Positions of the spatial letters D, H, W (the last `n` of them) in `layout`; empty when absent.
std::vector<int> spatialAxes(const std::string& layout, size_t n) {
  std::vector<int> axes;
  for (char c : std::string("DHW").substr(3 - n)) {
    auto k = layout.find(c);
    if (k == std::string::npos) return {};
    axes.push_back(int(k));
  }
  return axes;
}

AttrsRef scheduleRule(const std::string& rule) { return withDictAttr(nullptr, "schedule_rule", AttrValue::str(rule)); }

PrimExpr i64c(int64_t v) { return intImm(v); }

// Truncating integer division as C++ topi's operator/ (x / 1 is x).
PrimExpr truncDiv(const PrimExpr& a, int64_t d) { return d == 1 ? a : te::bin(NodeKind::Div, a, i64c(d)); }

Rule poolRule(size_t n, bool isMax) {
  return [n, isMax](Ctx& ctx) -> std::vector<Tensor> {
    static const char* canon[] = {"", "NCW", "NCHW", "NCDHW"};
    std::string layout = ops::attrString(ctx.call, "layout", canon[n]);
    if (ops::attrString(ctx.call, "out_layout", layout) != layout) return {};
    auto x = ctx.arg(0);
    auto shape = ctx.outShape();
    std::vector<int> axes = spatialAxes(layout, n);
    if (!x || !shape || axes.empty() || x->ndim() != layout.size()) return {};
    std::vector<int64_t> kernel = ops::attrInts(ctx.call, "pool_size"), stride = ops::attrInts(ctx.call, "strides"), dil = ops::attrInts(ctx.call, "dilation"),
                         pad = ops::attrInts(ctx.call, "padding");
    if (kernel.size() != n || stride.size() != n || dil.size() != n || pad.size() != 2 * n) return {};
    bool ceil = ops::attrBool(ctx.call, "ceil_mode"), includePad = ops::attrBool(ctx.call, "count_include_pad");
    DataType t = x->dtype();

    // ceil_mode pads the tail by stride - 1 more (the offset) so that windows reach the last rows.
    std::vector<int64_t> head(n), tail(n), offset(n, 0);
    std::vector<int64_t> before(x->ndim(), 0), after(x->ndim(), 0);
    bool doPad = false;
    for (size_t i = 0; i < n; ++i) {
      head[i] = pad[i], tail[i] = pad[n + i];
      if (ceil) offset[i] = stride[i] - 1, tail[i] += offset[i];
      before[axes[i]] = head[i], after[axes[i]] = tail[i];
      doPad = doPad || head[i] || tail[i];
    }
    PrimExpr padValue = isMax ? te::identity(te::Combiner::Max, t) : te::constant(0, t);
    Tensor src = doPad ? padStage(ctx.kb, *x, before, after, padValue, "pad_temp", "ax") : *x;

    std::vector<te::ReduceAxis> raxes;
    for (size_t i = 0; i < n; ++i) raxes.push_back(ctx.kb.reduceAxis(i64c(kernel[i]), "rv" + std::to_string(i)));
    auto window = [&](const Indices& o, const Indices& r) {
      Indices idx(o.begin(), o.end());
      for (size_t i = 0; i < n; ++i) idx[axes[i]] = te::idxAdd(te::idxMul(o[axes[i]], i64c(stride[i])), te::idxMul(r[i], i64c(dil[i])));
      return src(idx);
    };
    if (isMax) return {ctx.kb.reduce("pool_max", *shape, t, raxes, te::Combiner::Max, window, "ax", scheduleRule("meta_schedule.pool_max"))};
    Tensor sum = ctx.kb.reduce("pool_sum", *shape, t, raxes, te::Combiner::Sum, window, "ax");
    return {ctx.kb.compute("pool_avg", *shape, t, [&](const Indices& o) {
      // The number of taps of the window: inside the explicitly padded input (count_include_pad), or
      // inside the input, as topi counts them.
      PrimExpr count;
      for (size_t i = 0; i < n; ++i) {
        PrimExpr h = x->shape()[axes[i]];
        PrimExpr start = sub(mul(o[axes[i]], i64c(stride[i])), i64c(head[i]));
        PrimExpr end = add(start, i64c((kernel[i] - 1) * dil[i]));
        PrimExpr taps;
        if (includePad) {
          end = minExpr(end, sub(add(h, i64c(tail[i])), i64c(1 + offset[i])));
          taps = add(truncDiv(sub(end, start), dil[i]), i64c(1));
        } else {
          PrimExpr jumps = maxExpr(truncDiv(sub(i64c(dil[i] - 1), start), dil[i]), i64c(0));
          end = minExpr(end, sub(h, i64c(1)));
          taps = add(truncDiv(sub(end, add(start, te::idxMul(i64c(dil[i]), jumps))), dil[i]), i64c(1));
        }
        count = count ? mul(count, taps) : taps;
      }
      if (!includePad) count = maxExpr(count, i64c(1));
      PrimExpr c = asIntImm(count) ? te::constant(double(asIntImm(count)->value), t) : PrimExpr(make<Cast>(t, count));
      return te::bin(NodeKind::Div, sum(o), c);
    }, "ax", scheduleRule("meta_schedule.pool_avg"))};
  };
}

// topi's adaptive pool when every window has the same static size (the input extent a multiple of
// the output's): window o covers [o * in / out, (o + 1) * in / out). Other sizes stay unlegalized
// (their window extents depend on the output index).
Rule adaptiveAvgRule(size_t n) {
  return [n](Ctx& ctx) -> std::vector<Tensor> {
    static const char* canon[] = {"", "NCW", "NCHW", "NCDHW"};
    std::string layout = ops::attrString(ctx.call, "layout", canon[n]);
    if (ops::attrString(ctx.call, "out_layout", layout) != layout) return {};
    auto x = ctx.arg(0);
    auto shape = ctx.outShape();
    std::vector<int> axes = spatialAxes(layout, n);
    if (!x || !shape || axes.empty() || x->ndim() != layout.size()) return {};
    DataType t = x->dtype();
    std::vector<int64_t> win(n);
    std::vector<te::ReduceAxis> raxes;
    double volume = 1;
    for (size_t i = 0; i < n; ++i) {
      auto in = asIntImm(x->shape()[axes[i]]), out = asIntImm((*shape)[axes[i]]);
      if (!in || !out || out->value <= 0 || in->value % out->value) return {};
      win[i] = in->value / out->value;
      volume *= double(win[i]);
      raxes.push_back(ctx.kb.reduceAxis(i64c(win[i]), "rv" + std::to_string(i)));
    }
    Tensor sum = ctx.kb.reduce("adaptive_pool_sum", *shape, t, raxes, te::Combiner::Sum, [&](const Indices& o, const Indices& r) {
      Indices idx(o.begin(), o.end());
      for (size_t i = 0; i < n; ++i) idx[axes[i]] = te::idxAdd(te::idxMul(o[axes[i]], i64c(win[i])), r[i]);
      return (*x)(idx);
    }, "ax");
    return {ctx.kb.compute("adaptive_pool_avg", *shape, t, [&](const Indices& o) { return te::bin(NodeKind::Div, sum(o), te::constant(volume, t)); }, "ax",
                           scheduleRule("meta_schedule.adaptive_pool_avg"))};
  };
}

}  // namespace

void registerPoolRules() {
  for (size_t n = 1; n <= 3; ++n) {
    std::string d = std::to_string(n) + "d";
    registerRule("relax.nn.max_pool" + d, "max_pool" + d, poolRule(n, true));
    registerRule("relax.nn.avg_pool" + d, "avg_pool" + d, poolRule(n, false));
    registerRule("relax.nn.adaptive_avg_pool" + d, "adaptive_avg_pool" + d, adaptiveAvgRule(n));
  }
}

}  // namespace rlx::legalize
