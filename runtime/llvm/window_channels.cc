// Depthwise convolutions with channels in the lanes (window_channels.h): per unit of 16 channels and
// one image, transpose in, accumulate every output pixel's taps in full vectors, transpose out.
#include "runtime/llvm/window_channels.h"

#include <immintrin.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <string_view>

#include "runtime/llvm/lane_mask.h"
#include "runtime/llvm/scratch.h"
#include "runtime/llvm/thread_pool.h"
#include "runtime/llvm/transpose_tile.h"

namespace rlx {

namespace {

constexpr int64_t kLanes = 16;
// Padded planes of at most this many pixels: the channel-minor copy of 16 is then at most 256 KB,
// and it and the output block stay in L2 while the window slides.
constexpr int64_t kMaxPaddedPixels = 4096;
// Fewer channels would leave most lanes empty; the row kernel computes them.
constexpr int64_t kMinChannels = 8;
// Output pixels of a row accumulated together: independent chains hide the FMA latency.
constexpr int kPixels = 8;
// The most taps a window may have (window_conv.cc's limit).
constexpr int64_t kMaxTaps = 64;
// A group's weights span at most this much when its channels' weights are adjacent (16 channels of
// kMaxTaps floats); beyond, they lie apart and are not prefetched.
constexpr int64_t kMaxPrefetchBytes = kLanes * kMaxTaps * int64_t(sizeof(float));

// Where each unit's work lies: the channel-minor padded plane's row pitch (in floats), where output
// (0, 0)'s window starts in it, and the output's strides through it.
struct Plan {
  Window* w = nullptr;
  int64_t groups = 0, pitch = 0, origin = 0, stepY = 0, stepX = 0;
  int64_t minTapA = 0, maxTapA = 0;  // the taps' least and largest weight offsets
  // Each unit's output rows: bands of bandRows (more units than channel groups keep two threads even
  // on a layer of 9 groups).
  int64_t bands = 1, bandRows = 1;
  int64_t tap[kMaxTaps] = {};  // each tap's offset in the channel-minor plane (floats)
  // The taps as `tapRows` rows of `rowTaps` adjacent columns, in summation order (a dense kh x kw
  // window of dilation 1 along x): 0 when they are not.
  int64_t tapRows = 0, rowTaps = 0;
};

// The padded plane of B holding channel `ch` of image `outer`, and the offset in it where output
// (0, 0)'s window starts.
int64_t planeIndex(const Window& w, int64_t ch, int64_t outer) { return (w.batchB[size_t(ch)] + w.outerB[size_t(outer)]) / (w.paddedRows * w.paddedCols); }
int64_t planeStart(const Window& w, int64_t ch, int64_t outer) { return (w.batchB[size_t(ch)] + w.outerB[size_t(outer)]) % (w.paddedRows * w.paddedCols); }

// Input rows [row0, row1) of channels [ch0, ch0 + n) transposed into `lanes` (padded pixel p's 16
// channels at lanes + 16 p), whose border, the same for every unit of this geometry, is zeroed only when the
// buffer last held another geometry.
__attribute__((target("avx512f"))) void transposeIn(const Window& w, int64_t ch0, int64_t n, int64_t outer, int64_t row0, int64_t row1, float* lanes) {
  struct Geometry {
    const float* buf;
    int64_t paddedRows, paddedCols;
    bool operator==(const Geometry&) const = default;
  };
  thread_local Geometry zeroed{};
  Geometry g{lanes, w.paddedRows, w.paddedCols};
  if (!(zeroed == g)) std::fill(lanes, lanes + w.paddedRows * w.paddedCols * kLanes, 0.0f), zeroed = g;
  const float* src[kLanes];
  for (int64_t l = 0; l < n; ++l) src[l] = w.input + planeIndex(w, ch0 + l, outer) * w.rows * w.cols;
  const int64_t pixels = row1 * w.cols;
  int64_t row = row0, col = 0;  // the input pixel f0 + j's position, advanced pixel by pixel
  for (int64_t f0 = row0 * w.cols; f0 < pixels; f0 += kLanes) {
    __mmask16 m = firstLanes(pixels - f0);
    __m512 v[kLanes], t[kLanes];
    for (int64_t l = 0; l < kLanes; ++l) v[l] = l < n ? _mm512_maskz_loadu_ps(m, src[l] + f0) : _mm512_setzero_ps();
    transpose16x16(v, t);
    for (int64_t j = 0, count = std::min(kLanes, pixels - f0); j < count; ++j) {
      _mm512_storeu_ps(lanes + ((row + w.top) * w.paddedCols + col + w.left) * kLanes, t[j]);
      if (++col == w.cols) col = 0, ++row;
    }
  }
}

// N output pixels of a row, x0 onwards: each accumulates the taps in summation order. kStride, the
// output's column stride through the input (1 or 2; 0: p.stepX at run time), a constant gives the
// loads fixed displacements (with a run-time step, a chain of address adds bounded the loop).
template <int N, int kStride>
__attribute__((target("avx512f,fma"), always_inline)) inline void pixels(const Plan& p, const float* weights, const float* rowStart, int64_t x0, float* out) {
  const int64_t step = kStride ? kStride * kLanes : p.stepX;
  __m512 acc[N];
  for (int i = 0; i < N; ++i) acc[i] = _mm512_setzero_ps();
  const int64_t taps = int64_t(p.w->tapA.size());
  const float* first = rowStart + x0 * step;
  for (int64_t t = 0; t < taps; ++t) {
    __m512 weight = _mm512_loadu_ps(weights + t * kLanes);
    const float* in = first + p.tap[t];
    for (int i = 0; i < N; ++i) acc[i] = _mm512_fmadd_ps(weight, _mm512_loadu_ps(in + i * step), acc[i]);
  }
  for (int i = 0; i < N; ++i) _mm512_storeu_ps(out + (x0 + i) * kLanes, acc[i]);
}

// pixels<N, 1> for a window of rows of KW adjacent taps: each row's N + KW - 1 input vectors are
// loaded once and shared by its taps (output i, tap x reads input i + x), where each tap loaded all
// N again: 9 loads per 8 FMAs had bound a 7 x 7 window to one FMA a cycle. Same order of sums.
template <int N, int KW>
__attribute__((target("avx512f,fma"), always_inline)) inline void pixelRows(const Plan& p, const float* weights, const float* rowStart, int64_t x0, float* out) {
  __m512 acc[N];
  for (int i = 0; i < N; ++i) acc[i] = _mm512_setzero_ps();
  const float* first = rowStart + x0 * kLanes;
  for (int64_t r = 0; r < p.tapRows; ++r) {
    const float* in = first + p.tap[r * KW];
    __m512 x[N + KW - 1];
    for (int i = 0; i < N + KW - 1; ++i) x[i] = _mm512_loadu_ps(in + i * kLanes);
    const float* wr = weights + r * KW * kLanes;
    for (int t = 0; t < KW; ++t) {
      __m512 weight = _mm512_loadu_ps(wr + t * kLanes);
      for (int i = 0; i < N; ++i) acc[i] = _mm512_fmadd_ps(weight, x[i + t], acc[i]);
    }
  }
  for (int i = 0; i < N; ++i) _mm512_storeu_ps(out + (x0 + i) * kLanes, acc[i]);
}

// N pixels by the row-shared loads when the taps form rows of 3, 5 or 7 at stride 1, else tap by tap.
template <int N, int kStride>
__attribute__((target("avx512f,fma"), always_inline)) inline void anyPixels(const Plan& p, const float* weights, const float* rowStart, int64_t x0, float* out) {
  if constexpr (kStride == 1) {
    if (p.rowTaps == 3) return pixelRows<N, 3>(p, weights, rowStart, x0, out);
    if (p.rowTaps == 5) return pixelRows<N, 5>(p, weights, rowStart, x0, out);
    if (p.rowTaps == 7) return pixelRows<N, 7>(p, weights, rowStart, x0, out);
  }
  pixels<N, kStride>(p, weights, rowStart, x0, out);
}

// The tail of a row: its last n < kPixels pixels.
template <int N, int kStride>
__attribute__((target("avx512f,fma"))) void tailPixels(const Plan& p, const float* weights, const float* rowStart, int64_t x0, int64_t n, float* out) {
  if constexpr (N > 1)
    if (n < N) return tailPixels<N - 1, kStride>(p, weights, rowStart, x0, n, out);
  anyPixels<N, kStride>(p, weights, rowStart, x0, out);
}

// Output rows [y0, y1): pixel (y, x)'s 16 channels at out + 16 ((y - y0) * width + x).
template <int kStride>
__attribute__((target("avx512f,fma"))) void convolve(const Plan& p, const float* weights, const float* lanes, int64_t y0, int64_t y1, float* out) {
  const Window& w = *p.w;
  for (int64_t y = y0; y < y1; ++y) {
    const float* rowStart = lanes + p.origin + y * p.stepY;
    float* rowOut = out + (y - y0) * w.width * kLanes;
    int64_t x0 = 0;
    for (; x0 + kPixels <= w.width; x0 += kPixels) anyPixels<kPixels, kStride>(p, weights, rowStart, x0, rowOut);
    if (x0 < w.width) tailPixels<kPixels - 1, kStride>(p, weights, rowStart, x0, w.width - x0, rowOut);
  }
}

// The output block of rows [y0, y1) (pixel-major, 16 channels each) transposed into channels
// [ch0, ch0 + n)'s planes.
__attribute__((target("avx512f"))) void transposeOut(const Window& w, int64_t ch0, int64_t n, int64_t outer, int64_t y0, int64_t y1, const float* out) {
  float* dst[kLanes];
  for (int64_t l = 0; l < n; ++l) dst[l] = w.c + w.batchC[size_t(ch0 + l)] + w.outerC[size_t(outer)];
  const int64_t first = y0 * w.width, pixels = y1 * w.width;
  for (int64_t f0 = first; f0 < pixels; f0 += kLanes) {
    __m512 v[kLanes], t[kLanes];
    for (int64_t j = 0; j < kLanes; ++j) v[j] = _mm512_loadu_ps(out + (f0 - first + j) * kLanes);  // past the end: slack
    transpose16x16(v, t);
    __mmask16 m = firstLanes(pixels - f0);
    for (int64_t l = 0; l < n; ++l) _mm512_mask_storeu_ps(dst[l] + f0, m, t[l]);
  }
}

// Tap t's weights of channels [ch0, ch0 + n) at weights[16 t ..], zero in the lanes past n.
__attribute__((target("avx512f"))) void gatherWeights(const Window& w, int64_t ch0, int64_t n, float* weights) {
  __mmask16 m = firstLanes(n);
  int32_t lane[kLanes] = {};
  for (int64_t l = 0; l < n; ++l) lane[l] = int32_t(w.batchA[size_t(ch0 + l)]);
  const __m512i index = _mm512_loadu_si512(lane);
  for (size_t t = 0; t < w.tapA.size(); ++t)
    _mm512_store_ps(weights + t * kLanes, _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, index, w.a + w.tapA[t], 4));
}

// Units [begin, end): channel group u / (outers * bands), image u / bands % outers, band u % bands.
int32_t units(void* ctx, int64_t begin, int64_t end) {
  const Plan& p = *static_cast<const Plan*>(ctx);
  const Window& w = *p.w;
  const int64_t outers = int64_t(w.outerB.size()), channels = int64_t(w.batchA.size());
  const int64_t plane = w.height * w.width, rowsPerStep = w.bY / w.paddedCols;
  float* lanes = threadScratch(ScratchSlot::WindowLanesInput, size_t(w.paddedRows * w.paddedCols * kLanes));
  float* out = threadScratch(ScratchSlot::WindowLanesOutput, size_t((p.bandRows * w.width + kLanes) * kLanes));
  if (!lanes || !out) return -1;
  alignas(64) float weights[kMaxTaps * kLanes];
  int64_t weightsOf = -1;  // the channel group whose weights are in `weights`
  for (int64_t u = begin; u < end; ++u) {
    int64_t band = u % p.bands, outer = u / p.bands % outers, ch0 = u / (p.bands * outers) * kLanes;
    int64_t n = std::min(kLanes, channels - ch0);
    if (weightsOf != ch0) {
      gatherWeights(w, ch0, n, weights), weightsOf = ch0;
      // The next group's weights, requested while this one convolves: in a model they come from
      // memory, and the gathers waited on them (a 5 x 5 window's 25 lines a group).
      if (ch0 + kLanes < channels) {
        const int64_t last = std::min(channels, ch0 + 2 * kLanes) - 1;
        const char* from = reinterpret_cast<const char*>(w.a + w.batchA[size_t(ch0 + kLanes)] + p.minTapA);
        const char* to = reinterpret_cast<const char*>(w.a + w.batchA[size_t(last)] + p.maxTapA);
        if (from <= to && to - from < kMaxPrefetchBytes)
          for (const char* line = from; line <= to; line += 64) _mm_prefetch(line, _MM_HINT_T0);
      }
    }
    // Output rows [y0, y1) read padded rows from the first's topmost tap to the last's bottommost.
    int64_t y0 = band * p.bandRows, y1 = std::min(w.height, y0 + p.bandRows);
    int64_t padded0 = p.origin / p.pitch + y0 * rowsPerStep + w.minTapRow, padded1 = p.origin / p.pitch + (y1 - 1) * rowsPerStep + w.maxTapRow + 1;
    int64_t row0 = std::clamp<int64_t>(padded0 - w.top, 0, w.rows), row1 = std::clamp<int64_t>(padded1 - w.top, row0, w.rows);
    transposeIn(w, ch0, n, outer, row0, row1, lanes);
    if (p.stepX == kLanes) convolve<1>(p, weights, lanes, y0, y1, out);
    else if (p.stepX == 2 * kLanes) convolve<2>(p, weights, lanes, y0, y1, out);
    else convolve<0>(p, weights, lanes, y0, y1, out);
    transposeOut(w, ch0, n, outer, y0, y1, out);
    if (w.epilogue)
      if (int32_t code = w.epilogue(w.ctx, ch0, ch0 + n, outer * plane + y0 * w.width, outer * plane + y1 * w.width)) {
        int32_t none = 0;
        w.status.compare_exchange_strong(none, code);
        return code;
      }
  }
  return 0;
}

}  // namespace

