// Reference evaluators of the elementwise ops: unary math, binary arithmetic and comparison with
// numpy broadcasting, clip, astype, where, ewise_fma. Integer semantics follow TVM's kernels:
// `divide`/`mod` truncate, `floor_divide`/`floor_mod` round toward -inf, arithmetic wraps.
#include <fmt/format.h>

#include <cmath>

#include "ir/ops/eval_util.h"

namespace rlx {
namespace {
using namespace ops;

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t floorMod(int64_t a, int64_t b) {
  int64_t m = a % b;
  return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;
}
int64_t intPow(int64_t base, int64_t e) {
  if (e < 0) return base == 1 ? 1 : base == -1 ? (e % 2 ? -1 : 1) : 0;
  uint64_t r = 1, b = uint64_t(base);
  for (; e; e >>= 1, b *= b)
    if (e & 1) r *= b;
  return int64_t(r);
}
// Wrapping integer arithmetic (the element store truncates to the dtype's width).
int64_t wrapAdd(int64_t a, int64_t b) { return int64_t(uint64_t(a) + uint64_t(b)); }
int64_t wrapSub(int64_t a, int64_t b) { return int64_t(uint64_t(a) - uint64_t(b)); }
int64_t wrapMul(int64_t a, int64_t b) { return int64_t(uint64_t(a) * uint64_t(b)); }

// Divisions by zero make integer ops undefined in the kernels; the evaluator refuses them.
bool hasZero(const NDArray& t) {
  for (int64_t k = 0; k < t.numel(); ++k)
    if (t.getInt(k) == 0) return true;
  return false;
}

struct BinarySpec {
  const char* name;
  BinaryF fd;
  BinaryI fi;                 // null: integer inputs are computed in double
  bool integerOnly = false;   // bitwise ops
  bool divides = false;       // integer division by zero is an error
};

void registerBinary(const BinarySpec& spec, bool compare) {
  registerEval(std::string("relax.") + spec.name, [spec, compare](const Call& call, const std::vector<Value>& args) -> Result<Value> {
    RLX_TRY(a, tensorValue(call, args, 0, "x1"));
    RLX_TRY(b, tensorValue(call, args, 1, "x2"));
    RLX_TRY(out, allocResult(call));
    bool inFloat = a->dtype.isFloat() || b->dtype.isFloat();
    if (spec.integerOnly && inFloat) return evalError(call, "expects integer operands");
    if (spec.divides && !inFloat && hasZero(*b)) return evalError(call, "integer division by zero");
    // Comparisons and logical ops see the operand dtype, not their bool result.
    (void)compare;
    broadcastBinary(*a, *b, *out, inFloat, spec.fd, spec.fi);
    return Value::ofTensor(out);
  });
}

double logAddExp(double a, double b) {
  if (std::isinf(a) && a == b) return a;
  double m = std::max(a, b);
  return m + std::log1p(std::exp(-std::fabs(a - b)));
}

void registerBinaries() {
  const BinarySpec arith[] = {
      {"add", [](double a, double b) { return a + b; }, wrapAdd},
      {"subtract", [](double a, double b) { return a - b; }, wrapSub},
      {"multiply", [](double a, double b) { return a * b; }, wrapMul},
      {"divide", [](double a, double b) { return a / b; }, [](int64_t a, int64_t b) { return a / b; }, false, true},
      {"floor_divide", [](double a, double b) { return std::floor(a / b); }, floorDiv, false, true},
      {"floor_mod", [](double a, double b) { return a - std::floor(a / b) * b; }, floorMod, false, true},
      {"mod", [](double a, double b) { return std::fmod(a, b); }, [](int64_t a, int64_t b) { return a % b; }, false, true},
      {"power", [](double a, double b) { return std::pow(a, b); }, intPow},
      {"log_add_exp", logAddExp, nullptr},
      {"maximum", [](double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }, [](int64_t a, int64_t b) { return std::max(a, b); }},
      {"minimum", [](double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); }, [](int64_t a, int64_t b) { return std::min(a, b); }},
      {"bitwise_and", nullptr, [](int64_t a, int64_t b) { return a & b; }, true},
      {"bitwise_or", nullptr, [](int64_t a, int64_t b) { return a | b; }, true},
      {"bitwise_xor", nullptr, [](int64_t a, int64_t b) { return a ^ b; }, true},
      {"left_shift", nullptr, [](int64_t a, int64_t b) { return b < 0 || b >= 64 ? int64_t(0) : int64_t(uint64_t(a) << b); }, true},
      {"right_shift", nullptr, [](int64_t a, int64_t b) { return b < 0 || b >= 64 ? (a < 0 ? int64_t(-1) : int64_t(0)) : a >> b; }, true},
  };
  for (auto& s : arith) registerBinary(s, false);
  auto truthy = [](double v) { return v != 0; };
  const BinarySpec logical[] = {
      {"logical_and", [truthy](double a, double b) { return double(truthy(a) && truthy(b)); }, [](int64_t a, int64_t b) { return int64_t(a && b); }},
      {"logical_or", [truthy](double a, double b) { return double(truthy(a) || truthy(b)); }, [](int64_t a, int64_t b) { return int64_t(a || b); }},
      {"logical_xor", [truthy](double a, double b) { return double(truthy(a) != truthy(b)); }, [](int64_t a, int64_t b) { return int64_t((a != 0) != (b != 0)); }},
      {"equal", [](double a, double b) { return double(a == b); }, [](int64_t a, int64_t b) { return int64_t(a == b); }},
      {"not_equal", [](double a, double b) { return double(a != b); }, [](int64_t a, int64_t b) { return int64_t(a != b); }},
      {"less", [](double a, double b) { return double(a < b); }, [](int64_t a, int64_t b) { return int64_t(a < b); }},
      {"less_equal", [](double a, double b) { return double(a <= b); }, [](int64_t a, int64_t b) { return int64_t(a <= b); }},
      {"greater", [](double a, double b) { return double(a > b); }, [](int64_t a, int64_t b) { return int64_t(a > b); }},
      {"greater_equal", [](double a, double b) { return double(a >= b); }, [](int64_t a, int64_t b) { return int64_t(a >= b); }},
  };
  for (auto& s : logical) registerBinary(s, true);
}

double sigmoid(double x) { return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x)); }
double signOf(double x) { return std::isnan(x) ? x : double((x > 0) - (x < 0)); }

