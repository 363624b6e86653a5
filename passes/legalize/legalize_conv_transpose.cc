// Legalization of conv1d/2d_transpose as topi's (group_)conv<d>d_transpose builds them: data_dilate,
// data_pad, a flipped and transposed kernel stage, then one reduction block `compute`.
#include "ir/arith.h"
#include "ir/ops/infer_util.h"
#include "passes/legalize/legalize.h"

namespace rlx::legalize {

namespace {

using te::Indices;
using te::Tensor;

// topi.nn.dilate: the data spread out by `strides` along the spatial dims (zeros in between); a
// stride-1 dim reads straight through.
Tensor dilateStage(Ctx& ctx, const Tensor& x, const std::vector<int64_t>& strides) {
  size_t dim = strides.size();
  std::vector<PrimExpr> shape = x.shape();
  for (size_t s = 0; s < dim; ++s)
    if (strides[s] != 1) shape[2 + s] = add(mul(sub(shape[2 + s], intImm(1)), intImm(strides[s])), intImm(1));
  return ctx.kb.compute("data_dilate", shape, x.dtype(), [&](const Indices& i) {
    Indices idx(i.begin(), i.end());
    PrimExpr cond;
    for (size_t s = 0; s < dim; ++s) {
      if (strides[s] == 1) continue;
      PrimExpr st = intImm(strides[s], i[2 + s]->dtype);
      idx[2 + s] = te::bin(NodeKind::FloorDiv, i[2 + s], st);
      PrimExpr onGrid = te::bin(NodeKind::EQ, te::bin(NodeKind::FloorMod, i[2 + s], st), intImm(0, i[2 + s]->dtype));
      cond = cond ? te::bin(NodeKind::And, cond, onGrid) : onGrid;
    }
    if (!cond) return x(idx);
    return te::call("tir.if_then_else", x.dtype(), {cond, x(idx), te::constant(0, x.dtype())});
  });
}

// topi.nn.pad of the spatial dims by `before` / `after` (symbolic when the kernel size is). A
// negative constant amount crops instead: it needs no bound check on that side.
Tensor padSpatial(Ctx& ctx, const Tensor& x, const std::vector<PrimExpr>& before, const std::vector<PrimExpr>& after) {
  std::vector<PrimExpr> shape = x.shape();
  for (size_t s = 0; s < before.size(); ++s) shape[2 + s] = add(add(shape[2 + s], before[s]), after[s]);
  return ctx.kb.compute("data_pad", shape, x.dtype(), [&](const Indices& i) {
    Indices idx(i.begin(), i.end());
    PrimExpr cond;
    auto both = [&](const PrimExpr& c) { cond = cond ? te::bin(NodeKind::And, cond, c) : c; };
    for (size_t s = 0; s < before.size(); ++s) {
      PrimExpr v = i[2 + s];
      auto b = asIntImm(before[s]), a = asIntImm(after[s]);
      if (b && b->value == 0 && a && a->value == 0) continue;
      if (!b || b->value > 0) both(te::bin(NodeKind::LE, before[s], v));
      if (!a || a->value > 0) both(te::bin(NodeKind::LT, v, simplify(add(x.shape()[2 + s], before[s]))));
      if (!b || b->value != 0) idx[2 + s] = b && b->value < 0 ? te::bin(NodeKind::Add, v, intImm(-b->value, v->dtype)) : te::bin(NodeKind::Sub, v, before[s]);
    }
    if (!cond) return x(idx);
    return te::call("tir.if_then_else", x.dtype(), {cond, x(idx), te::constant(0, x.dtype())});
  });
}

Rule convTransposeRule(size_t dim) {
  return [dim](Ctx& ctx) -> std::vector<Tensor> {
    std::string dataLayout = dim == 1 ? "NCW" : "NCHW", kernelLayout = dim == 1 ? "IOW" : "IOHW";
    // As TVM: topi only computes NC(H)W data with IO(H)W kernels, in the data layout.
    if (ops::attrString(ctx.call, "data_layout", dataLayout) != dataLayout || ops::attrString(ctx.call, "kernel_layout", kernelLayout) != kernelLayout ||
        ops::attrString(ctx.call, "out_layout", dataLayout) != dataLayout)
      return {};
    auto x = ctx.arg(0), w = ctx.arg(1);
    auto shape = ctx.outShape();
    if (!x || !w || !shape || x->ndim() != dim + 2 || w->ndim() != dim + 2) return {};
    std::vector<int64_t> strides = ops::attrInts(ctx.call, "strides"), dil = ops::attrInts(ctx.call, "dilation"), pad = ops::attrInts(ctx.call, "padding"),
                         opad = ops::attrInts(ctx.call, "output_padding");
    int64_t groups = ops::attrInt(ctx.call, "groups", 1);
    if (strides.size() != dim || dil.size() != dim || pad.size() != 2 * dim || opad.size() != dim || groups < 1) return {};
    auto inCc = asIntImm(x->shape()[1]);
    if (groups > 1 && (!inCc || inCc->value % groups)) return {};
    DataType t = ctx.outDtype();

    Tensor dilated = dilateStage(ctx, *x, strides);
    // Padding so that a plain correlation with the flipped kernel gives the transpose: the dilated
    // kernel's extent minus the forward padding on each side, output_padding added at the end.
    std::vector<PrimExpr> before, after, kExt;
    for (size_t s = 0; s < dim; ++s) {
      PrimExpr span = mul(sub(w->shape()[2 + s], intImm(1)), intImm(dil[s]));
      before.push_back(simplify(sub(span, intImm(pad[s]))));
      after.push_back(simplify(add(sub(span, intImm(pad[dim + s])), intImm(opad[s]))));
      kExt.push_back(w->shape()[2 + s]);
    }
    Tensor padded = padSpatial(ctx, dilated, before, after);

    // The kernel as (O per group, I, k...), flipped along every spatial dim.
    PrimExpr outPerGroup = w->shape()[1], inC = x->shape()[1];
    std::vector<PrimExpr> ktShape = {outPerGroup, inC};
    for (auto& k : kExt) ktShape.push_back(k);
    // topi names these loops after the source kernel's dims (group conv2d's: i, o, h, w).
    std::vector<std::string> ktLoops = dim == 1 ? std::vector<std::string>{"o", "i", "w"}
                                                : groups > 1 ? std::vector<std::string>{"i", "o", "h", "w"} : std::vector<std::string>{"o", "i", "h", "w"};
    Tensor kt = ctx.kb.compute(dim == 1 ? "kernel" : "kernel_transform", ktShape, w->dtype(), [&](const Indices& i) {
      Indices idx = {i[1], i[0]};
      for (size_t s = 0; s < dim; ++s) idx.push_back(simplify(sub(sub(kExt[s], intImm(1)), i[2 + s])));
      return (*w)(idx);
    }, te::LoopNames(ktLoops));

    PrimExpr inPerGroup = groups > 1 ? intImm(inCc->value / groups) : inC;
    std::vector<te::ReduceAxis> axes = {ctx.kb.reduceAxis(inPerGroup, "dc")};
    static const char* reduceNames[] = {"dh", "dw"};
    for (size_t s = 0; s < dim; ++s) axes.push_back(ctx.kb.reduceAxis(kExt[s], dim == 1 ? "dw" : reduceNames[s]));
    std::vector<std::string> loops = dim == 1 ? std::vector<std::string>{"b", "c", "w"} : std::vector<std::string>{"b", "c", "h", "w"};
    return {ctx.kb.reduce("compute", *shape, t, axes, te::Combiner::Sum, [&](const Indices& sp, const Indices& r) {
      PrimExpr c = sp[1], chan = r[0], oc = c;
      if (groups > 1) {
        // Output channel c belongs to group c // outPerGroup, whose inputs start at group * inPerGroup.
        chan = te::idxAdd(te::idxMul(te::bin(NodeKind::FloorDiv, c, outPerGroup), inPerGroup), r[0]);
        oc = te::bin(NodeKind::FloorMod, c, outPerGroup);
      }
      Indices xi = {sp[0], chan}, ki = {oc, chan};
      for (size_t s = 0; s < dim; ++s) {
        xi.push_back(te::idxAdd(sp[2 + s], te::idxMul(r[1 + s], intImm(dil[s], r[1 + s]->dtype))));
        ki.push_back(r[1 + s]);
      }
      PrimExpr a = padded(xi), b = kt(ki);
      if (a->dtype != t) a = make<Cast>(t, a);
      if (b->dtype != t) b = make<Cast>(t, b);
      return te::bin(NodeKind::Mul, a, b);
    }, te::LoopNames(loops))};
  };
}

}  // namespace

void registerConvTransposeRules() {
  registerRule("relax.nn.conv1d_transpose", "conv1d_transpose", convTransposeRule(1));
  registerRule("relax.nn.conv2d_transpose", "conv2d_transpose", convTransposeRule(2));
}

}  // namespace rlx::legalize
