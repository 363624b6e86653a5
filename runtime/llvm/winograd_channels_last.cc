// Winograd F(4x4, 3x3) over channels-last (NHWC) tensors: reading the descriptor, and the input and
// output transforms, which load and store whole vectors of 16 channels a pixel with no transposes.
#include <immintrin.h>

#include <algorithm>

#include "runtime/llvm/gemm_offsets.h"
#include "runtime/llvm/lane_mask.h"
#include "runtime/llvm/winograd_parts.h"

namespace rlx::winograd {

// Rows of C: the images (leading dims), the output row y and column x, each with its input (A) and
// output (C) strides. Columns of C: the output channels, contiguous in C, in one dim (B stride wK:
// OHWI weights) or two (PackMatmulWeights' panels: outer stride wPanel, the inner dim's extent the
// panel width). k: the window row and column (read at the input's row and column strides: stride
// 1, dilation 1) and the input channels (contiguous in the input).
bool parseChannelsLast(const int64_t* desc, Conv& cv) {
  const int64_t nm = desc[0], nn = desc[1], nk = desc[2], nb = desc[3];
  if (nm < 2 || nn < 1 || nn > 2 || nk != 3 || nb != 0) return false;
  const int64_t* valid = desc + descriptorLength(desc) - 2;
  const int64_t* rows = desc + 4;
  const int64_t* y = rows + 3 * (nm - 2);
  const int64_t* x = y + 3;
  const int64_t* cols = rows + 3 * nm;
  const int64_t* inner = cols + 3 * (nn - 1);
  const int64_t* red = cols + 3 * nn;
  if (valid[0] != 0 || inner[2] != 1) return false;
  int64_t channels = inner[0];
  cv.wK = inner[1], cv.panelWidth = 0, cv.wPanel = 0;
  if (nn == 2) {
    if (cols[2] != inner[0]) return false;  // the panels' channels run on in C
    cv.panelWidth = inner[0], cv.wPanel = cols[1], channels = cols[0] * inner[0];
  }
  // A valid column count short of the panels' span: the channels that exist (the last panel is
  // stored whole, zeros past them).
  cv.outChannels = valid[1] > 0 && valid[1] < channels ? valid[1] : channels;
  cv.height = y[0], cv.inY = y[1], cv.outY = y[2];
  cv.width = x[0], cv.inX = x[1], cv.outX = x[2];
  if (cv.inX == 1 || cv.inY == cv.inX) return false;
  int wr = -1, wc = -1, ch = -1;
  for (int d = 0; d < 3; ++d) {
    const int64_t* r = red + 3 * d;
    if (r[0] == 3 && r[1] == cv.inY && wr < 0) wr = d;
    else if (r[0] == 3 && r[1] == cv.inX && wc < 0) wc = d;
    else if (r[1] == 1 && ch < 0) ch = d;
    else return false;
  }
  if (wr < 0 || wc < 0 || ch < 0) return false;
  cv.inChannels = red[3 * ch], cv.wC = red[3 * ch + 2];
  cv.wY = red[3 * wr + 2], cv.wX = red[3 * wc + 2];
  cv.inC = 1, cv.outK = 1;
  readImages(rows, nm - 2, cv);  // the leading row dims are images
  cv.channelsLast = true;
  return true;
}

// Per tile and 16 channels: the 6 x 6 input pixels' vectors through B^T down each column, then
// across each row. Pixels past the padded input (the last tiles' overhang) read as zeros.
__attribute__((target("avx512f,fma"))) void transformInputPixels(const Conv& cv, const float* image, int64_t row0, int64_t rows, float* v, int64_t ldc, int64_t pointStride) {
  const int64_t inRows = cv.height + 2, inCols = cv.width + 2;  // what the GEMM would read
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t y0 = (row0 + r) * kOut;
    for (int64_t tx = 0; tx < cv.tilesWide; ++tx) {
      const int64_t x0 = tx * kOut;
      float* tile = v + (r * cv.tilesWide + tx) * ldc;
      for (int64_t c0 = 0; c0 < cv.inChannels; c0 += 16) {
        const __mmask16 lanes = firstLanes(cv.inChannels - c0);
        __m512 down[kIn][kIn];  // B^T d down each of the tile's columns: down[i][x]
        for (int64_t x = 0; x < kIn; ++x) {
          __m512 d[kIn], t[kIn];
          const float* column = image + (x0 + x) * cv.inX + c0;
          for (int64_t j = 0; j < kIn; ++j)
            d[j] = x0 + x < inCols && y0 + j < inRows ? _mm512_maskz_loadu_ps(lanes, column + (y0 + j) * cv.inY) : _mm512_setzero_ps();
          inputTransform(d, t);
          for (int i = 0; i < kIn; ++i) down[i][x] = t[i];
        }
        for (int i = 0; i < kIn; ++i) {
          __m512 t[kIn];
          inputTransform(down[i], t);
          for (int j = 0; j < kIn; ++j) _mm512_store_ps(tile + c0 + (i * kIn + j) * pointStride, t[j]);
        }
      }
    }
  }
}

// Per tile and 16 output channels: A^T M A, each of the 16 output pixels a vector of channels,
// stored whole (clipped at the image's edges and the last channels).
__attribute__((target("avx512f,fma"))) void transformOutputPixels(const Conv& cv, float* image, int64_t row0, const float* m, int64_t tiles, int64_t ldt, int64_t ldk, int64_t kBegin,
                                                                 int64_t kEnd) {
  const int64_t pointStride = pointFloats(ldt, ldk);
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t y0 = (row0 + t / cv.tilesWide) * kOut, x0 = t % cv.tilesWide * kOut;
    const int64_t rows = std::min(kOut, cv.height - y0), cols = std::min(kOut, cv.width - x0);
    for (int64_t k0 = kBegin; k0 < kEnd; k0 += 16) {
      const __mmask16 lanes = firstLanes(kEnd - k0);
      const float* products = m + t * ldk + k0 - kBegin;
      __m512 across[kIn][kOut];  // A^T M down each column of the 6 x 6 products: across[j][a]
      for (int j = 0; j < kIn; ++j) {
        __m512 col[kIn], y[kOut];
        for (int i = 0; i < kIn; ++i) col[i] = _mm512_load_ps(products + (i * kIn + j) * pointStride);
        outputTransform(col, y);
        for (int a = 0; a < kOut; ++a) across[j][a] = y[a];
      }
      for (int64_t a = 0; a < rows; ++a) {
        __m512 row[kIn] = {across[0][a], across[1][a], across[2][a], across[3][a], across[4][a], across[5][a]};
        __m512 y[kOut];
        outputTransform(row, y);
        float* pixel = image + (y0 + a) * cv.outY + x0 * cv.outX + k0;
        for (int64_t b = 0; b < cols; ++b) _mm512_mask_storeu_ps(pixel + b * cv.outX, lanes, y[b]);
      }
    }
  }
}

}  // namespace rlx::winograd
