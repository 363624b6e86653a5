// erf and tanh in float32 as odd rational functions x * P(x^2) / Q(x^2) of an input clamped to
// [-kClamp, kClamp]: FastMath's fast_erf / fast_tanh kernels and the JIT's erf and tanh both use them.
#pragma once

namespace rlx::rational {

// One function's coefficients, highest degree first (Horner's order).
struct OddRational {
  const double* p;
  int pSize;
  const double* q;
  int qSize;
  double clamp;  // beyond it the float result no longer changes
};

// Eigen's float erf (TVM's fast_erf): within 4e-7 absolute (5 ulp) of erf on the whole line.
inline constexpr double kErfP[] = {-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06, -5.69250639462346e-05,
                                   -7.34990630326855e-04, -2.95459980854025e-03, -1.60960333262415e-02};
inline constexpr double kErfQ[] = {-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03, -7.37332916720468e-03, -1.42647390514189e-02};
inline constexpr OddRational kErf{kErfP, 7, kErfQ, 5, 4.0};

// Eigen's float tanh (TVM's fast_tanh): within 3e-7 absolute (5 ulp).
inline constexpr double kTanhP[] = {-2.76076847742355e-16, 2.00018790482477e-13, -8.60467152213735e-11, 5.12229709037114e-08,
                                    1.48572235717979e-05,  6.37261928875436e-04,  4.89352455891786e-03};
inline constexpr double kTanhQ[] = {1.19825839466702e-06, 1.18534705686654e-04, 2.26843463243900e-03, 4.89352518554385e-03};
inline constexpr OddRational kTanh{kTanhP, 7, kTanhQ, 4, 9.0};

}  // namespace rlx::rational
