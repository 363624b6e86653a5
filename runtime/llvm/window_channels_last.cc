// Depthwise convolutions and max pooling over channels-last tensors (window_channels_last.h): per unit
// (a band of output rows of one image) each 16-channel group accumulates its taps in registers down
// the band's rows, reading the input in place (the padding's value from a row of it above and below,
// per tap left and right), stores straight into C, and the fused epilogue runs on the finished band.
#include "runtime/llvm/window_channels_last.h"

#include <immintrin.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "runtime/llvm/lane_mask.h"
#include "runtime/llvm/scratch.h"
#include "runtime/llvm/thread_pool.h"
#include "runtime/llvm/transpose_tile.h"

namespace rlx {

namespace {

constexpr int64_t kLanes = 16;
// Output pixels of a row accumulated together: independent chains hide the FMA latency.
constexpr int kPixels = 8;
// The same for the border's pixels, whose loads each have their own lanes.
constexpr int kCheckedPixels = 4;
// The most taps a window may have (as the other window kernels: a 7x7 window is 49).
constexpr int64_t kMaxTaps = 64;
// The most kernel rows a window may have: the row table's size.
constexpr int64_t kMaxKernelRows = 64;

struct Conv;
// One output row of one channel group (Conv::row).
using RowFn = void (*)(const Conv&, const float*, const float* const*, float*, __mmask16);

struct Conv {
  int64_t images = 0, channels = 0, rows = 0, cols = 0, outRows = 0, outCols = 0, kh = 0, kw = 0, sy = 0, sx = 0, dy = 0, dx = 0, top = 0, left = 0;
  int64_t weightChannel = 0, weightRow = 0, weightCol = 0;
  bool maxPool = false;  // the taps' maximum from `fill` (the padding's value too) instead of their weighted sum
  float fill = 0;
  // Output columns [inFirst, inEnd) read only input columns: the rest (the border's) check each tap.
  int64_t inFirst = 0, inEnd = 0;
  int64_t bandRows = 1, bands = 1;  // output rows per unit, bands per image
  int64_t chunkGroups = 1, chunks = 1;  // channel groups per unit, chunks per band
  const float* x = nullptr;
  float* c = nullptr;
  const float* weights = nullptr;  // [group][tap][16], zero past the last channel
  const float* padRow = nullptr;   // an input row of the padding's value: the rows above and below the input
  RlxGemmEpilogue epilogue = nullptr;
  void* ctx = nullptr;
  RowFn row = nullptr, lastRow = nullptr;  // for whole groups of 16 channels; for a partial last one

