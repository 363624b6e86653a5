// Depthwise convolutions (window_conv.h): per channel and image, blocks of four output rows by 16
// columns accumulate the window's taps in registers, the input read in place (unit, stride-2 or
// gathered columns).
#include "runtime/llvm/window_conv.h"

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <atomic>
#include <vector>

#include "runtime/llvm/gemm_offsets.h"
#include "runtime/llvm/lane_mask.h"
#include "runtime/llvm/scratch.h"
#include "runtime/llvm/sgemm.h"
#include "runtime/llvm/thread_pool.h"
#include "runtime/llvm/window_channels.h"
#include "runtime/llvm/window_geometry.h"

namespace rlx {

namespace {

// Output rows computed together: independent accumulators hide the FMA latency of a tap chain (a
// 14-wide row is one vector: alone, its nine taps would be one dependent chain).
constexpr int kRows = 4;
// The most taps a window may have (a 7x7 depthwise window is 49): beyond, the GEMM computes it.
constexpr int64_t kMaxTaps = 64;

bool parse(const int64_t* desc, Window& w) {
  if (limitsRowsOrColumns(desc)) return false;
  int64_t nm = desc[0], nn = desc[1], nk = desc[2], nb = desc[3];
  const int64_t* rows = desc + 4;
  const int64_t* cols = rows + 3 * nm;
  const int64_t* red = cols + 3 * nn;
  const int64_t* batch = red + 3 * nk;
  if (nn < 1) return false;
  for (int64_t d = 0; d < nm; ++d)
    if (rows[3 * d] != 1) return false;
  int64_t taps = 1, windowDims = 0;
  for (int64_t d = 0; d < nk; ++d) taps *= red[3 * d], windowDims += red[3 * d] > 1;
  // Two or more reduction dims (a convolution's channel of extent 1 and its window): a GEMV of one
  // reduction dim (a matmul's row) stays with the GEMM.
  if (nk < 2 || windowDims > 2 || taps > kMaxTaps || taps < 1) return false;
  const int64_t* x = cols + 3 * (nn - 1);
  w.width = x[0], w.bX = x[1], w.cX = x[2];
  int64_t outer = nn - 1;
  if (nn >= 2) {
    const int64_t* y = cols + 3 * (nn - 2);
    w.height = y[0], w.bY = y[1], w.cY = y[2];
    outer = nn - 2;
  }
  // Gathered (or scattered) columns index with 32-bit lane offsets.
  if ((w.bX != 1 && w.bX != 2 && 16 * std::abs(w.bX) >= (int64_t(1) << 31)) || (w.cX != 1 && 16 * std::abs(w.cX) >= (int64_t(1) << 31))) return false;
  Spacing unused[3];
  offsets<2>(cols, outer, {&w.outerB, &w.outerC}, {&w.outerBs, &unused[0]});
  offsets<2>(red, nk, {&w.tapA, &w.tapB}, {&unused[0], &unused[1]});
  offsets<3>(batch, nb, {&w.batchA, &w.batchB, &w.batchC}, {&unused[0], &w.batchBs, &unused[1]});
  return true;
}

// The inputs of 16 output columns at p (columns bX apart): contiguous, every second of 32, or gathered.
enum class Columns { Unit, Two, Gather };

template <Columns kCols>
__attribute__((target("avx512f,bmi2"), always_inline)) inline __m512 loadColumns(const float* p, __mmask16 m, int64_t bX, __m512i gatherIndex) {
  if constexpr (kCols == Columns::Unit) {
    return _mm512_maskz_loadu_ps(m, p);
  } else if constexpr (kCols == Columns::Two) {
    // Output lane l reads p[2l]: lanes up to 15 of the first 16 inputs, the rest of the next 16.
    const __m512i even = everySecondLane(0);
    __mmask16 lo = __mmask16(_pdep_u32(m & 0xFF, 0x5555)), hi = __mmask16(_pdep_u32((m >> 8) & 0xFF, 0x5555));
    return _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(lo, p), even, _mm512_maskz_loadu_ps(hi, p + 16));
  } else {
    (void)bX;
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, gatherIndex, p, 4);
  }
}

