// The constants of rlx's float exp (Cody and Waite's reduction, a degree-5 minimax polynomial), which
// the JIT's expFloat (intrin.cc) and the attention kernel's exp16 (attention.cc) both use.
#pragma once

namespace rlx::exp_float {

inline constexpr double kLog2e = 1.4426950408889634;
// ln 2 in two parts: the high one exact in float times any n of the range.
inline constexpr double kLn2High = 0.693145751953125, kLn2Low = 1.428606765330187e-06;
// e^r on |r| <= ln2 / 2 by the degree-5 polynomial of least maximum relative error (8.2e-8, under an
// ulp) that is exact where 0 reduces to (so that exp(0) is 1), coefficients highest degree first
// (Horner's order), from tools/exp_polynomial.py (Remez). The float pipeline around it stays within
// 2.2 ulp of the rounded result: a degree-7 Taylor polynomial (1.2 ulp) took two more FMAs, and an
// exp or a SiLU is bound by the FMA pipes (1 thread, 1.2M floats: exp 0.258 -> 0.214 ms).
inline constexpr double kPolynomial[] = {0.008251625264971583, 0.04192023922910849, 0.16668180316250392, 0.4999885078272211, 0.9999995377557224, 1.0000000759860224};
// The arguments whose result is a normal float: ln(smallest normal) and ln(largest finite).
inline constexpr double kLowest = -87.33654, kHighest = 88.72283;
// The JIT's clamp of exp's argument (expFloat in intrin.cc, which rounds x / ln2 down): n is -127 at
// the bottom (a zero scale) and 128 at the top (an infinite one).
inline constexpr double kClampLow = -87.5, kClampHigh = 89.0;
inline constexpr double kSqrt2 = 1.4142135623730951;

}  // namespace rlx::exp_float
