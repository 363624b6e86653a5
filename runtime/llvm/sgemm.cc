// rlx_sgemm: Goto/BLIS-style float32 GEMM. B panels (KC x NC) and A blocks (MC x KC) are packed into
// micro-panels; an MR x NR tile of C lives in AVX-512 registers while K runs; threads split N (or M).
#include "runtime/llvm/sgemm.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

#include "runtime/llvm/gemm_offsets.h"
#include "runtime/llvm/lane_mask.h"
#include "runtime/llvm/scratch.h"
#include "runtime/llvm/sgemm_parts.h"
#include "runtime/llvm/thread_pool.h"
#include "runtime/llvm/unit_queues.h"
#include "runtime/llvm/window_conv.h"
#include "runtime/llvm/winograd.h"

using rlx::offsets;
using rlx::Spacing;

using rlx::everySecondLane;
using rlx::firstLanes;

namespace {

using namespace rlx::sgemm_parts;

// The source rows of the next B panel, prefetched (prefetcht2: measured better than t0/t1 here)
// one line every `period` k-step pairs of the current panel's micro-tiles: its reads (from DRAM, for a weight matrix) then overlap the FMAs
// instead of stalling the packing that follows, and are spread out so that they never fill the
// core's queue of outstanding misses. Rows are `stride` bytes apart (B row-contiguous, equal steps).
struct PanelPrefetch {
  const char* row = nullptr;
  int64_t stride = 0, rowBytes = 0, rowsLeft = 0, offset = 0;
  int64_t period = 1, countdown = 1;

  void issue() {
    if (rowsLeft <= 0) return;
    _mm_prefetch(row + offset, _MM_HINT_T2);
    if ((offset += 64) >= rowBytes) offset = 0, row += stride, --rowsLeft;
  }
  inline void tick() {
    if (--countdown == 0) countdown = period, issue();
  }
  // Its lines issued evenly over `pairs` ticks (the k-step pairs of the tiles that run meanwhile).
  void spreadOver(int64_t pairs) {
    int64_t lines = rowsLeft * ((rowBytes + 63) / 64);
    period = countdown = std::max<int64_t>(1, pairs / std::max<int64_t>(lines, 1));
  }
};

// One micro-tile: rows[0..R)[0..nr) of C (accumulating into C's values when `load`) += A's R rows x
// B's micro-panel over kc k steps. A comes packed (ap: kMR floats per k step) or, when ap is null,
// in place: row r's element k at aRows[r][ka[k]], so that an operand used by one or two column
// slivers (a convolution's input pixels) is not copied first. B's k rows are ldb apart from bp;
// bm0/bm1 mask its two halves (all-ones for packed panels, which are zero-padded). Row r of the C
// tile starts at rows[r], its columns at cols[0..nr) (contiguous when cols is null).
struct Tile {
  int64_t kc = 0;
  const float* ap = nullptr;
  const float* const* aRows = nullptr;
  const int64_t* ka = nullptr;
  int64_t aStep = 0;  // AFrom::Strided: the floats from one row of A to the next
  const float* bp = nullptr;
  int64_t ldb = 0;
  __mmask16 bm0 = 0xFFFF, bm1 = 0xFFFF;
  float* const* rows = nullptr;
  const int64_t* cols = nullptr;
  int64_t nr = 0;
  bool load = false;
};

// The second half's operand in a one-vector tile, never used.
__attribute__((target("avx512f"), always_inline)) inline __m512 unusedHalf() { return _mm512_setzero_ps(); }

// One k step of the tile: acc[r] += aOf(r) * (b0, b1). With kTwo false the tile is one vector wide
// (at most 16 columns, a narrow matrix's only or last sliver): the second half is never computed.
template <int R, bool kTwo, class AOf>
__attribute__((target("avx512f,fma"), always_inline)) inline void step(__m512 (&acc0)[R], __m512 (&acc1)[R], __m512 b0, __m512 b1, AOf aOf) {
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    __m512 x = _mm512_set1_ps(aOf(r));
    acc0[r] = _mm512_fmadd_ps(x, b0, acc0[r]);
    if constexpr (kTwo) acc1[r] = _mm512_fmadd_ps(x, b1, acc1[r]);
  }
}

// One half of a row of B: all 16 lanes (packed panels), or the lanes in `mask` (B in place).
template <bool kMasked>
__attribute__((target("avx512f"), always_inline)) inline __m512 loadB(const float* b, __mmask16 mask) {
  return kMasked ? _mm512_maskz_loadu_ps(mask, b) : _mm512_loadu_ps(b);
}