// Where one plane's outputs read their inputs: output (y, x) and tap t read b[o + y * bY + x * bX +
// tap[t]]. With `padded` set, b is a compact input plane of rows x cols inside a zero border never
// materialized: the read is input row y0 + y * sy + tapRow[t], column x0 + x * sx + tapCol[t], and
// zero outside the plane (copying a 112 x 112 plane into a padded one cost as much as its
// convolution; small planes are still copied, readsOf).
struct Reads {
  const float* b = nullptr;
  int64_t o = 0, bY = 0, bX = 0;
  const int64_t* tap = nullptr;
  bool padded = false;
  int64_t rows = 0, cols = 0, y0 = 0, x0 = 0, sy = 0, sx = 0;
  const int64_t* tapRow = nullptr;
  const int64_t* tapCol = nullptr;
};

// The input at flat offset `at` of plane b, which may lie outside it (a masked load's lanes there are
// never read): computed on integers, so that no out-of-range pointer is formed.
inline const float* at(const float* b, int64_t offset) { return reinterpret_cast<const float*>(reinterpret_cast<uintptr_t>(b) + uintptr_t(offset * int64_t(sizeof(float)))); }

// Lanes l of 16 output columns whose input column c + l * sx lies in [0, cols) (no division for unit
// columns: edge blocks compute this per tap; planes read at stride 2 are copied, never masked).
template <Columns kCols>
__attribute__((target("avx512f"), always_inline)) inline __mmask16 insideColumns(int64_t c, int64_t sx, int64_t cols) {
  if (c > cols - 1) return 0;
  int64_t first, last;  // the first and last lane inside
  if constexpr (kCols == Columns::Unit) first = c >= 0 ? 0 : -c, last = cols - 1 - c;
  else first = c >= 0 ? 0 : (sx - 1 - c) / sx, last = (cols - 1 - c) / sx;
  if (first > 15 || last < first) return 0;
  return __mmask16(firstLanes(std::min<int64_t>(last, 15) + 1) & ~firstLanes(first));
}

// Input v of a tap (its weight at a[tapA]) into accumulator x: v times the weight added, or for a pool
// the larger of x and v (max returns its second operand when one is NaN: v, as the JIT's T.max).
template <bool kPool>
__attribute__((target("avx512f,fma"), always_inline)) inline __m512 tapInto(const float* a, int64_t tapA, __m512 v, __m512 x) {
  if constexpr (kPool) return _mm512_max_ps(x, v);
  else return _mm512_fmadd_ps(_mm512_set1_ps(a[tapA]), v, x);
}

// Output rows [y0, y0 + R) x columns [x0, x0 + 16) of one plane. kEdge: some tap reads outside a
// padded plane, so each (tap, row) checks its row and masks its columns (the padding's value).
// kPool: the taps' maximum from w.init (max pooling) instead of their weighted sum.
template <int R, Columns kCols, bool kEdge, bool kPool>
__attribute__((target("avx512f,fma,bmi2"), always_inline)) inline void block(const Window& w, const Reads& in, const float* a, float* c, int64_t y0, int64_t x0, __mmask16 m,
                                                   __m512i gatherB, __m512i scatterC) {
  __m512 acc[R];
  for (int r = 0; r < R; ++r) acc[r] = kPool ? _mm512_set1_ps(w.init) : _mm512_setzero_ps();
  const size_t taps = w.tapA.size();
  if constexpr (!kEdge) {
    const int64_t base = in.o + y0 * in.bY + x0 * in.bX;
    for (size_t t = 0; t < taps; ++t) {
      const float* p = in.b + (base + in.tap[t]);
      for (int r = 0; r < R; ++r) acc[r] = tapInto<kPool>(a, w.tapA[t], loadColumns<kCols>(p + r * in.bY, m, in.bX, gatherB), acc[r]);
    }
  } else {
    const __m512 fill = _mm512_set1_ps(w.fill);
    for (size_t t = 0; t < taps; ++t) {
      int64_t col = in.x0 + x0 * in.sx + in.tapCol[t];
      __mmask16 mt = m & insideColumns<kCols>(col, in.sx, in.cols);
      for (int r = 0; r < R; ++r) {
        int64_t row = in.y0 + (y0 + r) * in.sy + in.tapRow[t];
        __m512 v = row >= 0 && row < in.rows ? loadColumns<kCols>(at(in.b, row * in.cols + col), mt, in.bX, gatherB) : _mm512_setzero_ps();
        // Lanes outside the input read the padding (zero for a convolution, its own value for a pool).
        if constexpr (kPool) v = _mm512_mask_mov_ps(fill, row >= 0 && row < in.rows ? mt : __mmask16(0), v);
        acc[r] = tapInto<kPool>(a, w.tapA[t], v, acc[r]);
      }
    }
  }
  float* out = c + y0 * w.cY + x0 * w.cX;
  for (int r = 0; r < R; ++r) {
    if (w.cX == 1) _mm512_mask_storeu_ps(out + r * w.cY, m, acc[r]);
    else _mm512_mask_i32scatter_ps(out + r * w.cY, m, scatterC, acc[r], 4);
  }
}

