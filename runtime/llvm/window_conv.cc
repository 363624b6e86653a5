// Depthwise convolutions (window_conv.h): per channel and image, blocks of four output rows by 16
// columns accumulate the window's taps in registers, the input read in place (unit, stride-2 or
// gathered columns).
#include "runtime/llvm/window_conv.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "runtime/llvm/gemm_offsets.h"
#include "runtime/llvm/scratch.h"
#include "runtime/llvm/sgemm.h"
#include "runtime/llvm/thread_pool.h"

namespace rlx {

namespace {

// Output rows computed together: independent accumulators hide the FMA latency of a tap chain (a
// 14-wide row is one vector: alone, its nine taps would be one dependent chain).
constexpr int kRows = 4;
// The most taps a window may have (a 7x7 depthwise window is 49): beyond, the GEMM computes it.
constexpr int64_t kMaxTaps = 64;

struct Window {
  float* c = nullptr;
  const float* a = nullptr;
  const float* b = nullptr;
  int64_t height = 1, width = 1;  // the output plane (the two innermost column dims)
  int64_t bY = 0, bX = 0, cY = 0, cX = 0;  // their strides in B and C
  std::vector<int64_t> outerB, outerC;  // each outer column index's (an image's) offsets in B and C
  std::vector<int64_t> tapA, tapB;      // each tap's offsets in A and B, in summation order
  std::vector<int64_t> batchA, batchB, batchC;  // each batch element's (a channel's) offsets
  // With padding (rlx_sgemm_padded): B is a padded input never materialized; its planes of
  // paddedRows x paddedCols are copied from the input's planes of rows x cols at (top, left).
  const float* input = nullptr;
  int64_t paddedRows = 0, paddedCols = 0, rows = 0, cols = 0, top = 0, left = 0;
  // Called on each finished plane (null: none), and the first failure it reported.
  RlxGemmEpilogue epilogue = nullptr;
  void* ctx = nullptr;
  mutable std::atomic<int32_t> status{0};
};

bool parse(const int64_t* desc, Window& w) {
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
  offsets<2>(cols, outer, {&w.outerB, &w.outerC}, {&unused[0], &unused[1]});
  offsets<2>(red, nk, {&w.tapA, &w.tapB}, {&unused[0], &unused[1]});
  offsets<3>(batch, nb, {&w.batchA, &w.batchB, &w.batchC}, {&unused[0], &unused[1], &unused[2]});
  return true;
}

// Lanes l < n of 16 consecutive output columns.
__attribute__((target("avx512f"), always_inline)) inline __mmask16 lanes(int64_t n) {
  return n >= 16 ? __mmask16(0xFFFF) : n <= 0 ? __mmask16(0) : __mmask16((1u << n) - 1);
}

// The inputs of 16 output columns at p (columns bX apart): contiguous, every second of 32, or gathered.
enum class Columns { Unit, Two, Gather };

template <Columns kCols>
__attribute__((target("avx512f,bmi2"), always_inline)) inline __m512 loadColumns(const float* p, __mmask16 m, int64_t bX, __m512i gatherIndex) {
  if constexpr (kCols == Columns::Unit) {
    return _mm512_maskz_loadu_ps(m, p);
  } else if constexpr (kCols == Columns::Two) {
    // Output lane l reads p[2l]: lanes up to 15 of the first 16 inputs, the rest of the next 16.
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    __mmask16 lo = __mmask16(_pdep_u32(m & 0xFF, 0x5555)), hi = __mmask16(_pdep_u32((m >> 8) & 0xFF, 0x5555));
    return _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(lo, p), even, _mm512_maskz_loadu_ps(hi, p + 16));
  } else {
    (void)bX;
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, gatherIndex, p, 4);
  }
}

// Output rows [y0, y0 + R) x columns [x0, x0 + 16) of one plane.
template <int R, Columns kCols>
__attribute__((target("avx512f,fma,bmi2"))) void block(const Window& w, const float* a, const float* b, float* c, int64_t y0, int64_t x0, __mmask16 m, __m512i gatherB,
                                                   __m512i scatterC) {
  __m512 acc[R];
  for (int r = 0; r < R; ++r) acc[r] = _mm512_setzero_ps();
  const float* base = b + y0 * w.bY + x0 * w.bX;
  for (size_t t = 0; t < w.tapA.size(); ++t) {
    __m512 tap = _mm512_set1_ps(a[w.tapA[t]]);
    const float* p = base + w.tapB[t];
    for (int r = 0; r < R; ++r) acc[r] = _mm512_fmadd_ps(tap, loadColumns<kCols>(p + r * w.bY, m, w.bX, gatherB), acc[r]);
  }
  float* out = c + y0 * w.cY + x0 * w.cX;
  for (int r = 0; r < R; ++r) {
    if (w.cX == 1) _mm512_mask_storeu_ps(out + r * w.cY, m, acc[r]);
    else _mm512_mask_i32scatter_ps(out + r * w.cY, m, scatterC, acc[r], 4);
  }
}

