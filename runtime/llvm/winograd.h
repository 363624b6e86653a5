// Winograd's minimal filtering F(4x4, 3x3) for the 3x3, stride-1 convolutions rlx_sgemm is handed as
// implicit GEMMs: 36 multiplies per 4x4 output tile and channel pair instead of 144.
#pragma once
#include <cstdint>

#include "runtime/llvm/sgemm.h"

namespace rlx {

// When `desc` (rlx_sgemm's descriptor) is a convolution with a 3x3 window, stride 1 and dilation 1 in
// both spatial dims, over planes (one output-channel row dim; image, row and column dims, the column
// one contiguous in the input and the output) or channels last (image, row and column row dims; the
// output channels as one column dim or PackMatmulWeights' panels, contiguous in C; the input
// channels contiguous), with input-channel, window-row and window-column k dims, large enough for
// the transforms to pay, on a CPU with AVX-512, and RLX_WINOGRAD is not 0: computes C through the
// Winograd transforms, calls `epilogue` on finished blocks as rlx_sgemm_epilogue does, stores its
// return code in `status` and returns true. Otherwise returns false and does nothing. The sums
// are the convolution's, rounded differently than the in-order GEMM (relative error ~1e-6 of the
// largest input-times-weight magnitudes).
bool winogradConv3x3(float* c, const float* a, const float* b, const int64_t* desc, RlxGemmEpilogue epilogue, void* ctx, int32_t& status);

}  // namespace rlx