// The k loop over B's rows, A's elements from `aAt(k)(r)`. Two k steps per iteration: less loop
// overhead per FMA, and the prefetch ticks once per pair.
template <int R, bool kTwo, bool kMasked, class AAt>
__attribute__((target("avx512f,fma"), always_inline)) inline void kLoop(__m512 (&acc0)[R], __m512 (&acc1)[R], int64_t kc, const float* bp, int64_t ldb, __mmask16 bm0,
                                                                          __mmask16 bm1, AAt aAt, PanelPrefetch& pf) {
  int64_t k = 0;
  for (; k + 1 < kc; k += 2, bp += 2 * ldb) {
    step<R, kTwo>(acc0, acc1, loadB<kMasked>(bp, bm0), kTwo ? loadB<kMasked>(bp + 16, bm1) : unusedHalf(), aAt(k));
    step<R, kTwo>(acc0, acc1, loadB<kMasked>(bp + ldb, bm0), kTwo ? loadB<kMasked>(bp + ldb + 16, bm1) : unusedHalf(), aAt(k + 1));
    pf.tick();
  }
  if (k < kc) step<R, kTwo>(acc0, acc1, loadB<kMasked>(bp, bm0), kTwo ? loadB<kMasked>(bp + 16, bm1) : unusedHalf(), aAt(k));
}

__attribute__((target("avx512f"), always_inline)) inline __m256 upperHalf(__m512 v) { return _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)); }

// Rows x[0..8) of 16 floats as 16 columns of 8: out[c] = (x[0][c], .., x[7][c]), in registers
// (pairs interleaved, then quads within 128-bit lanes, then the lanes' halves gathered).
__attribute__((target("avx512f"), always_inline)) inline void transpose8x16(const __m512* x, __m256* out) {
  __m512 t[8], u[8];
  for (int i = 0; i < 4; ++i) t[2 * i] = _mm512_unpacklo_ps(x[2 * i], x[2 * i + 1]), t[2 * i + 1] = _mm512_unpackhi_ps(x[2 * i], x[2 * i + 1]);
  // u[4h + q]: rows 4h..4h+3 of columns q, q + 4, q + 8, q + 12 (one per 128-bit lane).
  for (int h = 0; h < 2; ++h) {
    const __m512 *lo = t + 4 * h, *hi = t + 4 * h + 2;
    u[4 * h + 0] = _mm512_shuffle_ps(lo[0], hi[0], 0x44), u[4 * h + 1] = _mm512_shuffle_ps(lo[0], hi[0], 0xEE);
    u[4 * h + 2] = _mm512_shuffle_ps(lo[1], hi[1], 0x44), u[4 * h + 3] = _mm512_shuffle_ps(lo[1], hi[1], 0xEE);
  }
  for (int q = 0; q < 4; ++q) {
    // (u[q] lane l, u[4 + q] lane l) is column q + 4l.
    __m512 a = _mm512_shuffle_f32x4(u[q], u[4 + q], _MM_SHUFFLE(1, 0, 1, 0)), b = _mm512_shuffle_f32x4(u[q], u[4 + q], _MM_SHUFFLE(3, 2, 3, 2));
    a = _mm512_shuffle_f32x4(a, a, _MM_SHUFFLE(3, 1, 2, 0)), b = _mm512_shuffle_f32x4(b, b, _MM_SHUFFLE(3, 1, 2, 0));
    out[q] = _mm512_castps512_ps256(a), out[q + 4] = upperHalf(a), out[q + 8] = _mm512_castps512_ps256(b), out[q + 12] = upperHalf(b);
  }
}

// A tile of 8 rows that are consecutive elements of C (rows[r] = rows[0] + r: a transposed GEMM's
// rows, a convolution's output pixels), its columns scattered (cols: the output channels): stored a
// column's 8 values at a time through a register transpose, instead of 8 x nr scalar stores that
// cost as much as the FMAs of a small-K tile (a 3 x 3 stem convolution's K is 27).
__attribute__((target("avx512f"), always_inline)) inline void storeColumns(const __m512* acc0, const __m512* acc1, float* base, const int64_t* cols, int64_t nr) {
  __m256 col[16];
  transpose8x16(acc0, col);
  for (int64_t j = 0; j < std::min<int64_t>(nr, 16); ++j) _mm256_storeu_ps(base + cols[j], col[j]);
  if (nr <= 16) return;
  transpose8x16(acc1, col);
  for (int64_t j = 16; j < nr; ++j) _mm256_storeu_ps(base + cols[j], col[j - 16]);
}

// Where a micro-tile reads A: packed micro-panels, its rows in place (each its own pointer), or rows
// in place that are consecutive elements (a transposed convolution's output pixels: one pointer,
// the row a displacement, so that eight row pointers no longer crowd the registers out) or evenly
// apart (attention's probabilities times v: one pointer and the step).
enum class AFrom { Rows, Packed, Consecutive, Strided };

// A's element (k, r) of tile `t`: from the packed micro-panel, or from its row in place.
template <int R, AFrom kA>
__attribute__((always_inline)) inline auto aElements(const Tile& t, const float* const (&aRow)[R]) {
  const float* ap = t.ap;
  const int64_t* ka = t.ka;
  return [ap, ka, &aRow, step = t.aStep](int64_t k) {
    if constexpr (kA == AFrom::Packed) {
      const float* a = ap + k * kMR;
      return [a](int r) { return a[r]; };
    } else if constexpr (kA == AFrom::Consecutive) {
      const float* a = aRow[0] + ka[k];
      return [a](int r) { return a[r]; };
    } else if constexpr (kA == AFrom::Strided) {
      const float* a = aRow[0] + ka[k];
      return [a, step](int r) { return a[r * step]; };
    } else {
      int64_t off = ka[k];
      return [&aRow, off](int r) { return aRow[r][off]; };
    }
  };
}