// Rows [y0, y0 + R) (R <= N) at columns x0: the block of R rows, in place when every tap reads
// inside the plane.
template <int N, Columns kCols, bool kPool>
__attribute__((target("avx512f,fma,bmi2"), always_inline)) inline void rowBlock(const Window& w, const Reads& in, const float* a, float* c, int64_t y0, int64_t R, int64_t x0, __mmask16 m,
                                                       bool insideCols, __m512i gatherB, __m512i scatterC) {
  if constexpr (N > 1)
    if (R < N) return rowBlock<N - 1, kCols, kPool>(w, in, a, c, y0, R, x0, m, insideCols, gatherB, scatterC);
  bool inside = !in.padded || (insideCols && in.y0 + y0 * in.sy + w.minTapRow >= 0 && in.y0 + (y0 + N - 1) * in.sy + w.maxTapRow < in.rows);
  if (inside) block<N, kCols, false, kPool>(w, in, a, c, y0, x0, m, gatherB, scatterC);
  else block<N, kCols, true, kPool>(w, in, a, c, y0, x0, m, gatherB, scatterC);
}

// A window whose taps are a KH x KW grid over input rows (tap ky * KW + kx at tap[0] + ky rowStep +
// column[kx]) read by output rows SY input rows apart (bY = SY rowStep), columns unit: output rows
// r and r + 1 share KH - SY input rows, so each input vector is loaded once per block and feeds
// every row's accumulator that needs it (a 3 x 3 block of four rows: 18 loads at stride 1 and 27
// at stride 2, instead of 36), the weights held in registers for the whole plane. Each accumulator
// still sums its taps in their order: the same results as block(). `column` is the kx offsets: 0, 1,
// 2 in a plain plane; in a split copy (stride 2) each tap column in its parity's half.
template <int KH, int KW>
struct Grid {
  int sy = 0;  // 0: not a grid
  int64_t rowStep = 0;
  int64_t column[KW] = {};
};

// Whether the window's taps, in summation order, are a KH x KW grid of consecutive rows and columns
// of the padded plane.
bool tapsFormGrid(const Window& w, int64_t kh, int64_t kw) {
  if (int64_t(w.tapRow.size()) != kh * kw) return false;
  for (int64_t t = 0; t < kh * kw; ++t)
    if (w.tapRow[size_t(t)] != w.tapRow[0] + t / kw || w.tapCol[size_t(t)] != w.tapCol[0] + t % kw) return false;
  return true;
}

template <int KH, int KW>
Grid<KH, KW> gridOf(const Window& w, const Reads& in) {
  Grid<KH, KW> g;
  if (int64_t(w.tapA.size()) != KH * KW || in.bX != 1 || w.cX != 1) return g;
  int64_t rowStep = in.tap[KW] - in.tap[0];
  int sy = rowStep > 0 && in.bY == rowStep ? 1 : rowStep > 0 && in.bY == 2 * rowStep ? 2 : 0;
  for (int kx = 0; kx < KW; ++kx) g.column[kx] = in.tap[kx] - in.tap[0];
  for (int ky = 0; ky < KH && sy; ++ky)
    for (int kx = 0; kx < KW; ++kx)
      if (in.tap[ky * KW + kx] != in.tap[0] + ky * rowStep + g.column[kx]) sy = 0;
  // In an uncopied plane, offsets can coincide across rows (a 2-wide plane's tap (0, 2) is (1, 0)),
  // and gridBlock masks columns by the first row's taps: the grid must be one of rows and columns.
  if (in.padded && !tapsFormGrid(w, KH, KW)) sy = 0;
  for (int kx = 0; kx < KW && sy == 1; ++kx)
    if (g.column[kx] != kx) sy = 0;
  g.sy = sy, g.rowStep = rowStep;
  return g;
}

