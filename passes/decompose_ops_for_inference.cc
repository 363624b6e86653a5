// DecomposeOpsForInference(func_name=None): TVM's relax pass of that name — rewrites composite ops
// into the primitive ops legalization handles, for inference:
//  - R.nn.batch_norm -> ((x - mean) / sqrt(var + eps) * gamma + beta, moving_mean, moving_var)
//    from the moving statistics, every per-channel operand expand_dims'ed to the data's rank
//    (shared with SimplifyInference, passes/simplify_inference.h);
//  - R.tensor_to_shape(t) -> R.call_pure_packed("vm.builtin.tensor_to_shape", t,
//    sinfo_args=R.Shape(ndim=k)) matched to k fresh shape vars, and R.shape of those vars.
// layer_norm stays (a single op is more efficient; SimplifyInference decomposes it). With
// func_name, only that function changes. Why: the decomposed form folds constants and fuses.
// Before: `bn = R.nn.batch_norm(x, g, b, m, v, axis=1)`
// After:  `lv = R.expand_dims(m, axis=[0, 2, 3]); lv1 = R.subtract(x, lv); ...; bn = (lv9, m, v)`.
#include "passes/decompose_ops.h"

#include "ir/expr_mutator.h"
#include "passes/binding_rewriter.h"
#include "passes/op_builder.h"
#include "passes/simplify_inference.h"

namespace rlx {

namespace {

class InferenceDecomposer : public BindingRewriter {
 protected:
  Expr rewriteValue(const BindingRef&, const Expr& value) override {
    auto c = value.as<Call>();
    if (!c) return nullptr;
    if (c->opName() == "relax.nn.batch_norm") {
      auto x = sinfoOf(c->args[0]).as<TensorSInfo>();
      if (!x || x->ndim < 0 || x->dtype.isVoid()) return nullptr;
      return decomposeBatchNorm(*c, x->ndim, x->dtype, ChannelExpand::Always);
    }
    if (c->opName() == "relax.tensor_to_shape") return tensorToShape(*c);
    return nullptr;
  }

 private:
  // The shape a tensor holds, known only at run time: symbolic vars bound by a match_cast.
  Expr tensorToShape(const Call& c) {
    auto s = c.sinfo ? c.sinfo.as<ShapeSInfo>() : Ref<ShapeSInfo>();
    if (!s || s->ndim < 0) return nullptr;
    Expr packed = makeCall("relax.call_pure_packed", {make<ExternFunc>("vm.builtin.tensor_to_shape"), c.args[0]}, nullptr, {c.sinfo});
    Expr shape = bind(packed);
    std::vector<PrimExpr> dims;
    for (int k = 0; k < s->ndim; ++k) dims.push_back(make<PrimVar>("x", DataType::int64()));
    auto cast = builder().emitMatchCast(shape, make<ShapeSInfo>(dims, int(dims.size())), "", c.span);
    if (!cast.ok()) return nullptr;
    return make<ShapeExpr>(dims);
  }
};

}  // namespace

Expr decomposeOpsForInference(const Expr& func) {
  InferenceDecomposer d;
  return d.mutate(func);
}

Result<Pass> makeDecomposePass(const char* name, PassOptions& options, std::function<Expr(const Expr&)> fn) {
  std::optional<std::string> funcName;
  if (!options.isNone("func_name")) funcName = options.string("func_name");
  std::string passName = name;
  return Pass({name, 0, {}}, [fn, funcName, passName](const IRModuleRef& mod, const PassContext& ctx) -> Result<IRModuleRef> {
    if (funcName) {
      auto* f = mod->find(*funcName);
      if (!f || f->func->kind() != NodeKind::Function) return Error(passName + ": func_name \"" + *funcName + "\" is not a Relax function of the module");
    }
    IRModuleRef out = mod;
    for (auto& e : mod->functions) {
      if (e.func->kind() != NodeKind::Function || !ctx.inScope(e.gvar->name) || (funcName && e.gvar->name != *funcName)) continue;
      Expr f = fn(e.func);
      if (!f.same(e.func)) out = withFunction(out, e.gvar, f);
    }
    return out;
  });
}

Result<Pass> createDecomposeOpsForInferencePass(PassOptions& options) { return makeDecomposePass("DecomposeOpsForInference", options, decomposeOpsForInference); }

}  // namespace rlx