// The common tile: C's rows contiguous (no scattered columns), its values in registers from the
// start to the stores. Apart from micro's other paths, so that GCC keeps the sixteen accumulators
// in registers (with every path in one function it spilled them to the stack around the k loop).
template <int R, bool kTwo, AFrom kA, bool kMasked>
__attribute__((target("avx512f,fma"), always_inline)) inline void microRows(const Tile& t, PanelPrefetch& pf, const float* const (&aRow)[R]) {
  __m512 acc0[R], acc1[R];
  const __mmask16 cm0 = firstLanes(t.nr), cm1 = firstLanes(t.nr - 16);
  // The row pointers in locals: each store through a float* could otherwise alias the Tile and
  // made GCC reload t.rows before every one.
  float* rows[R];
  for (int r = 0; r < R; ++r) rows[r] = t.rows[r];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    if (t.load) {
      acc0[r] = _mm512_maskz_loadu_ps(cm0, rows[r]), acc1[r] = kTwo ? _mm512_maskz_loadu_ps(cm1, rows[r] + 16) : _mm512_setzero_ps();
    } else {
      acc0[r] = _mm512_setzero_ps(), acc1[r] = _mm512_setzero_ps();
    }
  }
  kLoop<R, kTwo, kMasked>(acc0, acc1, t.kc, t.bp, t.ldb, t.bm0, t.bm1, aElements<R, kA>(t, aRow), pf);
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    _mm512_mask_storeu_ps(rows[r], cm0, acc0[r]);
    if constexpr (kTwo) _mm512_mask_storeu_ps(rows[r] + 16, cm1, acc1[r]);
  }
}

// The micro-kernel of an R-row tile (see Tile): C's columns contiguous (microRows) or scattered.
template <int R, bool kTwo, AFrom kA>
__attribute__((target("avx512f,fma"))) void micro(const Tile& t, PanelPrefetch& pf) {
  constexpr bool kAPacked = kA == AFrom::Packed;
  const float* aRowsHere[R];
  for (int r = 0; r < R; ++r) aRowsHere[r] = kAPacked ? nullptr : t.aRows[r];
  const bool wholeB = t.bm0 == 0xFFFF && t.bm1 == 0xFFFF;
  if (!t.cols) return wholeB ? microRows<R, kTwo, kA, false>(t, pf, aRowsHere) : microRows<R, kTwo, kA, true>(t, pf, aRowsHere);
  __m512 acc0[R], acc1[R];
  __mmask16 cm0 = firstLanes(t.nr), cm1 = firstLanes(t.nr - 16);
  alignas(64) float tile[R][kNR];
  if (t.load)
    for (int r = 0; r < R; ++r)
      for (int64_t j = 0; j < t.nr; ++j) tile[r][j] = t.rows[r][t.cols[j]];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    const float* src = tile[r];
    if (t.load) {
      acc0[r] = _mm512_maskz_loadu_ps(cm0, src), acc1[r] = kTwo ? _mm512_maskz_loadu_ps(cm1, src + 16) : _mm512_setzero_ps();
    } else {
      acc0[r] = _mm512_setzero_ps(), acc1[r] = _mm512_setzero_ps();
    }
  }
  if (wholeB)
    kLoop<R, kTwo, false>(acc0, acc1, t.kc, t.bp, t.ldb, t.bm0, t.bm1, aElements<R, kA>(t, aRowsHere), pf);
  else
    kLoop<R, kTwo, true>(acc0, acc1, t.kc, t.bp, t.ldb, t.bm0, t.bm1, aElements<R, kA>(t, aRowsHere), pf);
  if constexpr (R == 8) {
    bool consecutive = true;
    for (int r = 1; r < R && consecutive; ++r) consecutive = t.rows[r] == t.rows[0] + r;
    if (consecutive) return storeColumns(acc0, acc1, t.rows[0], t.cols, kTwo ? t.nr : std::min<int64_t>(t.nr, 16));
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    _mm512_store_ps(tile[r], acc0[r]);
    _mm512_store_ps(tile[r] + 16, acc1[r]);
    for (int64_t j = 0; j < t.nr; ++j) t.rows[r][t.cols[j]] = tile[r][j];
  }
}

using MicroFn = void (*)(const Tile&, PanelPrefetch&);
template <AFrom kA>
constexpr MicroFn kMicroRows[2][kMR + 1] = {
    {nullptr, micro<1, false, kA>, micro<2, false, kA>, micro<3, false, kA>, micro<4, false, kA>, micro<5, false, kA>, micro<6, false, kA>, micro<7, false, kA>, micro<8, false, kA>},
    {nullptr, micro<1, true, kA>, micro<2, true, kA>, micro<3, true, kA>, micro<4, true, kA>, micro<5, true, kA>, micro<6, true, kA>, micro<7, true, kA>, micro<8, true, kA>}};
// kMicro[where A is read (AFrom)][two halves][rows].
constexpr const MicroFn (*kMicro[4])[kMR + 1] = {kMicroRows<AFrom::Rows>, kMicroRows<AFrom::Packed>, kMicroRows<AFrom::Consecutive>, kMicroRows<AFrom::Strided>};