// Output rows [y0, y0 + R) x columns [x0, x0 + 16) of a grid window, every tap row inside the plane;
// tap column kx loads the lanes in mask[kx] (in an uncopied plane, those whose input is inside it).
template <int R, int SY, int KH, int KW>
__attribute__((target("avx512f,fma"), always_inline)) inline void gridBlock(const Window& w, const Reads& in, const Grid<KH, KW>& g, const __m512 (&weight)[KH * KW],
                                                                             float* c, int64_t y0, int64_t x0, __mmask16 m, const __mmask16 (&mask)[KW]) {
  __m512 acc[R];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) acc[r] = _mm512_setzero_ps();
  const int64_t first = in.o + y0 * in.bY + x0 + in.tap[0];
#pragma GCC unroll 16
  for (int i = 0; i < SY * (R - 1) + KH; ++i)
#pragma GCC unroll 8
    for (int kx = 0; kx < KW; ++kx) {
      // At row stride 1 the columns are consecutive (gridOf): kx as a constant frees registers.
      __m512 v = _mm512_maskz_loadu_ps(mask[kx], at(in.b, first + i * g.rowStep + (SY == 1 ? kx : g.column[kx])));
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r)
        if (i - SY * r >= 0 && i - SY * r < KH) acc[r] = _mm512_fmadd_ps(weight[(i - SY * r) * KW + kx], v, acc[r]);
    }
  float* out = c + y0 * w.cY + x0;
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) _mm512_mask_storeu_ps(out + r * w.cY, m, acc[r]);
}

// Whether the planes of `w` run better as row vectors than with channels in the lanes
// (window_channels.h): a stride-1 3 x 3 window over rows longer than one vector shares its loads
// across rows (gridPlane), 56 x 56 planes 15% and 28 x 28 ones 14% faster than transposed to
// channel lanes; a plane one vector wide would leave lanes idle, and strided or 5 x 5 windows share
// fewer loads or hold too many weights.
bool rowVectorsFavoured(const Window& w) {
  return w.width > 16 && w.cX == 1 && w.bX == 1 && w.bY == w.paddedCols && tapsFormGrid(w, 3, 3);
}

// The input plane the thread convolves next (null: none, or not a compact input plane), fetched
// a slice per row block of the current one.
struct NextPlane {
  const char* bytes = nullptr;
  int64_t size = 0;
};

