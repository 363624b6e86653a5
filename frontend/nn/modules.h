// Built-in layers (TVM's nn.modules): Linear, Conv1D, Conv2D, ConvTranspose1D, LayerNorm, RMSNorm,
// GroupNorm, Embedding and the activations ReLU, SiLU, GELU. Parameters are created unbound.
#pragma once
#include <optional>
#include <vector>

#include "frontend/nn/module.h"
#include "frontend/nn/op.h"

namespace rlx::nn {

// y = x W^T (+ b): weight (out, in), bias (out,) of outDtype when given (it then stays out of to()).
class Linear : public Module {
 public:
  Linear(int64_t inFeatures, int64_t outFeatures, bool bias = true, std::optional<DType> dtype = std::nullopt, std::optional<DType> outDtype = std::nullopt);
  Tensor forward(const Tensor& x) override;
  Status to(DType dtype) override;
  int64_t inFeatures, outFeatures;
  std::optional<DataType> outDtype;
  ParamRef weight, bias;
};

struct ConvConfig {
  int64_t stride = 1, padding = 0, dilation = 1, groups = 1;
  bool bias = true;
  std::optional<DType> dtype;
};

// weight (out, in / groups, k).
class Conv1D : public Module {
 public:
  Conv1D(int64_t inChannels, int64_t outChannels, int64_t kernelSize, const ConvConfig& config = {});
  Tensor forward(const Tensor& x) override;
  ConvConfig config;
  ParamRef weight, bias;
};

// weight (out, in / groups, k, k); NCHW.
class Conv2D : public Module {
 public:
  Conv2D(int64_t inChannels, int64_t outChannels, int64_t kernelSize, const ConvConfig& config = {});
  Tensor forward(const Tensor& x) override;
  ConvConfig config;
  ParamRef weight, bias;
};

struct ConvTransposeConfig {
  int64_t stride = 1, padding = 0, outputPadding = 0, dilation = 1, groups = 1;
  bool bias = true;
  std::optional<DType> dtype;
};

// weight (in, out / groups, k) (kernel layout IOW).
class ConvTranspose1D : public Module {
 public:
  ConvTranspose1D(int64_t inChannels, int64_t outChannels, int64_t kernelSize, const ConvTransposeConfig& config = {});
  Tensor forward(const Tensor& x) override;
  ConvTransposeConfig config;
  ParamRef weight, bias;
};

// Over the last dim: weight and bias (n,).
class LayerNorm : public Module {
 public:
  explicit LayerNorm(int64_t normalizedShape, double eps = 1e-5, bool elementwiseAffine = true, std::optional<DType> dtype = std::nullopt);
  Tensor forward(const Tensor& x) override;
  int64_t normalizedShape;
  double eps;
  ParamRef weight, bias;
};

// weight (hidden,), and by default (as in TVM) a bias added after the norm.
class RMSNorm : public Module {
 public:
  RMSNorm(int64_t hiddenSize, std::vector<int64_t> axes, double epsilon = 1e-5, bool bias = true, std::optional<DType> dtype = std::nullopt);
  Tensor forward(const Tensor& x) override;
  std::vector<int64_t> axes;
  double epsilon;
  ParamRef weight, bias;
};

// Channels on axis 1; weight and bias (C,).
class GroupNorm : public Module {
 public:
  GroupNorm(int64_t numGroups, int64_t numChannels, double eps = 1e-5, bool affine = true, std::optional<DType> dtype = std::nullopt);
  Tensor forward(const Tensor& x) override;
  int64_t numGroups;
  double eps;
  ParamRef weight, bias;
};

// weight (num, dim); ids of any rank are flattened, taken and reshaped back.
class Embedding : public Module {
 public:
  Embedding(int64_t num, int64_t dim, std::optional<DType> dtype = std::nullopt);
  Tensor forward(const Tensor& x) override;
  int64_t num, dim;
  ParamRef weight;
};

class ReLU : public Module {
 public:
  Tensor forward(const Tensor& x) override { return op::relu(x); }
};
class SiLU : public Module {
 public:
  Tensor forward(const Tensor& x) override { return op::silu(x); }
};
class GELU : public Module {
 public:
  Tensor forward(const Tensor& x) override { return op::gelu(x); }
};

}  // namespace rlx::nn
