// FuseSoftmaxAttention: `o = matmul(softmax(matmul(q, k), axis=-1), v)` becomes one R.call_tir of a
// private "softmax_attention" kernel (rlx's CPU build, before LegalizeOps; no TVM counterpart).
// Why: apart, the scores are written whole, read back by the softmax, written again and read by the
// second matmul; at Whisper's 6 x 1500 x 1500 that is 54 MB a pass, and the three kernels were
// memory-bound (59 ms a layer). The kernel's TIR is the three ops' legalized stages in one function
// (its meaning for the interpreter and any other backend); it carries the func attr
// "rlx.kernel": "softmax_attention", by which the CPU schedule runs it as the runtime's row-blocked
// kernel instead (runtime/llvm/attention.h), the scores of a block of rows never leaving the cache.
// Matched: float32 with static shapes, q [B.., m, d], k [B.., d, n], v [B.., n, e] with the same batch
// dims B (none, or any number), the scores and the probabilities used only there. Dataflow blocks only.
// Before: `s = R.matmul(q, k); p = R.nn.softmax(s, axis=-1); o = R.matmul(p, v)`
// After:  `o = R.call_tir(cls.softmax_attention, (q, k, v), out_sinfo=R.Tensor((6, 1500, 64), dtype="float32"))`.
#include <unordered_map>
#include <unordered_set>

#include "ir/expr_walk.h"
#include "passes/binding_rewriter.h"
#include "passes/kernel_table.h"
#include "passes/legalize/legalize.h"
#include "passes/op_builder.h"
#include "passes/registry.h"
#include "passes/softmax_attention_kernel.h"
#include "passes/remove_all_unused.h"

namespace rlx {

namespace {

// The static shape of a float32 tensor expression, else nullopt.
std::optional<std::vector<int64_t>> float32Shape(const Expr& e) {
  auto t = e->sinfo.as<TensorSInfo>();
  if (!t || t->dtype != DataType::float32() || !t->dims()) return std::nullopt;
  std::vector<int64_t> shape;
  for (const PrimExpr& d : *t->dims()) {
    auto c = asIntImm(d);
    if (!c || c->value <= 0) return std::nullopt;
    shape.push_back(c->value);
  }
  return shape;
}

// Whether `c` is R.matmul computing float32 (its out_dtype unset or float32).
bool isFloatMatmul(const Call* c) {
  if (!c || c->opName() != "relax.matmul" || c->args.size() != 2) return false;
  auto out = c->sinfo.as<TensorSInfo>();
  return out && out->dtype == DataType::float32();
}

class AttentionFuser : public BindingRewriter {
 public:
  AttentionFuser(IRModuleRef& mod, KernelTable& kernels, const std::unordered_map<const Var*, int>& uses) : mod_(mod), kernels_(kernels), uses_(uses) {}
  // The scores and probabilities vars the fused kernels consumed.
  std::unordered_set<const Var*> consumed;

 protected:
  Expr rewriteValue(const BindingRef&, const Expr& value) override {
    if (!inDataflow()) return nullptr;
    auto second = value.as<Call>();
    if (!isFloatMatmul(second.get())) return nullptr;
    auto p = second->args[0].as<Var>();
    auto softmax = boundValue(second->args[0]).as<Call>();
    if (!p || !usedOnce(p.get()) || !softmax || softmax->opName() != "relax.nn.softmax" || softmax->args.size() != 1) return nullptr;
    auto s = softmax->args[0].as<Var>();
    auto first = boundValue(softmax->args[0]).as<Call>();
    if (!s || !usedOnce(s.get()) || !isFloatMatmul(first.get())) return nullptr;
    auto q = float32Shape(first->args[0]), k = float32Shape(first->args[1]), v = float32Shape(second->args[1]);
    if (!q || !k || !v || q->size() < 2 || k->size() != q->size() || v->size() != q->size()) return nullptr;
    size_t r = q->size();
    if (!lastAxis(*softmax, r)) return nullptr;
    for (size_t d = 0; d + 2 < r; ++d)
      if ((*k)[d] != (*q)[d] || (*v)[d] != (*q)[d]) return nullptr;
    if ((*k)[r - 2] != (*q)[r - 1] || (*v)[r - 2] != (*k)[r - 1]) return nullptr;
    consumed.insert(p.get()), consumed.insert(s.get());
    return call(*second, first->args[0], first->args[1], second->args[1]);
  }

