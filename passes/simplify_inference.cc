// SimplifyInference: rewrites normalization ops into the arithmetic they compute at inference
// time (Relay's SimplifyInference; TVM Relax's DecomposeOpsForInference for batch_norm). Why: the
// plain ops fuse with their neighbours and need no special kernels; constant statistics fold.
//  - batch_norm → (x - mean) / sqrt(var + eps) * gamma + beta using the moving statistics (any
//    `training` flag is ignored: this pass is for inference), result (out, moving_mean, moving_var);
//    1-D parameters are expand_dims'ed to broadcast along `axis`;
//  - layer_norm → (x - mean(x)) / sqrt(variance(x) + eps) * gamma + beta over `axes` (keepdims);
//  - dropout → (x, ones_like(x)): identity output and an all-ones mask.
// scale=False / center=False drop the multiply / add. Preconditions: the data's ndim is known.
// Before: `lv = R.nn.batch_norm(x, g, b, m, v, axis=1)` on x (N, C, H, W)
// After:  `lv = R.expand_dims(m, axis=[0, 2, 3]); lv1 = R.subtract(x, lv); ... ; lv9 = (lv8, m, v)`
#include <algorithm>

#include "passes/simplify_inference.h"

#include "ir/ops/infer_util.h"
#include "passes/binding_rewriter.h"
#include "passes/op_builder.h"
#include "passes/registry.h"

namespace rlx {

namespace {

using namespace build;

// `t` (whose dims lie along `axes` of an ndim-D tensor) reshaped to broadcast against it: the
// other dims become size 1 (TVM's ExpandToMatchInput). Trailing axes need nothing unless `expand`
// says Always.
Expr expandToMatch(const Expr& t, int ndim, std::vector<int> axes, ChannelExpand mode = ChannelExpand::WhenNeeded) {
  std::sort(axes.begin(), axes.end());
  bool trailing = true;
  for (size_t k = 0; k < axes.size(); ++k) trailing &= axes[k] == ndim - int(axes.size()) + int(k);
  if (trailing && mode == ChannelExpand::WhenNeeded) return t;
  std::vector<int64_t> expand;
  for (int d = 0; d < ndim; ++d)
    if (!std::binary_search(axes.begin(), axes.end(), d)) expand.push_back(d);
  return call("expand_dims", {e(t), ints(expand)});
}

std::vector<int> normalizedAxes(std::vector<int64_t> axes, int ndim) {
  std::vector<int> out;
  for (auto a : axes) out.push_back(int(a < 0 ? a + ndim : a));
  return out;
}

Expr normalizeStats(const Call& c, Expr centered, Expr var, int ndim, DataType dtype, const std::vector<int>& axes, ChannelExpand expand) {
  Expr eps = scalar(ops::attrReal(c, "epsilon", 1e-5), dtype);
  Expr out = call("divide", {e(centered), e(call("sqrt", {e(call("add", {e(var), e(eps)}))}))});
  if (ops::attrBool(c, "scale", true)) out = call("multiply", {e(out), e(expandToMatch(c.args[1], ndim, axes, expand))});
  if (ops::attrBool(c, "center", true)) out = call("add", {e(out), e(expandToMatch(c.args[2], ndim, axes, expand))});
  return out;
}

}  // namespace

Expr decomposeBatchNorm(const Call& c, int ndim, DataType dtype, ChannelExpand expand) {
  std::vector<int> axis = normalizedAxes({ops::attrInt(c, "axis", 1)}, ndim);
  Expr mean = expandToMatch(c.args[3], ndim, axis, expand);
  Expr var = expandToMatch(c.args[4], ndim, axis, expand);
  Expr centered = call("subtract", {e(c.args[0]), e(mean)});
  return make<Tuple>(std::vector<Expr>{normalizeStats(c, centered, var, ndim, dtype, axis, expand), c.args[3], c.args[4]});
}

Expr decomposeLayerNorm(const Call& c, int ndim, DataType dtype) {
  std::vector<int64_t> raw = ops::attrInts(c, "axes");
  std::vector<int> axes = normalizedAxes(raw, ndim);
  Expr mean = call("mean", {e(c.args[0])}, {{"axis", ints(raw)}, {"keepdims", b(true)}});
  Expr var = call("variance", {e(c.args[0])}, {{"axis", ints(raw)}, {"keepdims", b(true)}});
  Expr centered = call("subtract", {e(c.args[0]), e(mean)});
  return normalizeStats(c, centered, var, ndim, dtype, axes, ChannelExpand::WhenNeeded);
}

namespace {

class InferenceSimplifier : public BindingRewriter {
 protected:
  Expr rewriteValue(const BindingRef&, const Expr& value) override {
    auto c = value.as<Call>();
    if (!c) return nullptr;
    const std::string& op = c->opName();
    if (op == "relax.nn.dropout") return make<Tuple>(std::vector<Expr>{c->args[0], call("ones_like", {e(c->args[0])})});
    if (op != "relax.nn.batch_norm" && op != "relax.nn.layer_norm") return nullptr;
    auto x = sinfoOf(c->args[0]).as<TensorSInfo>();
    if (!x || x->ndim < 0 || x->dtype.isVoid()) return nullptr;
    if (op == "relax.nn.batch_norm") return decomposeBatchNorm(*c, x->ndim, x->dtype, ChannelExpand::WhenNeeded);
    return decomposeLayerNorm(*c, x->ndim, x->dtype);
  }
};

}  // namespace

Result<Pass> createSimplifyInferencePass(PassOptions&) { return makeMutatorPass<InferenceSimplifier>({"SimplifyInference", 0, {}}); }

}  // namespace rlx
