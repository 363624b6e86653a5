// DecomposeOpsForTraining(func_name=None): TVM's relax pass of that name. First the ops whose
// training form differs are rewritten, then DecomposeOpsForInference runs:
//  - R.nn.batch_norm normalizes with the batch's own statistics (mean and variance over every
//    axis but `axis`) and returns updated moving statistics:
//      (batch_norm(x, gamma, beta, mean(x), variance(x))[0],
//       (1 - momentum) * moving_mean + momentum * mean(x),
//       (1 - momentum) * moving_var + momentum * variance(x))
//    and that inner batch_norm is then decomposed as at inference;
//  - R.nn.layer_norm is decomposed (passes/simplify_inference.h).
// With func_name, only that function changes. Why: training graphs need the explicit statistics
// (gradients flow through them) and kernels for primitive ops only.
// Before: `bn = R.nn.batch_norm(x, g, b, mm, mv, axis=1, momentum=0.1)`
// After:  `lv = R.mean(x, axis=[0, 2, 3]); lv1 = R.variance(...); ...;
//          bn = (lv11, R.add(0.9 * mm, 0.1 * lv), ...)` (its calls bound to vars).
#include "ir/ops/infer_util.h"
#include "passes/binding_rewriter.h"
#include "passes/decompose_ops.h"
#include "passes/op_builder.h"
#include "passes/simplify_inference.h"

namespace rlx {

namespace {

using namespace build;

class TrainingOpsMutator : public BindingRewriter {
 protected:
  Expr rewriteValue(const BindingRef&, const Expr& value) override {
    auto c = value.as<Call>();
    if (!c || (c->opName() != "relax.nn.batch_norm" && c->opName() != "relax.nn.layer_norm")) return nullptr;
    auto x = sinfoOf(c->args[0]).as<TensorSInfo>();
    if (!x || x->ndim < 0 || x->dtype.isVoid()) return nullptr;
    if (c->opName() == "relax.nn.layer_norm") return decomposeLayerNorm(*c, x->ndim, x->dtype);
    int64_t axis = ops::attrInt(*c, "axis", 1);
    if (axis < 0) axis += x->ndim;
    std::vector<int64_t> reduce;
    for (int64_t k = 0; k < x->ndim; ++k)
      if (k != axis) reduce.push_back(k);
    // Bound once: both the normalization and the moving-statistics update read them.
    Expr mean = bind(call("mean", {e(c->args[0])}, {{"axis", ints(reduce)}, {"keepdims", b(false)}}));
    Expr var = bind(call("variance", {e(c->args[0])}, {{"axis", ints(reduce)}, {"keepdims", b(false)}}));
    double momentum = ops::attrReal(*c, "momentum", 0.1);
    Expr keep = scalar(1 - momentum, x->dtype), take = scalar(momentum, x->dtype);
    auto normalized = make<Call>(c->op, std::vector<Expr>{c->args[0], c->args[1], c->args[2], mean, var}, c->attrs, c->sinfoArgs);
    auto update = [&](const Expr& moving, const Expr& batch) {
      return call("add", {e(call("multiply", {e(keep), e(moving)})), e(call("multiply", {e(take), e(batch)}))});
    };
    return make<Tuple>(std::vector<Expr>{make<TupleGetItem>(normalized, 0), update(c->args[3], mean), update(c->args[4], var)});
  }
};

Expr decomposeOpsForTraining(const Expr& func) {
  TrainingOpsMutator m;
  return decomposeOpsForInference(m.mutate(func));
}

}  // namespace

Result<Pass> createDecomposeOpsForTrainingPass(PassOptions& options) { return makeDecomposePass("DecomposeOpsForTraining", options, decomposeOpsForTraining); }

}  // namespace rlx
