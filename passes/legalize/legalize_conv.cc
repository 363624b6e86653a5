// Legalization of conv1d/2d/3d as topi.nn.conv computes them (pad_temp, then one reduction block
// conv<d>d_<layout> over rc and ry / rx / rz) and of nn.pad in topi's four padding modes.
#include <algorithm>
#include <cctype>

#include "ir/arith.h"
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

// topi's reflect_pad / replicate_pad / circular_pad: every dim (padded or not) reads its source
// index through the mode's mapping of o = i - before, written as topi's operator overloads build
// it (only constant operands fold), so the kernel prints as TVM's does.
Tensor modePadStage(te::KernelBuilder& kb, const Tensor& x, const std::vector<int64_t>& before, const std::vector<int64_t>& after, const std::string& mode) {
  auto sub = [](const PrimExpr& a, const PrimExpr& b) -> PrimExpr {
    if (auto f = foldConstants(NodeKind::Sub, a, b)) return f;
    if (auto z = asIntImm(b); z && z->value == 0) return a;
    return te::bin(NodeKind::Sub, a, b);
  };
  auto select = [](const PrimExpr& c, const PrimExpr& t, const PrimExpr& f) { return te::call("tir.if_then_else", t->dtype, {c, t, f}); };
  std::vector<PrimExpr> shape;
  for (size_t d = 0; d < x.ndim(); ++d) shape.push_back(add(x.shape()[d], intImm(before[d] + after[d], x.shape()[d]->dtype)));
  std::string stage = mode == "reflect" ? "ReflectPadInput" : mode == "replicate" ? "ReplicatePadInput" : "CircularPadInput";
  return kb.compute(stage, shape, x.dtype(), [&](const Indices& i) {
    Indices idx;
    for (size_t d = 0; d < x.ndim(); ++d) {
      DataType t = i[d]->dtype;
      PrimExpr size = x.shape()[d], o = sub(i[d], intImm(before[d], t)), zero = intImm(0, t);
      if (mode == "reflect") {
        // o < 0: -o (the edge is not repeated); o >= size: 2 * size - 2 - o.
        PrimExpr twice = sub(te::idxMul(intImm(2, t), size), intImm(2, t));
        idx.push_back(select(te::bin(NodeKind::LT, o, zero), te::bin(NodeKind::Mul, o, intImm(-1, t)),
                             select(te::bin(NodeKind::LE, size, o), sub(twice, o), o)));
      } else if (mode == "replicate") {
        idx.push_back(select(te::bin(NodeKind::LT, o, zero), zero, select(te::bin(NodeKind::LE, size, o), sub(size, intImm(1, t)), o)));
      } else {
        // (o + size) floormod size; x floormod 1 folds to 0 as in TVM.
        auto one = asIntImm(size);
        idx.push_back(one && one->value == 1 ? zero : te::bin(NodeKind::FloorMod, te::idxAdd(o, size), size));
      }
    }
    return x(idx);
  }, "i");
}

}  // namespace

void registerConvRules() {
  registerRule("relax.nn.conv1d", "conv1d", convRule(1));
  registerRule("relax.nn.conv2d", "conv2d", convRule(2));
  registerRule("relax.nn.conv3d", "conv3d", convRule(3));
  // TVM's _nn_pad picks the topi function by pad_mode: topi.nn.pad (stage PadInput, kernel "pad")
  // for constant, reflect_pad / replicate_pad / circular_pad (kernels named after them) otherwise.
  registerRule("relax.nn.pad", "pad", [](Ctx& ctx) -> std::vector<Tensor> {
    auto x = ctx.arg(0);
    if (!x) return {};
    std::string mode = ops::attrString(ctx.call, "pad_mode", "constant");
    std::vector<int64_t> widths = ops::attrInts(ctx.call, "pad_width");
    if (widths.size() != 2 * x->ndim()) return {};
    std::vector<int64_t> before, after;
    for (size_t d = 0; d < x->ndim(); ++d) {
      if (widths[2 * d] < 0 || widths[2 * d + 1] < 0) return {};
      before.push_back(widths[2 * d]), after.push_back(widths[2 * d + 1]);
    }
    if (mode == "constant") {
      PrimExpr value = te::constant(ops::attrReal(ctx.call, "pad_value", 0), x->dtype());
      return {padStage(ctx.kb, *x, before, after, value, "PadInput", "i")};
    }
    // "edge" is rlx's older spelling of replicate (the evaluator treats them alike).
    if (mode == "edge") mode = "replicate";
    if (mode != "reflect" && mode != "replicate" && mode != "circular") return {};
    // topi reads out of bounds where a single reflection cannot cover the padding, or when an
    // empty dim is padded: such calls stay unlegalized rather than become unsafe kernels.
    for (size_t d = 0; d < x->ndim(); ++d) {
      auto size = asIntImm(x->shape()[d]);
      if (!size || (before[d] == 0 && after[d] == 0)) continue;
      if (size->value == 0 || (mode == "reflect" && (before[d] >= size->value || after[d] >= size->value))) return {};
    }
    ctx.kernelName = mode + "_pad";
    return {modePadStage(ctx.kb, *x, before, after, mode)};
  });
}

}  // namespace rlx::legalize
