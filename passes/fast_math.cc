// FastMath: replaces exp, tanh, erf and softmax on float32 tensors by fast approximations (Relay's
// FastMath; TVM's topi fast_exp / fast_tanh / fast_erf / fast_softmax): each becomes an
// R.call_tir of a kernel added to the module (fast_exp, fast_tanh, fast_erf; one per shape), and
// softmax becomes max / subtract / fast_exp / sum / divide. Why: the approximations are several
// times cheaper than libm calls and vectorize; their error (~1e-7 relative for exp, ~3e-8 for
// tanh, ~7e-8 for erf) is below float32 precision for typical activations. Other dtypes, and
// tensors whose rank is unknown, are left alone. The kernels print as ordinary T.prim_funcs and
// can be stepped through like LegalizeOps output.
// Before: `gv = R.exp(x)` on x (2, 3) float32
// After:  `gv = R.call_tir(cls.fast_exp, (x,), out_sinfo=R.Tensor((2, 3), dtype="float32"))`
#include <map>

#include "ir/ops/infer_util.h"
#include "passes/binding_rewriter.h"
#include "passes/fast_math_kernels.h"
#include "passes/op_builder.h"
#include "passes/registry.h"
#include "printer/printer.h"

namespace rlx {

namespace {

using namespace build;

class FastMathRewriter : public BindingRewriter {
 public:
  using KernelCache = std::map<std::string, GlobalVarRef>;
  FastMathRewriter(IRModuleRef& mod, KernelCache& kernels) : mod_(mod), kernels_(kernels) {}

 protected:
  Expr rewriteValue(const BindingRef&, const Expr& value) override {
    auto c = value.as<Call>();
    if (!c || c->args.empty()) return nullptr;
    auto x = sinfoOf(c->args[0]).as<TensorSInfo>();
    if (!x || !x->dims() || x->dtype != DataType::float32()) return nullptr;
    const std::string& op = c->opName();
    if (op == "relax.exp") return kernelCall(FastKernel::Exp, c->args[0], *x);
    if (op == "relax.tanh") return kernelCall(FastKernel::Tanh, c->args[0], *x);
    if (op == "relax.erf") return kernelCall(FastKernel::Erf, c->args[0], *x);
    if (op == "relax.nn.softmax") {
      int64_t axis = ops::attrInt(*c, "axis", -1);
      Expr m = call("max", {e(c->args[0])}, {{"axis", ints({axis})}, {"keepdims", b(true)}});
      Expr shifted = call("subtract", {e(c->args[0]), e(m)});
      shifted->sinfo = c->args[0]->sinfo;  // same shape: lets the kernel be built before normalization
      Expr ex = kernelCall(FastKernel::Exp, shifted, *x);
      if (!ex) return nullptr;
      ex = bind(ex);  // used by both the sum and the division
      Expr s = call("sum", {e(ex)}, {{"axis", ints({axis})}, {"keepdims", b(true)}});
      return call("divide", {e(ex), e(s)});
    }
    return nullptr;
  }

 private:
  Expr kernelCall(FastKernel kind, const Expr& arg, const TensorSInfo& t) {
    GlobalVarRef gv = kernelFor(kind, *t.dims());
    if (!gv) return nullptr;
    PyValue outSInfo;
    outSInfo.kind = PyValue::SInfo;
    outSInfo.sinfo = tensorSInfo(*t.dims(), t.dtype, t.vdevice);
    return call("call_tir", {e(gv), e(make<Tuple>(std::vector<Expr>{arg}))}, {{"out_sinfo", outSInfo}});
  }

  // One kernel per (approximation, shape); names are unique in the module (fast_exp, fast_exp1, …).
  GlobalVarRef kernelFor(FastKernel kind, const std::vector<PrimExpr>& dims) {
    std::string key = std::to_string(int(kind));
    for (auto& d : dims) key += "," + printPrimExpr(d);
    if (auto it = kernels_.find(key); it != kernels_.end()) return it->second;
    std::string base = fastKernelBaseName(kind), name = base;
    for (int i = 1; mod_->find(name); ++i) name = base + std::to_string(i);
    auto kernel = makeFastKernel(kind, dims, name);
    if (!kernel.ok() || !kernel.value()) return nullptr;
    auto gv = make<GlobalVar>(name);
    mod_ = withFunction(mod_, gv, kernel.value());
    return kernels_[key] = gv;
  }

  IRModuleRef& mod_;
  KernelCache& kernels_;
};

}  // namespace

Result<Pass> createFastMathPass(PassOptions&) {
  return Pass({"FastMath", 4, {}}, [](const IRModuleRef& mod, const PassContext&) -> Result<IRModuleRef> {
    IRModuleRef out = mod;
    FastMathRewriter::KernelCache kernels;
    for (auto& e : mod->functions) {
      if (e.func->kind() != NodeKind::Function) continue;
      FastMathRewriter rewriter(out, kernels);
      Expr f = rewriter.mutate(e.func);
      if (!f.same(e.func)) out = withFunction(out, e.gvar, f);
    }
    return out;
  });
}

}  // namespace rlx
