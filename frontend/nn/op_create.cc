// Tensor creation ops: zeros, ones, full, empty, arange (see op.h).
#include <cmath>

#include "frontend/nn/op.h"
#include "frontend/nn/op_util.h"

namespace rlx::nn::op {

using namespace detail;

Tensor zeros(const std::vector<Dim>& shape, DType dtype, const std::string& name) {
  return wrap(call("zeros", {ex(shapeExpr(dimExprs(shape)))}, {{"dtype", build::s(dtype.str())}}), name);
}

Tensor ones(const std::vector<Dim>& shape, DType dtype, const std::string& name) {
  return wrap(call("ones", {ex(shapeExpr(dimExprs(shape)))}, {{"dtype", build::s(dtype.str())}}), name);
}

Tensor full(const std::vector<Dim>& shape, std::variant<double, Tensor> fill, DType dtype, const std::string& name) {
  Tensor value = std::holds_alternative<double>(fill) ? Tensor::fromScalar(std::get<double>(fill), dtype) : std::get<Tensor>(fill);
  return wrap(call("full", {ex(shapeExpr(dimExprs(shape))), ex(value)}, {{"dtype", build::s(dtype.str())}}), name);
}

Tensor empty(const std::vector<Dim>& shape, DType dtype, const std::string& name) {
  auto dt = make<DataTypeImm>(dtype.get());
  return wrap(call("builtin.alloc_tensor", {ex(shapeExpr(dimExprs(shape))), ex(dt), build::i(0), build::s("global")}), name);
}

Tensor arange(double start, std::optional<double> end, double step, DType dtype, const std::string& name) {
  if (!end) {
    end = start;
    start = 0;
  }
  // Integral bounds are int64 prim values (R.prim_value(0)), others float64.
  auto num = [](double v) { return v == std::floor(v) && std::abs(v) < 9e15 ? build::i(int64_t(v)) : build::f(v); };
  return wrap(call("arange", {num(start), num(*end), num(step)}, {{"dtype", build::s(dtype.str())}}), name);
}

}  // namespace rlx::nn::op