// Rows [i0, i1) x columns [j0, j1) of C, on one thread. [nextJ0, nextJ1): the columns of the block
// this thread runs next (nextJ0 = -1: none), whose first B panel is prefetched while the last one
// here computes.
void blockAvx512(const Gemm& g, const Operands& o, int64_t i0, int64_t i1, int64_t j0, int64_t j1, int64_t nextJ0, int64_t nextJ1) {
  bool packBHere = g.packB && !g.packedB;
  float* ap = g.packedA || g.aInPlace ? nullptr : rlx::threadScratch(rlx::ScratchSlot::GemmA, size_t(kMC * kKC));
  float* bp = packBHere ? rlx::threadScratch(rlx::ScratchSlot::GemmB, size_t(kKC * kNC)) : nullptr;
  float* rows[kMR];
  const float* aRows[kMR];
  Tile t;
  t.rows = rows, t.aRows = aRows;
  int64_t tilesPerPanel = (i1 - i0 + kMR - 1) / kMR;
  for (int64_t jc = j0; jc < j1; jc += kNC) {
    int64_t nc = std::min(kNC, j1 - jc);
    for (int64_t pc = 0; pc < g.k; pc += kKC) {
      int64_t kc = std::min(kKC, g.k - pc);
      if (packBHere) packB(g, o, pc, kc, jc, nc, bp);
      // The panel after this one: the next k block, else the next column block, here or next.
      int64_t np = 0, nj = nextJ0, nEnd = nextJ1;
      if (pc + kKC < g.k) np = pc + kKC, nj = jc, nEnd = j1;
      else if (jc + kNC < j1) nj = jc + kNC, nEnd = j1;
      PanelPrefetch prefetch;
      if (nj >= 0 && packBHere && g.bRows) {
        const char* first = reinterpret_cast<const char*>(o.b + g.kB[size_t(np)] + g.nB[size_t(nj)]);
        int64_t skew = int64_t(reinterpret_cast<uintptr_t>(first) & 63);
        prefetch.row = first - skew;
        prefetch.stride = g.ldb * int64_t(sizeof(float));
        prefetch.rowBytes = skew + std::min(kNC, nEnd - nj) * int64_t(sizeof(float));
        prefetch.rowsLeft = std::min(kKC, g.k - np);
      }
      if (prefetch.rowsLeft > 0) prefetch.spreadOver(tilesPerPanel * ((nc + kNR - 1) / kNR) * (kc / 2));
      t.kc = kc, t.load = pc > 0, t.ka = g.kA.data() + pc;
      for (int64_t ic = i0; ic < i1; ic += kMC) {
        int64_t mc = std::min(kMC, i1 - ic);
        const float* as = ap;
        if (g.packedA) as = g.packedA + pc * g.mPadded + ic * kc;
        else if (!g.aInPlace) packA(g, o, ic, mc, pc, kc, ap);
        for (int64_t jr = 0; jr < nc; jr += kNR) {
          int64_t nr = std::min(kNR, nc - jr), j = jc + jr;
          t.bp = g.packedB ? g.packedB + pc * g.nPadded + j * kc : g.packB ? bp + jr * kc : o.b + g.kB[size_t(pc)] + g.nB[size_t(j)];
          t.ldb = g.packB ? kNR : g.ldb;
          t.bm0 = g.packB ? __mmask16(0xFFFF) : firstLanes(nr), t.bm1 = g.packB ? __mmask16(0xFFFF) : firstLanes(nr - 16);
          t.cols = g.cUnit ? nullptr : g.nC.data() + j, t.nr = nr;
          if (g.bPanels) {
            // B in panels, read in place: the panel the tiles read after this sliver's (the next
            // sliver's k rows, else the next k block's or block's first sliver; one contiguous
            // run), prefetched while these tiles compute. A weight streamed from DRAM once per
            // call (a late MobileNet layer's 960 x 160) otherwise stalled every sliver's first tile.
            int64_t pk = pc, pj = j + kNR;
            if (pj >= jc + nc) {
              bool moreRows = ic + kMC < i1;
              pk = moreRows ? pc : np, pj = moreRows ? jc : nj;
            }
            prefetch = PanelPrefetch{};
            if (pj >= 0) {
              prefetch.row = reinterpret_cast<const char*>(o.b + g.kB[size_t(pk)] + g.nB[size_t(pj)]);
              prefetch.rowBytes = std::min(kKC, g.k - pk) * kNR * int64_t(sizeof(float));
              prefetch.rowsLeft = 1;
              prefetch.spreadOver((mc + kMR - 1) / kMR * (kc / 2));
            }
          }
          for (int64_t ir = 0; ir < mc; ir += kMR) {
            int64_t mr = std::min(kMR, mc - ir);
            for (int64_t r = 0; r < mr; ++r) rows[r] = o.c + g.mC[size_t(ic + ir + r)] + (g.cUnit ? g.nC[size_t(j)] : 0);
            AFrom from = g.aInPlace ? AFrom::Rows : AFrom::Packed;
            if (g.aInPlace) {
              for (int64_t r = 0; r < mr; ++r) aRows[r] = o.a + g.mA[size_t(ic + ir + r)];
              t.aStep = mr > 1 ? aRows[1] - aRows[0] : 1;
              bool even = true;
              for (int64_t r = 2; r < mr && even; ++r) even = aRows[r] - aRows[r - 1] == t.aStep;
              if (even) from = t.aStep == 1 ? AFrom::Consecutive : AFrom::Strided;
            }
            t.ap = g.aInPlace ? nullptr : as + ir * kc;
            // The next tile's rows of C, requested for writing now, so that its stores (a short k
            // sum stores after few FMAs) find their lines in cache: a 6 x 1500 x 1500 x 64 batch of
            // attention scores had the micro-kernel waiting on store misses (1 thread 22.3 -> 18.4 ms;
            // two to four tiles ahead measured slower).
            if (!t.load && ir + kMR < mc)
              for (int64_t r = 0, nextRows = std::min(kMR, mc - ir - kMR); r < nextRows; ++r) {
                const char* line = reinterpret_cast<const char*>(o.c + g.mC[size_t(ic + ir + kMR + r)] + (g.cUnit ? g.nC[size_t(j)] : 0));
                __builtin_prefetch(line, 1, 3);
                if (nr > 16) __builtin_prefetch(line + 64, 1, 3);
              }
            kMicro[int(from)][nr > 16][mr](t, prefetch);
          }
          // With the last k block done, this sliver's rows of C are final: the epilogue reads them
          // while they are in L1 (after a whole block of columns, they had left for L2 or beyond; a
          // ResNet 1x1 convolution with its residual add spent a fifth of its time there).
          if (pc + kKC >= g.k) finish(g, ic, ic + mc, j, j + nr);
        }
      }
    }
  }
}

