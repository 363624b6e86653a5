// Relay's elementwise ops: unary math, broadcasting binary ops and comparisons (same names and
// semantics in Relax), plus clip, cast, copy and where. One function per Relay op.
#include <cmath>
#include <limits>

#include "frontend/relay/ops.h"

namespace rlx::relay::ops {

namespace {

RExpr unaryAs(OpCtx& c, const char* relax) {
  c.expectArgs(1, 1);
  c.allowAttrs({});
  return c.call(relax, {ex(c.arg(0))});
}

RExpr binaryAs(OpCtx& c, const char* relax) {
  c.expectArgs(2, 2);
  c.allowAttrs({});
  return c.call(relax, {ex(c.arg(0)), ex(c.arg(1))});
}

}  // namespace

// Relay op → the Relax op of the same meaning.
#define RLX_UNARY(relay, relax) \
  RExpr relay(OpCtx& c) { return unaryAs(c, relax); }
#define RLX_BINARY(relay, relax) \
  RExpr relay(OpCtx& c) { return binaryAs(c, relax); }

RLX_UNARY(abs, "abs")
RLX_UNARY(acos, "acos")
RLX_UNARY(acosh, "acosh")
RLX_UNARY(asin, "asin")
RLX_UNARY(asinh, "asinh")
RLX_UNARY(atan, "atan")
RLX_UNARY(atanh, "atanh")
RLX_UNARY(ceil, "ceil")
RLX_UNARY(cos, "cos")
RLX_UNARY(cosh, "cosh")
RLX_UNARY(erf, "erf")
RLX_UNARY(exp, "exp")
RLX_UNARY(floor, "floor")
RLX_UNARY(log, "log")
RLX_UNARY(negative, "negative")
RLX_UNARY(round, "round")
RLX_UNARY(rsqrt, "rsqrt")
RLX_UNARY(sigmoid, "sigmoid")
RLX_UNARY(sign, "sign")
RLX_UNARY(sin, "sin")
RLX_UNARY(sinh, "sinh")
RLX_UNARY(sqrt, "sqrt")
RLX_UNARY(tan, "tan")
RLX_UNARY(tanh, "tanh")
RLX_UNARY(trunc, "trunc")
RLX_UNARY(isfinite, "isfinite")
RLX_UNARY(isinf, "isinf")
RLX_UNARY(isnan, "isnan")
RLX_UNARY(logical_not, "logical_not")
RLX_UNARY(bitwise_not, "bitwise_not")
// Relay's fast_* are approximations of the same functions (FastMath's output); Relax computes them exactly.
RLX_UNARY(fast_exp, "exp")
RLX_UNARY(fast_tanh, "tanh")
RLX_UNARY(fast_erf, "erf")
RLX_UNARY(relu, "nn.relu")

RLX_BINARY(add, "add")
RLX_BINARY(subtract, "subtract")
RLX_BINARY(multiply, "multiply")
RLX_BINARY(divide, "divide")
RLX_BINARY(power, "power")
RLX_BINARY(maximum, "maximum")
RLX_BINARY(minimum, "minimum")
RLX_BINARY(mod, "mod")
RLX_BINARY(floor_divide, "floor_divide")
RLX_BINARY(floor_mod, "floor_mod")
// Relay's divide / mod already truncate on integers (C semantics), as Relax's do.
RLX_BINARY(trunc_divide, "divide")
RLX_BINARY(trunc_mod, "mod")
RLX_BINARY(logical_and, "logical_and")
RLX_BINARY(logical_or, "logical_or")
RLX_BINARY(logical_xor, "logical_xor")
RLX_BINARY(bitwise_and, "bitwise_and")
RLX_BINARY(bitwise_or, "bitwise_or")
RLX_BINARY(bitwise_xor, "bitwise_xor")
RLX_BINARY(left_shift, "left_shift")
RLX_BINARY(right_shift, "right_shift")
RLX_BINARY(equal, "equal")
RLX_BINARY(not_equal, "not_equal")
RLX_BINARY(less, "less")
RLX_BINARY(less_equal, "less_equal")
RLX_BINARY(greater, "greater")
RLX_BINARY(greater_equal, "greater_equal")

#undef RLX_UNARY
#undef RLX_BINARY

namespace {
// log(x) / log(base): Relax v0.23 has no log2 / log10.
RExpr logBase(OpCtx& c, double base) {
  c.expectArgs(1, 1);
  c.allowAttrs({});
  RExpr l = c.call("log", {ex(c.arg(0))});
  return c.call("divide", {ex(l), f(std::log(base))});
}
}  // namespace

RExpr log2(OpCtx& c) { return logBase(c, 2.0); }
RExpr log10(OpCtx& c) { return logBase(c, 10.0); }

// clip(x, a_min, a_max): Relax takes the bounds as prim values of the tensor's kind.
RExpr clip(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"a_min", "a_max"});
  if (!c.has("a_min") || !c.has("a_max")) c.fail("needs both a_min and a_max");
  double lo = c.f("a_min", 0), hi = c.f("a_max", 0);
  DataType t = c.dtype(0);
  if (t.isIntegral()) {
    // Integer tensors: the bounds saturate to the int64 range (Relay passes them as doubles).
    auto toInt = [](double v) {
      if (v <= -9.2e18) return std::numeric_limits<int64_t>::min();
      if (v >= 9.2e18) return std::numeric_limits<int64_t>::max();
      return int64_t(std::llround(v));
    };
    return c.call("clip", {ex(c.arg(0)), i(toInt(lo)), i(toInt(hi))});
  }
  return c.call("clip", {ex(c.arg(0)), f(lo), f(hi)});
}

RExpr cast(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"dtype"});
  if (!c.has("dtype")) c.fail("needs a dtype");
  return c.call("astype", {ex(c.arg(0))}, {{"dtype", s(c.dtypeAttr("dtype", DataType::void_()).str())}});
}

RExpr cast_like(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({});
  return c.call("astype", {ex(c.arg(0))}, {{"dtype", s(c.dtype(1).str())}});
}

// copy: Relax values are immutable, so the copy is the value itself.
RExpr copy(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({});
  return c.arg(0);
}

// stop_gradient: an identity outside of AD; Relax's Gradient pass has no such marker to keep.
RExpr stop_gradient(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({});
  return c.arg(0);
}

// where(cond, x, y): Relax wants a bool condition; Relay also accepts numbers (non-zero = true).
RExpr where(OpCtx& c) {
  c.expectArgs(3, 3);
  c.allowAttrs({});
  RExpr cond = c.arg(0);
  if (!c.dtype(0).isBool() && !c.dtype(0).isVoid()) cond = astype(c, cond, DataType::boolean());
  return c.call("where", {ex(cond), ex(c.arg(1)), ex(c.arg(2))});
}

}  // namespace rlx::relay::ops