template <Columns kCols>
__attribute__((target("avx512f,fma,bmi2"))) void plane(const Window& w, const float* a, const float* b, float* c) {
  const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i gatherB = _mm512_mullo_epi32(lane, _mm512_set1_epi32(int32_t(w.bX)));
  const __m512i scatterC = _mm512_mullo_epi32(lane, _mm512_set1_epi32(int32_t(w.cX)));
  for (int64_t x0 = 0; x0 < w.width; x0 += 16) {
    __mmask16 m = lanes(w.width - x0);
    int64_t y0 = 0;
    for (; y0 + kRows <= w.height; y0 += kRows) block<kRows, kCols>(w, a, b, c, y0, x0, m, gatherB, scatterC);
    switch (w.height - y0) {
      case 3: block<3, kCols>(w, a, b, c, y0, x0, m, gatherB, scatterC); break;
      case 2: block<2, kCols>(w, a, b, c, y0, x0, m, gatherB, scatterC); break;
      case 1: block<1, kCols>(w, a, b, c, y0, x0, m, gatherB, scatterC); break;
      default: break;
    }
  }
}

// The padded plane holding B offset `offset` (in padded units), built in `buf` from the input's
// plane; returns where B's offset points in it.
const float* paddedPlane(const Window& w, int64_t offset, float* buf) {
  int64_t planeFloats = w.paddedRows * w.paddedCols, index = offset / planeFloats;
  const float* src = w.input + index * w.rows * w.cols;
  // Only the border is zeroed: the rows above and below, and each row's margins.
  std::fill(buf, buf + w.top * w.paddedCols, 0.0f);
  for (int64_t r = 0; r < w.rows; ++r) {
    float* row = buf + (r + w.top) * w.paddedCols;
    std::fill(row, row + w.left, 0.0f);
    std::copy(src + r * w.cols, src + (r + 1) * w.cols, row + w.left);
    std::fill(row + w.left + w.cols, row + w.paddedCols, 0.0f);
  }
  std::fill(buf + (w.top + w.rows) * w.paddedCols, buf + planeFloats, 0.0f);
  return buf + offset % planeFloats;
}

// Planes [begin, end): batch element p / outers, outer index p % outers.
int32_t planes(void* ctx, int64_t begin, int64_t end) {
  const Window& w = *static_cast<const Window*>(ctx);
  int64_t outers = int64_t(w.outerB.size());
  auto run = w.bX == 1 ? plane<Columns::Unit> : w.bX == 2 ? plane<Columns::Two> : plane<Columns::Gather>;
  // A padded plane plus a vector of slack: a tail's masked loads may start past its last row.
  float* padded = w.input ? threadScratch(ScratchSlot::WindowPlane, size_t(w.paddedRows * w.paddedCols + 32)) : nullptr;
  if (w.input && !padded) return -1;
  for (int64_t p = begin; p < end; ++p) {
    size_t batch = size_t(p / outers), outer = size_t(p % outers);
    int64_t offset = w.batchB[batch] + w.outerB[outer];
    const float* b = w.input ? paddedPlane(w, offset, padded) : w.b + offset;
    run(w, w.a + w.batchA[batch], b, w.c + w.batchC[batch] + w.outerC[outer]);
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

// The descriptor's length: nm, nn, nk, nb, then 3, 3, 3 and 4 entries per dim.
int64_t descriptorLength(const int64_t* desc) { return 4 + 3 * (desc[0] + desc[1] + desc[2]) + 4 * desc[3]; }

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

}  // namespace rlx

extern "C" int32_t rlx_sgemm_padded_epilogue(float* c, const float* a, const float* input, const int64_t* desc, RlxGemmEpilogue epilogue, void* ctx) {
  rlx::Window w;
  if (!rlx::windowKernelAvailable() || !rlx::parse(desc, w)) return -1;  // the schedule fuses only window convolutions (schedule_window.h)
  const int64_t* pad = desc + rlx::descriptorLength(desc);
  w.c = c, w.a = a, w.input = input, w.epilogue = epilogue, w.ctx = ctx;
  w.paddedRows = pad[0], w.paddedCols = pad[1], w.rows = pad[2], w.cols = pad[3], w.top = pad[4], w.left = pad[5];
  return rlx::run(w);
}

extern "C" int32_t rlx_sgemm_padded(float* c, const float* a, const float* input, const int64_t* desc) {
  return rlx_sgemm_padded_epilogue(c, a, input, desc, nullptr, nullptr);
}
