// Blocks of 32-bit elements transposed in AVX-512 registers: 8 x 16 for packing the GEMM's A panels
// (sgemm.cc) and the transpose kernel (transpose.cc), 16 x 16 for the channel-lane window kernel.
#pragma once
#include <immintrin.h>

namespace rlx {

// row[r] holds elements (r, 0..15); out[j] receives columns 2j and 2j + 1, each as 8 elements
// (0..7, c): out[j] lanes 0-7 are column 2j, lanes 8-15 column 2j + 1. Element bits are moved, not
// converted, so any 32-bit type goes through as floats. Rows are interleaved in pairs (a 64-bit lane
// then holds rows 2s and 2s + 1 at one column), pairs of pairs the same way 64-bit lane by lane,
// and their halves finally put side by side.
__attribute__((target("avx512f"), always_inline)) inline void transpose8x16(const __m512 (&row)[8], __m512 (&out)[8]) {
  const __m512i rowsLo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i rowsHi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  const __m512i pairsLo = _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11), pairsHi = _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15);
  const __m512i quadsLo = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11), quadsHi = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
  for (int half = 0; half < 2; ++half) {
    // pair[s]: rows 2s and 2s + 1 at columns 8 * half + 0..7.
    __m512d pair[4];
    for (int s = 0; s < 4; ++s) pair[s] = _mm512_castps_pd(_mm512_permutex2var_ps(row[2 * s], half ? rowsHi : rowsLo, row[2 * s + 1]));
    // Rows 0-3 (q01) and 4-7 (q23) at four columns each: columns 0..3 of the half in Lo, 4..7 in Hi.
    __m512d q01Lo = _mm512_permutex2var_pd(pair[0], pairsLo, pair[1]), q01Hi = _mm512_permutex2var_pd(pair[0], pairsHi, pair[1]);
    __m512d q23Lo = _mm512_permutex2var_pd(pair[2], pairsLo, pair[3]), q23Hi = _mm512_permutex2var_pd(pair[2], pairsHi, pair[3]);
    out[4 * half + 0] = _mm512_castpd_ps(_mm512_permutex2var_pd(q01Lo, quadsLo, q23Lo));
    out[4 * half + 1] = _mm512_castpd_ps(_mm512_permutex2var_pd(q01Lo, quadsHi, q23Lo));
    out[4 * half + 2] = _mm512_castpd_ps(_mm512_permutex2var_pd(q01Hi, quadsLo, q23Hi));
    out[4 * half + 3] = _mm512_castpd_ps(_mm512_permutex2var_pd(q01Hi, quadsHi, q23Hi));
  }
}

// row[r] holds elements (r, 0..15); out[j] receives column j (elements (0..15, j)). Rows are paired
// 32 bits at a time, then 64, within each 128-bit lane; the lanes, each now four rows at one
// column, are then gathered across registers in two rounds of 128-bit shuffles.
__attribute__((target("avx512f"), always_inline)) inline void transpose16x16(const __m512 (&row)[16], __m512 (&out)[16]) {
  __m512 pairs[16], quads[16];
  for (int i = 0; i < 8; ++i) {
    pairs[2 * i] = _mm512_unpacklo_ps(row[2 * i], row[2 * i + 1]);
    pairs[2 * i + 1] = _mm512_unpackhi_ps(row[2 * i], row[2 * i + 1]);
  }
  // quads[4 * q + k]: rows 4q..4q+3 at columns k, k + 4, k + 8, k + 12 (one per 128-bit lane).
  for (int q = 0; q < 4; ++q) {
    __m512d lo = _mm512_castps_pd(pairs[4 * q]), hi = _mm512_castps_pd(pairs[4 * q + 1]);
    __m512d lo2 = _mm512_castps_pd(pairs[4 * q + 2]), hi2 = _mm512_castps_pd(pairs[4 * q + 3]);
    quads[4 * q + 0] = _mm512_castpd_ps(_mm512_unpacklo_pd(lo, lo2));
    quads[4 * q + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(lo, lo2));
    quads[4 * q + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(hi, hi2));
    quads[4 * q + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(hi, hi2));
  }
  for (int k = 0; k < 4; ++k) {
    // Rows 0-7 (top) and 8-15 (bottom): columns k and k + 8 (even), k + 4 and k + 12 (odd).
    __m512 topEven = _mm512_shuffle_f32x4(quads[k], quads[4 + k], 0x88), topOdd = _mm512_shuffle_f32x4(quads[k], quads[4 + k], 0xdd);
    __m512 botEven = _mm512_shuffle_f32x4(quads[8 + k], quads[12 + k], 0x88), botOdd = _mm512_shuffle_f32x4(quads[8 + k], quads[12 + k], 0xdd);
    out[k] = _mm512_shuffle_f32x4(topEven, botEven, 0x88);
    out[k + 8] = _mm512_shuffle_f32x4(topEven, botEven, 0xdd);
    out[k + 4] = _mm512_shuffle_f32x4(topOdd, botOdd, 0x88);
    out[k + 12] = _mm512_shuffle_f32x4(topOdd, botOdd, 0xdd);
  }
}

}  // namespace rlx
