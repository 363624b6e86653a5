// rlx_sgemm's packing: blocks of A and panels of B copied into the micro-panels the tiles stream,
// gathering a convolution's implicit-GEMM operand on the way (no im2col buffer).
#include <immintrin.h>

#include <algorithm>
#include <climits>

#include "runtime/llvm/lane_mask.h"
#include "runtime/llvm/sgemm_parts.h"
#include "runtime/llvm/transpose_tile.h"

namespace rlx::sgemm_parts {

namespace {

// A panel's rows as runs of addresses one or two floats apart: the step, and the row where the second
// run starts (rows when the panel is one run); step 0 when it takes more than two runs or no such step.
struct PixelRuns {
  int64_t step = 0, breakAt = 0;
};

PixelRuns runsOf(const float* const* row, int64_t rows) {
  PixelRuns best;
  int64_t fewest = 2;
  for (int64_t step : {int64_t(1), int64_t(2)}) {
    int64_t breaks = 0, at = rows;
    for (int64_t r = 1; r < rows; ++r)
      if (row[r] - row[r - 1] != step) ++breaks, at = r;
    if (breaks < fewest) best = {step, at}, fewest = breaks;
  }
  return best;
}

}  // namespace

// A[i0.., p0..] (mc x kc) as micro-panels of kMR rows: ap[(s * kc + k) * kMR + r], zero-padded rows.
__attribute__((target("avx512f"))) void packA(const Gemm& g, const Operands& o, int64_t i0, int64_t mc, int64_t p0, int64_t kc, float* ap) {
  const int64_t* ka = g.kA.data() + p0;
  for (int64_t s = 0; s * kMR < mc; ++s, ap += kc * kMR) {
    int64_t rows = std::min(kMR, mc - s * kMR), k = 0;
    const float* row[kMR];
    for (int64_t r = 0; r < rows; ++r) row[r] = o.a + g.mA[size_t(i0 + s * kMR + r)];
    if (!g.kAUnit) {
      // Rows in one or two runs one or two floats apart (a transposed convolution's output pixels at
      // stride 1 or 2; two where a panel of them crosses an image row's end, at 7 x 7 nearly every
      // panel): each k step's eight elements come from one vector load (the even lanes at stride 2),
      // or from two and a permute (a gather per k step had been 7.7% of a stride-2 3 x 3 layer at 7 x 7).
      if (PixelRuns runs = runsOf(row, rows); runs.step && runs.breakAt == rows) {
        const __m512i even = everySecondLane(0);
        const __mmask16 m = firstLanes(runs.step * (rows - 1) + 1);
        for (; k < kc; ++k) {
          __m512 v = _mm512_maskz_loadu_ps(m, row[0] + ka[k]);
          if (runs.step == 2) v = _mm512_permutexvar_ps(even, v);
          _mm256_storeu_ps(ap + k * kMR, _mm512_castps512_ps256(v));
        }
        continue;
      } else if (runs.step) {
        int32_t lane[16] = {};
        for (int64_t r = 0; r < rows; ++r) lane[r] = int32_t(r < runs.breakAt ? r * runs.step : 16 + (r - runs.breakAt) * runs.step);
        const __m512i index = _mm512_loadu_si512(lane);
        const __mmask16 first = firstLanes(runs.step * (runs.breakAt - 1) + 1), second = firstLanes(runs.step * (rows - runs.breakAt - 1) + 1);
        for (; k < kc; ++k) {
          __m512 v = _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(first, row[0] + ka[k]), index, _mm512_maskz_loadu_ps(second, row[runs.breakAt] + ka[k]));
          _mm256_storeu_ps(ap + k * kMR, _mm512_castps512_ps256(v));
        }
        continue;
      }
      // Other rows: one gather per k step.
      int32_t lane[16] = {};
      bool near = true;
      for (int64_t r = 0; r < rows; ++r) {
        int64_t d = row[r] - row[0];
        near = near && d >= INT32_MIN && d <= INT32_MAX;
        lane[r] = int32_t(d);
      }
      if (near) {
        const __m512i index = _mm512_loadu_si512(lane);
        const __mmask16 m = firstLanes(rows);
        for (; k < kc; ++k) _mm512_mask_storeu_ps(ap + k * kMR, 0xFF, _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, index, row[0] + ka[k], 4));
        continue;
      }
    }
    if (g.kAUnit) {
      // Contiguous rows: sixteen k steps at a time transposed in registers, the rest element by
      // element (whose strided stores made packing A about a tenth of a large GEMM's time).
      static_assert(kMR == 8, "a micro-panel of A is eight rows, as transpose8x16 makes them");
      for (; k + 16 <= kc; k += 16) {
        __m512 v[kMR];
        for (int64_t r = 0; r < kMR; ++r) v[r] = r < rows ? _mm512_loadu_ps(row[r] + ka[0] + k) : _mm512_setzero_ps();
        __m512 t[8];
        rlx::transpose8x16(v, t);
        for (int j = 0; j < 8; ++j) _mm512_storeu_ps(ap + k * kMR + 16 * j, t[j]);
      }
    }
    for (; k < kc; ++k)
      for (int64_t r = 0; r < kMR; ++r) ap[k * kMR + r] = r < rows ? row[r][ka[k]] : 0.0f;
  }
}

