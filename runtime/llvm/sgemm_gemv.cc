// rlx_sgemm's one-row path (batch-1 inference: a vector times a matrix): blocks of columns with
// eight independent accumulators over B's rows in place, its packed panels or its weight panels.
#include <immintrin.h>

#include <algorithm>

#include "runtime/llvm/lane_mask.h"
#include "runtime/llvm/scratch.h"
#include "runtime/llvm/sgemm_parts.h"

namespace rlx::sgemm_parts {

// M = 1 (a vector times a matrix: batch-1 inference). The micro-kernel would keep two accumulators,
// each FMA waiting for the previous one; here a block of kGW columns keeps kGV independent
// accumulators while k runs, over B's rows in place or its packed panels. Same sums as the tiles:
// each element from 0, in k's order, fused. (kGV, kGW: sgemm_parts.h.)

// acc[v] += sum over k of a[ka[k]] * b[k * step + 16 * v] for v < V (the vectors a block of w
// columns needs: a 10-wide output runs one FMA chain per k, not eight), lanes outside mask[v] ignored.
// Named locals, not the arrays: GCC keeps arrays of vectors in memory, storing every sum each k step.
template <int V>
__attribute__((target("avx512f,fma"), always_inline)) inline void gemvPanel(int64_t kc, const float* a, const int64_t* ka, const float* b, int64_t step,
                                                                              const __mmask16 (&mask)[kGV], __m512 (&acc)[kGV]) {
  static_assert(kGV == 8 && V >= 1 && V <= kGV, "gemvPanel keeps up to eight accumulators");
  __m512 s0 = acc[0], s1 = acc[1], s2 = acc[2], s3 = acc[3], s4 = acc[4], s5 = acc[5], s6 = acc[6], s7 = acc[7];
  const __mmask16 m0 = mask[0], m1 = mask[1], m2 = mask[2], m3 = mask[3], m4 = mask[4], m5 = mask[5], m6 = mask[6], m7 = mask[7];
  for (int64_t k = 0; k < kc; ++k, b += step) {
    __m512 x = _mm512_set1_ps(a[ka[k]]);
    s0 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(m0, b), s0);
    if constexpr (V > 1) s1 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(m1, b + 16), s1);
    if constexpr (V > 2) s2 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(m2, b + 32), s2);
    if constexpr (V > 3) s3 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(m3, b + 48), s3);
    if constexpr (V > 4) s4 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(m4, b + 64), s4);
    if constexpr (V > 5) s5 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(m5, b + 80), s5);
    if constexpr (V > 6) s6 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(m6, b + 96), s6);
    if constexpr (V > 7) s7 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(m7, b + 112), s7);
  }
  acc[0] = s0, acc[1] = s1, acc[2] = s2, acc[3] = s3, acc[4] = s4, acc[5] = s5, acc[6] = s6, acc[7] = s7;
}

// gemvPanel for the vectors `w` columns need.
__attribute__((target("avx512f,fma"))) void gemvPanelOf(int64_t w, int64_t kc, const float* a, const int64_t* ka, const float* b, int64_t step,
                                                        const __mmask16 (&mask)[kGV], __m512 (&acc)[kGV]) {
  switch ((w + 15) / 16) {
    case 1: return gemvPanel<1>(kc, a, ka, b, step, mask, acc);
    case 2: return gemvPanel<2>(kc, a, ka, b, step, mask, acc);
    case 3: return gemvPanel<3>(kc, a, ka, b, step, mask, acc);
    case 4: return gemvPanel<4>(kc, a, ka, b, step, mask, acc);
    case 5: return gemvPanel<5>(kc, a, ka, b, step, mask, acc);
    case 6: return gemvPanel<6>(kc, a, ka, b, step, mask, acc);
    case 7: return gemvPanel<7>(kc, a, ka, b, step, mask, acc);
    default: return gemvPanel<8>(kc, a, ka, b, step, mask, acc);
  }
}

