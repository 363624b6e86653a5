// The parts of the Winograd F(4x4, 3x3) convolution its two layouts share: the tile constants, the
// convolution's geometry (Conv) and the transforms on vectors of 16 independent lanes.
#pragma once
#include <immintrin.h>

#include <atomic>
#include <cstdint>
#include <utility>
#include <vector>

#include "runtime/llvm/sgemm.h"
#include "runtime/llvm/unit_queues.h"

namespace rlx::winograd {

// The transform's tile: kOut x kOut outputs from kIn x kIn inputs (kOut + 3 - 1), kIn^2 products.
constexpr int64_t kOut = 4, kIn = 6, kPoints = kIn * kIn;
// The 36 points' matrices (V, U and M) are each followed by this many floats (a cache line): at
// power-of-two sizes the 36 stores of one transform, a point apart, otherwise map to the same L1 set
// (a 256-channel filter block's transform spent most of its time on those conflicts).
constexpr int64_t kSkew = 16;

// The floats from one point's matrix of rows x ld floats to the next's.
constexpr int64_t pointFloats(int64_t rows, int64_t ld) { return rows * ld + kSkew; }

// One convolution's geometry (strides in floats) and its schedule's state.
struct Conv {
  float* out = nullptr;
  const float* weights = nullptr;
  const float* in = nullptr;
  // Channels last (NHWC): a pixel's channels are contiguous in the input and the output, rows of C
  // are pixels and its columns channels. Else (NCHW) each channel is a plane whose columns are
  // contiguous, rows of C are channels and its columns pixels.
  bool channelsLast = false;
  int64_t outChannels = 0, inChannels = 0, height = 0, width = 0;  // K, C and the output's H x W
  int64_t wK = 0, wC = 0, wY = 0, wX = 0;  // the weights' strides (output channel, input channel, window)
  // Weights in panels of panelWidth output channels (PackMatmulWeights' layout), wPanel apart, the
  // channels of a panel wK apart (0: no panels, channel k at k * wK).
  int64_t panelWidth = 0, wPanel = 0;
  int64_t inC = 0, inY = 0, inX = 1;     // the input's channel, row and column strides
  int64_t outK = 0, outY = 0, outX = 1;  // the output's channel, row and column strides
  std::vector<int64_t> imageIn, imageOut;  // each image's offset in the input and the output
  int64_t tilesWide = 0, tilesHigh = 0, bandRows = 1, bandsPerImage = 0, units = 0;
  int64_t rowFloats = 0;      // one transformed input row of the band buffer (everyFourth reads 68 past a block)
  int64_t kPadded = 0;        // K rounded up to whole vectors (the filter transform's zero-padded rows)
  int64_t tilesPerImage = 0, allTiles = 0;
  RlxGemmEpilogue epilogue = nullptr;
  void* ctx = nullptr;
  UnitQueues bands;               // the bands, each thread's own range first
  std::atomic<int64_t> done{0};   // bands (channel blocks) computed
  std::atomic<int32_t> status{0};

