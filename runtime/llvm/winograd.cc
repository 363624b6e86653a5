// Winograd F(4x4, 3x3) convolution (Lavin & Gray's minimal filtering): filters and 6x6 input tiles are
// transformed, multiplied as 36 GEMMs over the channels, and transformed back into 4x4 output tiles.
#include "runtime/llvm/winograd.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "runtime/llvm/gemm_offsets.h"
#include "runtime/llvm/lane_mask.h"
#include "runtime/llvm/scratch.h"
#include "runtime/llvm/thread_pool.h"
#include "runtime/llvm/unit_queues.h"
#include "runtime/llvm/winograd_parts.h"

namespace rlx {

namespace {

using namespace winograd;

// A unit of work is a band of whole tile rows of one image, at least this many tiles when the image
// has them: the filter transform is read once per unit, so narrow images take several tile rows.
constexpr int64_t kMinUnitTiles = 12;
// Tiles an image needs for the transforms to pay: over planes 4 (a 7x7 image's 2x2 tiles, 64
// outputs for 49, still a third of the direct multiplies: 512 channels at 1 thread 1.81 -> 1.49 ms,
// where the filter transform is most of the time). Channels last, the GEMM stores whole vectors of
// channels and that layer is faster without the transforms (ResNet-50's two, best of three
// alternating runs: 1 thread 4.20 -> 3.86 ms, 2 threads 3.13 -> 2.50 ms), while 3x3 tiles (12x12,
// 512 channels) still gain (2 layers, 1 thread: 9.0 -> 5.0 ms). Bands, which each read all of U,
// need 16.
constexpr int64_t kMinTiles = 4, kMinTilesChannelsLast = 9, kMinBandTiles = 16;
// The product GEMMs' register tile: up to kMaxRows tiles (broadcast) x 32 output channels (2 vectors).
constexpr int kMaxRows = 8;

bool enabled() {
  static const bool yes = [] {
    const char* v = std::getenv("RLX_WINOGRAD");
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && !(v && std::strcmp(v, "0") == 0);
  }();
  return yes;
}

// Reads the descriptor (rlx_sgemm's layout: nm, nn, nk, nb, then extent and strides per dim). A
// convolution's images are column dims, so batch dims (a batched matmul's) never make one.
bool parse(const int64_t* desc, Conv& cv) {
  int64_t nm = desc[0], nn = desc[1], nk = desc[2], nb = desc[3];
  if (nm != 1 || nn < 2 || nk != 3 || nb != 0 || limitsRowsOrColumns(desc)) return false;
  const int64_t* row = desc + 4;
  const int64_t* cols = row + 3;
  const int64_t* red = cols + 3 * nn;
  const int64_t* y = cols + 3 * (nn - 2);
  const int64_t* x = y + 3;
  cv.outChannels = row[0], cv.wK = row[1], cv.outK = row[2];
  cv.height = y[0], cv.inY = y[1], cv.outY = y[2];
  cv.width = x[0];
  if (x[1] != 1 || x[2] != 1 || cv.inY == 1) return false;
  // The window dims read the input at the output row's and column's strides (stride 1, dilation 1).
  int wr = -1, wc = -1, ch = -1;
  for (int d = 0; d < 3; ++d) {
    const int64_t* r = red + 3 * d;
    if (r[0] == 3 && r[2] == cv.inY && wr < 0) wr = d;
    else if (r[0] == 3 && r[2] == 1 && wc < 0) wc = d;
    else if (ch < 0) ch = d;
    else return false;
  }
  if (wr < 0 || wc < 0 || ch < 0) return false;
  cv.inChannels = red[3 * ch], cv.wC = red[3 * ch + 1], cv.inC = red[3 * ch + 2];
  cv.wY = red[3 * wr + 1], cv.wX = red[3 * wc + 1];
  // The leading column dims are images (a batch), each at its own input and output offset.
  readImages(cols, nn - 2, cv);
  return true;
}

// Whether the transforms pay for themselves: enough channels both ways (the GEMMs' depth and width)
// and tiles (each transformed filter serves them all), and gather indices that fit 32 bits.
bool worthIt(const Conv& cv) {
  int64_t tiles = ((cv.height + kOut - 1) / kOut) * ((cv.width + kOut - 1) / kOut);
  return cv.outChannels >= 16 && cv.inChannels >= 16 && tiles >= (cv.channelsLast ? kMinTilesChannelsLast : kMinTiles) && !cv.imageIn.empty() && cv.wK >= 0 && cv.wPanel >= 0 &&
         cv.filterOffset(cv.outChannels - 1) < (int64_t(1) << 31);
}

// The taps of 16 filters: transposed into 16-float rows, tap(wy, wx) at t[(wy * 3 + wx) * 16] ...
struct ContiguousTaps {
  const float* t;
  __attribute__((target("avx512f"), always_inline)) __m512 operator()(int64_t wy, int64_t wx) const { return _mm512_load_ps(t + (wy * 3 + wx) * 16); }
};
// ... or loaded from 16 filters that are adjacent (panels of a channels-last weight: one vector per
// tap) ...
struct AdjacentTaps {
  const float* base;
  __mmask16 valid;
  int64_t wY, wX;
  __attribute__((target("avx512f"), always_inline)) __m512 operator()(int64_t wy, int64_t wx) const { return _mm512_maskz_loadu_ps(valid, base + wy * wY + wx * wX); }
};
// ... or gathered across the filters (lane l's tap at base + lane[l] + wy * wY + wx * wX).
struct GatheredTaps {
  const float* base;
  __m512i lane;
  __mmask16 valid;
  int64_t wY, wX;
  __attribute__((target("avx512f"), always_inline)) __m512 operator()(int64_t wy, int64_t wx) const {
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), valid, lane, base + wy * wY + wx * wX, 4);
  }
};

