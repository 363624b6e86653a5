// TIR interpreter intrinsics: math (tir.exp, tir.pow, ...), float predicates and bitwise ops on
// evaluated lanes. Float math runs in double and is rounded to the call's dtype afterwards.
#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <map>

#include "ir/tir_eval_internal.h"

namespace rlx::tireval {

namespace {

using UnaryFn = double (*)(double);
using BinaryFn = double (*)(double, double);

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double rsqrt(double x) { return 1.0 / std::sqrt(x); }
double exp10(double x) { return std::pow(10.0, x); }
// TVM lowers tir.round to llvm.nearbyint: halfway cases go to the even neighbour.
double nearbyint(double x) { return std::nearbyint(x); }

const std::map<std::string, UnaryFn, std::less<>>& unaryMath() {
  static const std::map<std::string, UnaryFn, std::less<>> table = {
      {"exp", [](double x) { return std::exp(x); }},     {"exp2", [](double x) { return std::exp2(x); }},
      {"exp10", exp10},                                  {"log", [](double x) { return std::log(x); }},
      {"log2", [](double x) { return std::log2(x); }},   {"log10", [](double x) { return std::log10(x); }},
      {"log1p", [](double x) { return std::log1p(x); }}, {"sqrt", [](double x) { return std::sqrt(x); }},
      {"rsqrt", rsqrt},                                  {"tanh", [](double x) { return std::tanh(x); }},
      {"sigmoid", sigmoid},                              {"erf", [](double x) { return std::erf(x); }},
      {"erfc", [](double x) { return std::erfc(x); }},   {"lgamma", [](double x) { return std::lgamma(x); }},
      {"sin", [](double x) { return std::sin(x); }},     {"cos", [](double x) { return std::cos(x); }},
      {"tan", [](double x) { return std::tan(x); }},     {"sinh", [](double x) { return std::sinh(x); }},
      {"cosh", [](double x) { return std::cosh(x); }},   {"asin", [](double x) { return std::asin(x); }},
      {"acos", [](double x) { return std::acos(x); }},   {"atan", [](double x) { return std::atan(x); }},
      {"asinh", [](double x) { return std::asinh(x); }}, {"acosh", [](double x) { return std::acosh(x); }},
      {"atanh", [](double x) { return std::atanh(x); }}, {"floor", [](double x) { return std::floor(x); }},
      {"ceil", [](double x) { return std::ceil(x); }},   {"round", nearbyint},
      {"nearbyint", nearbyint},                          {"trunc", [](double x) { return std::trunc(x); }},
      {"fabs", [](double x) { return std::fabs(x); }},
  };
  return table;
}

const std::map<std::string, BinaryFn, std::less<>>& binaryMath() {
  static const std::map<std::string, BinaryFn, std::less<>> table = {
      {"pow", [](double a, double b) { return std::pow(a, b); }},
      {"atan2", [](double a, double b) { return std::atan2(a, b); }},
      {"fmod", [](double a, double b) { return std::fmod(a, b); }},
      {"hypot", [](double a, double b) { return std::hypot(a, b); }},
      {"copysign", [](double a, double b) { return std::copysign(a, b); }},
  };
  return table;
}

// A float result in the call's dtype; an integral call dtype gets TVM's cast of the double.
Scalar floatResult(DataType t, double v) {
  if (t.isFloat()) return Scalar::ofFloat(t, v);
  return castScalar(t, Scalar::ofFloat(DataType::float64(), v));
}

// Rounding and abs on integers are exact: no detour through double (int64 would lose bits).
std::optional<Scalar> integerUnary(const std::string& name, DataType t, const Scalar& x) {
  if (x.isFloat() || !t.isIntegral()) return std::nullopt;
  if (name == "fabs") return Scalar::ofInt(t, x.i < 0 && !x.isUInt64() ? int64_t(0 - uint64_t(x.i)) : x.i);
  if (name == "floor" || name == "ceil" || name == "round" || name == "nearbyint" || name == "trunc") return Scalar::ofInt(t, x.i);
  return std::nullopt;
}

uint64_t maskedBits(const Scalar& x) {
  int bits = x.dtype.bits;
  return bits >= 64 ? uint64_t(x.i) : uint64_t(x.i) & ((uint64_t(1) << bits) - 1);
}

// Shifts by a negative amount or by the width or more are poison in LLVM; we define them as
// shifting every bit out (0, or the sign for an arithmetic right shift).
Scalar shift(bool left, DataType t, const Scalar& a, const Scalar& b) {
  int bits = a.dtype.bits;
  int64_t amount = b.i;
  bool isSigned = a.dtype.code == DataType::Int;
  if (amount < 0 || amount >= bits) return Scalar::ofInt(t, (!left && isSigned && a.i < 0) ? -1 : 0);
  if (left) return Scalar::ofInt(t, int64_t(uint64_t(a.i) << amount));
  if (isSigned) return Scalar::ofInt(t, a.i >> amount);  // arithmetic (C++20)
  return Scalar::ofInt(t, int64_t(maskedBits(a) >> amount));
}

std::optional<Result<Scalar>> bitwise(const std::string& name, DataType t, const std::vector<Scalar>& args) {
  auto needInts = [&](size_t n) -> std::optional<Error> {
    if (args.size() != n) return Error("tir." + name + " takes " + std::to_string(n) + " argument(s), got " + std::to_string(args.size()));
    for (auto& a : args)
      if (a.isFloat()) return Error("tir." + name + " needs integer arguments, got " + a.dtype.str());
    return std::nullopt;
  };
  static const char* binaryNames[] = {"shift_left", "shift_right", "bitwise_and", "bitwise_or", "bitwise_xor"};
  for (const char* n : binaryNames) {
    if (name != n) continue;
    if (auto e = needInts(2)) return Result<Scalar>(*e);
    const Scalar &a = args[0], &b = args[1];
    if (name == "shift_left" || name == "shift_right") return Result<Scalar>(shift(name == "shift_left", t, a, b));
    if (name == "bitwise_and") return Result<Scalar>(Scalar::ofInt(t, a.i & b.i));
    if (name == "bitwise_or") return Result<Scalar>(Scalar::ofInt(t, a.i | b.i));
    return Result<Scalar>(Scalar::ofInt(t, a.i ^ b.i));
  }
  if (name != "bitwise_not" && name != "clz" && name != "popcount") return std::nullopt;
  if (auto e = needInts(1)) return Result<Scalar>(*e);
  const Scalar& x = args[0];
  if (name == "bitwise_not") return Result<Scalar>(Scalar::ofInt(t, ~x.i));
  if (name == "popcount") return Result<Scalar>(Scalar::ofInt(t, std::popcount(maskedBits(x))));
  return Result<Scalar>(Scalar::ofInt(t, std::countl_zero(maskedBits(x)) - (64 - x.dtype.bits)));
}

std::optional<Result<Scalar>> predicate(const std::string& name, const std::vector<Scalar>& args) {
  if (name != "isnan" && name != "isinf" && name != "isfinite") return std::nullopt;
  if (args.size() != 1) return Result<Scalar>(Error("tir." + name + " takes one argument"));
  double v = args[0].toDouble();
  if (name == "isnan") return Result<Scalar>(Scalar::ofBool(std::isnan(v)));
  if (name == "isinf") return Result<Scalar>(Scalar::ofBool(std::isinf(v)));
  return Result<Scalar>(Scalar::ofBool(std::isfinite(v)));
}

// nextafter and ldexp depend on the dtype's precision / take an integer exponent.
std::optional<Result<Scalar>> specialBinary(const std::string& name, DataType t, const std::vector<Scalar>& args) {
  if (name != "nextafter" && name != "ldexp") return std::nullopt;
  if (args.size() != 2) return Result<Scalar>(Error("tir." + name + " takes two arguments"));
  double a = args[0].toDouble(), b = args[1].toDouble();
  if (name == "ldexp") {
    int64_t e = args[1].isFloat() ? saturatingInt(b) : args[1].i;
    return Result<Scalar>(floatResult(t, std::ldexp(a, int(std::clamp<int64_t>(e, -100000, 100000)))));
  }
  if (t.code == DataType::Float && t.bits == 32) return Result<Scalar>(Scalar::ofFloat(t, std::nextafter(float(a), float(b))));
  if (t.code == DataType::Float && t.bits == 64) return Result<Scalar>(Scalar::ofFloat(t, std::nextafter(a, b)));
  return Result<Scalar>(Error("tir.nextafter on " + t.str() + " is not supported (float32/float64 only)"));
}

}  // namespace

std::optional<Result<Scalar>> applyIntrinsic(const std::string& op, DataType resultType, const std::vector<Scalar>& args) {
  if (op.compare(0, 4, "tir.") != 0) return std::nullopt;
  std::string name = op.substr(4);
  DataType t = resultType.element();
  if (name == "likely") {
    if (args.size() != 1) return Result<Scalar>(Error("tir.likely takes one argument"));
    return Result<Scalar>(args[0]);
  }
  if (auto it = unaryMath().find(name); it != unaryMath().end()) {
    if (args.size() != 1) return Result<Scalar>(Error(op + " takes one argument, got " + std::to_string(args.size())));
    if (auto exact = integerUnary(name, t, args[0])) return Result<Scalar>(*exact);
    return Result<Scalar>(floatResult(t, it->second(args[0].toDouble())));
  }
  if (auto it = binaryMath().find(name); it != binaryMath().end()) {
    if (args.size() != 2) return Result<Scalar>(Error(op + " takes two arguments, got " + std::to_string(args.size())));
    return Result<Scalar>(floatResult(t, it->second(args[0].toDouble(), args[1].toDouble())));
  }
  if (auto r = specialBinary(name, t, args)) return r;
  if (auto r = predicate(name, args)) return r;
  return bitwise(name, t, args);
}

}  // namespace rlx::tireval
