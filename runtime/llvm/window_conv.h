// Depthwise (per-channel window) convolutions, which rlx_sgemm is handed as GEMMs of one row: each
// channel's output row vectors accumulate its window's taps directly, with no packing.
#pragma once
#include <cstdint>

#include "runtime/llvm/sgemm.h"

namespace rlx {

// When `desc` (rlx_sgemm's descriptor) has no row dims of extent above 1, two or more reduction dims of
// which at most two have an extent above 1 (the window, at most 64 taps) and at least one column
// dim: computes C as, per
// batch element (a channel) and outer column index (an image), the 2-D window sum
// C[y, x] = sum over (ry, rx) in order of A[ry, rx] * B[y, x, ry, rx] (each product fused with its
// add, as the GEMM's), vectorized along the innermost column dim. Stores 0 in `status` and returns
// true; otherwise returns false and does nothing.
bool windowConv(float* c, const float* a, const float* b, const int64_t* desc, int32_t& status);

// Whether this CPU runs the window kernel (AVX-512 and BMI2); the schedule fuses padded windows
// only then (schedule_window.h).
bool windowKernelAvailable();

}  // namespace rlx

extern "C" {
// The same window convolution, its B a zero-padded input that is never materialized: `desc` is the
// convolution's descriptor over the padded operand (rlx_sgemm's layout), followed by the padded
// plane's rows and columns, the input plane's rows and columns and the padding before them (top,
// left); `input` holds compact planes, plane k of the padded operand being input plane k. Each
// thread pads a small plane at a time into its scratch and reads a large one in place, the border's
// zeros masked in (a padding stage wrote and read back the whole padded operand: at 96 x 112 x 112
// as much time as the convolution). Returns -1 when the descriptor is not a window convolution over
// whole padded rows or the CPU lacks AVX-512 (the schedule fuses neither).
int32_t rlx_sgemm_padded(float* c, const float* a, const float* input, const int64_t* desc);

// The same, each finished plane then passed to `epilogue(ctx, i, i + 1, j0, j1)`: i the batch element
// (channel), [j0, j1) the plane's columns of the flattened column dims (outer index x rows x cols).
// Returns the first non-zero code an epilogue call returned.
int32_t rlx_sgemm_padded_epilogue(float* c, const float* a, const float* input, const int64_t* desc, RlxGemmEpilogue epilogue, void* ctx);

// Max pooling over the same padded planes: C[y, x] = the largest of `init` and the window's inputs,
// the padding's value `fill` outside the input plane. `desc` is the window's descriptor without row or
// batch dims (its reduction dims' A strides unused), then the padding as for rlx_sgemm_padded, then
// fill's and init's float32 bits. Returns -1 when it is not such a window or the CPU lacks AVX-512.
int32_t rlx_pool_padded(float* c, const float* input, const int64_t* desc);
}