void registerUnary(const char* name, UnaryF fd, UnaryI fi) {
  registerEval(std::string("relax.") + name, [fd, fi](const Call& call, const std::vector<Value>& args) -> Result<Value> {
    RLX_TRY(x, tensorValue(call, args, 0, "x"));
    RLX_TRY(out, allocResult(call));
    if (!fd && x->dtype.isFloat()) return evalError(call, "expects an integer operand");
    mapUnary(*x, *out, fd, fi);
    return Value::ofTensor(out);
  });
}

void registerUnaries() {
  auto ident = [](int64_t v) { return v; };
  struct U { const char* name; double (*fd)(double); };
  // Float math; integer inputs (where inference allows them) go through double.
  const U math[] = {
      {"acos", [](double x) { return std::acos(x); }}, {"acosh", [](double x) { return std::acosh(x); }},
      {"asin", [](double x) { return std::asin(x); }}, {"asinh", [](double x) { return std::asinh(x); }},
      {"atan", [](double x) { return std::atan(x); }}, {"atanh", [](double x) { return std::atanh(x); }},
      {"cos", [](double x) { return std::cos(x); }},   {"cosh", [](double x) { return std::cosh(x); }},
      {"erf", [](double x) { return std::erf(x); }},   {"exp", [](double x) { return std::exp(x); }},
      {"log", [](double x) { return std::log(x); }},   {"rsqrt", [](double x) { return 1 / std::sqrt(x); }},
      {"sigmoid", sigmoid},                             {"sin", [](double x) { return std::sin(x); }},
      {"sinh", [](double x) { return std::sinh(x); }}, {"sqrt", [](double x) { return std::sqrt(x); }},
      {"tan", [](double x) { return std::tan(x); }},   {"tanh", [](double x) { return std::tanh(x); }},
  };
  for (auto& u : math) registerUnary(u.name, u.fd, nullptr);
  // Rounding is the identity on integers (round is half-to-even, as numpy and TVM's kernels).
  registerUnary("ceil", [](double x) { return std::ceil(x); }, ident);
  registerUnary("floor", [](double x) { return std::floor(x); }, ident);
  registerUnary("round", [](double x) { return std::nearbyint(x); }, ident);
  registerUnary("trunc", [](double x) { return std::trunc(x); }, ident);
  registerUnary("abs", [](double x) { return std::fabs(x); }, [](int64_t v) { return v < 0 ? int64_t(0 - uint64_t(v)) : v; });
  registerUnary("negative", [](double x) { return -x; }, [](int64_t v) { return int64_t(0 - uint64_t(v)); });
  registerUnary("sign", signOf, [](int64_t v) { return int64_t((v > 0) - (v < 0)); });
  registerUnary("square", [](double x) { return x * x; }, [](int64_t v) { return wrapMul(v, v); });
  registerUnary("bitwise_not", nullptr, [](int64_t v) { return ~v; });
  registerUnary("isfinite", [](double x) { return double(std::isfinite(x)); }, [](int64_t) { return int64_t(1); });
  registerUnary("isinf", [](double x) { return double(std::isinf(x)); }, [](int64_t) { return int64_t(0); });
  registerUnary("isnan", [](double x) { return double(std::isnan(x)); }, [](int64_t) { return int64_t(0); });
  registerUnary("logical_not", [](double x) { return double(x == 0); }, [](int64_t v) { return int64_t(v == 0); });
}