// Output channels [16 * kb, 16 * kb + 16) (one per lane) of input channels [cBegin, cEnd), into
// dst[p * pointStride + (c - cBegin) * ldk + lane]: the whole U (ldk = kPadded, dst offset by
// 16 * kb) or a block of it.
__attribute__((target("avx512f,fma"))) void transformFilterGroup(const Conv& cv, int64_t kb, int64_t cBegin, int64_t cEnd, float* dst, int64_t ldk, int64_t pointStride) {
  __mmask16 valid = firstLanes(cv.outChannels - 16 * kb);
  const float* first = cv.weights + cv.filterOffset(16 * kb);
  dst -= cBegin * ldk;
  if (cv.panelWidth == 0 && cv.wC == 9 && cv.wY == 3 && cv.wX == 1) {
    // Each filter's taps are contiguous (OIHW): 16 channels' 144 taps are read as rows of 16 filters
    // and transposed in registers, instead of gathered across the filters (the gathers, 16 lines each,
    // were 40% of a 256-channel 14x14 convolution).
    for (int64_t c0 = cBegin; c0 < cEnd; c0 += 16) {
      int64_t flat = 9 * std::min<int64_t>(16, cEnd - c0);
      alignas(64) float taps[9 * 16][16];  // [(c - c0) * 9 + tap][output channel lane]
      for (int64_t f0 = 0; f0 < flat; f0 += 16) {
        __mmask16 m = firstLanes(flat - f0);
        __m512 r[16];
        for (int l = 0; l < 16; ++l) r[l] = (valid >> l) & 1 ? _mm512_maskz_loadu_ps(m, first + l * cv.wK + c0 * 9 + f0) : _mm512_setzero_ps();
        transpose16(r);
        for (int j = 0; j < 16; ++j) _mm512_store_ps(taps[f0 + j], r[j]);
      }
      for (int64_t c = c0; c < c0 + flat / 9; ++c) {
        const float* t = taps[(c - c0) * 9];
        transformFilterTaps(ContiguousTaps{t}, dst + c * ldk, pointStride);
      }
    }
    return;
  }
  alignas(64) int32_t offsets[16] = {};
  bool adjacent = true;
  for (int l = 0; l < 16; ++l)
    if ((valid >> l) & 1) offsets[l] = int32_t(cv.filterOffset(16 * kb + l) - cv.filterOffset(16 * kb)), adjacent = adjacent && offsets[l] == l;
  if (adjacent) {
    for (int64_t c = cBegin; c < cEnd; ++c) transformFilterTaps(AdjacentTaps{first + c * cv.wC, valid, cv.wY, cv.wX}, dst + c * ldk, pointStride);
    return;
  }
  const __m512i lane = _mm512_load_si512(offsets);
  for (int64_t c = cBegin; c < cEnd; ++c) {
    const float* base = first + c * cv.wC;
    transformFilterTaps(GatheredTaps{base, lane, valid, cv.wY, cv.wX}, dst + c * ldk, pointStride);
  }
}

