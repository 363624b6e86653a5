// Legalization of conv1d/2d/3d as topi.nn.conv computes them for any layout: a pad_temp stage, then
// one reduction block conv<d>d_<layout> (group_ prefixed when grouped) over rc and ry / rx / rz.
#include <algorithm>
#include <cctype>

#include "ir/ops/infer_util.h"
#include "passes/legalize/legalize.h"

namespace rlx::legalize {

namespace {

using te::Indices;
using te::Tensor;

// perm[k] = position in `layout` of canonical letter k; empty when `layout` is not `canonical`
// with N/C (O/I) moved, as topi needs its spatial letters in canonical order.
std::vector<int> layoutPositions(const std::string& layout, const std::string& canonical) {
  if (layout.size() != canonical.size()) return {};
  std::vector<int> p;
  for (char c : canonical) {
    auto k = layout.find(c);
    if (k == std::string::npos) return {};
    p.push_back(int(k));
  }
  for (size_t k = 3; k < p.size(); ++k)
    if (p[k] < p[k - 1]) return {};
  return p;
}

Rule convRule(size_t dim) {
  return [dim](Ctx& ctx) -> std::vector<Tensor> {
    static const char* dataCanon[] = {"", "NCW", "NCHW", "NCDHW"};
    static const char* kernCanon[] = {"", "OIW", "OIHW", "OIDHW"};
    std::string dl = ops::attrString(ctx.call, "data_layout", dataCanon[dim]);
    std::string kl = ops::attrString(ctx.call, "kernel_layout", kernCanon[dim]);
    // As TVM: topi writes the data layout, so a different out_layout stays unlegalized.
    if (ops::attrString(ctx.call, "out_layout", dl) != dl) return {};
    std::vector<int> dp = layoutPositions(dl, dataCanon[dim]), kp = layoutPositions(kl, kernCanon[dim]);
    auto x = ctx.arg(0), w = ctx.arg(1);
    auto shape = ctx.outShape();
    if (dp.empty() || kp.empty() || !x || !w || !shape || x->ndim() != dim + 2 || w->ndim() != dim + 2) return {};
    std::vector<int64_t> strides = ops::attrInts(ctx.call, "strides"), dil = ops::attrInts(ctx.call, "dilation"), pad = ops::attrInts(ctx.call, "padding");
    int64_t groups = ops::attrInt(ctx.call, "groups", 1);
    if (strides.size() != dim || dil.size() != dim || pad.size() != 2 * dim || groups < 1) return {};
    PrimExpr inC = x->shape()[dp[1]], outC = w->shape()[kp[0]];
    auto inCc = asIntImm(inC), outCc = asIntImm(outC);
    // Grouped convolution needs static channel counts (as TVM's legalization requires).
    if (groups > 1 && (!inCc || !outCc || inCc->value % groups || outCc->value % groups)) return {};
    DataType t = ctx.outDtype();

    std::vector<int64_t> before(dim + 2, 0), after(dim + 2, 0);
    for (size_t i = 0; i < dim; ++i) before[dp[2 + i]] = pad[i], after[dp[2 + i]] = pad[dim + i];
    Tensor padded = padStage(ctx.kb, *x, before, after, te::constant(0, x->dtype()), "pad_temp", "i");

    // Reduce axes rc, ry, rx, rz, ordered as their dims appear in the data layout.
    static const char* spatialNames[] = {"yy", "xx", "zz"};
    static const char* reduceNames[] = {"ry", "rx", "rz"};
    std::vector<std::pair<int, te::ReduceAxis>> ordered;
    ordered.push_back({dp[1], ctx.kb.reduceAxis(groups > 1 ? intImm(inCc->value / groups) : inC, "rc")});
    for (size_t i = 0; i < dim; ++i) ordered.push_back({dp[2 + i], ctx.kb.reduceAxis(w->shape()[kp[2 + i]], reduceNames[i])});
    std::stable_sort(ordered.begin(), ordered.end(), [](auto& a, auto& b) { return a.first < b.first; });
    std::vector<te::ReduceAxis> axes;
    for (auto& [pos, a] : ordered) axes.push_back(a);
    std::vector<std::string> loops(dim + 2);
    loops[dp[0]] = "nn", loops[dp[1]] = "ff";
    for (size_t i = 0; i < dim; ++i) loops[dp[2 + i]] = spatialNames[i];

    std::string name = std::string(groups > 1 ? "group_" : "") + "conv" + std::to_string(dim) + "d_";
    for (char c : dl) name += char(std::tolower(c));
    return {ctx.kb.reduce(name, *shape, t, axes, te::Combiner::Sum, [&](const Indices& sp, const Indices& r) {
      // The reduce var of canonical axis k (0: rc, 1 + i: spatial i), found by its layout position.
      auto rvar = [&](int pos) {
        for (size_t j = 0; j < ordered.size(); ++j)
          if (ordered[j].first == pos) return r[j];
        return r[0];
      };
      PrimExpr ff = sp[dp[1]], rc = rvar(dp[1]);
      PrimExpr chan = rc;
      if (groups > 1) chan = te::idxAdd(te::idxMul(idxFloorDiv(ff, outCc->value / groups), intImm(inCc->value / groups, ff->dtype)), rc);
      Indices xi(dim + 2), wi(dim + 2);
      xi[dp[0]] = sp[dp[0]], xi[dp[1]] = chan;
      wi[kp[0]] = ff, wi[kp[1]] = rc;
      for (size_t i = 0; i < dim; ++i) {
        PrimExpr s = sp[dp[2 + i]], k = rvar(dp[2 + i]);
        xi[dp[2 + i]] = te::idxAdd(te::idxMul(s, intImm(strides[i], s->dtype)), te::idxMul(k, intImm(dil[i], k->dtype)));
        wi[kp[2 + i]] = k;
      }
      PrimExpr a = padded(xi), b = (*w)(wi);
      if (a->dtype != t) a = make<Cast>(t, a);
      if (b->dtype != t) b = make<Cast>(t, b);
      return te::bin(NodeKind::Mul, a, b);
    }, te::LoopNames(loops))};
  };
}

}  // namespace

void registerConvRules() {
  registerRule("relax.nn.conv1d", "conv1d", convRule(1));
  registerRule("relax.nn.conv2d", "conv2d", convRule(2));
  registerRule("relax.nn.conv3d", "conv3d", convRule(3));
  // topi.nn.pad with its default stage name PadInput; reflect/replicate/circular are other kernels.
  registerRule("relax.nn.pad", "pad", [](Ctx& ctx) -> std::vector<Tensor> {
    auto x = ctx.arg(0);
    if (!x || ops::attrString(ctx.call, "pad_mode", "constant") != "constant") return {};
    std::vector<int64_t> widths = ops::attrInts(ctx.call, "pad_width");
    if (widths.size() != 2 * x->ndim()) return {};
    std::vector<int64_t> before, after;
    for (size_t d = 0; d < x->ndim(); ++d) {
      if (widths[2 * d] < 0 || widths[2 * d + 1] < 0) return {};
      before.push_back(widths[2 * d]), after.push_back(widths[2 * d + 1]);
    }
    PrimExpr value = te::constant(ops::attrReal(ctx.call, "pad_value", 0), x->dtype());
    return {padStage(ctx.kb, *x, before, after, value, "PadInput", "i")};
  });
}

}  // namespace rlx::legalize