  // Where output channel k's filter starts in the weights.
  int64_t filterOffset(int64_t k) const { return panelWidth > 0 ? k / panelWidth * wPanel + k % panelWidth * wK : k * wK; }
};

// --- The three transforms, on vectors of 16 independent lanes -----------------------------------

// Input: B^T d for a column of 6 inputs (B^T rows [4 0 -5 0 1 0], [0 -4 -4 1 1 0], [0 4 -4 -1 1 0],
// [0 -2 -1 2 1 0], [0 2 -1 -2 1 0], [0 4 0 -5 0 1]).
__attribute__((target("avx512f,fma"), always_inline)) inline void inputTransform(const __m512 (&d)[kIn], __m512 (&v)[kIn]) {
  const __m512 four = _mm512_set1_ps(4.f), five = _mm512_set1_ps(5.f), two = _mm512_set1_ps(2.f);
  v[0] = _mm512_fmadd_ps(four, d[0], _mm512_fnmadd_ps(five, d[2], d[4]));
  __m512 t1 = _mm512_fnmadd_ps(four, d[2], d[4]), t2 = _mm512_fnmadd_ps(four, d[1], d[3]);
  v[1] = _mm512_add_ps(t1, t2), v[2] = _mm512_sub_ps(t1, t2);
  __m512 t3 = _mm512_sub_ps(d[4], d[2]), t4 = _mm512_mul_ps(two, _mm512_sub_ps(d[3], d[1]));
  v[3] = _mm512_add_ps(t3, t4), v[4] = _mm512_sub_ps(t3, t4);
  v[5] = _mm512_fmadd_ps(four, d[1], _mm512_fnmadd_ps(five, d[3], d[5]));
}

// Filter: G g for a column of 3 taps (G rows [1/4 0 0], [-1/6 -1/6 -1/6], [-1/6 1/6 -1/6],
// [1/24 1/12 1/6], [1/24 -1/12 1/6], [0 0 1]).
__attribute__((target("avx512f,fma"), always_inline)) inline void filterTransform(__m512 g0, __m512 g1, __m512 g2, __m512 (&u)[kIn]) {
  const __m512 sixth = _mm512_set1_ps(-1.f / 6), twelfth = _mm512_set1_ps(1.f / 12);
  __m512 outer = _mm512_add_ps(g0, g2);
  u[0] = _mm512_mul_ps(_mm512_set1_ps(0.25f), g0);
  u[1] = _mm512_mul_ps(sixth, _mm512_add_ps(outer, g1));
  u[2] = _mm512_mul_ps(sixth, _mm512_sub_ps(outer, g1));
  __m512 q = _mm512_fmadd_ps(_mm512_set1_ps(1.f / 24), g0, _mm512_mul_ps(_mm512_set1_ps(1.f / 6), g2));
  u[3] = _mm512_fmadd_ps(twelfth, g1, q);
  u[4] = _mm512_fnmadd_ps(twelfth, g1, q);
  u[5] = g2;
}

// Output: A^T m for a column of 6 products (A^T rows [1 1 1 1 1 0], [0 1 -1 2 -2 0], [0 1 1 4 4 0],
// [0 1 -1 8 -8 1]).
__attribute__((target("avx512f,fma"), always_inline)) inline void outputTransform(const __m512 (&m)[kIn], __m512 (&y)[kOut]) {
  __m512 s12 = _mm512_add_ps(m[1], m[2]), d12 = _mm512_sub_ps(m[1], m[2]);
  __m512 s34 = _mm512_add_ps(m[3], m[4]), d34 = _mm512_sub_ps(m[3], m[4]);
  y[0] = _mm512_add_ps(_mm512_add_ps(m[0], s12), s34);
  y[1] = _mm512_fmadd_ps(_mm512_set1_ps(2.f), d34, d12);
  y[2] = _mm512_fmadd_ps(_mm512_set1_ps(4.f), s34, s12);
  y[3] = _mm512_add_ps(_mm512_fmadd_ps(_mm512_set1_ps(8.f), d34, d12), m[5]);
}


// The 64-bit pairs of a and b interleaved (low or high pair of each 128-bit lane).
__attribute__((target("avx512f"), always_inline)) inline __m512 lo(__m512 a, __m512 b) {
  return _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)));
}
__attribute__((target("avx512f"), always_inline)) inline __m512 hi(__m512 a, __m512 b) {
  return _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)));
}