// plane() for a grid window: row blocks whose taps stay inside the plane's rows on gridBlock (the
// columns of an uncopied plane masked per tap column), the top and bottom ones of an uncopied plane
// on block()'s per-tap checks.
template <int SY, int KH, int KW>
__attribute__((target("avx512f,fma,bmi2"))) void gridPlane(const Window& w, const Reads& in, const Grid<KH, KW>& g, const float* a, float* c, NextPlane next) {
  static_assert(kRows == 4, "gridPlane's blocks are at most four rows");
  __m512 weight[KH * KW];
  for (int t = 0; t < KH * KW; ++t) weight[t] = _mm512_set1_ps(a[w.tapA[size_t(t)]]);
  const __m512i unused = _mm512_setzero_si512();
  for (int64_t y0 = 0; y0 < w.height; y0 += kRows) {
    int64_t rows = std::min<int64_t>(kRows, w.height - y0);
    bool insideRows = !in.padded || (in.y0 + y0 * in.sy + w.minTapRow >= 0 && in.y0 + (y0 + rows - 1) * in.sy + w.maxTapRow < in.rows);
    // The next block's output rows, requested for writing: in a whole model the output planes come
    // from beyond the L3 (their stores waited on the lines; 96 x 112 x 112 at stride 2 0.40 -> 0.36 ms).
    for (int64_t y = y0 + kRows; y < std::min(y0 + 2 * kRows, w.height); ++y)
      for (int64_t x = 0; x < w.width; x += 16) __builtin_prefetch(c + y * w.cY + x, 1, 3);
    if (next.bytes)
      for (int64_t at = next.size * y0 / w.height / 64 * 64, end = next.size * std::min(y0 + kRows, w.height) / w.height; at < end; at += 64)
        __builtin_prefetch(next.bytes + at, 0, 2);
    for (int64_t x0 = 0; x0 < w.width; x0 += 16) {
      __mmask16 m = firstLanes(w.width - x0);
      if (!insideRows) {
        int64_t n = std::min<int64_t>(16, w.width - x0);
        bool insideCols = in.x0 + x0 + w.minTapCol >= 0 && in.x0 + x0 + n - 1 + w.maxTapCol < in.cols;
        rowBlock<kRows, Columns::Unit, false>(w, in, a, c, y0, rows, x0, m, insideCols, unused, unused);
        continue;
      }
      __mmask16 mask[KW];
      for (int kx = 0; kx < KW; ++kx) mask[kx] = in.padded ? m & insideColumns<Columns::Unit>(in.x0 + x0 + w.tapCol[size_t(kx)], 1, in.cols) : m;
      switch (rows) {
        case 4: gridBlock<4, SY, KH, KW>(w, in, g, weight, c, y0, x0, m, mask); break;
        case 3: gridBlock<3, SY, KH, KW>(w, in, g, weight, c, y0, x0, m, mask); break;
        case 2: gridBlock<2, SY, KH, KW>(w, in, g, weight, c, y0, x0, m, mask); break;
        default: gridBlock<1, SY, KH, KW>(w, in, g, weight, c, y0, x0, m, mask); break;
      }
    }
  }
}

// The plane on gridPlane when its window is a 3 x 3 grid at row stride 1 or 2; false otherwise.
bool runGrid(const Window& w, const Reads& in, const float* a, float* c, NextPlane next) {
  auto g = gridOf<3, 3>(w, in);
  if (g.sy == 1) gridPlane<1>(w, in, g, a, c, next);
  else if (g.sy == 2) gridPlane<2>(w, in, g, a, c, next);
  return g.sy != 0;
}

template <Columns kCols, bool kPool>
__attribute__((target("avx512f,fma,bmi2"))) void plane(const Window& w, const Reads& in, const float* a, float* c) {
  const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i gatherB = _mm512_mullo_epi32(lane, _mm512_set1_epi32(int32_t(in.bX)));
  const __m512i scatterC = _mm512_mullo_epi32(lane, _mm512_set1_epi32(int32_t(w.cX)));
  // Row blocks outermost: the reads then run along the plane's rows (the hardware prefetcher follows
  // them) instead of down a 16-column strip a row pitch at a time.
  for (int64_t y0 = 0; y0 < w.height; y0 += kRows) {
    for (int64_t x0 = 0; x0 < w.width; x0 += 16) {
      __mmask16 m = firstLanes(w.width - x0);
      int64_t n = std::min<int64_t>(16, w.width - x0);
      bool insideCols = !in.padded || (in.x0 + x0 * in.sx + w.minTapCol >= 0 && in.x0 + (x0 + n - 1) * in.sx + w.maxTapCol < in.cols);
      rowBlock<kRows, kCols, kPool>(w, in, a, c, y0, std::min<int64_t>(kRows, w.height - y0), x0, m, insideCols, gatherB, scatterC);
    }
  }
}

// A padded plane of at most this many floats (32 KB: it stays in L1 while the window slides) is
// copied into the thread's scratch, in a border zeroed once; a larger one is read in place (the copy
// of a 112 x 112 plane cost as much as its convolution, while a small plane's edge blocks, all of
// them at 7 x 7, run faster on the copy than with per-tap masks). Planes read at column stride 2 are
// always copied, split (below).
constexpr int64_t kCopiedPlaneFloats = int64_t(8) << 10;

// Where a plane's copy lies in the thread's scratch. A split copy holds the padded plane's even
// columns and then, `half` floats a row, its odd columns: a window at column stride 2 then reads
// each tap's 16 outputs' inputs with one unit-stride load (two loads and a permute in place, and
// per-tap masks at the plane's edges; MobileNetV2's stride-2 96 x 112 x 112 depthwise layer ran at
// twice ONNX Runtime's time).
struct PlaneCopy {
  bool split = false;
  int64_t half = 0, parityFloats = 0;  // a split row's floats per parity; one parity's plane
  int64_t floats = 0;                   // the whole copy

