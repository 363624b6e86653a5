// Legalization of R.matmul as TVM's te definition: one "matmul" reduction block (i loops, k),
// batch dims broadcast numpy-style, 1-D operands promoted and their dim dropped.
#include "passes/legalize/legalize.h"

namespace rlx::legalize {

te::Tensor matmulStage(te::KernelBuilder& kb, const te::Tensor& a, const te::Tensor& b, const std::vector<PrimExpr>& out, DataType t) {
  size_t an = a.ndim(), bn = b.ndim();
  size_t nb = out.size() - (an > 1) - (bn > 1);  // output batch dims
  auto k = kb.reduceAxis(a.shape().back(), "k");
  return kb.reduce("matmul", out, t, {k}, te::Combiner::Sum, [&](const te::Indices& i, const te::Indices& r) {
    auto batch = [&](const te::Tensor& x, size_t nd) {
      te::Indices idx;
      for (size_t d = 0; d + 2 < nd; ++d) {
        size_t o = nb - (nd - 2) + d;
        auto xd = asIntImm(x.shape()[d]);
        auto od = asIntImm(out[o]);
        idx.push_back(xd && xd->value == 1 && !(od && od->value == 1) ? intImm(0) : i[o]);
      }
      return idx;
    };
    te::Indices ai = batch(a, an), bi = batch(b, bn);
    if (an > 1) ai.push_back(i[nb]);
    ai.push_back(r[0]);
    bi.push_back(r[0]);
    if (bn > 1) bi.push_back(i[nb + (an > 1)]);
    PrimExpr x = a(ai), y = b(bi);
    if (x->dtype != t) x = make<Cast>(t, x);
    if (y->dtype != t) y = make<Cast>(t, y);
    return te::bin(NodeKind::Mul, x, y);
  });
}

void registerMatmulRules() {
  registerRule("relax.matmul", "matmul", [](Ctx& ctx) -> std::vector<te::Tensor> {
    auto a = ctx.arg(0), b = ctx.arg(1);
    auto shape = ctx.outShape();
    if (!a || !b || !shape || a->ndim() == 0 || b->ndim() == 0) return {};
    return {matmulStage(ctx.kb, *a, *b, *shape, ctx.outDtype())};
  });
}

}  // namespace rlx::legalize