// The GEMV over B's micro-panels (bPanels): columns [j, j + w) (whole slivers, or a padded last one) of k rows [pc, pc + kc),
// each sliver's two vectors kNR floats a k step from its own panel.
__attribute__((target("avx512f,fma"))) void gemvSlivers(const Gemm& g, const Operands& o, int64_t pc, int64_t kc, int64_t j, int64_t w, const float* a,
                                                        __m512 (&acc)[kGV]) {
  static_assert(kGW == 4 * kNR, "a GEMV block is four slivers");
  const float* p[4];
  int64_t slivers = (w + kNR - 1) / kNR;  // a padded last panel's zeros go to masked-off lanes
  for (int64_t s = 0; s < 4; ++s) p[s] = o.b + g.kB[size_t(pc)] + g.nB[size_t(j + std::min(s, slivers - 1) * kNR)];
  const int64_t* ka = g.kA.data() + pc;
  __m512 s0 = acc[0], s1 = acc[1], s2 = acc[2], s3 = acc[3], s4 = acc[4], s5 = acc[5], s6 = acc[6], s7 = acc[7];
  for (int64_t k = 0; k < kc; ++k) {
    __m512 x = _mm512_set1_ps(a[ka[k]]);
    int64_t at = k * kNR;
    s0 = _mm512_fmadd_ps(x, _mm512_loadu_ps(p[0] + at), s0), s1 = _mm512_fmadd_ps(x, _mm512_loadu_ps(p[0] + at + 16), s1);
    if (slivers > 1) s2 = _mm512_fmadd_ps(x, _mm512_loadu_ps(p[1] + at), s2), s3 = _mm512_fmadd_ps(x, _mm512_loadu_ps(p[1] + at + 16), s3);
    if (slivers > 2) s4 = _mm512_fmadd_ps(x, _mm512_loadu_ps(p[2] + at), s4), s5 = _mm512_fmadd_ps(x, _mm512_loadu_ps(p[2] + at + 16), s5);
    if (slivers > 3) s6 = _mm512_fmadd_ps(x, _mm512_loadu_ps(p[3] + at), s6), s7 = _mm512_fmadd_ps(x, _mm512_loadu_ps(p[3] + at + 16), s7);
  }
  acc[0] = s0, acc[1] = s1, acc[2] = s2, acc[3] = s3, acc[4] = s4, acc[5] = s5, acc[6] = s6, acc[7] = s7;
}

__attribute__((target("avx512f,fma"))) void gemvAvx512(const Gemm& g, const Operands& o, int64_t j0, int64_t j1) {
  float* bp = g.packB ? rlx::threadScratch(rlx::ScratchSlot::GemmB, size_t(kKC * kGW)) : nullptr;
  const float* a = o.a + g.mA[0];
  for (int64_t j = j0; j < j1; j += kGW) {
    int64_t w = std::min(kGW, j1 - j);
    __mmask16 mask[kGV];
    __m512 acc[kGV];
    for (int64_t v = 0; v < kGV; ++v) mask[v] = firstLanes(w - 16 * v), acc[v] = _mm512_setzero_ps();
    for (int64_t pc = 0; pc < g.k; pc += kKC) {
      int64_t kc = std::min(kKC, g.k - pc);
      if (g.bPanels) {
        gemvSlivers(g, o, pc, kc, j, w, a, acc);
      } else if (g.packB) {
        // Packed as wide as the block's vectors: a narrow block (a squeeze-excitation's 28 outputs)
        // packed to all kGW columns wrote 100 columns of zeros per k row.
        int64_t width = (w + 15) / 16 * 16;
        packB(g, o, pc, kc, j, w, bp, width);
        gemvPanelOf(w, kc, a, g.kA.data() + pc, bp, width, mask, acc);
      } else {
        gemvPanelOf(w, kc, a, g.kA.data() + pc, o.b + g.kB[size_t(pc)] + g.nB[size_t(j)], g.ldb, mask, acc);
      }
    }
    float* c = o.c + g.mC[0];
    if (g.cUnit) {
      for (int64_t v = 0; v < kGV; ++v) _mm512_mask_storeu_ps(c + g.nC[size_t(j)] + 16 * v, mask[v], acc[v]);
    } else {
      alignas(64) float tile[kGW];
      for (int64_t v = 0; v < kGV; ++v) _mm512_store_ps(tile + 16 * v, acc[v]);
      for (int64_t t = 0; t < w; ++t) c[g.nC[size_t(j + t)]] = tile[t];
    }
    finish(g, 0, 1, j, j + w);
  }
}

}  // namespace rlx::sgemm_parts
