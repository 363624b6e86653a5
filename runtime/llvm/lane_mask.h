// The AVX-512 lane mask the hand-written kernels (GEMM, transposes, window convolutions, Winograd,
// attention) use for a vector's tail: its first n of 16 float lanes.
#pragma once
#include <immintrin.h>

#include <cstdint>

namespace rlx {

// Lanes [0, n) of 16 (none for n <= 0, all for n >= 16).
inline __mmask16 firstLanes(int64_t n) { return n >= 16 ? __mmask16(0xFFFF) : n <= 0 ? __mmask16(0) : __mmask16((1u << n) - 1); }

}  // namespace rlx
