// Depthwise convolutions and max pooling over channels-last (NHWC) tensors: a pixel's channels are adjacent, so the
// window's taps accumulate 16 channels to a vector with no transposes (window_channels.h transposes
// NCHW planes to get there).
#pragma once
#include <cstdint>

#include "runtime/llvm/sgemm.h"

// The descriptor's entries, in order.
enum RlxChannelsLastDesc : int {
  kClImages,
  kClChannels,
  kClRows,
  kClCols,
  kClOutRows,
  kClOutCols,
  kClKernelRows,
  kClKernelCols,
  kClStrideY,
  kClStrideX,
  kClDilationY,
  kClDilationX,
  kClTop,
  kClLeft,
  kClWeightChannel,
  kClWeightRow,
  kClWeightCol,
  kClMaxPool,  // 1: max pooling (no weights), 0: the depthwise convolution
  kClFill,     // max pooling: the padding's value and the maximum's start, a float's bits
  kClDescLength
};

extern "C" {
// C[n, y, x, c] = the sum over (ky, kx), in that order, of W[c, ky, kx] * X[n, y * sy + ky * dy - top,
// x * sx + kx * dx - left, c], zero outside X (each product fused with its add). X (images x rows x
// cols x channels) and C (images x outRows x outCols x channels) are compact; W[c, ky, kx] lies at
// w + c * weightChannel + ky * weightRow + kx * weightCol. `desc` holds RlxChannelsLastDesc's
// entries. With kClMaxPool 1 it is max pooling instead: C[n, y, x, c] = the maximum, from the fill
// value on, of the window's X (the fill outside X), w unused. Returns -1 when the CPU lacks AVX-512
// or the descriptor is not such a window.
int32_t rlx_window_channels_last(float* c, const float* w, const float* x, const int64_t* desc);

// The same, each finished block then passed to `epilogue(ctx, p0, p1, c0, c1)`: [p0, p1) its pixels,
// flattened over (image, y, x) (the fused element-wise nest's rows), [c0, c1) its channels (the
// columns). Returns the first non-zero code an epilogue call returned.
int32_t rlx_window_channels_last_epilogue(float* c, const float* w, const float* x, const int64_t* desc, RlxGemmEpilogue epilogue, void* ctx);
}