  int64_t taps() const { return kh * kw; }
  int64_t groups() const { return (channels + kLanes - 1) / kLanes; }
};

// The descriptor as a Conv; false when it is not a window the kernel computes.
bool parse(const int64_t* d, Conv& v) {
  v.images = d[kClImages], v.channels = d[kClChannels], v.rows = d[kClRows], v.cols = d[kClCols];
  v.outRows = d[kClOutRows], v.outCols = d[kClOutCols], v.kh = d[kClKernelRows], v.kw = d[kClKernelCols];
  v.sy = d[kClStrideY], v.sx = d[kClStrideX], v.dy = d[kClDilationY], v.dx = d[kClDilationX], v.top = d[kClTop], v.left = d[kClLeft];
  v.weightChannel = d[kClWeightChannel], v.weightRow = d[kClWeightRow], v.weightCol = d[kClWeightCol];
  if (d[kClMaxPool] != 0 && d[kClMaxPool] != 1) return false;
  v.maxPool = d[kClMaxPool] == 1;
  const uint32_t fillBits = uint32_t(d[kClFill]);
  std::memcpy(&v.fill, &fillBits, sizeof v.fill);
  for (int64_t e : {v.images, v.channels, v.rows, v.cols, v.outRows, v.outCols, v.kh, v.kw, v.sy, v.sx, v.dy, v.dx})
    if (e < 1 || e > (int64_t(1) << 30)) return false;
  if (v.top < 0 || v.left < 0 || v.top > (int64_t(1) << 30) || v.left > (int64_t(1) << 30) || v.taps() > kMaxTaps || v.kh > kMaxKernelRows) return false;
  // Weights are gathered with 32-bit lane offsets, 16 channels apart at most.
  if (v.weightChannel < 0 || v.weightChannel > INT32_MAX / kLanes) return false;
  // Output column x reads input columns x sx + kx dx - left.
  v.inFirst = std::min(v.outCols, (v.left + v.sx - 1) / v.sx);
  const int64_t last = v.cols - 1 + v.left - (v.kw - 1) * v.dx;  // the largest x sx whose taps all lie inside
  v.inEnd = std::max(v.inFirst, last < 0 ? 0 : std::min(v.outCols, last / v.sx + 1));
  return true;
}

// The address `offset` floats from p, which may lie outside the input when a masked load reads no
// lane there: computed on integers, so that no out-of-range pointer is formed.
inline const float* at(const float* p, int64_t offset) { return reinterpret_cast<const float*>(reinterpret_cast<uintptr_t>(p) + uintptr_t(offset * int64_t(sizeof(float)))); }

// A group's 16 channels at p: all of them, or (the last group of a channel count 16 does not divide)
// the lanes in `mask`, never touching the memory past them. checkedLoad: those of input column `col`
// in the row at p (its column 0), zero when the column lies left or right of the input (the padding).
template <bool kMasked>
__attribute__((target("avx512f"), always_inline)) inline __m512 load(const float* p, __mmask16 mask) {
  return kMasked ? _mm512_maskz_loadu_ps(mask, p) : _mm512_loadu_ps(p);
}
__attribute__((target("avx512f"), always_inline)) inline __m512 checkedLoad(const Conv& v, const float* p, int64_t col, __mmask16 mask) {
  return _mm512_mask_loadu_ps(_mm512_set1_ps(v.fill), col >= 0 && col < v.cols ? mask : __mmask16(0), at(p, col * v.channels));
}

// One tap into accumulator `acc`: its input times its weight added, or (max pooling) the maximum.
template <bool kMax>
__attribute__((target("avx512f,fma"), always_inline)) inline __m512 accumulate(__m512 acc, __m512 weight, __m512 x) {
  return kMax ? _mm512_max_ps(acc, x) : _mm512_fmadd_ps(weight, x, acc);
}

template <int N, bool kMasked>
__attribute__((target("avx512f"), always_inline)) inline void storePixels(const __m512 (&acc)[N], float* out, int64_t channels, __mmask16 mask) {
  for (int i = 0; i < N; ++i) {
    if (kMasked) _mm512_mask_storeu_ps(out + i * channels, mask, acc[i]);
    else _mm512_storeu_ps(out + i * channels, acc[i]);
  }
}

// N output pixels from x0 of one row and channel group: `tapRows[ky]` the group's lanes at input
// column 0 of the row kernel row ky reads. KW > 0: rows of KW adjacent taps read at column stride SX,
// each row's (N - 1) SX + KW input vectors loaded once and shared by its taps (tap kx of output i
// reads input i SX + kx); KW = 0: any window, tap by tap. Each pixel sums its taps in (ky, kx) order.
// kChecked: some taps fall left or right of the input (the border's pixels), and add a zero times
// their weight, as the padded input's zeros do (max pooling: take the padding's value). kMax: the
// taps' maximum from the fill value, weights unread.
template <int N, int SX, int KW, bool kMasked, bool kChecked, bool kMax>
__attribute__((target("avx512f,fma"), always_inline)) inline void pixels(const Conv& v, const float* w, const float* const* tapRows, int64_t x0, float* out, __mmask16 mask) {
  __m512 acc[N];
  const __m512 fill = _mm512_set1_ps(v.fill);
  for (int i = 0; i < N; ++i) acc[i] = kMax ? fill : _mm512_setzero_ps();
  if constexpr (KW > 0) {
    constexpr int kLoads = (N - 1) * SX + KW;
    const int64_t col0 = x0 * SX - v.left;
    // Checked: each load's lanes, the same for every kernel row (none for a column outside the input).
    __mmask16 lanes[kLoads];
    if constexpr (kChecked)
      for (int j = 0; j < kLoads; ++j) lanes[j] = col0 + j >= 0 && col0 + j < v.cols ? mask : __mmask16(0);
    for (int64_t ky = 0; ky < v.kh; ++ky) {
      __m512 x[kLoads];
      if constexpr (kChecked) {
        const float* in = at(tapRows[ky], col0 * v.channels);
        for (int j = 0; j < kLoads; ++j) x[j] = _mm512_mask_loadu_ps(fill, lanes[j], at(in, j * v.channels));
      } else {
        const float* in = tapRows[ky] + col0 * v.channels;
        for (int j = 0; j < kLoads; ++j) x[j] = load<kMasked>(in + j * v.channels, mask);
      }
      const float* wr = w + ky * KW * kLanes;
      for (int kx = 0; kx < KW; ++kx) {
        __m512 weight = kMax ? fill : _mm512_loadu_ps(wr + kx * kLanes);
        for (int i = 0; i < N; ++i) acc[i] = accumulate<kMax>(acc[i], weight, x[i * SX + kx]);
      }
    }
  } else {
    for (int64_t ky = 0; ky < v.kh; ++ky)
      for (int64_t kx = 0; kx < v.kw; ++kx) {
        __m512 weight = kMax ? fill : _mm512_loadu_ps(w + (ky * v.kw + kx) * kLanes);
        const int64_t col0 = x0 * v.sx + kx * v.dx - v.left, step = v.sx * v.channels;
        const float* in = kChecked ? nullptr : tapRows[ky] + col0 * v.channels;
        for (int i = 0; i < N; ++i)
          acc[i] = accumulate<kMax>(acc[i], weight, kChecked ? checkedLoad(v, tapRows[ky], col0 + i * v.sx, mask) : load<kMasked>(in + i * step, mask));
      }
  }
  storePixels<N, kMasked>(acc, out + x0 * v.channels, v.channels, mask);
}

// Pixels [x0, x1) of a row: blocks of N, the rest by smaller blocks.
template <int N, int SX, int KW, bool kMasked, bool kChecked, bool kMax>
__attribute__((target("avx512f,fma"))) void pixelRange(const Conv& v, const float* w, const float* const* tapRows, int64_t x0, int64_t x1, float* out, __mmask16 mask) {
  for (; x0 + N <= x1; x0 += N) pixels<N, SX, KW, kMasked, kChecked, kMax>(v, w, tapRows, x0, out, mask);
  if constexpr (N > 1)
    if (x0 < x1) pixelRange<N - 1, SX, KW, kMasked, kChecked, kMax>(v, w, tapRows, x0, x1, out, mask);
}

// One output row of one channel group: `out` its first pixel's group in C. The border's pixels are
// checked in blocks of kCheckedPixels (their loads' lanes held in registers too: eight pixels of a
// 7-wide window had spilled) from the row's ends, so that the checks spread over a block's loads.
template <int SX, int KW, bool kMasked, bool kMax>
__attribute__((target("avx512f,fma"))) void rowOf(const Conv& v, const float* w, const float* const* tapRows, float* out, __mmask16 mask) {
  auto blocks = [](int64_t n) { return (n + kCheckedPixels - 1) / kCheckedPixels * kCheckedPixels; };
  const int64_t head = std::min(v.outCols, blocks(v.inFirst));
  const int64_t tail = std::clamp(v.outCols - blocks(v.outCols - v.inEnd), head, std::max(head, v.inEnd));
  pixelRange<kCheckedPixels, SX, KW, kMasked, true, kMax>(v, w, tapRows, 0, head, out, mask);
  pixelRange<kPixels, SX, KW, kMasked, false, kMax>(v, w, tapRows, head, tail, out, mask);
  pixelRange<kCheckedPixels, SX, KW, kMasked, true, kMax>(v, w, tapRows, tail, v.outCols, out, mask);
}

// The row kernel of v's window: shared loads for 3, 5 or 7 adjacent taps a row at column stride 1
// or 2, else tap by tap.
template <bool kMasked, bool kMax>
RowFn rowKernelOf(const Conv& v) {
  if (v.dx == 1 && (v.sx == 1 || v.sx == 2)) {
    bool one = v.sx == 1;
    if (v.kw == 3) return one ? rowOf<1, 3, kMasked, kMax> : rowOf<2, 3, kMasked, kMax>;
    if (v.kw == 5) return one ? rowOf<1, 5, kMasked, kMax> : rowOf<2, 5, kMasked, kMax>;
    if (v.kw == 7) return one ? rowOf<1, 7, kMasked, kMax> : rowOf<2, 7, kMasked, kMax>;
  }
  return rowOf<1, 0, kMasked, kMax>;
}

template <bool kMasked>
RowFn rowKernel(const Conv& v) {
  return v.maxPool ? rowKernelOf<kMasked, true>(v) : rowKernelOf<kMasked, false>(v);
}

// Units [begin, end): image u / (bands chunks), band u / chunks % bands, channel groups of chunk
// u % chunks, read in place. Each channel group runs down the band's rows, so that the input rows its
// window slides over (kh rows of 64 bytes a pixel) stay in L1 from one output row to the next; the
// epilogue then runs on the unit's finished block.
int32_t units(void* ctx, int64_t begin, int64_t end) {
  const Conv& v = *static_cast<const Conv*>(ctx);
  const float* tapRows[kMaxKernelRows];
  for (int64_t u = begin; u < end; ++u) {
    const int64_t chunk = u % v.chunks, band = u / v.chunks % v.bands, image = u / (v.chunks * v.bands);
    const int64_t y0 = band * v.bandRows, y1 = std::min(v.outRows, y0 + v.bandRows);
    const int64_t g0 = chunk * v.chunkGroups, g1 = std::min(v.groups(), g0 + v.chunkGroups);
    for (int64_t g = g0; g < g1; ++g) {
      const float* weights = v.maxPool ? nullptr : v.weights + g * v.taps() * kLanes;
      const __mmask16 lanes = firstLanes(v.channels - g * kLanes);
      for (int64_t y = y0; y < y1; ++y) {
        for (int64_t ky = 0; ky < v.kh; ++ky) {
          const int64_t r = y * v.sy + ky * v.dy - v.top;
          tapRows[ky] = (r >= 0 && r < v.rows ? v.x + (image * v.rows + r) * v.cols * v.channels : v.padRow) + g * kLanes;
        }
        float* out = v.c + (image * v.outRows + y) * v.outCols * v.channels + g * kLanes;
        (lanes == 0xFFFF ? v.row : v.lastRow)(v, weights, tapRows, out, lanes);
      }
    }
    if (v.epilogue) {
      const int64_t p0 = (image * v.outRows + y0) * v.outCols, p1 = (image * v.outRows + y1) * v.outCols;
      if (int32_t code = v.epilogue(v.ctx, p0, p1, g0 * kLanes, std::min(v.channels, g1 * kLanes))) return code;
    }
  }
  return 0;
}

// W's taps as vectors of 16 channels, packed[(g * taps + t) * 16 + l] = W[16 g + l, tap t], zero past
// the last channel. A channel's taps in a row (OHWI: each channel's window contiguous) are transposed
// 16 x 16 in registers; other layouts take one gather a vector (a scalar copy of a 5x5 window's 1152
// channels cost as much as the convolution of its 7x7 image, the gathers a fifth of it).
__attribute__((target("avx512f"))) void packWeights(const Conv& v, const float* w, float* packed) {
  const int64_t taps = v.taps();
  if (v.weightCol == 1 && v.weightRow == v.kw) {
    for (int64_t g = 0; g < v.groups(); ++g) {
      const int64_t n = std::min(kLanes, v.channels - g * kLanes);
      for (int64_t t0 = 0; t0 < taps; t0 += kLanes) {
        __m512 rows[kLanes], columns[kLanes];
        for (int64_t l = 0; l < kLanes; ++l) rows[l] = l < n ? _mm512_maskz_loadu_ps(firstLanes(taps - t0), w + (g * kLanes + l) * v.weightChannel + t0) : _mm512_setzero_ps();
        transpose16x16(rows, columns);
        for (int64_t t = t0; t < std::min(taps, t0 + kLanes); ++t) _mm512_storeu_ps(packed + (g * taps + t) * kLanes, columns[t - t0]);
      }
    }
    return;
  }
  alignas(64) int32_t lane[kLanes];
  for (int64_t l = 0; l < kLanes; ++l) lane[l] = int32_t(l * v.weightChannel);
  const __m512i index = _mm512_load_si512(lane);
  for (int64_t g = 0; g < v.groups(); ++g) {
    const __mmask16 lanes = firstLanes(v.channels - g * kLanes);
    for (int64_t ky = 0; ky < v.kh; ++ky)
      for (int64_t kx = 0; kx < v.kw; ++kx) {
        const float* tap = w + g * kLanes * v.weightChannel + ky * v.weightRow + kx * v.weightCol;
        _mm512_storeu_ps(packed + ((g * v.kh + ky) * v.kw + kx) * kLanes, _mm512_mask_i32gather_ps(_mm512_setzero_ps(), lanes, index, tap, 4));
      }
  }
}

int32_t run(float* c, const float* w, const float* x, const int64_t* desc, RlxGemmEpilogue epilogue, void* ctx) {
  Conv v;
  if (!__builtin_cpu_supports("avx512f") || !parse(desc, v)) return -1;
  v.c = c, v.x = x, v.epilogue = epilogue, v.ctx = ctx, v.row = rowKernel<false>(v), v.lastRow = rowKernel<true>(v);
  // Each group's taps as vectors of its 16 channels, and a row of the padding's value, made by the
  // calling thread for all of them (max pooling has no weights: its row of the fill value takes
  // their scratch).
  const size_t rowFloats = size_t(v.cols * v.channels + kLanes);
  if (v.maxPool) {
    float* fills = threadScratch(ScratchSlot::WindowChannelsLastWeights, rowFloats);
    if (!fills) return -1;
    std::fill(fills, fills + rowFloats, v.fill);
    v.padRow = fills;
  } else {
    float* packed = threadScratch(ScratchSlot::WindowChannelsLastWeights, size_t(v.groups() * v.taps() * kLanes));
    float* zeros = threadZeroScratch(ScratchSlot::WindowChannelsLastZeros, rowFloats);
    if (!packed || !zeros) return -1;
    packWeights(v, w, packed);
    v.weights = packed, v.padRow = zeros;
  }
  // About four units per thread: bands of whole rows, and when an image has too few rows for that
  // (7 x 7 with two threads would split 4 : 3), chunks of its channel groups too.
  const int64_t wanted = 4 * int64_t(parallelThreads()), perImage = std::max<int64_t>(1, (wanted + v.images - 1) / v.images);
  v.bandRows = std::max<int64_t>(1, (v.outRows + perImage - 1) / perImage);
  v.bands = (v.outRows + v.bandRows - 1) / v.bandRows;
  const int64_t perBand = std::max<int64_t>(1, (wanted + v.images * v.bands - 1) / (v.images * v.bands));
  v.chunkGroups = std::max<int64_t>(1, (v.groups() + perBand - 1) / perBand);
  v.chunks = (v.groups() + v.chunkGroups - 1) / v.chunkGroups;
  return rlx_parallel_for(units, &v, v.images * v.bands * v.chunks, v.bandRows * v.outCols * v.chunkGroups * kLanes * v.taps());
}

}  // namespace

}  // namespace rlx

extern "C" int32_t rlx_window_channels_last(float* c, const float* w, const float* x, const int64_t* desc) { return rlx::run(c, w, x, desc, nullptr, nullptr); }

extern "C" int32_t rlx_window_channels_last_epilogue(float* c, const float* w, const float* x, const int64_t* desc, RlxGemmEpilogue epilogue, void* ctx) {
  return rlx::run(c, w, x, desc, epilogue, ctx);
}
