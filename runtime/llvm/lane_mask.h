// The AVX-512 lane mask the hand-written kernels (GEMM, transposes, window convolutions, Winograd,
// attention) use for a vector's tail (its first n of 16 float lanes), and the permute index that
// gathers every second float of two vectors.
#pragma once
#include <immintrin.h>

// GCC 12's AVX-512 intrinsics (shuffles, max/min, reductions) start from _mm512_undefined_ps, which
// -W(maybe-)uninitialized reports at every inlined use (GCC bug 105593); the kernels that include
// this header never read an undefined value.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include <cstdint>

namespace rlx {

// Lanes [0, n) of 16 (none for n <= 0, all for n >= 16).
inline __mmask16 firstLanes(int64_t n) { return n >= 16 ? __mmask16(0xFFFF) : n <= 0 ? __mmask16(0) : __mmask16((1u << n) - 1); }

// For _mm512_permutex2var_ps(a, index, b): floats first, first + 2, .., first + 30 of the 32 in a
// then b (first 0: the even ones, 1: the odd ones).
__attribute__((target("avx512f"), always_inline)) inline __m512i everySecondLane(int first) {
  return _mm512_add_epi32(_mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0), _mm512_set1_epi32(first));
}

}  // namespace rlx