// 16 vectors as the rows of a 16 x 16 matrix, transposed in place.
__attribute__((target("avx512f"), always_inline)) inline void transpose16(__m512 (&r)[16]) {
  __m512 t[16], u[16];
  for (int i = 0; i < 8; ++i) t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]), t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  for (int i = 0; i < 4; ++i) {
    u[4 * i] = lo(t[4 * i], t[4 * i + 2]), u[4 * i + 1] = hi(t[4 * i], t[4 * i + 2]);
    u[4 * i + 2] = lo(t[4 * i + 1], t[4 * i + 3]), u[4 * i + 3] = hi(t[4 * i + 1], t[4 * i + 3]);
  }
  // u[4i + q]'s 128-bit lane L holds column 4L + q of rows 4i .. 4i + 3.
  for (int q = 0; q < 4; ++q) {
    __m512 even0 = _mm512_shuffle_f32x4(u[q], u[4 + q], 0x88), odd0 = _mm512_shuffle_f32x4(u[q], u[4 + q], 0xdd);
    __m512 even1 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], 0x88), odd1 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], 0xdd);
    r[q] = _mm512_shuffle_f32x4(even0, even1, 0x88);
    r[8 + q] = _mm512_shuffle_f32x4(even0, even1, 0xdd);
    r[4 + q] = _mm512_shuffle_f32x4(odd0, odd1, 0x88);
    r[12 + q] = _mm512_shuffle_f32x4(odd0, odd1, 0xdd);
  }
}

// --- Filters: U[p][c][k] = (G g G^T)[p] for each output channel k and input channel c ------------

// One input channel's 3x3 taps of 16 output channels (tap(wy, wx) a vector, one channel per lane)
// through G g G^T, into dst[(p * C) * ldk] for the 36 points p.
template <class Tap>
__attribute__((target("avx512f,fma"), always_inline)) inline void transformFilterTaps(Tap tap, float* dst, int64_t pointStride) {
  __m512 cols[kIn][3];  // G g: the window's rows transformed, per window column
  for (int64_t wx = 0; wx < 3; ++wx) {
    __m512 u[kIn];
    filterTransform(tap(0, wx), tap(1, wx), tap(2, wx), u);
    for (int i = 0; i < kIn; ++i) cols[i][wx] = u[i];
  }
  for (int i = 0; i < kIn; ++i) {
    __m512 u[kIn];
    filterTransform(cols[i][0], cols[i][1], cols[i][2], u);
    for (int j = 0; j < kIn; ++j) _mm512_store_ps(dst + (i * kIn + j) * pointStride, u[j]);
  }
}

// Each image's offset in the input and the output (cv.imageIn, cv.imageOut) from the descriptor's
// `count` image dims at `dims` (extent, input stride, output stride each; none: one image at 0).
inline void readImages(const int64_t* dims, int64_t count, Conv& cv) {
  cv.imageIn.assign(1, 0), cv.imageOut.assign(1, 0);
  for (int64_t d = 0; d < count; ++d) {
    const int64_t* dim = dims + 3 * d;
    std::vector<int64_t> in, out;
    for (size_t i = 0; i < cv.imageIn.size(); ++i)
      for (int64_t t = 0; t < dim[0]; ++t) in.push_back(cv.imageIn[i] + t * dim[1]), out.push_back(cv.imageOut[i] + t * dim[2]);
    cv.imageIn = std::move(in), cv.imageOut = std::move(out);
  }
}

// --- Channels last (winograd_channels_last.cc) ---------------------------------------------------

// Reads a channels-last (NHWC) descriptor: image, row and column dims of the output pixels (rows of
// C), output channels (one dim, or panels of them) as the columns, window-row, window-column and
// input-channel k dims, the input channels and the output channels contiguous. False otherwise.
bool parseChannelsLast(const int64_t* desc, Conv& cv);

// V[p][t][c] of the tiles of tile rows [row0, row0 + rows) of a channels-last image: tile t's
// channels at v + t * ldc (ldc a multiple of 16), point p's matrix pointStride further.
void transformInputPixels(const Conv& cv, const float* image, int64_t row0, int64_t rows, float* v, int64_t ldc, int64_t pointStride);

// The 4x4 output tiles of `tiles` tiles from tile row row0 on, output channels [kBegin, kEnd), into a
// channels-last image: tile t's products for channel k are at m[((p * ldt) + t) * ldk + k - kBegin].
void transformOutputPixels(const Conv& cv, float* image, int64_t row0, const float* m, int64_t tiles, int64_t ldt, int64_t ldk, int64_t kBegin, int64_t kEnd);

}  // namespace rlx::winograd