  explicit PlaneCopy(const Window& w, bool split) : split(split) {
    half = (w.paddedCols + 1) / 2, parityFloats = w.paddedRows * half;
    floats = split ? 2 * parityFloats : w.paddedRows * w.paddedCols;
  }
};

// Input row `from` (cols floats) into a split copy's row: its column c at padded column left + c,
// whose parity picks the half and whose half the index. The even input columns all go to one half
// and the odd ones to the other, 16 of each per 32 inputs.
__attribute__((target("avx512f"))) void splitRow(const float* from, int64_t cols, int64_t left, int64_t parityFloats, float* row) {
  const __m512i even = everySecondLane(0);
  const __m512i odd = everySecondLane(1);
  float* toEven = row + (left % 2) * parityFloats + left / 2;
  float* toOdd = row + ((left + 1) % 2) * parityFloats + (left + 1) / 2;
  int64_t c = 0;
  for (; c + 32 <= cols; c += 32, toEven += 16, toOdd += 16) {
    __m512 v0 = _mm512_loadu_ps(from + c), v1 = _mm512_loadu_ps(from + c + 16);
    _mm512_storeu_ps(toEven, _mm512_permutex2var_ps(v0, even, v1));
    _mm512_storeu_ps(toOdd, _mm512_permutex2var_ps(v0, odd, v1));
  }
  if (c < cols) {
    int64_t n = cols - c;
    __m512 v0 = _mm512_maskz_loadu_ps(firstLanes(n), from + c), v1 = _mm512_maskz_loadu_ps(firstLanes(n - 16), from + c + 16);
    _mm512_mask_storeu_ps(toEven, firstLanes((n + 1) / 2), _mm512_permutex2var_ps(v0, even, v1));
    _mm512_mask_storeu_ps(toOdd, firstLanes(n / 2), _mm512_permutex2var_ps(v0, odd, v1));
  }
}

// The padded plane `index` in `buf` (as `copy` lays it out): the input plane's rows copied in with
// masked vector moves (a libc call per row of 7 to 56 floats cost more than the row); the border
// (the padding's value), the same for every plane of this geometry, is filled only when the buffer
// last held another geometry.
__attribute__((target("avx512f"))) void copyPlane(const Window& w, const PlaneCopy& copy, int64_t index, float* buf) {
  struct Geometry {
    const float* buf;
    int64_t paddedRows, paddedCols, rows, cols, top, left;
    uint32_t fill;  // the border's value, as bits
    bool split;
    bool operator==(const Geometry&) const = default;
  };
  thread_local Geometry filled{};
  Geometry g{buf, w.paddedRows, w.paddedCols, w.rows, w.cols, w.top, w.left, std::bit_cast<uint32_t>(w.fill), copy.split};
  if (!(filled == g)) std::fill(buf, buf + copy.floats + 32, w.fill), filled = g;
  const float* src = w.input + index * w.rows * w.cols;
  if (copy.split) {
    for (int64_t r = 0, cols = w.cols, left = w.left; r < w.rows; ++r) splitRow(src + r * cols, cols, left, copy.parityFloats, buf + (r + w.top) * copy.half);
    return;
  }
  for (int64_t r = 0; r < w.rows; ++r) {
    const float* from = src + r * w.cols;
    float* to = buf + (r + w.top) * w.paddedCols + w.left;
    for (int64_t x = 0; x < w.cols; x += 16) {
      __mmask16 m = firstLanes(w.cols - x);
      _mm512_mask_storeu_ps(to + x, m, _mm512_maskz_loadu_ps(m, from + x));
    }
  }
}

