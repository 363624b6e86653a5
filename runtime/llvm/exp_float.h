// The constants of rlx's float exp (Cody and Waite's reduction, a degree-7 Taylor polynomial), which
// the JIT's expFloat (intrin.cc) and the attention kernel's exp16 (attention.cc) both use.
#pragma once

namespace rlx::exp_float {

inline constexpr double kLog2e = 1.4426950408889634;
// ln 2 in two parts: the high one exact in float times any n of the range.
inline constexpr double kLn2High = 0.693145751953125, kLn2Low = 1.428606765330187e-06;
// e^r's Taylor coefficients, highest degree first (Horner's order): 1/7! .. 1/1!, 1/0!.
inline constexpr double kTaylor[] = {1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 0.5, 1.0, 1.0};
// The arguments whose result is a normal float: ln(smallest normal) and ln(largest finite).
inline constexpr double kLowest = -87.33654, kHighest = 88.72283;
// The JIT's clamp of exp's argument (expFloat in intrin.cc, which rounds x / ln2 down): n is -127 at
// the bottom (a zero scale) and 128 at the top (an infinite one).
inline constexpr double kClampLow = -87.5, kClampHigh = 89.0;
inline constexpr double kSqrt2 = 1.4142135623730951;

}  // namespace rlx::exp_float
