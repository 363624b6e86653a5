// Floats of one byte or less (float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz,
// float8_e8m0fnu, float4_e2m1fn): exact decoding and round-to-nearest-even encoding of their codes.
#pragma once
#include <cstdint>

#include "ir/dtype.h"

namespace rlx {

// One format's parameters. A code is sign | exponent | mantissa from the high bit down (e8m0 has
// no sign and no mantissa); float4_e2m1fn's code sits in the low nibble of its byte.
struct MiniFloatFormat {
  int expBits, manBits, bias;
  bool hasSign;
  bool hasInf;        // e5m2 only: exponent all ones is inf (mantissa 0) or NaN, as in IEEE 754
  uint8_t nanCode;    // the NaN an encode produces (sign bit clear; e4m3fn and e5m2 keep the sign)
  bool hasNaN;        // float4_e2m1fn has none
  uint8_t maxCode;    // the largest finite magnitude
  double maxFinite;   // its value
  // Encoding a finite |x| past maxFinite (after rounding to nearest even) overflows when
  // |x| > overflowBound, or |x| == overflowBound and overflowInclusive (the tie rounds to the
  // even neighbour, which is past the largest value when its mantissa is odd).
  double overflowBound;
  bool overflowInclusive;
};

// The format of `t` (its lanes ignored), or null when `t` is not one of these types.
const MiniFloatFormat* miniFloatFormat(DataType t);

// The value of `code` (any byte: bits outside a 4-bit code are ignored). Exact: every value of
// these formats is a float.
float decodeMiniFloat(DataType t, uint8_t code);

// `v` rounded to nearest, ties to even: R.astype's conversion (and every rounding to these types).
//  - saturate (the default): a finite value past the largest becomes ±max (as ONNX's Cast with
//    saturate=1). ±inf stays ±inf in e5m2, the one type that has it, and becomes ±max in the others,
//    so that every value of the type converts to itself (ONNX's saturate=1 maps inf to ±max in
//    e5m2 too; its importer composes that).
//  - saturate=false (ONNX's saturate=0): past the largest is inf (e5m2) or NaN (e4m3fn, the fnuz).
//  - NaN stays NaN (e4m3fn and e5m2 keep its sign); float4_e2m1fn, which has no NaN, gives +0.
//  - the fnuz types have no -0: a negative value that rounds to zero gives +0.
//  - float4_e2m1fn always saturates (it has no inf or NaN).
//  - float8_e8m0fnu (powers of two 2^-127 .. 2^127, 0xff NaN) follows ONNX's Cast default of
//    rounding up: the least power of two >= |v|, so 0 gives 2^-127; saturate keeps 2^127 instead
//    of rounding past it to NaN; inf is NaN. (ONNX's reference rounds float32 subnormals at or
//    below 2^-127 up to 2^-126; here 2^-127 stays itself.)
uint8_t encodeMiniFloat(DataType t, float v, bool saturate = true);

// v as `t` holds it: decode(encode(float(v))), the rounding TIR arithmetic in `t` applies.
double roundToMiniFloat(DataType t, double v);

}  // namespace rlx