// The reads of the plane at B offset `offset`: in place, the padded plane copied into `scratch`
// (small planes; split, each tap's offset in the copy written to `splitTaps`), or the input plane it
// pads read in place with the border's zeros masked in.
Reads readsOf(const Window& w, int64_t offset, float* scratch, const PlaneCopy& copy, int64_t* splitTaps) {
  Reads in;
  in.bY = w.bY, in.bX = w.bX;
  if (!w.input) {
    in.b = w.b, in.o = offset, in.tap = w.tapB.data();
    return in;
  }
  int64_t planeFloats = w.paddedRows * w.paddedCols, index = offset / planeFloats, rest = offset % planeFloats;
  if (scratch && copy.split) {
    // Output (y, x)'s tap t reads padded row r0 + y sy + tapRow, column c0 + 2 x + tapCol: in the
    // half of that column's parity, at index (c0 + tapCol) / 2 + x.
    copyPlane(w, copy, index, scratch);
    int64_t r0 = rest / w.paddedCols, c0 = rest % w.paddedCols;
    for (size_t t = 0; t < w.tapA.size(); ++t) {
      int64_t col = c0 + w.tapCol[t];
      splitTaps[t] = (col % 2) * copy.parityFloats + w.tapRow[t] * copy.half + col / 2;
    }
    in.b = scratch, in.o = r0 * copy.half, in.bY = w.bY / w.paddedCols * copy.half, in.bX = 1, in.tap = splitTaps;
    return in;
  }
  if (scratch) {
    copyPlane(w, copy, index, scratch);
    in.b = scratch, in.o = rest, in.tap = w.tapB.data();
    return in;
  }
  in.padded = true;
  in.b = w.input + index * w.rows * w.cols;
  in.rows = w.rows, in.cols = w.cols, in.sy = w.bY / w.paddedCols, in.sx = w.bX;
  in.y0 = rest / w.paddedCols - w.top, in.x0 = rest % w.paddedCols - w.left;
  in.o = in.y0 * w.cols + in.x0, in.bY = in.sy * w.cols;
  in.tap = w.tapIn.data(), in.tapRow = w.tapRow.data(), in.tapCol = w.tapCol.data();
  return in;
}

// Planes [begin, end): batch element p / outers, outer index p % outers.
// plane<> for the columns' stride through the input.
template <bool kPool>
auto planeFor(int64_t bX) {
  return bX == 1 ? plane<Columns::Unit, kPool> : bX == 2 ? plane<Columns::Two, kPool> : plane<Columns::Gather, kPool>;
}

// Plane p's input when it is a compact plane of the padded operand's input (p < 0: none): what
// copyPlane or the in-place reads will touch: in a whole model the input, just written by a 1x1
// convolution (4.8 MB for MobileNetV2's 96 x 112 x 112 stride-2 layer), comes from the L3 or beyond,
// and the copy had waited on it (that layer 0.37-0.40 -> 0.33 ms).
NextPlane nextPlane(const Window& w, int64_t p) {
  if (p < 0 || !w.input) return {};
  int64_t outers = int64_t(w.outerB.size());
  int64_t offset = w.batchB[size_t(p / outers)] + w.outerB[size_t(p % outers)];
  int64_t index = offset / (w.paddedRows * w.paddedCols);
  return {reinterpret_cast<const char*>(w.input + index * w.rows * w.cols), w.rows * w.cols * int64_t(sizeof(float))};
}

int32_t planes(void* ctx, int64_t begin, int64_t end) {
  const Window& w = *static_cast<const Window*>(ctx);
  int64_t outers = int64_t(w.outerB.size());
  // A copied plane plus a vector of slack: a tail's masked loads may start past its last row.
  const PlaneCopy copy(w, w.bX == 2);
  const bool copied = w.input && (copy.split || copy.floats <= kCopiedPlaneFloats);
  float* scratch = copied ? threadScratch(ScratchSlot::WindowPlane, size_t(copy.floats + 32)) : nullptr;
  if (copied && !scratch) return -1;
  int64_t splitTaps[kMaxTaps];
  for (int64_t p = begin; p < end; ++p) {
    size_t batch = size_t(p / outers), outer = size_t(p % outers);
    Reads in = readsOf(w, w.batchB[batch] + w.outerB[outer], scratch, copy, splitTaps);
    const float* a = w.a + w.batchA[batch];
    float* c = w.c + w.batchC[batch] + w.outerC[outer];
    if (w.pool) planeFor<true>(in.bX)(w, in, a, c);
    else if (!runGrid(w, in, a, c, nextPlane(w, p + 1 < end ? p + 1 : -1))) planeFor<false>(in.bX)(w, in, a, c);
    if (w.epilogue) {
      int64_t plane = w.height * w.width, first = int64_t(outer) * plane;
      if (int32_t code = w.epilogue(w.ctx, int64_t(batch), int64_t(batch) + 1, first, first + plane)) {
        int32_t none = 0;
        w.status.compare_exchange_strong(none, code);
        return code;
      }
    }
  }
  return 0;
}

