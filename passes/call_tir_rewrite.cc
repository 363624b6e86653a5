// CallTIRRewrite: destination passing for call_tir, call_tir_inplace and call_dps_packed, as TVM's
// relax.transform.CallTIRRewrite does. Why: the VM calls kernels with their outputs as arguments, so
// each output becomes an explicit R.builtin.alloc_tensor the memory planner can see.
// Every output (a tensor, or each field of a tuple out_sinfo) gets `allocN = R.builtin.alloc_tensor(
// shape, dtype, dev, scope)` (in-place outputs reuse their input), the callee is called with inputs then
// outputs (`R.vm.call_tir_dyn(f, (inputs, outputs, tir_vars))` when tir_vars are given), and the
// binding takes the output (a tuple of them for tuple out_sinfo). Alloc names count across the module.
// Before: `lv = R.call_tir(cls.add, (x,), out_sinfo=R.Tensor((2,), "float32"))`; after:
// `alloc = R.builtin.alloc_tensor(R.shape([2]), ...)`, `cls.add(x, alloc)`, `lv = alloc`.
#include "ir/ops/infer_util.h"
#include "passes/binding_rewriter.h"
#include "passes/registry.h"

namespace rlx {

namespace {

// The device index and memory scope of a tensor's vdevice ("kind:index:scope"; none: 0, "global").
std::pair<int64_t, std::string> deviceOf(const TensorSInfo& t) {
  if (t.vdevice.empty()) return {0, "global"};
  size_t a = t.vdevice.find(':');
  size_t b = a == std::string::npos ? a : t.vdevice.find(':', a + 1);
  int64_t index = a == std::string::npos ? 0 : std::stoll(t.vdevice.substr(a + 1, b - a - 1));
  std::string scope = b == std::string::npos ? "global" : t.vdevice.substr(b + 1);
  return {index, scope};
}

class Rewriter : public BindingRewriter {
 protected:
  Expr rewriteValue(const BindingRef&, const Expr& value) override {
    auto c = value.as<Call>();
    if (!c) return nullptr;
    const std::string& op = c->opName();
    bool inplace = op == "relax.call_tir_inplace";
    if (op != "relax.call_tir" && !inplace && op != "relax.call_dps_packed") return nullptr;
    if (c->args.size() < 2 || !c->sinfo) return nullptr;
    std::vector<StructInfo> outSInfo;
    if (c->sinfo.is<TensorSInfo>()) outSInfo.push_back(c->sinfo);
    else if (auto t = c->sinfo.as<TupleSInfo>()) outSInfo = t->fields;
    else return nullptr;
    std::vector<int64_t> inplaceIndices = inplace ? ops::attrInts(*c, "inplace_indices") : std::vector<int64_t>{};
    auto inputs = c->args[1].as<Tuple>();

    for (auto& s : outSInfo) {
      auto t = s.as<TensorSInfo>();
      if (!t || !t->shape.is<ShapeExpr>()) return nullptr;  // TVM requires known shapes here
    }

    std::vector<Expr> outs;
    for (size_t i = 0; i < outSInfo.size(); ++i) {
      auto t = outSInfo[i].as<TensorSInfo>();
      int64_t k = i < inplaceIndices.size() ? inplaceIndices[i] : -1;
      if (k != -1 && inputs && k < int64_t(inputs->fields.size())) {
        outs.push_back(inputs->fields[size_t(k)]);
        continue;
      }
      auto [dev, scope] = deviceOf(*t);
      Expr alloc = makeCall("relax.builtin.alloc_tensor", {t->shape, make<DataTypeImm>(t->dtype), primValue(dev), make<StringImm>(scope)}, nullptr, {outSInfo[i]});
      auto var = builder().emit(alloc, allocName(), c->span);
      if (!var.ok()) return nullptr;
      outs.push_back(var.value());
    }

    // Inputs, then the outputs the callee writes (in-place outputs are inputs already).
    std::vector<Expr> args = inputs ? inputs->fields : std::vector<Expr>{c->args[1]};
    for (size_t i = 0; i < outs.size(); ++i)
      if (!inplace || i >= inplaceIndices.size() || inplaceIndices[i] == -1) args.push_back(outs[i]);
    Expr call;
    if (inputs && c->args.size() > 2) {
      args.push_back(c->args[2]);  // tir_vars: the VM unpacks them after the tensors
      call = makeCall("relax.vm.call_tir_dyn", {c->args[0], make<Tuple>(std::move(args))});
    } else {
      call = make<Call>(c->args[0], std::move(args));
    }
    if (!builder().emit(call, "_", c->span).ok()) return nullptr;
    return outs.size() == 1 ? outs[0] : Expr(make<Tuple>(std::move(outs)));
  }

 private:
  // TVM's name supply: alloc, alloc1, alloc2, ... over the whole pass run.
  std::string allocName() { return allocCount_ ? "alloc" + std::to_string(allocCount_++) : (allocCount_++, "alloc"); }
  int allocCount_ = 0;
};

}  // namespace

Result<Pass> createCallTIRRewritePass(PassOptions&) {
  return Pass({"CallTIRRewrite", 0, {}}, [](const IRModuleRef& mod, const PassContext& ctx) -> Result<IRModuleRef> {
    IRModuleRef out = mod;
    Rewriter rewriter;  // one for the module: alloc names keep counting across functions
    for (auto& e : mod->functions) {
      if (e.func->kind() != NodeKind::Function || !ctx.inScope(e.gvar->name)) continue;
      Expr f = rewriter.mutate(e.func);
      if (!f.same(e.func)) out = withFunction(out, e.gvar, f);
    }
    return out;
  });
}

}  // namespace rlx