 private:
  bool usedOnce(const Var* v) const {
    auto it = uses_.find(v);
    return it != uses_.end() && it->second == 1;
  }

  static bool lastAxis(const Call& softmax, size_t rank) {
    const Attr* axis = softmax.attrs ? softmax.attrs->find("axis") : nullptr;
    if (!axis || !*axis || (*axis)->kind != AttrValue::Int) return false;
    int64_t a = (*axis)->i;
    return a == -1 || a == int64_t(rank) - 1;
  }

  // R.call_tir of the kernel over (q, k, v), with the second matmul's result.
  Expr call(const Call& second, const Expr& q, const Expr& k, const Expr& v) {
    auto shaped = make<Call>(second.op, std::vector<Expr>{q, k, v}, nullptr);
    shaped->sinfo = second.sinfo;
    legalize::Ctx ctx(*shaped);
    auto qt = ctx.arg(0), kt = ctx.arg(1), vt = ctx.arg(2);
    if (!qt || !kt || !vt) return nullptr;
    te::Tensor scores = product(ctx.kb, *qt, *kt);
    te::Tensor probabilities = legalize::softmaxStages(ctx.kb, scores, int64_t(scores.ndim()) - 1, false);
    te::Tensor out = product(ctx.kb, probabilities, *vt);
    PrimFuncRef kernel = ctx.kb.build(ctx.inputs, {out});
    AttrsRef attrs = withDictAttr(kernel->attrs, "op_pattern", AttrValue::integer(8));  // opaque: FuseOps leaves it alone
    attrs = withDictAttr(attrs, kKernelAttr, AttrValue::str(kSoftmaxAttention));
    kernel = withPrimFuncAttrs(*kernel, attrs);
    PyValue outSInfo;
    outSInfo.kind = PyValue::SInfo;
    outSInfo.sinfo = second.sinfo;
    return build::call("call_tir", {build::e(kernels_.add(mod_, kernel, kSoftmaxAttention)), build::e(make<Tuple>(ctx.tirArgs))}, {{"out_sinfo", outSInfo}});
  }

  // a @ b over their last two axes (batch dims equal): the stage LegalizeOps builds for R.matmul.
  static te::Tensor product(te::KernelBuilder& kb, const te::Tensor& a, const te::Tensor& b) {
    std::vector<PrimExpr> shape(a.shape().begin(), a.shape().end() - 1);
    shape.push_back(b.shape().back());
    return legalize::matmulStage(kb, a, b, shape, DataType::float32());
  }

  IRModuleRef& mod_;
  KernelTable& kernels_;
  const std::unordered_map<const Var*, int>& uses_;
};

}  // namespace

Result<Pass> createFuseSoftmaxAttentionPass(PassOptions&) {
  return Pass({"FuseSoftmaxAttention", 0, {}}, [](const IRModuleRef& mod, const PassContext& ctx) -> Result<IRModuleRef> {
    IRModuleRef out = mod;
    KernelTable kernels;
    for (auto& e : mod->functions) {
      if (e.func->kind() != NodeKind::Function || !ctx.inScope(e.gvar->name)) continue;
      std::unordered_map<const Var*, int> uses;
      walkExpr(e.func, [&](const Expr& x) {
        if (auto v = x.as<Var>()) ++uses[v.get()];
      });
      AttentionFuser fuser(out, kernels, uses);
      Expr f = fuser.mutate(e.func);
      if (f.same(e.func)) continue;
      out = withFunction(out, e.gvar, removeUnusedBindingsOf(f, fuser.consumed));
    }
    return out;
  });
}

}  // namespace rlx