// A padded window's taps as rows and columns of the padded plane (its row stride paddedCols), and
// their offsets in a compact input plane. False when the reads are not such a window: the output's
// rows not whole padded rows apart, its columns not a positive step, a tap outside the plane.
bool splitTaps(Window& w) {
  if (w.paddedRows <= 0 || w.paddedCols <= 0 || w.bX < 1 || w.bY < 0 || w.bY % w.paddedCols != 0) return false;
  for (size_t t = 0; t < w.tapB.size(); ++t) {
    int64_t b = w.tapB[t];
    if (b < 0) return false;
    int64_t row = b / w.paddedCols, col = b % w.paddedCols;
    w.tapRow.push_back(row), w.tapCol.push_back(col), w.tapIn.push_back(row * w.cols + col);
    w.minTapRow = t == 0 ? row : std::min(w.minTapRow, row), w.maxTapRow = t == 0 ? row : std::max(w.maxTapRow, row);
    w.minTapCol = t == 0 ? col : std::min(w.minTapCol, col), w.maxTapCol = t == 0 ? col : std::max(w.maxTapCol, col);
  }
  return true;
}

// Every plane of `w` (its operands and options set) on the thread pool; the first failure code.
int32_t run(Window& w) {
  int64_t count = int64_t(w.batchA.size() * w.outerB.size());
  if (count == 0 || w.height <= 0 || w.width <= 0) return 0;
  int32_t code = rlx_parallel_for(planes, &w, count, w.height * w.width * int64_t(w.tapA.size()) + w.paddedRows * w.paddedCols);
  return code != 0 ? code : int32_t(w.status);
}

}  // namespace

bool windowKernelAvailable() {
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("bmi2");
  return yes;
}

bool windowConv(float* c, const float* a, const float* b, const int64_t* desc, int32_t& status) {
  Window w;
  if (!windowKernelAvailable() || !parse(desc, w)) return false;
  w.c = c, w.a = a, w.b = b;
  status = run(w);
  return true;
}

// The window of `desc` (rlx_sgemm's layout) over the padded input its entries after the descriptor
// describe (padded rows and columns, input rows and columns, top and left), taps split; false when it
// is not one (the schedule makes such calls only for windows: schedule_window.h).
bool parsePadded(const int64_t* desc, Window& w) {
  if (!windowKernelAvailable() || !parse(desc, w)) return false;
  const int64_t* pad = desc + descriptorLength(desc);
  w.paddedRows = pad[0], w.paddedCols = pad[1], w.rows = pad[2], w.cols = pad[3], w.top = pad[4], w.left = pad[5];
  return splitTaps(w);
}

}  // namespace rlx

extern "C" int32_t rlx_sgemm_padded_epilogue(float* c, const float* a, const float* input, const int64_t* desc, RlxGemmEpilogue epilogue, void* ctx) {
  rlx::Window w;
  if (!rlx::parsePadded(desc, w)) return -1;
  w.c = c, w.a = a, w.input = input, w.epilogue = epilogue, w.ctx = ctx;
  if (!rlx::rowVectorsFavoured(w) && rlx::channelLanesFit(w)) return rlx::runChannelLanes(w);
  return rlx::run(w);
}

extern "C" int32_t rlx_sgemm_padded(float* c, const float* a, const float* input, const int64_t* desc) {
  return rlx_sgemm_padded_epilogue(c, a, input, desc, nullptr, nullptr);
}

extern "C" int32_t rlx_pool_padded(float* c, const float* input, const int64_t* desc) {
  rlx::Window w;
  if (!rlx::parsePadded(desc, w)) return -1;
  const int64_t* values = desc + rlx::descriptorLength(desc) + 6;  // after the padding: fill, init
  static const float none = 0;
  w.c = c, w.a = &none, w.input = input, w.pool = true;
  w.fill = std::bit_cast<float>(uint32_t(values[0])), w.init = std::bit_cast<float>(uint32_t(values[1]));
  return rlx::run(w);
}