// Without AVX-512: the same sums (each element in k's order, fused multiply-adds), unblocked.
void blockPortable(const Gemm& g, const Operands& o, int64_t i0, int64_t i1, int64_t j0, int64_t j1, int64_t, int64_t) {
  for (int64_t i = i0; i < i1; ++i)
    for (int64_t j = j0; j < j1; ++j) {
      float acc = 0;
      for (int64_t k = 0; k < g.k; ++k) acc = std::fma(o.a[g.mA[size_t(i)] + g.kA[size_t(k)]], o.b[g.kB[size_t(k)] + g.nB[size_t(j)]], acc);
      o.c[g.mC[size_t(i)] + g.nC[size_t(j)]] = acc;
    }
  finish(g, i0, i1, j0, j1);
}

bool hasAvx512() {
  static const bool yes = __builtin_cpu_supports("avx512f");
  return yes;
}

// Micro-panels [begin, end) of A, every k block, into g.packedA (laid out as blockAvx512 reads it).
int32_t packWholeA(void* ctx, int64_t begin, int64_t end) {
  Gemm& g = *static_cast<Gemm*>(ctx);
  float* whole = g.packedA;
  for (int64_t s = begin; s < end; ++s) {
    int64_t i0 = s * kMR;
    for (int64_t pc = 0; pc < g.k; pc += kKC) {
      int64_t kc = std::min(kKC, g.k - pc);
      packA(g, g.at(0), i0, std::min(kMR, g.m - i0), pc, kc, whole + pc * g.mPadded + i0 * kc);
    }
  }
  return 0;
}

// Slivers [begin, end) of B, every k block, into g.packedB (laid out as blockAvx512 reads it).
int32_t packWholeB(void* ctx, int64_t begin, int64_t end) {
  Gemm& g = *static_cast<Gemm*>(ctx);
  for (int64_t s = begin; s < end; ++s) {
    int64_t j0 = s * kNR;
    for (int64_t pc = 0; pc < g.k; pc += kKC) {
      int64_t kc = std::min(kKC, g.k - pc);
      packB(g, g.at(0), pc, kc, j0, std::min(kNR, g.n - j0), g.packedB + pc * g.nPadded + j0 * kc);
    }
  }
  return 0;
}

// Whether an operand's offsets along its `n` rows or columns (`offsets`) and along k (`k`) are
// panels of kNR: [n / kNR][k][kNR] (PackMatmulWeights' layout, the one packB makes).
// A last partial panel counts only when `padded` (stored whole).
bool inPanels(const std::vector<int64_t>& offsets, int64_t n, const Spacing& outer, const Spacing& k, bool padded) {
  if (outer.is(1) || (n % kNR != 0 && !padded) || !k.is(kNR)) return false;
  for (int64_t s = 0; s < n; s += kNR)
    for (int64_t c = 1; c < std::min(kNR, n - s); ++c)
      if (offsets[size_t(s + c)] != offsets[size_t(s)] + c) return false;
  return true;
}

// The layout facts the blocking decisions read, from the offset tables.
void classify(Gemm& g) {
  g.cUnit = g.nCs.is(1);
  g.nBUnit = g.nBs.is(1);
  g.kAUnit = g.kAs.is(1);
  g.kBUnit = g.kBs.is(1);
  g.ldb = g.k > 1 ? g.kB[1] - g.kB[0] : 0;
  g.bRows = g.nBUnit && g.kBs.is(g.ldb);
  g.bPanels = inPanels(g.nB, g.n, g.nBs, g.kBs, g.bPadded);
  if (g.bPanels) g.ldb = kNR;
}