bool channelLanesFit(const Window& w) {
  static const bool off = [] {
    const char* v = std::getenv("RLX_WINDOW_LANES");
    return v && std::string_view(v) == "0";
  }();
  if (off) return false;
  const int64_t channels = int64_t(w.batchA.size()), outers = int64_t(w.outerB.size());
  if (!w.input || channels < kMinChannels || int64_t(w.tapA.size()) > kMaxTaps || w.paddedRows * w.paddedCols > kMaxPaddedPixels) return false;
  if (w.cX != 1 || w.cY != w.width || w.bX < 1 || w.height < 1 || w.width < 1) return false;
  // Each output plane compact (pixels f at plane + f) and each channel's window starting at the same
  // place of its padded plane, so that one plan of offsets serves every unit: read off the steps of
  // the offset tables when they are even (a division per channel cost 7% of a 7 x 7 layer).
  const int64_t planeFloats = w.paddedRows * w.paddedCols, start = planeStart(w, 0, 0);
  auto wholePlanes = [&](const Spacing& s) { return s.even && (s.single || s.step % planeFloats == 0); };
  if (!wholePlanes(w.batchBs) || !wholePlanes(w.outerBs))
    for (int64_t ch = 0; ch < channels; ++ch)
      for (int64_t o = 0; o < outers; ++o)
        if (planeStart(w, ch, o) != start) return false;
  // Weights are gathered with 32-bit lane offsets.
  for (int64_t offset : w.batchA)
    if (offset < 0 || offset > INT32_MAX / 2) return false;
  for (int64_t offset : w.tapA)
    if (offset < 0 || offset > INT32_MAX / 2) return false;
  const int64_t startRow = start / w.paddedCols, startCol = start % w.paddedCols, sy = w.bY / w.paddedCols;
  return startRow + (w.height - 1) * sy + w.maxTapRow < w.paddedRows && startCol + (w.width - 1) * w.bX + w.maxTapCol < w.paddedCols;
}