// The whole U[p][c][k] (kPoints x C x kPadded) into u.
void transformFilters(const Conv& cv, float* u) {
  for (int64_t kb = 0; kb < cv.kPadded / 16; ++kb) transformFilterGroup(cv, kb, 0, cv.inChannels, u + 16 * kb, cv.kPadded, pointFloats(cv.inChannels, cv.kPadded));
}

// --- One unit: a band of tile rows of one image ---------------------------------------------------

// The 16 elements p[j], p[j + 4], ..., p[j + 60]: column j of 16 consecutive tiles of a transformed row.
__attribute__((target("avx512f"), always_inline)) inline __m512 everyFourth(const float* p, int j) {
  const __m512i idx = _mm512_add_epi32(_mm512_set_epi32(60, 56, 52, 48, 44, 40, 36, 32, 28, 24, 20, 16, 12, 8, 4, 0), _mm512_set1_epi32(j));
  __m512 lo = _mm512_permutex2var_ps(_mm512_loadu_ps(p), idx, _mm512_loadu_ps(p + 16));
  __m512 hi = _mm512_permutex2var_ps(_mm512_loadu_ps(p + 32), idx, _mm512_loadu_ps(p + 48));
  return _mm512_shuffle_f32x4(lo, hi, 0x44);  // lo's lanes 0-7, then hi's
}

// V[p][c][t] (t < ldt apart per channel) for the band's tiles t and every input channel: each
// channel's 6 rows per tile row go through B^T down the columns (16 columns a vector), then across
// each tile's 6 columns (16 tiles a vector).
__attribute__((target("avx512f,fma"))) void transformInput(const Conv& cv, const float* image, int64_t row0, int64_t rows, float* v, int64_t ldt, float* band) {
  const int64_t span = 4 * cv.tilesWide + 2;                      // the input columns the tiles cover
  const int64_t rowFloats = cv.rowFloats;
  const int64_t inRows = cv.height + 2, inCols = cv.width + 2;    // what the GEMM would read
  std::memset(band, 0, sizeof(float) * size_t(kIn * rowFloats));
  for (int64_t c = 0; c < cv.inChannels; ++c) {
    const float* plane = image + c * cv.inC;
    for (int64_t r = 0; r < rows; ++r) {
      int64_t y0 = (row0 + r) * kOut;
      for (int64_t x0 = 0; x0 < span; x0 += 16) {
        __mmask16 m = firstLanes(inCols - x0);
        __m512 d[kIn], t[kIn];
        for (int j = 0; j < kIn; ++j) d[j] = y0 + j < inRows ? _mm512_maskz_loadu_ps(m, plane + (y0 + j) * cv.inY + x0) : _mm512_setzero_ps();
        inputTransform(d, t);
        for (int i = 0; i < kIn; ++i) _mm512_store_ps(band + i * rowFloats + x0, t[i]);
      }
      for (int64_t tx = 0; tx < cv.tilesWide; tx += 16) {
        __mmask16 m = firstLanes(cv.tilesWide - tx);
        for (int i = 0; i < kIn; ++i) {
          const float* p = band + i * rowFloats + 4 * tx;
          __m512 d[kIn] = {everyFourth(p, 0), everyFourth(p, 1), everyFourth(p, 2), everyFourth(p, 3), everyFourth(p + 4, 0), everyFourth(p + 4, 1)};
          __m512 t[kIn];
          inputTransform(d, t);
          for (int j = 0; j < kIn; ++j) _mm512_mask_storeu_ps(v + (i * kIn + j) * pointFloats(cv.inChannels, ldt) + c * ldt + r * cv.tilesWide + tx, m, t[j]);
        }
      }
    }
  }
}

