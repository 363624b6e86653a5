// nn::Tensor (see tensor.h): construction, eager shape/dtype from struct info, and operators.
#include "frontend/nn/tensor.h"

#include "frontend/nn/error.h"
#include "frontend/nn/module.h"
#include "frontend/nn/op.h"
#include "ir/ops/infer_util.h"

namespace rlx::nn {

namespace {
const TensorSInfo& tensorInfo(const Expr& e) {
  if (!e) fail("using an undefined nn::Tensor");
  auto s = sinfoOf(e).as<TensorSInfo>();
  if (!s) fail("the expression is not a tensor");
  return *s;
}

Tensor paramTensor(const Parameter* p) {
  if (!p) fail("using a parameter that was not created (e.g. the bias of a layer built without one)");
  if (!p->expr()) {
    if (!p->unavailableReason().empty()) fail(p->unavailableReason());
    fail("a parameter is used outside an export", "parameters stand for tensors only while Module::exportIR runs a method");
  }
  return Tensor(p->expr());
}
}  // namespace

Tensor::Tensor(Expr expr) : expr_(std::move(expr)) { (void)tensorInfo(expr_); }
Tensor::Tensor(const std::shared_ptr<Parameter>& param) : Tensor(paramTensor(param.get())) {}
Tensor::Tensor(const ParamRef& param) : Tensor(paramTensor(param.get())) {}

Tensor Tensor::placeholder(const std::vector<Dim>& shape, DType dtype, const std::string& name) {
  return Tensor(Expr(make<Var>(name, tensorSInfo(dimExprs(shape), dtype))));
}

Tensor Tensor::fromConst(NDArrayRef data) {
  if (!data) fail("Tensor::fromConst of null data");
  std::vector<PrimExpr> dims;
  for (auto d : data->shape) dims.push_back(intImm(d));
  auto c = make<Constant>(data);
  c->sinfo = tensorSInfo(std::move(dims), data->dtype);
  return Tensor(Expr(c));
}

Tensor Tensor::fromScalar(double value, DType dtype) { return Tensor(ops::makeScalarConst(value, dtype)); }

std::vector<PrimExpr> Tensor::shape() const {
  auto* dims = tensorInfo(expr_).dims();
  if (!dims) fail("the tensor's shape is unknown");
  return *dims;
}

size_t Tensor::ndim() const {
  auto& s = tensorInfo(expr_);
  if (s.ndim < 0) fail("the tensor's rank is unknown");
  return size_t(s.ndim);
}

PrimExpr Tensor::dim(int64_t i) const {
  auto s = shape();
  int64_t n = int64_t(s.size());
  if (i < -n || i >= n) fail("dim " + std::to_string(i) + " out of range for a tensor of rank " + std::to_string(n));
  return s[size_t(i < 0 ? i + n : i)];
}

DataType Tensor::dtype() const { return tensorInfo(expr_).dtype; }

Tensor Tensor::reshape(const std::vector<Dim>& shape) const { return op::reshape(*this, shape); }
Tensor Tensor::permuteDims(std::optional<std::vector<int64_t>> axes) const { return op::permuteDims(*this, std::move(axes)); }
Tensor Tensor::astype(DType dtype) const { return op::astype(*this, dtype); }
Tensor Tensor::maximum(const Tensor& other) const { return op::maximum(*this, other); }
Tensor Tensor::maximum(double other) const { return op::maximum(*this, fromScalar(other, dtype())); }
Tensor Tensor::minimum(const Tensor& other) const { return op::minimum(*this, other); }
Tensor Tensor::minimum(double other) const { return op::minimum(*this, fromScalar(other, dtype())); }

#define RLX_NN_BINARY_OPERATOR(SYM, FN)                                                                         \
  Tensor operator SYM(const Tensor& a, const Tensor& b) { return op::FN(a, b); }                              \
  Tensor operator SYM(const Tensor& a, double b) { return op::FN(a, Tensor::fromScalar(b, a.dtype())); } 
RLX_NN_BINARY_OPERATOR(+, add)
RLX_NN_BINARY_OPERATOR(-, subtract)
RLX_NN_BINARY_OPERATOR(*, multiply)
RLX_NN_BINARY_OPERATOR(/, divide)
RLX_NN_BINARY_OPERATOR(<, less)
RLX_NN_BINARY_OPERATOR(<=, lessEqual)
RLX_NN_BINARY_OPERATOR(>, greater)
RLX_NN_BINARY_OPERATOR(>=, greaterEqual)
#undef RLX_NN_BINARY_OPERATOR

// Python's reflected operators: 2.0 * a is a * 2.0 (commutative), 1.0 - a keeps the order.
Tensor operator+(double a, const Tensor& b) { return op::add(b, Tensor::fromScalar(a, b.dtype())); }
Tensor operator*(double a, const Tensor& b) { return op::multiply(b, Tensor::fromScalar(a, b.dtype())); }
Tensor operator-(double a, const Tensor& b) { return op::subtract(Tensor::fromScalar(a, b.dtype()), b); }
Tensor operator/(double a, const Tensor& b) { return op::divide(Tensor::fromScalar(a, b.dtype()), b); }
Tensor operator-(const Tensor& a) { return op::negative(a); }

}  // namespace rlx::nn
