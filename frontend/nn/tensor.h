// nn::Tensor: a symbolic tensor of the model being exported. It wraps a Relax expression (a bound
// var or a constant) whose struct info gives the shape and dtype eagerly; ops build new bindings.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/nn/types.h"
#include "ir/expr.h"

namespace rlx::nn {

class Parameter;
class ParamRef;

class Tensor {
 public:
  Tensor() = default;
  // Wraps a Relax expression of tensor struct info (throws NNError otherwise).
  explicit Tensor(Expr expr);
  // A parameter as the tensor it stands for in the method being exported.
  Tensor(const std::shared_ptr<Parameter>& param);
  Tensor(const ParamRef& param);

  // A free variable `name` of the given shape/dtype: the spec of an op output (tensor_ir_op) or of
  // a method argument. Named dims are the current method's symbolic vars.
  static Tensor placeholder(const std::vector<Dim>& shape, DType dtype, const std::string& name = "tensor");
  // Constants (R.const): an array, or a 0-d scalar of `dtype`.
  static Tensor fromConst(NDArrayRef data);
  static Tensor fromScalar(double value, DType dtype);

  bool defined() const { return bool(expr_); }
  const Expr& expr() const { return expr_; }
  std::vector<PrimExpr> shape() const;
  // Dim i (negative counts from the end).
  PrimExpr dim(int64_t i) const;
  size_t ndim() const;
  DataType dtype() const;

  // Method forms of common ops (see op.h), named as TVM's Tensor methods.
  Tensor reshape(const std::vector<Dim>& shape) const;
  Tensor permuteDims(std::optional<std::vector<int64_t>> axes = std::nullopt) const;
  Tensor astype(DType dtype) const;
  Tensor maximum(const Tensor& other) const;
  Tensor maximum(double other) const;
  Tensor minimum(const Tensor& other) const;
  Tensor minimum(double other) const;

 private:
  Expr expr_;
};

// Operators: a number on either side becomes R.const(v, <the tensor's dtype>).
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, double b);
Tensor operator+(double a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, double b);
Tensor operator-(double a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, double b);
Tensor operator*(double a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, double b);
Tensor operator/(double a, const Tensor& b);
Tensor operator-(const Tensor& a);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, double b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, double b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, double b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, double b);

}  // namespace rlx::nn