// C^T = B^T A^T: the same GEMM with the operands' roles exchanged.
void transpose(Gemm& g) {
  std::swap(g.a, g.b);
  std::swap(g.m, g.n);
  std::swap(g.mA, g.nB);
  std::swap(g.kA, g.kB);
  std::swap(g.mC, g.nC);
  std::swap(g.bA, g.bB);
  std::swap(g.mAs, g.nBs);
  std::swap(g.kAs, g.kBs);
  std::swap(g.mCs, g.nCs);
  std::swap(g.aPadded, g.bPadded);
  g.transposed = !g.transposed;
  classify(g);
}

// Unit u's blocks [first, last) of its batch element: the blocks split as evenly as the unit count
// allows (units of a fixed size left the last one short: 40 slivers in 7 units of 6 gave two
// threads 18 and 22).
std::pair<int64_t, int64_t> unitBlocks(const Gemm& g, int64_t u) {
  int64_t i = u % g.unitsPerBatch;
  return {g.blocksPerBatch * i / g.unitsPerBatch, g.blocksPerBatch * (i + 1) / g.unitsPerBatch};
}

// One thread's share: units taken from the queues until none is left. The unit this thread
// likely runs next has its B panel prefetched while the current one computes (when it is of the same
// batch element).
int32_t chunk(void* ctx, int64_t, int64_t) {
  Gemm& g = *static_cast<Gemm*>(ctx);
  auto block = hasAvx512() ? blockAvx512 : blockPortable;
  int64_t slot = rlx::parallelSlot();
  for (int64_t u = g.queues.take(slot); u >= 0; u = g.queues.take(slot)) {
    int64_t batch = u / g.unitsPerBatch;
    auto [begin, end] = unitBlocks(g, u);
    Operands o = g.at(batch);
    if (g.gemv) {
      gemvAvx512(g, o, begin * kGW, std::min(end * kGW, g.n));
    } else if (g.splitRows) {
      block(g, o, begin * kMR, std::min(end * kMR, g.m), 0, g.n, -1, -1);
    } else if (g.splitTiles) {
      // The unit's tiles, a run of row blocks per sliver; the next sliver's panel prefetched.
      for (int64_t s = begin / g.rowBlocks, last = (end - 1) / g.rowBlocks; s <= last; ++s) {
        int64_t r0 = std::max(begin, s * g.rowBlocks) - s * g.rowBlocks, r1 = std::min(end, (s + 1) * g.rowBlocks) - s * g.rowBlocks;
        int64_t next = s < last ? (s + 1) * kNR : -1;
        block(g, o, r0 * kMR, std::min(r1 * kMR, g.m), s * kNR, std::min((s + 1) * kNR, g.n), next, next < 0 ? -1 : std::min(next + kNR, g.n));
      }
    } else {
      int64_t next = g.queues.peek(slot);
      bool more = next >= 0 && next / g.unitsPerBatch == batch;
      auto [nextBegin, nextEnd] = more ? unitBlocks(g, next) : std::pair<int64_t, int64_t>{-1, -1};
      block(g, o, 0, g.m, begin * kNR, std::min(end * kNR, g.n), more ? nextBegin * kNR : -1, more ? std::min(nextEnd * kNR, g.n) : -1);
    }
  }
  return 0;
}