Result<Value> evalClip(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  RLX_TRY(lo, primValueArg(call, args, 1, "min"));
  RLX_TRY(hi, primValueArg(call, args, 2, "max"));
  RLX_TRY(out, allocResult(call));
  double dlo = lo.primDouble(), dhi = hi.primDouble();
  int64_t ilo = lo.dtype.isFloat() ? int64_t(std::ceil(dlo)) : lo.i, ihi = hi.dtype.isFloat() ? int64_t(std::floor(dhi)) : hi.i;
  mapUnary(*x, *out, [=](double v) { return std::min(std::max(v, dlo), dhi); }, [=](int64_t v) { return std::min(std::max(v, ilo), ihi); });
  return Value::ofTensor(out);
}

Result<Value> evalCast(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  RLX_TRY(dtype, resultDType(call));
  return Value::ofTensor(castTensor(*x, dtype));
}

Result<Value> evalWhere(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(cond, tensorValue(call, args, 0, "condition"));
  RLX_TRY(x1, tensorValue(call, args, 1, "x1"));
  RLX_TRY(x2, tensorValue(call, args, 2, "x2"));
  RLX_TRY(out, allocResult(call));
  Shape sc = stridesOf(cond->shape), s1 = stridesOf(x1->shape), s2 = stridesOf(x2->shape);
  bool isFloat = out->dtype.isFloat();
  forEachIndex(out->shape, [&](const Shape& idx, int64_t flat) {
    bool c = cond->getInt(broadcastOffset(idx, cond->shape, sc)) != 0;
    const NDArray& src = c ? *x1 : *x2;
    int64_t off = broadcastOffset(idx, src.shape, c ? s1 : s2);
    if (isFloat) out->setDouble(flat, src.getDouble(off));
    else out->setInt(flat, src.getInt(off));
  });
  return Value::ofTensor(out);
}

Result<Value> evalFma(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(a, tensorValue(call, args, 0, "x1"));
  RLX_TRY(b, tensorValue(call, args, 1, "x2"));
  RLX_TRY(c, tensorValue(call, args, 2, "x3"));
  RLX_TRY(out, allocResult(call));
  if (a->numel() != out->numel() || b->numel() != out->numel() || c->numel() != out->numel())
    return evalError(call, "expects operands of equal shapes");
  for (int64_t k = 0; k < out->numel(); ++k) {
    if (out->dtype.isFloat()) out->setDouble(k, a->getDouble(k) * b->getDouble(k) + c->getDouble(k));
    else out->setInt(k, wrapAdd(wrapMul(a->getInt(k), b->getInt(k)), c->getInt(k)));
  }
  return Value::ofTensor(out);
}

}  // namespace

void registerElementwiseEvals() {
  registerBinaries();
  registerUnaries();
  registerEval("relax.clip", evalClip);
  registerEval("relax.astype", evalCast);
  registerEval("relax.wrap_param", evalCast);
  registerEval("relax.where", evalWhere);
  registerEval("relax.ewise_fma", evalFma);
}

}  // namespace rlx
