// Conv1D, Conv2D, ConvTranspose1D (see modules.h).
#include "frontend/nn/modules.h"

namespace rlx::nn {

namespace {
op::ConvOptions convOptions(const ConvConfig& c, const ParamRef& bias) {
  op::ConvOptions o;
  if (bias) o.bias = Tensor(bias);
  o.stride = {c.stride};
  o.padding = {c.padding};
  o.dilation = {c.dilation};
  o.groups = c.groups;
  return o;
}

void checkGroups(int64_t channels, int64_t groups, const char* what) {
  if (groups <= 0 || channels % groups != 0) fail(std::string(what) + " channels (" + std::to_string(channels) + ") must be divisible by groups (" + std::to_string(groups) + ")");
}
}  // namespace

Conv1D::Conv1D(int64_t in, int64_t out, int64_t k, const ConvConfig& c) : config(c) {
  checkGroups(in, c.groups, "input");
  weight = registerParameter("weight", Parameter::create({out, in / c.groups, k}, c.dtype));
  if (c.bias) bias = registerParameter("bias", Parameter::create({out}, c.dtype));
}

Tensor Conv1D::forward(const Tensor& x) { return op::conv1d(x, weight, convOptions(config, bias)); }

Conv2D::Conv2D(int64_t in, int64_t out, int64_t k, const ConvConfig& c) : config(c) {
  checkGroups(in, c.groups, "input");
  weight = registerParameter("weight", Parameter::create({out, in / c.groups, k, k}, c.dtype));
  if (c.bias) bias = registerParameter("bias", Parameter::create({out}, c.dtype));
}

Tensor Conv2D::forward(const Tensor& x) { return op::conv2d(x, weight, convOptions(config, bias)); }

ConvTranspose1D::ConvTranspose1D(int64_t in, int64_t out, int64_t k, const ConvTransposeConfig& c) : config(c) {
  checkGroups(out, c.groups, "output");
  weight = registerParameter("weight", Parameter::create({in, out / c.groups, k}, c.dtype));
  if (c.bias) bias = registerParameter("bias", Parameter::create({out}, c.dtype));
}

Tensor ConvTranspose1D::forward(const Tensor& x) {
  op::ConvTransposeOptions o;
  if (bias) o.bias = Tensor(bias);
  o.stride = {config.stride};
  o.padding = {config.padding};
  o.outputPadding = {config.outputPadding};
  o.dilation = {config.dilation};
  o.groups = config.groups;
  return op::conv1dTranspose(x, weight, o);
}

}  // namespace rlx::nn
