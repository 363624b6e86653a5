// The softmax attention kernel (FuseSoftmaxAttention's kernels, schedule_attention.h): out =
// softmax(q @ k, last axis) @ v, a block of query rows at a time so that its scores stay in cache.
#pragma once
#include <cstdint>

extern "C" {
// For each of `desc[0]` batch elements, with m = desc[1], n = desc[2], d = desc[3], e = desc[4] and
// compact float32 operands q [m, d], k [d, n], v [n, e], out [m, e]: out = softmax(q @ k) @ v, the
// softmax over each row of n scores. Blocks of rows are shared out over the thread pool; each
// computes its scores with rlx_sgemm (each one a sum in d's order, as the unfused matmul's), then
// per row the max, exp(x - max) (the JIT's polynomial, 0 below -87.3), their sum (in vector lanes,
// as the JIT's vectorized reduction) and the product with the sum's reciprocal (within an ulp of the
// quotient), and multiplies the block by v with rlx_sgemm. A NaN score makes its row's outputs NaN,
// as in the stage-by-stage kernel. Returns 0, or -1 when a thread's score block cannot be allocated.
int32_t rlx_attention(float* out, const float* q, const float* k, const float* v, const int64_t* desc);
}
