// Depthwise (per-channel window) convolutions, which rlx_sgemm is handed as GEMMs of one row: each
// channel's output row vectors accumulate its window's taps directly, with no packing.
#pragma once
#include <cstdint>

namespace rlx {

// When `desc` (rlx_sgemm's descriptor) has no row dims of extent above 1, two or more reduction dims of
// which at most two have an extent above 1 (the window, at most 64 taps) and at least one column
// dim: computes C as, per
// batch element (a channel) and outer column index (an image), the 2-D window sum
// C[y, x] = sum over (ry, rx) in order of A[ry, rx] * B[y, x, ry, rx] (each product fused with its
// add, as the GEMM's), vectorized along the innermost column dim. Stores 0 in `status` and returns
// true; otherwise returns false and does nothing.
bool windowConv(float* c, const float* a, const float* b, const int64_t* desc, int32_t& status);

}  // namespace rlx
