// FuseTransposeMatmul: matmul(x, permute_dims(w)) with the permute swapping w's last two axes
// becomes one R.call_tir of a private "NT_matmul" kernel reading w untransposed (TVM's relax
// FuseTransposeMatmul, which gets there through FuseOpsByPattern and call_te).
// Why: x @ w^T is how linear layers store their weight ([out, in]); a kernel that indexes w[j, k]
// saves materializing the transpose. Only XW^T is fused, not X^TW. Run before LegalizeOps.
// The kernel is the matmul reduction (batch dims broadcast numpy-style, 1-D x promoted, inputs cast
// to the result dtype when it differs); structurally equal kernels are shared; the permute_dims
// binding goes when nothing else uses it. In dataflow blocks only, as pattern fusion is.
// Before: `wT = R.permute_dims(w, [1, 0]); o = R.matmul(x, wT)`
// After:  `o = R.call_tir(cls.NT_matmul, (x, w), out_sinfo=R.Tensor((128, 128), dtype="float32"))`.
#include <unordered_set>

#include "ir/expr_walk.h"
#include "ir/ops/infer_util.h"
#include "passes/binding_rewriter.h"
#include "passes/kernel_table.h"
#include "passes/legalize/legalize.h"
#include "passes/op_builder.h"
#include "passes/registry.h"
#include "passes/remove_all_unused.h"

namespace rlx {

namespace {

class TransposeMatmulFuser : public BindingRewriter {
 public:
  TransposeMatmulFuser(IRModuleRef& mod, KernelTable& kernels) : mod_(mod), kernels_(kernels) {}
  // The permute_dims vars whose value a fused kernel now reads directly.
  std::unordered_set<const Var*> consumed;

 protected:
  Expr rewriteValue(const BindingRef&, const Expr& value) override {
    if (!inDataflow()) return nullptr;
    auto mm = value.as<Call>();
    if (!mm || mm->opName() != "relax.matmul" || mm->args.size() != 2 || !mm->sinfo) return nullptr;
    auto wT = boundValue(mm->args[1]).as<Call>();
    if (!wT || !ops::swapsLastTwoAxes(*wT)) return nullptr;
    if (auto v = mm->args[1].as<Var>()) consumed.insert(v.get());
    auto out = mm->sinfo.as<TensorSInfo>();
    if (!out || !out->dims() || out->dtype.isVoid()) return nullptr;
    // The kernel's inputs come from a call shaped like the fused one: (x, w) with its result.
    auto shaped = make<Call>(mm->op, std::vector<Expr>{mm->args[0], wT->args[0]}, mm->attrs);
    shaped->sinfo = mm->sinfo;
    legalize::Ctx ctx(*shaped);
    auto x = ctx.arg(0), w = ctx.arg(1);
    if (!x || !w || x->ndim() == 0) return nullptr;
    std::vector<PrimExpr> shape = ctx.kb.mapShape(*out->dims());
    DataType t = out->dtype;
    size_t xn = x->ndim(), wn = w->ndim();
    size_t nb = shape.size() - (xn > 1) - 1;  // output batch dims
    auto k = ctx.kb.reduceAxis(x->shape().back(), "k");
    te::Tensor result = ctx.kb.reduce("NT_matmul", shape, t, {k}, te::Combiner::Sum, [&](const te::Indices& i, const te::Indices& r) {
      // Batch dims align at the right; a dim of extent 1 under a larger output dim reads index 0.
      auto batch = [&](const te::Tensor& a, size_t nd) {
        te::Indices idx;
        for (size_t d = 0; d + 2 < nd; ++d) {
          size_t o = nb - (nd - 2) + d;
          auto ad = asIntImm(a.shape()[d]);
          auto od = asIntImm(shape[o]);
          idx.push_back(ad && ad->value == 1 && !(od && od->value == 1) ? intImm(0) : i[o]);
        }
        return idx;
      };
      te::Indices xi = batch(*x, xn), wi = batch(*w, wn);
      if (xn > 1) xi.push_back(i[nb]);
      xi.push_back(r[0]);
      wi.push_back(i[nb + (xn > 1)]);
      wi.push_back(r[0]);
      PrimExpr a = (*x)(xi), b = (*w)(wi);
      if (a->dtype != t) a = make<Cast>(t, a);
      if (b->dtype != t) b = make<Cast>(t, b);
      return te::bin(NodeKind::Mul, a, b);
    });
    PrimFuncRef kernel = ctx.kb.build(ctx.inputs, {result});
    PyValue outSInfo;
    outSInfo.kind = PyValue::SInfo;
    outSInfo.sinfo = mm->sinfo;
    return build::call("call_tir", {build::e(kernels_.add(mod_, kernel, "NT_matmul")), build::e(make<Tuple>(ctx.tirArgs))}, {{"out_sinfo", outSInfo}});
  }

 private:
  IRModuleRef& mod_;
  KernelTable& kernels_;
};

}  // namespace

Result<Pass> createFuseTransposeMatmulPass(PassOptions&) {
  return Pass({"FuseTransposeMatmul", 0, {}}, [](const IRModuleRef& mod, const PassContext& ctx) -> Result<IRModuleRef> {
    IRModuleRef out = mod;
    KernelTable kernels;
    for (auto& e : mod->functions) {
      if (e.func->kind() != NodeKind::Function || !ctx.inScope(e.gvar->name)) continue;
      TransposeMatmulFuser fuser(out, kernels);
      Expr f = fuser.mutate(e.func);
      if (f.same(e.func)) continue;
      out = withFunction(out, e.gvar, removeUnusedBindingsOf(f, fuser.consumed));
    }
    return out;
  });
}

}  // namespace rlx
