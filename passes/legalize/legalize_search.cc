// Legalization of argmax / argmin as topi's CommReduceIdx: one tuple reduction <x>_red_temp of
// (index, value) pairs, ties going to the first index, then <x>_red copying the indices out.
#include "ir/ops/infer_util.h"
#include "passes/legalize/legalize.h"

namespace rlx::legalize {

namespace {

using te::Indices;
using te::Tensor;

Rule argRule(bool isMax) {
  return [isMax](Ctx& ctx) -> std::vector<Tensor> {
    auto x = ctx.arg(0);
    auto shape = ctx.outShape();
    DataType it = ctx.outDtype();
    if (!x || !shape || x->ndim() == 0 || !it.isInt()) return {};
    size_t nd = x->ndim();
    std::vector<bool> red(nd, false);
    const Attr* axisAttr = ops::findAttr(ctx.call, "axis");
    if (!axisAttr || !*axisAttr) {
      red.assign(nd, true);
    } else {
      int64_t a = ops::attrInt(ctx.call, "axis", -1);
      a = a < 0 ? a + int64_t(nd) : a;
      if (a < 0 || a >= int64_t(nd)) return {};
      red[a] = true;
    }
    bool keep = ops::attrBool(ctx.call, "keepdims", false);
    std::vector<te::ReduceAxis> axes;
    for (size_t d = 0; d < nd; ++d)
      if (red[d]) axes.push_back(ctx.kb.reduceAxis(x->shape()[d], "k" + std::to_string(d)));
    DataType t = x->dtype();
    PrimExpr worst = te::identity(isMax ? te::Combiner::Max : te::Combiner::Min, t);
    auto temp = ctx.kb.reduceTuple(x->buf->name + "_red_temp", *shape, {it, t}, axes, {intImm(-1, it), worst},
                                   [&](const Indices& sp, const Indices& r, const std::vector<PrimExpr>& acc) -> std::vector<PrimExpr> {
                                     Indices idx;
                                     PrimExpr flat;  // the reduced position, raveled over the reduced dims
                                     size_t si = 0, ri = 0;
                                     for (size_t d = 0; d < nd; ++d) {
                                       if (red[d]) {
                                         PrimExpr k = r[ri++];
                                         idx.push_back(k);
                                         flat = flat ? te::idxAdd(te::idxMul(flat, x->shape()[d]), k) : k;
                                         if (keep) ++si;
                                       } else {
                                         idx.push_back(sp[si++]);
                                       }
                                     }
                                     PrimExpr v = (*x)(idx);
                                     if (flat->dtype != it) flat = make<Cast>(it, flat);
                                     // The accumulator wins when better, or equal with the smaller index.
                                     PrimExpr better = isMax ? te::bin(NodeKind::LT, v, acc[1]) : te::bin(NodeKind::LT, acc[1], v);
                                     PrimExpr keepIdx = te::bin(NodeKind::Or, better, te::bin(NodeKind::And, te::bin(NodeKind::EQ, acc[1], v), te::bin(NodeKind::LT, acc[0], flat)));
                                     return {PrimExpr(make<Select>(keepIdx, acc[0], flat)), PrimExpr(make<Select>(better, acc[1], v))};
                                   });
    return {ctx.kb.compute(x->buf->name + "_red", *shape, it, [&](const Indices& i) { return temp[0](i); }, "ax")};
  };
}

}  // namespace

void registerSearchRules() {
  registerRule("relax.argmax", "argmax", argRule(true));
  registerRule("relax.argmin", "argmin", argRule(false));
}

}  // namespace rlx::legalize