// dst[0..width) = src[0..n) then zeros: a packed row of a B micro-panel. Inline masked vector copies:
// a libc memcpy call per 128-byte row (or per run of a convolution's row) cost more than the copy.
__attribute__((target("avx512f"), always_inline)) inline void copyRow(float* dst, const float* src, int64_t n, int64_t width) {
  for (int64_t c = 0; c < width; c += 16) {
    __mmask16 m = n - c >= 16 ? __mmask16(0xFFFF) : n - c <= 0 ? __mmask16(0) : __mmask16((1u << (n - c)) - 1);
    _mm512_storeu_ps(dst + c, _mm512_maskz_loadu_ps(m, src + c));
  }
}

// B[p0.., j0..] (kc x nc) as micro-panels of `width` columns: bp[(s * kc + k) * width + c],
// zero-padded. A convolution's operand is gathered here (implicit GEMM: no im2col buffer).
__attribute__((target("avx512f"))) void packB(const Gemm& g, const Operands& o, int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* bp, int64_t width) {
  int64_t slivers = (nc + width - 1) / width;
  if (g.nBUnit) {
    // A few rows at a time across all slivers: each row of B is read front to back (sliver by sliver,
    // every row would start on another page), and each sliver receives a contiguous run of rows
    // (row by row, every 128-byte write would land on another page).
    constexpr int64_t kRows = 16;
    for (int64_t k0 = 0; k0 < kc; k0 += kRows) {
      int64_t k1 = std::min(kc, k0 + kRows);
      for (int64_t s = 0; s < slivers; ++s) {
        int64_t w = std::min(width, nc - s * width);
        for (int64_t k = k0; k < k1; ++k) {
          float* dst = bp + (s * kc + k) * width;
          copyRow(dst, o.b + g.kB[size_t(p0 + k)] + g.nB[size_t(j0)] + s * width, w, width);
        }
      }
    }
    return;
  }
  for (int64_t s = 0; s < slivers; ++s, bp += kc * width) {
    int64_t w = std::min(width, nc - s * width);
    const int64_t* nb = g.nB.data() + j0 + s * width;
    if (g.kBUnit) {
      // A transposed operand (x @ W.T): each column is contiguous along k. Blocks of 16 columns x
      // 16 k rows go through registers (transpose16x16) and out as whole vector rows. Column by
      // column over all of kc, scalar, each column's writes touched every row's line again: a
      // squeeze-excitation's 672 -> 28 GEMV spent 40 of its 45 us packing 672 x 28 floats (now 2).
      for (int64_t k0 = 0; k0 < kc; k0 += 16) {
        const int64_t rows = std::min<int64_t>(16, kc - k0);
        const __mmask16 along = firstLanes(rows);
        for (int64_t c0 = 0; c0 < width; c0 += 16) {
          __m512 column[16], row[16];
          for (int64_t i = 0; i < 16; ++i)
            column[i] = c0 + i < w ? _mm512_maskz_loadu_ps(along, o.b + nb[c0 + i] + g.kB[size_t(p0)] + k0) : _mm512_setzero_ps();
          transpose16x16(column, row);
          for (int64_t k = 0; k < rows; ++k) _mm512_storeu_ps(bp + (k0 + k) * width + c0, row[k]);
        }
      }
      continue;
    }
    // Runs of source columns one or two apart (an implicit-GEMM convolution's row of output pixels,
    // at stride 1 or 2) are copied whole; mostly scattered columns are gathered one by one (a
    // stride-2 3x3 layer of ResNet-50 spent 40% of its time gathering them).
    int64_t runStart[kGW + 1], runStep[kGW];
    int64_t runs = 0;
    for (int64_t c = 0; c < w; ++c) {
      int64_t step = c > 0 ? nb[c] - nb[c - 1] : 0;
      if (c > 0 && c - 1 > runStart[runs - 1] && step == runStep[runs - 1]) continue;
      if (c > 0 && c - 1 == runStart[runs - 1] && (step == 1 || step == 2)) {
        runStep[runs - 1] = step;
        continue;
      }
      runStart[runs] = c, runStep[runs] = 1, ++runs;
    }
    runStart[runs] = w;
    bool copyRuns = runs * 4 <= w;
    for (int64_t k = 0; k < kc; ++k) {
      const float* row = o.b + g.kB[size_t(p0 + k)];
      float* dst = bp + k * width;
      if (copyRuns) {
        for (int64_t r = 0; r < runs; ++r) {
          // 16 floats at a time, the last piece masked: a run's copy may not spill into the next
          // run's columns, which come from elsewhere.
          int64_t n = runStart[r + 1] - runStart[r];
          float* d = dst + runStart[r];
          const float* src = row + nb[runStart[r]];
          if (runStep[r] == 2) {
            // Lane l takes src[2l]: the even elements of the next 32, read with masks that stop at
            // the last one taken.
            const __m512i even = everySecondLane(0);
            for (int64_t c = 0; c < n; c += 16, src += 32) {
              int64_t last = 2 * std::min<int64_t>(16, n - c) - 1;  // elements [0, last) are read
              __m512 lo = _mm512_maskz_loadu_ps(firstLanes(last), src), hi = _mm512_maskz_loadu_ps(firstLanes(last - 16), src + 16);
              _mm512_mask_storeu_ps(d + c, firstLanes(n - c), _mm512_permutex2var_ps(lo, even, hi));
            }
            continue;
          }
          for (int64_t c = 0; c < n; c += 16) {
            __mmask16 m = firstLanes(n - c);
            _mm512_mask_storeu_ps(d + c, m, _mm512_maskz_loadu_ps(m, src + c));
          }
        }
      } else {
        for (int64_t c = 0; c < w; ++c) dst[c] = row[nb[c]];
      }
      for (int64_t c = w; c < width; ++c) dst[c] = 0;
    }
  }
}

}  // namespace rlx::sgemm_parts