int32_t run(Gemm& g, const int64_t* desc) {
  int64_t nm = desc[0], nn = desc[1], nk = desc[2], nb = desc[3];
  const int64_t* dims = desc + 4;
  offsets<2>(dims, nm, {&g.mA, &g.mC}, {&g.mAs, &g.mCs});
  offsets<2>(dims + 3 * nm, nn, {&g.nB, &g.nC}, {&g.nBs, &g.nCs});
  offsets<2>(dims + 3 * (nm + nn), nk, {&g.kA, &g.kB}, {&g.kAs, &g.kBs});
  Spacing unused[3];
  offsets<3>(dims + 3 * (nm + nn + nk), nb, {&g.bA, &g.bB, &g.bC}, {&unused[0], &unused[1], &unused[2]});
  // Valid counts short of the dims' span (panels padded past the last row or column): the tables
  // keep only the rows and columns that exist; the padded operand's last panel is read whole.
  const int64_t* valid = desc + rlx::descriptorLength(desc) - 2;
  auto cut = [](int64_t count, std::vector<int64_t>& x, std::vector<int64_t>& y) {
    if (count <= 0 || count >= int64_t(x.size())) return false;
    x.resize(size_t(count)), y.resize(size_t(count));
    return true;
  };
  g.aPadded = cut(valid[0], g.mA, g.mC);
  g.bPadded = cut(valid[1], g.nB, g.nC);
  g.m = int64_t(g.mA.size()), g.n = int64_t(g.nB.size()), g.k = int64_t(g.kA.size()), g.batches = int64_t(g.bA.size());
  if (g.epilogue && g.batches > 1) return -1;  // its blocks could not say which GEMM they are of
  if (g.m == 0 || g.n == 0 || g.batches == 0) return 0;
  if (g.k == 0) {
    for (int64_t batch = 0; batch < g.batches; ++batch)
      for (int64_t i : g.mC)
        for (int64_t j : g.nC) g.at(batch).c[i + j] = 0;
    finish(g, 0, g.m, 0, g.n);
    return g.status;
  }
  classify(g);
  // A B gathered element by element (an implicit-GEMM convolution's input: neither its columns nor
  // its k rows contiguous) would be copied into panels for the few row tiles of a contiguous A (the
  // weights) to reuse. Transposed, it is A, read in place by the broadcasts, and the weights are the
  // packed B whose rows the vectors span (a convolution's output channels).
  // Only when the gathered operand is at least as wide as the weights are tall, though: transposed,
  // every call packs all of the weights (M x K), where untransposed it gathers the input (K x N) and
  // reads the weights in place. A late ResNet layer (512 channels of 7x7, N = 49 < M = 512) packed
  // 9.4 MB of weights per call to gather 0.9 MB (1 thread: ResNet-18 38.6 -> 24.2 ms, ResNet-50
  // 82 -> 68 ms; transposing only past N >= 2M or 4M, or never, measured the same or slower).
  if (g.m > 1 && !g.nBUnit && !g.kBUnit && !g.bPanels && (g.kAUnit || g.mAs.is(1)) && g.n >= g.m) transpose(g);
  // A weight stored in panels of its rows (PackMatmulWeights stores a 1x1 or strided convolution's
  // so when its outputs are small): transposed, it is B in the panels the tiles stream, the vectors along its
  // output channels instead of a 7x7 image's 49 pixels (64 lanes computed for them), and a
  // squeeze-excitation's one pixel makes the GEMV.
  else if (!g.bPanels && inPanels(g.mA, g.m, g.mAs, g.kAs, g.aPadded)) transpose(g);
  // With few rows each B element is used by few micro-tiles: reading B in place beats copying it.
  // So it does for up to a few hundred rows when B's rows are under a page apart (the hardware
  // prefetchers follow the stride within a page) and B is at most twice the L2 (1 thread, best of
  // runs: 64x784x512 96 -> 104 GFLOP/s, 256x784x512 100 -> 101; 64x3072x512 94 -> 79 and
  // 64x768x2304 101 -> 85 in place, so those stay packed).
  bool nearRows = g.ldb * int64_t(sizeof(float)) < kInPlaceRowBytes && g.k * g.ldb <= kInPlaceBFloats && g.m <= kInPlaceRows;
  g.packB = !g.bPanels && !(g.bRows && (g.m <= 2 * kMR || nearRows));
  int threads = rlx::parallelThreads();
  if (g.m == 1 && hasAvx512()) {
    g.gemv = true;
    g.unitsPerBatch = g.blocksPerBatch = (g.n + kGW - 1) / kGW;
    g.units = g.unitsPerBatch * g.batches;
    g.queues.reset(g.units, std::min<int64_t>(g.units, threads));
    int32_t code = rlx_parallel_for(chunk, &g, g.queues.parts(), kGW * g.k);
    return code != 0 ? code : int32_t(g.status);
  }
  int64_t slivers = (g.n + kNR - 1) / kNR, rowBlocks = (g.m + kMR - 1) / kMR;
  // Threads split rows when the columns make too few slivers to share out evenly: with several
  // threads, under four per thread (a 1x1 convolution of 1024 channels at 14x14 has 7: 2 threads,
  // 256 -> 1024 channels 0.67 -> 0.38 ms, 1024 -> 256 0.50 -> 0.37 ms); alone, a single sliver.
  g.splitRows = slivers < (threads > 1 ? 4 * threads : 2) && rowBlocks > slivers;
  // They split rows too when those are the pixels of a channels-last convolution (B its weights in
  // panels) and the output outweighs the weights (K <= M): each thread then leaves whole pixels in
  // its own cache, the rows the next kernel reads on the same thread (the pool and the queues give
  // each slot the same part of every loop), at the cost of reading all of B. Split by columns, half
  // of every pixel came from the other core.
  const bool rowsStayLocal = threads > 1 && g.batches == 1 && g.bPanels && g.k <= g.m && rowBlocks >= 4 * threads;
  g.splitRows = g.splitRows || rowsStayLocal;
  // Split rows, every thread would read all of B, read in place (a weight in panels): when it is
  // the larger operand (a 7x7 layer's 960 x 160 weights against its 960 x 49 input), threads split
  // the tiles sliver by sliver instead, as evenly, each reading its share of B (2 threads, medians of
  // 500: that layer 0.091 -> 0.084 ms; 24 of them with distinct weights, as in a model where they
  // come from DRAM, 2.69 -> 2.28 ms, ONNX Runtime 2.38).
  if (g.splitRows && !rowsStayLocal && threads > 1 && g.batches == 1 && (g.bPanels || (g.bRows && !g.packB)) && g.n > g.m && hasAvx512()) {
    g.splitRows = false, g.splitTiles = true, g.rowBlocks = rowBlocks;
  }
  // Row units would each pack all of B again (it is only a few slivers wide): read it in place, or
  // pack it once for all of them.
  if (g.splitRows && g.bRows) g.packB = false;
  // A row block is reused by this few column slivers only: packing it would cost about as much as
  // the tiles' reads of it in place. With B read in place too, no copy is made at all (and the
  // threads need not meet once more after packing A: 64x784x512 at 2 threads 195 -> 205 GFLOP/s).
  // B in panels keeps A packed: the in-place A micro-kernel runs short of registers for its row
  // pointers, and A (the activations) is small next to the weights.
  g.aInPlace = slivers <= kInPlaceSlivers || (!g.packB && !g.bPanels);
  int64_t blocks = g.splitRows ? rowBlocks : g.splitTiles ? slivers * rowBlocks : slivers;
  g.mPadded = (g.m + kMR - 1) / kMR * kMR;
  // (Whole operands are packed once only for a single GEMM: batch elements each have their own.)
  bool shareA = g.batches == 1 && !g.splitRows && !g.aInPlace && hasAvx512() && g.mPadded * g.k <= kMaxPackedA;
  if (g.batches >= 2 * threads) {
    // Batch elements enough to keep every thread busy: each is one unit, computed by one thread.
    g.unit = blocks;
  } else if (g.splitRows) {
    // About four row blocks per thread, at most an A block each.
    g.unit = std::clamp<int64_t>(blocks / (4 * threads), 1, kMC / kMR);
  } else if (shareA || g.aInPlace) {
    // A packed once (or read in place) is read again by each unit, from the L2 when its k block fits
    // there, else from the L3: panel-sized column units, whose B panel then shares the L2 with an A
    // block instead of evicting it (1 thread, 1024^3, medians of 6 alternating runs: 8-sliver units
    // 12.1 ms, 3 slivers 10.4, 2 slivers 10.4; 2 threads 6.1 / 5.9 ms for 3 / 2 slivers).
    g.unit = std::clamp<int64_t>(kPanelFloats / (std::min(g.k, kKC) * kNR), 1, kNC / kNR);
  } else {
    // A streams from memory for each unit: about four units per thread, at least 8 slivers each
    // when that still feeds every thread.
    int64_t least = std::min<int64_t>(8, blocks / threads);
    g.unit = std::clamp<int64_t>(std::max(blocks / (4 * threads), least), 1, kNC / kNR);
  }
  // At least two units per thread (while the blocks last), so that none waits on another's last
  // unit: a panel-sized unit was all of a 7-sliver GEMM, which one of two threads then computed alone
  // (2 threads, 1x1 convolutions: 128 -> 512 channels at 28x28 0.51 -> 0.44 ms, 64 -> 256 at 56x56
  // 0.63 -> 0.47 ms).
  if (threads > 1 && g.batches < 2 * threads) g.unit = std::min(g.unit, std::max<int64_t>(1, (blocks + 2 * threads - 1) / (2 * threads)));
  g.unitsPerBatch = (blocks + g.unit - 1) / g.unit, g.blocksPerBatch = blocks;
  // One GEMM: a multiple of the threads' count of units, so that each thread's own range holds as
  // many blocks as another's (the queues share out units, not blocks).
  if (g.batches == 1 && threads > 1) g.unitsPerBatch = std::min(blocks, (g.unitsPerBatch + threads - 1) / threads * threads);
  g.units = g.unitsPerBatch * g.batches;
  g.queues.reset(g.units, std::min<int64_t>(g.units, threads));
  int64_t work = (g.splitRows ? kMR * g.n : g.splitTiles ? kMR * kNR : kNR * g.m) * g.k * g.unit;
  if (shareA && g.units > 1) {
    // Into the caller's GemmA scratch (its blocks then read the shared copy too), by all threads.
    g.packedA = rlx::threadScratch(rlx::ScratchSlot::GemmA, size_t(g.mPadded * g.k));
    int32_t status = rlx_parallel_for(packWholeA, &g, g.mPadded / kMR, kMR * g.k);
    if (status != 0) return status;
  }
  if (g.batches == 1 && g.splitRows && g.packB && hasAvx512() && g.units > 1) {
    // Into the caller's GemmB scratch (its blocks then read the shared copy too), by all threads.
    g.nPadded = slivers * kNR;
    g.packedB = rlx::threadScratch(rlx::ScratchSlot::GemmB, size_t(g.nPadded * g.k));
    int32_t status = rlx_parallel_for(packWholeB, &g, slivers, kNR * g.k);
    if (status != 0) return status;
  }
  int32_t code = rlx_parallel_for(chunk, &g, g.queues.parts(), work);
  return code != 0 ? code : int32_t(g.status);
}

}  // namespace

extern "C" int32_t rlx_sgemm_epilogue(float* c, const float* a, const float* b, const int64_t* desc, RlxGemmEpilogue epilogue, void* ctx) {
  int32_t status = 0;
  if (rlx::winogradConv3x3(c, a, b, desc, epilogue, ctx, status)) return status;
  if (!epilogue && rlx::windowConv(c, a, b, desc, status)) return status;
  Gemm g;
  g.c = c, g.a = a, g.b = b;
  g.epilogue = epilogue, g.epilogueCtx = ctx;
  return run(g, desc);
}

extern "C" int32_t rlx_sgemm(float* c, const float* a, const float* b, const int64_t* desc) { return rlx_sgemm_epilogue(c, a, b, desc, nullptr, nullptr); }
