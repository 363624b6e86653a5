// Linear and Embedding (see modules.h).
#include "frontend/nn/modules.h"

namespace rlx::nn {

Linear::Linear(int64_t in, int64_t out, bool withBias, std::optional<DType> dtype, std::optional<DType> outDtype) : inFeatures(in), outFeatures(out) {
  if (outDtype) this->outDtype = outDtype->get();
  weight = registerParameter("weight", Parameter::create({out, in}, dtype));
  if (withBias) bias = registerParameter("bias", Parameter::create({out}, outDtype ? outDtype : dtype));
}

Tensor Linear::forward(const Tensor& x) {
  Tensor y = op::matmul(x, op::permuteDims(weight), outDtype ? std::optional<DType>(*outDtype) : std::nullopt);
  return bias ? y + Tensor(bias) : y;
}

Status Linear::to(DType dtype) {
  RLX_TRY_STATUS(weight->to(dtype));
  // A bias in an explicit out_dtype is added to the output and keeps that dtype.
  if (bias && !outDtype) RLX_TRY_STATUS(bias->to(dtype));
  return okStatus();
}

Embedding::Embedding(int64_t n, int64_t d, std::optional<DType> dtype) : num(n), dim(d) { weight = registerParameter("weight", Parameter::create({n, d}, dtype)); }

Tensor Embedding::forward(const Tensor& x) {
  if (x.ndim() == 1) return op::take(weight, x, 0);
  auto shape = x.shape();
  PrimExpr count = intImm(1);
  for (auto& d : shape) count = Dim(count) * Dim(d);
  Tensor flat = op::reshape(x, {count});
  Tensor rows = op::take(weight, flat, 0);
  std::vector<Dim> outShape(shape.begin(), shape.end());
  outShape.emplace_back(dim);
  return op::reshape(rows, outShape);
}

}  // namespace rlx::nn
