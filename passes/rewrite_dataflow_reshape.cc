// RewriteDataflowReshape: a call_tir of a kernel that only reshapes (hasReshapePattern) becomes
// R.reshape again, as TVM's relax.transform.RewriteDataflowReshape does. Why: R.reshape lowers to
// vm.builtin.reshape, a view that copies nothing, where the kernel would copy every element.
// Only DataflowVar bindings inside dataflow blocks are rewritten (outputs and other blocks stay);
// the kernel must read exactly one of the call's inputs, with the result's dtype, known ndims and a
// provably equal element count. The PrimFunc stays in the module.
// Before: `lv1 = R.call_tir(cls.reshape, (lv,), out_sinfo=R.Tensor((1, n, 12, 64), dtype="float32"))`
// After:  `lv1: R.Tensor((1, n, 12, 64), dtype="float32") = R.reshape(lv, R.shape([1, n, 12, 64]))`.
#include "ir/arith.h"
#include "ir/tir.h"
#include "passes/binding_rewriter.h"
#include "passes/registry.h"
#include "passes/reshape_pattern.h"

namespace rlx {

namespace {

PrimExpr elementCount(const std::vector<PrimExpr>& dims) {
  PrimExpr n = intImm(1);
  for (auto& d : dims) n = mul(n, d);
  return n;
}

class Rewriter : public BindingRewriter {
 public:
  explicit Rewriter(const IRModuleRef& mod) : mod_(mod) {}

 protected:
  Expr rewriteValue(const BindingRef& binding, const Expr& value) override {
    if (!inDataflow() || !binding->var->isDataflow()) return nullptr;
    auto c = value.as<Call>();
    if (!c || c->opName() != "relax.call_tir" || c->args.size() < 2) return nullptr;
    auto gv = c->args[0].as<GlobalVar>();
    auto inputs = c->args[1].as<Tuple>();
    auto prim = gv ? mod_->lookup(gv->name).as<PrimFunc>() : Ref<PrimFunc>();
    if (!prim || !inputs) return nullptr;
    // FuseTIR may flatten a tuple input into several buffers, of which a reshape reads one.
    std::vector<size_t> used = usedBufferParams(*prim, inputs->fields.size());
    if (used.size() != 1 || !hasReshapePattern(*prim)) return nullptr;
    Expr arg = inputs->fields[used[0]];
    auto in = sinfoOf(arg).as<TensorSInfo>();
    auto out = c->sinfo.as<TensorSInfo>();
    if (!in || !out || in->dtype.isVoid() || in->dtype != out->dtype || in->ndim < 0 || out->ndim < 0) return nullptr;
    // Kernels with a reshape-like pattern that change the element count (strided_slice) stay.
    if (!in->dims() || !out->dims() || !proveEqual(elementCount(*in->dims()), elementCount(*out->dims()))) return nullptr;
    return makeCall("relax.reshape", {arg, out->shape});
  }

 private:
  const IRModuleRef& mod_;
};

}  // namespace

Result<Pass> createRewriteDataflowReshapePass(PassOptions&) {
  return makeFunctionPass({"RewriteDataflowReshape", 0, {}}, [](const Expr& func, const GlobalVarRef&, const IRModuleRef& mod) -> Result<Expr> {
    Rewriter rewriter(mod);
    return rewriter.mutate(func);
  });
}

}  // namespace rlx