// M[t0 + r][k0 ..] (+)= sum over c of V[c][t0 + r] * U[c][k0 ..] for R tiles and 16 * NV output
// channels (adding to M when `accumulate`); V's channels are ldv apart, its tiles `tileStride`.
template <int R, int NV>
__attribute__((target("avx512f,fma"))) void productTile(const float* v, int64_t ldv, int64_t tileStride, const float* u, int64_t ldu, int64_t depth, float* m, int64_t ldm,
                                                       bool accumulate) {
  __m512 acc[R][NV];
  for (int r = 0; r < R; ++r)
    for (int q = 0; q < NV; ++q) acc[r][q] = accumulate ? _mm512_load_ps(m + r * ldm + 16 * q) : _mm512_setzero_ps();
  for (int64_t c = 0; c < depth; ++c, v += ldv, u += ldu) {
    __m512 w[NV];
    for (int q = 0; q < NV; ++q) w[q] = _mm512_load_ps(u + 16 * q);
    for (int r = 0; r < R; ++r) {
      __m512 x = _mm512_set1_ps(v[r * tileStride]);
      for (int q = 0; q < NV; ++q) acc[r][q] = _mm512_fmadd_ps(x, w[q], acc[r][q]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int q = 0; q < NV; ++q) _mm512_store_ps(m + r * ldm + 16 * q, acc[r][q]);
}

using ProductTile = void (*)(const float*, int64_t, int64_t, const float*, int64_t, int64_t, float*, int64_t, bool);

template <int NV, int... R>
constexpr std::array<ProductTile, sizeof...(R)> productTiles(std::integer_sequence<int, R...>) {
  return {productTile<R + 1, NV>...};
}

// Where a V matrix's elements are: V[c][t] at c * channel + t * tile.
struct VLayout {
  int64_t channel, tile;
};

// M[p] (+)= V[p]^T U[p] for each of the 36 points: tiles x depth times depth x width (a multiple of 16)
// output channels. Point p's V starts at v + p * vPoint (laid out as `lv` says), its U at
// u + p * uPoint and its M at m + p * mPoint (rows of ldk floats); `accumulate` adds to M.
void multiply(const float* v, int64_t vPoint, VLayout lv, int64_t tiles, const float* u, int64_t uPoint, int64_t depth, float* m, int64_t mPoint, int64_t width,
              int64_t ldk, bool accumulate) {
  static constexpr auto one = productTiles<1>(std::make_integer_sequence<int, kMaxRows>());
  static constexpr auto two = productTiles<2>(std::make_integer_sequence<int, kMaxRows>());
  int64_t groups = (tiles + kMaxRows - 1) / kMaxRows;  // tile groups of near-equal size
  for (int64_t p = 0; p < kPoints; ++p) {
    const float* vp = v + p * vPoint;
    const float* up = u + p * uPoint;
    float* mp = m + p * mPoint;
    for (int64_t k0 = 0; k0 < width; k0 += 32) {
      const auto& kernels = width - k0 >= 32 ? two : one;
      for (int64_t g = 0, t0 = 0; g < groups; ++g) {
        int64_t rows = tiles / groups + (g < tiles % groups ? 1 : 0);
        kernels[size_t(rows - 1)](vp + t0 * lv.tile, lv.channel, lv.tile, up + k0, ldk, depth, mp + t0 * ldk + k0, ldk, accumulate);
        t0 += rows;
      }
    }
  }
}

// The band's 4x4 output tiles for output channels [k0, k1): A^T M A per tile, 16 output channels a
// vector, transposed so that each channel's tile is one vector whose four rows are stored (clipped at
// the image's edges). Tile t's products for channel k are at m[((p * ldt) + t) * ldk + k - k0].
__attribute__((target("avx512f,avx512vl,fma"))) void transformOutput(const Conv& cv, float* image, int64_t row0, const float* m, int64_t tiles, int64_t ldt, int64_t ldk,
                                                                     int64_t kBegin, int64_t kEnd) {
  for (int64_t t = 0; t < tiles; ++t) {
    int64_t y0 = (row0 + t / cv.tilesWide) * kOut, x0 = t % cv.tilesWide * kOut;
    int64_t rows = std::min(kOut, cv.height - y0);
    __mmask16 cols = firstLanes(std::min(kOut, cv.width - x0));
    for (int64_t k0 = kBegin; k0 < kEnd; k0 += 16) {
      __m512 across[kIn][kOut];  // A^T M down each column of the 6 x 6 products
      for (int j = 0; j < kIn; ++j) {
        __m512 col[kIn];
        for (int i = 0; i < kIn; ++i) col[i] = _mm512_load_ps(m + (i * kIn + j) * pointFloats(ldt, ldk) + t * ldk + k0 - kBegin);
        __m512 y[kOut];
        outputTransform(col, y);
        for (int a = 0; a < kOut; ++a) across[j][a] = y[a];
      }
      __m512 pixels[16];
      for (int a = 0; a < kOut; ++a) {
        __m512 row[kIn] = {across[0][a], across[1][a], across[2][a], across[3][a], across[4][a], across[5][a]};
        __m512 y[kOut];
        outputTransform(row, y);
        for (int b = 0; b < kOut; ++b) pixels[a * kOut + b] = y[b];
      }
      transpose16(pixels);  // pixels[kk]: channel k0 + kk's tile, row-major
      int64_t count = std::min<int64_t>(16, kEnd - k0);
      for (int64_t kk = 0; kk < count; ++kk) {
        float* dst = image + (k0 + kk) * cv.outK + y0 * cv.outY + x0;
        __m512 p = pixels[kk];
        _mm_mask_storeu_ps(dst, cols, _mm512_extractf32x4_ps(p, 0));
        if (rows > 1) _mm_mask_storeu_ps(dst + cv.outY, cols, _mm512_extractf32x4_ps(p, 1));
        if (rows > 2) _mm_mask_storeu_ps(dst + 2 * cv.outY, cols, _mm512_extractf32x4_ps(p, 2));
        if (rows > 3) _mm_mask_storeu_ps(dst + 3 * cv.outY, cols, _mm512_extractf32x4_ps(p, 3));
      }
    }
  }
}

// The channel stride of a channels-major V (V[p][t][c]: the few-tiles schedule's, and every
// channels-last one's), whole vectors.
int64_t channelStride(const Conv& cv) { return (cv.inChannels + 15) / 16 * 16; }

// Output pixels [first, last) of output channels [k0, k1) are final: through the epilogue (in C's
// coordinates: rows are pixels channels last, channels otherwise). Returns its code, also kept in
// cv.status.
int32_t finishPixels(Conv& cv, int64_t first, int64_t last, int64_t k0, int64_t k1) {
  if (!cv.epilogue) return 0;
  int32_t code = cv.channelsLast ? cv.epilogue(cv.ctx, first, last, k0, k1) : cv.epilogue(cv.ctx, k0, k1, first, last);
  int32_t none = 0;
  if (code != 0) cv.status.compare_exchange_strong(none, code);
  return code;
}

// A thread's share: bands taken until none is left, its own range of rows first (the rows it
// computed in the previous layer of this size, whose input rows it wrote, stay in its core's
// cache); each band's outputs go through the epilogue while they are in cache. Each thread
// transforms all of U into its own scratch before its first band: shared, U's lines went from core
// to core twice a call (written in halves, read whole). Lines crossing between cores cost more than
// the transform when the host places the two cores apart (64 channels at 56x56, 2 threads: 0.45 ms
// at a 60 ns core-to-core round trip, 0.87 at 330 ns before these two changes). The price is a U per
// thread in its scratch: 36 / 9 of the weights each (0.6 MB at 64 channels, 38 MB at 512).
int32_t runBands(void* ctx, int64_t, int64_t) {
  Conv& cv = *static_cast<Conv*>(ctx);
  int64_t maxTiles = cv.bandRows * cv.tilesWide;
  float* filters = threadScratch(ScratchSlot::WinogradFilter, size_t(kPoints * pointFloats(cv.inChannels, cv.kPadded)));
  // V of the band: [p][c][t] over planes, [p][t][c] channels last (channels rounded to vectors).
  float* v = threadScratch(ScratchSlot::WinogradInput, size_t(kPoints * pointFloats(channelStride(cv), maxTiles) + 16));
  float* m = threadScratch(ScratchSlot::WinogradProduct, size_t(kPoints * pointFloats(maxTiles, cv.kPadded)));
  float* band = threadScratch(ScratchSlot::WinogradRows, size_t(kIn * cv.rowFloats));
  if (!filters || !v || !m || !band) return 0;  // out of memory: this thread takes no band (see `done`)
  bool transformed = false;
  int64_t slot = parallelSlot();
  for (int64_t u = cv.bands.take(slot); u >= 0; u = cv.bands.take(slot)) {
    if (!transformed) transformFilters(cv, filters), transformed = true;
    int64_t image = u / cv.bandsPerImage, row0 = u % cv.bandsPerImage * cv.bandRows;
    int64_t rows = std::min(cv.bandRows, cv.tilesHigh - row0), tiles = rows * cv.tilesWide;
    const float* in = cv.in + cv.imageIn[size_t(image)];
    float* out = cv.out + cv.imageOut[size_t(image)];
    const int64_t uPoint = pointFloats(cv.inChannels, cv.kPadded), mPoint = pointFloats(tiles, cv.kPadded);
    if (cv.channelsLast) {
      const int64_t ldc = channelStride(cv), vPoint = pointFloats(tiles, ldc);
      transformInputPixels(cv, in, row0, rows, v, ldc, vPoint);
      multiply(v, vPoint, VLayout{1, ldc}, tiles, filters, uPoint, cv.inChannels, m, mPoint, cv.kPadded, cv.kPadded, false);
      transformOutputPixels(cv, out, row0, m, tiles, tiles, cv.kPadded, 0, cv.outChannels);
    } else {
      transformInput(cv, in, row0, rows, v, tiles, band);
      multiply(v, pointFloats(cv.inChannels, tiles), VLayout{tiles, 1}, tiles, filters, uPoint, cv.inChannels, m, mPoint, cv.kPadded, cv.kPadded, false);
      transformOutput(cv, out, row0, m, tiles, tiles, cv.kPadded, 0, cv.outChannels);
    }
    int64_t first = image * cv.height * cv.width, y0 = row0 * kOut, y1 = std::min(cv.height, (row0 + rows) * kOut);
    if (int32_t code = finishPixels(cv, first + y0 * cv.width, first + y1 * cv.width, 0, cv.outChannels)) return code;
    cv.done.fetch_add(1);
  }
  return 0;
}

// --- Few tiles: every tile's V once per thread, then blocks of output channels --------------------
// A band reads all of U, so an image of few tiles (ResNet's 14x14 and 7x7 stages: 16 and 4) read
// 9.4 MB of transformed filters per 16 tiles at 256 channels and ran slower than the plain GEMM.
// When V of all tiles fits in the L2, each thread computes it once into its own scratch (a few
// percent of the products; shared, its lines crossed between cores as U's did in the band
// schedule), and each unit is a block of output channels: its filters transformed into the thread's
// scratch, multiplied with all of V, transformed back and through the epilogue; U is never whole.
constexpr int64_t kBlock = 32;
// The block's filters are transformed this many input channels at a time, each chunk multiplied
// before the next is transformed: the chunk (295 KB) stays in the L2, where a whole block of 256
// channels (1.2 MB) went to the L3 and back.
constexpr int64_t kChunk = 64;
constexpr int64_t kFewTilesBytes = int64_t(1) << 20;

// The floats from one point's matrix of the few-tiles V to the next's.
int64_t fewTilesPointFloats(const Conv& cv) { return pointFloats(cv.allTiles, channelStride(cv)); }

// Floats of the rows buffer transformInputChannels needs: kIn input rows of 16-column blocks, each
// column a vector of 16 channels.
int64_t channelRowsFloats(const Conv& cv) { return kIn * ((4 * cv.tilesWide + 2 + 15) / 16) * 256; }

// V[p][t][c] of one image's tiles (channels contiguous: tile t's at v + t * ldc, point p's matrix
// pointStride further), 16 channels a vector: each input row of 16 channels is transposed into
// columns of 16 channels, and a tile's 6 x 6 such vectors go through B^T d B. The few-tiles images
// are narrow: vectors along a row (transformInput) carried 2 tiles in 16 lanes at 7x7.
__attribute__((target("avx512f,fma"))) void transformInputChannels(const Conv& cv, const float* image, float* v, int64_t ldc, int64_t pointStride, float* rows) {
  const int64_t inRows = cv.height + 2, inCols = cv.width + 2;  // what the GEMM would read
  const int64_t blocks = (4 * cv.tilesWide + 2 + 15) / 16;      // 16-column blocks the tiles cover
  for (int64_t c0 = 0; c0 < cv.inChannels; c0 += 16) {
    const int64_t lanes = std::min<int64_t>(16, cv.inChannels - c0);
    for (int64_t ty = 0; ty < cv.tilesHigh; ++ty) {
      for (int64_t j = 0; j < kIn; ++j) {
        const int64_t y = ty * kOut + j;
        for (int64_t b = 0; b < blocks; ++b) {
          __mmask16 m = firstLanes(inCols - 16 * b);
          __m512 r[16];
          for (int l = 0; l < 16; ++l) r[l] = l < lanes && y < inRows ? _mm512_maskz_loadu_ps(m, image + (c0 + l) * cv.inC + y * cv.inY + 16 * b) : _mm512_setzero_ps();
          transpose16(r);  // r[x]: column 16 * b + x of the 16 channels
          for (int x = 0; x < 16; ++x) _mm512_store_ps(rows + ((j * blocks + b) * 16 + x) * 16, r[x]);
        }
      }
      for (int64_t tx = 0; tx < cv.tilesWide; ++tx) {
        __m512 down[kIn][kIn];  // B^T d down each of the tile's columns: down[i][x]
        for (int64_t x = 0; x < kIn; ++x) {
          __m512 d[kIn], t[kIn];
          for (int64_t j = 0; j < kIn; ++j) d[j] = _mm512_load_ps(rows + (j * blocks * 16 + 4 * tx + x) * 16);
          inputTransform(d, t);
          for (int i = 0; i < kIn; ++i) down[i][x] = t[i];
        }
        float* out = v + (ty * cv.tilesWide + tx) * ldc + c0;
        for (int i = 0; i < kIn; ++i) {
          __m512 t[kIn];
          inputTransform(down[i], t);
          for (int j = 0; j < kIn; ++j) _mm512_store_ps(out + (i * kIn + j) * pointStride, t[j]);
        }
      }
    }
  }
}

// Output-channel blocks [begin, end) of kBlock channels.
int32_t runChannelBlocks(void* ctx, int64_t begin, int64_t end) {
  Conv& cv = *static_cast<Conv*>(ctx);
  const int64_t ldc = channelStride(cv), vPoint = fewTilesPointFloats(cv);
  float* inputs = threadScratch(ScratchSlot::WinogradInput, size_t(kPoints * vPoint));
  float* rows = cv.channelsLast ? nullptr : threadScratch(ScratchSlot::WinogradRows, size_t(channelRowsFloats(cv)));
  float* u = threadScratch(ScratchSlot::WinogradFilter, size_t(kPoints * pointFloats(kChunk, kBlock)));
  float* m = threadScratch(ScratchSlot::WinogradProduct, size_t(kPoints * pointFloats(cv.allTiles, kBlock)));
  if (!inputs || (!rows && !cv.channelsLast) || !u || !m) return 0;  // out of memory: see `done`
  for (size_t image = 0; begin < end && image < cv.imageIn.size(); ++image) {
    float* v = inputs + int64_t(image) * cv.tilesPerImage * ldc;
    if (cv.channelsLast) transformInputPixels(cv, cv.in + cv.imageIn[image], 0, cv.tilesHigh, v, ldc, vPoint);
    else transformInputChannels(cv, cv.in + cv.imageIn[image], v, ldc, vPoint, rows);
  }
  for (int64_t kb = begin; kb < end; ++kb) {
    int64_t k0 = kb * kBlock, width = std::min(kBlock, cv.kPadded - k0), k1 = std::min(k0 + kBlock, cv.outChannels);
    for (int64_t c0 = 0; c0 < cv.inChannels; c0 += kChunk) {
      int64_t c1 = std::min(cv.inChannels, c0 + kChunk);
      for (int64_t g = 0; g < width / 16; ++g) transformFilterGroup(cv, k0 / 16 + g, c0, c1, u + 16 * g, kBlock, pointFloats(kChunk, kBlock));
      multiply(inputs + c0, vPoint, VLayout{1, ldc}, cv.allTiles, u, pointFloats(kChunk, kBlock), c1 - c0, m,
               pointFloats(cv.allTiles, kBlock), width, kBlock, c0 > 0);
    }
    for (size_t image = 0; image < cv.imageOut.size(); ++image) {
      const float* products = m + int64_t(image) * cv.tilesPerImage * kBlock;
      if (cv.channelsLast) transformOutputPixels(cv, cv.out + cv.imageOut[image], 0, products, cv.tilesPerImage, cv.allTiles, kBlock, k0, k1);
      else transformOutput(cv, cv.out + cv.imageOut[image], 0, products, cv.tilesPerImage, cv.allTiles, kBlock, k0, k1);
      int64_t first = int64_t(image) * cv.height * cv.width;
      if (int32_t code = finishPixels(cv, first, first + cv.height * cv.width, k0, k1)) return code;
    }
    cv.done.fetch_add(1);
  }
  return 0;
}

// The few-tiles schedule; false when some thread lacked the memory (the GEMM then computes C).
bool runFewTiles(Conv& cv, int32_t& status) {
  int64_t blocks = (cv.kPadded + kBlock - 1) / kBlock;
  status = rlx_parallel_for(runChannelBlocks, &cv, blocks, kBlock * cv.allTiles * kPoints * cv.inChannels);
  if (status == 0) status = cv.status;
  return status != 0 || cv.done == blocks;
}

}  // namespace

bool winogradConv3x3(float* c, const float* a, const float* b, const int64_t* desc, RlxGemmEpilogue epilogue, void* ctx, int32_t& status) {
  Conv cv;
  // One output-channel row dim: planes (NCHW); pixels as the rows: channels last.
  if (!enabled() || !(desc[0] == 1 ? parse(desc, cv) : parseChannelsLast(desc, cv)) || !worthIt(cv)) return false;
  // A is the weights over planes (rows: output channels), the input channels last (rows: pixels).
  cv.out = c, cv.weights = cv.channelsLast ? b : a, cv.in = cv.channelsLast ? a : b;
  cv.epilogue = epilogue, cv.ctx = ctx;
  cv.tilesWide = (cv.width + kOut - 1) / kOut, cv.tilesHigh = (cv.height + kOut - 1) / kOut;
  cv.bandRows = std::min(cv.tilesHigh, (kMinUnitTiles + cv.tilesWide - 1) / cv.tilesWide);
  cv.bandsPerImage = (cv.tilesHigh + cv.bandRows - 1) / cv.bandRows;
  cv.units = int64_t(cv.imageIn.size()) * cv.bandsPerImage;
  cv.kPadded = (cv.outChannels + 15) / 16 * 16;
  cv.rowFloats = (cv.tilesWide + 15) / 16 * 64 + 64;
  cv.tilesPerImage = cv.tilesWide * cv.tilesHigh;
  cv.allTiles = cv.tilesPerImage * int64_t(cv.imageIn.size());
  if (kPoints * fewTilesPointFloats(cv) * int64_t(sizeof(float)) <= kFewTilesBytes) return runFewTiles(cv, status);
  if (cv.tilesPerImage < kMinBandTiles) return false;
  int threads = parallelThreads();
  int64_t work = cv.bandRows * cv.tilesWide * kPoints * cv.inChannels * cv.kPadded;
  cv.bands.reset(cv.units, std::min<int64_t>(cv.units, threads));
  status = rlx_parallel_for(runBands, &cv, cv.bands.parts(), work);
  if (status == 0) status = cv.status;
  // Bands no thread had the memory for: the GEMM computes all of C again (and its epilogue blocks).
  return status != 0 || cv.done == cv.units;
}

}  // namespace rlx
