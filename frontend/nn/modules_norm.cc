// LayerNorm, RMSNorm, GroupNorm (see modules.h).
#include "frontend/nn/modules.h"

namespace rlx::nn {

LayerNorm::LayerNorm(int64_t n, double e, bool affine, std::optional<DType> dtype) : normalizedShape(n), eps(e) {
  if (!affine) fail("LayerNorm without elementwise affine parameters is not supported");
  weight = registerParameter("weight", Parameter::create({n}, dtype));
  bias = registerParameter("bias", Parameter::create({n}, dtype));
}

Tensor LayerNorm::forward(const Tensor& x) { return op::layerNorm(x, {normalizedShape}, weight, bias, eps); }

RMSNorm::RMSNorm(int64_t hidden, std::vector<int64_t> a, double e, bool withBias, std::optional<DType> dtype) : axes(std::move(a)), epsilon(e) {
  weight = registerParameter("weight", Parameter::create({hidden}, dtype));
  if (withBias) bias = registerParameter("bias", Parameter::create({hidden}, dtype));
}

Tensor RMSNorm::forward(const Tensor& x) {
  Tensor y = op::rmsNorm(x, weight, axes, epsilon);
  return bias ? op::add(y, bias) : y;
}

GroupNorm::GroupNorm(int64_t groups, int64_t channels, double e, bool affine, std::optional<DType> dtype) : numGroups(groups), eps(e) {
  if (!affine) fail("GroupNorm without affine parameters is not supported");
  if (groups <= 0 || channels % groups != 0) fail("GroupNorm: channels (" + std::to_string(channels) + ") must be divisible by groups (" + std::to_string(groups) + ")");
  weight = registerParameter("weight", Parameter::create({channels}, dtype));
  bias = registerParameter("bias", Parameter::create({channels}, dtype));
}

Tensor GroupNorm::forward(const Tensor& x) { return op::groupNorm(x, numGroups, weight, bias, eps); }

}  // namespace rlx::nn
