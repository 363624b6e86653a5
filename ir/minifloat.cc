// The float8/float4 conversions every layer shares (NDArray, TIR interpreter, the JIT's helper), so
// folded constants, interpreted kernels and compiled kernels agree bit for bit.
#include "ir/minifloat.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace rlx {

namespace {

// Facts from the formats' definitions (OCP FP8/MX specs; the fnuz types of Graphcore/AMD, as LLVM's
// APFloat and ml_dtypes name them): maxima 448, 240, 57344, 57344, 2^127, 6.
const MiniFloatFormat kE4M3FN = {4, 3, 7, true, false, 0x7f, true, 0x7e, 448.0, 464.0, false};
const MiniFloatFormat kE4M3FNUZ = {4, 3, 8, true, false, 0x80, true, 0x7f, 240.0, 248.0, true};
const MiniFloatFormat kE5M2 = {5, 2, 15, true, true, 0x7e, true, 0x7b, 57344.0, 61440.0, true};
const MiniFloatFormat kE5M2FNUZ = {5, 2, 16, true, false, 0x80, true, 0x7f, 57344.0, 61440.0, true};
const MiniFloatFormat kE8M0FNU = {8, 0, 127, false, false, 0xff, true, 0xfe, 0x1p127, 0x1p127, false};
const MiniFloatFormat kE2M1FN = {2, 1, 1, true, false, 0, false, 0x7, 6.0, 7.0, true};

// The fnuz types mark NaN with the otherwise unused -0 pattern.
bool nanIsNegZero(const MiniFloatFormat& f) { return f.nanCode == 0x80; }

}  // namespace

const MiniFloatFormat* miniFloatFormat(DataType t) {
  switch (t.code) {
    case DataType::Float8E4M3FN: return &kE4M3FN;
    case DataType::Float8E4M3FNUZ: return &kE4M3FNUZ;
    case DataType::Float8E5M2: return &kE5M2;
    case DataType::Float8E5M2FNUZ: return &kE5M2FNUZ;
    case DataType::Float8E8M0FNU: return &kE8M0FNU;
    case DataType::Float4E2M1FN: return &kE2M1FN;
    default: return nullptr;
  }
}

float decodeMiniFloat(DataType t, uint8_t code) {
  const MiniFloatFormat* f = miniFloatFormat(t);
  if (!f) return 0;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  if (!f->hasSign) return code == f->nanCode ? nan : float(std::ldexp(1.0, int(code) - f->bias));  // e8m0
  int width = f->expBits + f->manBits;  // the magnitude's bits, below the sign
  code &= uint8_t((1u << (width + 1)) - 1);
  bool negative = (code >> width) & 1;
  unsigned mag = code & ((1u << width) - 1);
  unsigned exp = mag >> f->manBits, man = mag & ((1u << f->manBits) - 1);
  unsigned expOnes = (1u << f->expBits) - 1;
  if (f->hasNaN) {
    if (nanIsNegZero(*f) ? code == 0x80 : f->hasInf ? (exp == expOnes && man != 0) : mag == (1u << width) - 1)
      return negative ? -nan : nan;
    if (f->hasInf && exp == expOnes) return negative ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  }
  double v = exp == 0 ? std::ldexp(double(man), 1 - f->bias - f->manBits) : std::ldexp(double((1u << f->manBits) + man), int(exp) - f->bias - f->manBits);
  return float(negative ? -v : v);
}

uint8_t encodeMiniFloat(DataType t, float v, bool saturate) {
  const MiniFloatFormat* f = miniFloatFormat(t);
  if (!f) return 0;
  if (!f->hasSign) {
    // e8m0: the float's biased exponent is the code (both are biased by 127); anything that is not
    // an exact power of two rounds up. The sign is ignored (ONNX leaves negative inputs unspecified).
    uint32_t bits = std::bit_cast<uint32_t>(v);
    uint32_t e = (bits >> 23) & 0xff, fraction = bits & 0x7fffff;
    if (e == 0xff) return f->nanCode;
    if (e == 0) return fraction > (1u << 22) ? 1 : 0;  // float32 subnormals: up to 2^-127, or 2^-126
    if (fraction != 0 && !(saturate && e == f->maxCode)) ++e;
    return uint8_t(e);
  }
  int width = f->expBits + f->manBits;
  uint8_t sign = std::signbit(v) ? uint8_t(1u << width) : 0;
  if (std::isnan(v)) {
    if (!f->hasNaN) return 0;
    return nanIsNegZero(*f) ? f->nanCode : uint8_t(f->nanCode | sign);
  }
  double a = std::fabs(double(v));
  int64_t mag = 0;
  if (std::isinf(a)) {
    if (f->hasInf) return uint8_t(sign | (((1u << f->expBits) - 1) << f->manBits));
    mag = int64_t(f->maxCode) + 1;
  } else if (a != 0) {
    // a = m * 2^(E - manBits) with m an integer after rounding; subnormals share the smallest
    // normal exponent. The magnitude code is then ((E + bias - 1) << manBits) + m: a mantissa that
    // rounds up to 2^(manBits+1) carries into the exponent on its own, and subnormals come out with
    // exponent field 0. Both scalings are exact; nearbyint rounds half to even.
    int e = 0;
    std::frexp(a, &e);
    int exp = std::max(e - 1, 1 - f->bias);
    double m = std::nearbyint(std::ldexp(a, f->manBits - exp));
    mag = (int64_t(exp + f->bias - 1) << f->manBits) + int64_t(m);
  }
  if (mag > f->maxCode) {
    if (saturate || !f->hasNaN) return uint8_t(sign | f->maxCode);
    if (f->hasInf) return uint8_t(sign | (((1u << f->expBits) - 1) << f->manBits));
    return nanIsNegZero(*f) ? f->nanCode : uint8_t(f->nanCode | sign);
  }
  if (mag == 0 && nanIsNegZero(*f)) return 0;  // no -0 in the fnuz types
  return uint8_t(sign | mag);
}

double roundToMiniFloat(DataType t, double v) { return decodeMiniFloat(t, encodeMiniFloat(t, float(v))); }

}  // namespace rlx