int32_t runChannelLanes(Window& w) {
  Plan p;
  p.w = &w;
  const int64_t channels = int64_t(w.batchA.size()), outers = int64_t(w.outerB.size());
  const int64_t start = planeStart(w, 0, 0);
  p.groups = (channels + kLanes - 1) / kLanes;
  p.pitch = w.paddedCols * kLanes;
  p.origin = (start / w.paddedCols) * p.pitch + (start % w.paddedCols) * kLanes;
  p.stepY = (w.bY / w.paddedCols) * p.pitch, p.stepX = w.bX * kLanes;
  for (size_t t = 0; t < w.tapA.size(); ++t) p.tap[t] = w.tapRow[t] * p.pitch + w.tapCol[t] * kLanes;
  p.minTapA = *std::min_element(w.tapA.begin(), w.tapA.end()), p.maxTapA = *std::max_element(w.tapA.begin(), w.tapA.end());
  // Rows of adjacent taps: as many as the first row has, each row's columns those of the first.
  const int64_t taps = int64_t(w.tapA.size());
  int64_t rowTaps = 1;
  while (rowTaps < taps && w.tapRow[size_t(rowTaps)] == w.tapRow[0]) ++rowTaps;
  bool rows = taps % rowTaps == 0;
  for (int64_t t = 0; rows && t < taps; ++t)
    rows = w.tapRow[size_t(t)] == w.tapRow[size_t(t - t % rowTaps)] && w.tapCol[size_t(t)] == w.tapCol[0] + t % rowTaps;
  if (rows) p.tapRows = taps / rowTaps, p.rowTaps = rowTaps;
  // Bands of at least 4 rows, enough of them for 8 units per thread.
  const int64_t threads = parallelThreads(), groupUnits = p.groups * outers;
  p.bands = std::clamp<int64_t>((8 * threads + groupUnits - 1) / groupUnits, 1, std::max<int64_t>(1, w.height / 4));
  p.bandRows = (w.height + p.bands - 1) / p.bands;
  p.bands = (w.height + p.bandRows - 1) / p.bandRows;
  const int64_t work = kLanes * (p.bandRows * w.width * int64_t(w.tapA.size()) + 2 * p.bandRows * w.bY / w.paddedCols * w.paddedCols);
  int32_t code = rlx_parallel_for(units, &p, groupUnits * p.bands, work);
  return code != 0 ? code : int32_t(w.status);
}

}  // namespace rlx
