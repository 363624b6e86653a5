// Elementwise, comparison and cast ops (see op.h).
#include "frontend/nn/op.h"
#include "frontend/nn/op_util.h"

namespace rlx::nn::op {

using namespace detail;

#define RLX_NN_BINARY(FN, OP) \
  Tensor FN(const Tensor& a, const Tensor& b, const std::string& name) { return wrap(call(OP, {ex(a), ex(b)}), name); }
RLX_NN_BINARY(add, "add")
RLX_NN_BINARY(subtract, "subtract")
RLX_NN_BINARY(multiply, "multiply")
RLX_NN_BINARY(divide, "divide")
RLX_NN_BINARY(maximum, "maximum")
RLX_NN_BINARY(minimum, "minimum")
RLX_NN_BINARY(equal, "equal")
RLX_NN_BINARY(notEqual, "not_equal")
RLX_NN_BINARY(less, "less")
RLX_NN_BINARY(lessEqual, "less_equal")
RLX_NN_BINARY(greater, "greater")
RLX_NN_BINARY(greaterEqual, "greater_equal")
#undef RLX_NN_BINARY

#define RLX_NN_UNARY(FN, OP) \
  Tensor FN(const Tensor& x, const std::string& name) { return wrap(call(OP, {ex(x)}), name); }
RLX_NN_UNARY(negative, "negative")
RLX_NN_UNARY(exp, "exp")
RLX_NN_UNARY(log, "log")
RLX_NN_UNARY(floor, "floor")
RLX_NN_UNARY(sqrt, "sqrt")
RLX_NN_UNARY(square, "square")
RLX_NN_UNARY(tanh, "tanh")
RLX_NN_UNARY(sigmoid, "sigmoid")
#undef RLX_NN_UNARY

Tensor where(const Tensor& condition, const Tensor& x1, const Tensor& x2, const std::string& name) {
  Tensor c = condition.dtype().isBool() ? condition : astype(condition, "bool");
  return wrap(call("where", {ex(c), ex(x1), ex(x2)}), name);
}

Tensor astype(const Tensor& x, DType dtype, const std::string& name) {
  if (x.dtype() == dtype.get()) return x;
  return wrap(call("astype", {ex(x)}, {{"dtype", build::s(dtype.str())}}), name);
}

}  // namespace rlx::nn::op
