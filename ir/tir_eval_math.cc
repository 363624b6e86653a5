// TIR interpreter arithmetic: scalar lanes, casts, the binary operators and the math/bitwise
// intrinsics, with TVM's semantics (ints wrap to their width, floats round to their precision).
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "ir/minifloat.h"
#include "ir/tir_eval_internal.h"

namespace rlx::tireval {

int64_t wrapInt(DataType t, int64_t v) {
  if (t.isBool()) return v != 0;
  if (t.bits >= 64 || t.bits == 0) return v;
  uint64_t mask = (uint64_t(1) << t.bits) - 1;
  uint64_t low = uint64_t(v) & mask;
  if (t.code == DataType::UInt) return int64_t(low);
  uint64_t sign = uint64_t(1) << (t.bits - 1);
  return int64_t((low ^ sign) - sign);  // sign-extend without shifting into the sign bit
}

double roundFloat(DataType t, double v) {
  if (t.isMiniFloat()) return roundToMiniFloat(t, v);
  if (t.code == DataType::BFloat) return bfloat16ToFloat(floatToBfloat16(float(v)));
  if (t.code != DataType::Float || t.bits == 64) return v;
  if (t.bits == 32) return double(float(v));
  if (t.bits == 16) return halfToFloat(floatToHalf(float(v)));
  return v;
}

Scalar Scalar::ofInt(DataType t, int64_t v) {
  Scalar s;
  s.dtype = t;
  s.i = wrapInt(t, v);
  return s;
}

Scalar Scalar::ofFloat(DataType t, double v) {
  Scalar s;
  s.dtype = t;
  s.f = roundFloat(t, v);
  return s;
}

double Scalar::toDouble() const {
  if (isFloat()) return f;
  return isUInt64() ? double(uint64_t(i)) : double(i);
}

Scalar castScalar(DataType to, const Scalar& v) {
  DataType t = to.element();
  if (t.isFloat()) return Scalar::ofFloat(t, v.toDouble());
  if (t.isBool()) return Scalar::ofBool(v.truthy());
  if (!v.isFloat()) return Scalar::ofInt(t, v.i);
  // Truncation toward zero; uint64 targets above INT64_MAX keep their bits.
  if (t.code == DataType::UInt && t.bits == 64 && v.f >= 9.2233720368547758e18)
    return Scalar::ofInt(t, v.f >= 1.8446744073709552e19 ? -1 : int64_t(uint64_t(v.f)));
  return Scalar::ofInt(t, saturatingInt(v.f));
}

namespace {

// The raw bits of a lane in its dtype's storage format.
uint64_t bitsOf(const Scalar& v) {
  DataType t = v.dtype;
  if (t.isMiniFloat()) return encodeMiniFloat(t, float(v.f));  // exact: v.f is a value of t
  if (t.code == DataType::BFloat) return floatToBfloat16(float(v.f));
  if (t.code == DataType::Float) {
    if (t.bits == 16) return floatToHalf(float(v.f));
    if (t.bits == 32) {
      float x = float(v.f);
      uint32_t b;
      std::memcpy(&b, &x, 4);
      return b;
    }
    uint64_t b;
    std::memcpy(&b, &v.f, 8);
    return b;
  }
  return t.bits >= 64 ? uint64_t(v.i) : uint64_t(v.i) & ((uint64_t(1) << t.bits) - 1);
}

Scalar fromBits(DataType t, uint64_t b) {
  if (t.isMiniFloat()) return Scalar::ofFloat(t, decodeMiniFloat(t, uint8_t(b)));
  if (t.code == DataType::BFloat) return Scalar::ofFloat(t, bfloat16ToFloat(uint16_t(b)));
  if (t.code == DataType::Float) {
    if (t.bits == 16) return Scalar::ofFloat(t, halfToFloat(uint16_t(b)));
    if (t.bits == 32) {
      uint32_t w = uint32_t(b);
      float x;
      std::memcpy(&x, &w, 4);
      return Scalar::ofFloat(t, x);
    }
    double x;
    std::memcpy(&x, &b, 8);
    return Scalar::ofFloat(t, x);
  }
  return Scalar::ofInt(t, int64_t(b));
}

bool knownFloat(DataType t) {
  return (t.code == DataType::Float && (t.bits == 16 || t.bits == 32 || t.bits == 64)) || (t.code == DataType::BFloat && t.bits == 16) || t.isMiniFloat();
}

}  // namespace

Result<Scalar> reinterpretScalar(DataType to, const Scalar& v) {
  DataType t = to.element();
  if (t.bits != v.dtype.bits) return Error("T.reinterpret from " + v.dtype.str() + " to " + t.str() + ": the widths differ");
  if ((t.isFloat() && !knownFloat(t)) || (v.isFloat() && !knownFloat(v.dtype))) return Error("T.reinterpret between " + v.dtype.str() + " and " + t.str() + " is not supported");
  return fromBits(t, bitsOf(v));
}

namespace {

std::string opName(NodeKind k) {
  if (k == NodeKind::Min) return "min";
  if (k == NodeKind::Max) return "max";
  const char* s = binaryOpSymbol(k);
  return s ? s : "?";
}

// The comparisons EQ, NE, LT, LE, GT, GE on two operands of one type (double, int64_t or uint64_t:
// the callers pick the signedness); nullopt for every other operator.
template <typename T>
std::optional<bool> compareAs(NodeKind k, T a, T b) {
  switch (k) {
    case NodeKind::EQ: return a == b;
    case NodeKind::NE: return a != b;
    case NodeKind::LT: return a < b;
    case NodeKind::LE: return a <= b;
    case NodeKind::GT: return a > b;
    case NodeKind::GE: return a >= b;
    default: return std::nullopt;
  }
}

Result<Scalar> floatBinary(NodeKind k, DataType t, double a, double b) {
  if (auto c = compareAs(k, a, b)) return Scalar::ofBool(*c);
  switch (k) {
    case NodeKind::Add: return Scalar::ofFloat(t, a + b);
    case NodeKind::Sub: return Scalar::ofFloat(t, a - b);
    case NodeKind::Mul: return Scalar::ofFloat(t, a * b);
    case NodeKind::Div: return Scalar::ofFloat(t, a / b);
    case NodeKind::Mod: return Scalar::ofFloat(t, std::fmod(a, b));  // LLVM's frem
    case NodeKind::FloorDiv: return Scalar::ofFloat(t, std::floor(a / b));
    case NodeKind::FloorMod: return Scalar::ofFloat(t, a - std::floor(a / b) * b);
    // TVM's codegen emits select(a > b, a, b): a NaN in `b` wins, a NaN in `a` loses.
    case NodeKind::Min: return Scalar::ofFloat(t, a < b ? a : b);
    case NodeKind::Max: return Scalar::ofFloat(t, a > b ? a : b);
    default: return Error("operator '" + opName(k) + "' on floats");
  }
}

// Truncating and flooring division of signed 64-bit values (INT64_MIN / -1 wraps, as LLVM's would
// be undefined; we pick the two's-complement result).
int64_t truncDiv(int64_t a, int64_t b) { return (a == INT64_MIN && b == -1) ? a : a / b; }
int64_t truncMod(int64_t a, int64_t b) { return b == -1 ? 0 : a % b; }
int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = truncDiv(a, b);
  return (truncMod(a, b) != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t floorMod(int64_t a, int64_t b) {
  int64_t r = truncMod(a, b);
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

Result<Scalar> unsignedBinary(NodeKind k, DataType t, uint64_t a, uint64_t b) {
  if (auto c = compareAs(k, a, b)) return Scalar::ofBool(*c);
  switch (k) {
    case NodeKind::Div:
    case NodeKind::FloorDiv: return Scalar::ofInt(t, int64_t(a / b));
    case NodeKind::Mod:
    case NodeKind::FloorMod: return Scalar::ofInt(t, int64_t(a % b));
    case NodeKind::Min: return Scalar::ofInt(t, int64_t(a < b ? a : b));
    case NodeKind::Max: return Scalar::ofInt(t, int64_t(a > b ? a : b));
    default: return Error("unreachable unsigned operator");
  }
}

Result<Scalar> intBinary(NodeKind k, DataType t, const Scalar& x, const Scalar& y) {
  int64_t a = x.i, b = y.i;
  uint64_t ua = uint64_t(a), ub = uint64_t(b);
  bool isDiv = k == NodeKind::Div || k == NodeKind::Mod || k == NodeKind::FloorDiv || k == NodeKind::FloorMod;
  if (isDiv && b == 0) return Error("integer division by zero ('" + opName(k) + "' on " + x.dtype.str() + ")");
  bool isOrder = k == NodeKind::Min || k == NodeKind::Max || (k >= NodeKind::LT && k <= NodeKind::GE);
  if ((isDiv || isOrder) && (x.isUInt64() || y.isUInt64())) return unsignedBinary(k, t, ua, ub);
  if (auto c = compareAs(k, a, b)) return Scalar::ofBool(*c);
  switch (k) {
    case NodeKind::Add: return Scalar::ofInt(t, int64_t(ua + ub));
    case NodeKind::Sub: return Scalar::ofInt(t, int64_t(ua - ub));
    case NodeKind::Mul: return Scalar::ofInt(t, int64_t(ua * ub));
    case NodeKind::Div: return Scalar::ofInt(t, truncDiv(a, b));
    case NodeKind::Mod: return Scalar::ofInt(t, truncMod(a, b));
    case NodeKind::FloorDiv: return Scalar::ofInt(t, floorDiv(a, b));
    case NodeKind::FloorMod: return Scalar::ofInt(t, floorMod(a, b));
    case NodeKind::Min: return Scalar::ofInt(t, a < b ? a : b);
    case NodeKind::Max: return Scalar::ofInt(t, a > b ? a : b);
    default: return Error("unreachable integer operator");
  }
}

}  // namespace

Result<Scalar> applyBinary(NodeKind k, DataType resultType, const Scalar& a, const Scalar& b) {
  if (k == NodeKind::And) return Scalar::ofBool(a.truthy() && b.truthy());
  if (k == NodeKind::Or) return Scalar::ofBool(a.truthy() || b.truthy());
  DataType t = resultType.element();
  // Comparisons have a bool result; the operands' dtype decides how they compare.
  bool floating = a.isFloat() || b.isFloat();
  if (floating) {
    DataType ft = isComparison(k) ? (a.isFloat() ? a.dtype : b.dtype) : t;
    return floatBinary(k, ft.isFloat() ? ft : DataType::float64(), a.toDouble(), b.toDouble());
  }
  if (!isComparison(k) && !t.isIntegral()) return Error("operator '" + opName(k) + "' with result dtype " + t.str());
  return intBinary(k, t, a, b);
}

}  // namespace rlx::tireval
