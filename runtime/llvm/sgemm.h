// The float32 GEMM that kernels call for reduction nests the CPU schedule recognizes (schedule_gemm.cc):
// packed, cache-blocked, register-blocked (AVX-512 micro-kernel), parallel on the thread pool.
#pragma once
#include <cstdint>

extern "C" {
// C[i, j] = sum over k in order of A[i, k] * B[k, j], each element accumulating from 0 (as the TIR
// block with its init does; each multiply is fused with its add). i, j and k are each a row-major
// tuple of up to a few loop indices, so that batched, transposed and convolution operands (implicit
// GEMM) need no copy: `desc` holds nm, nn, nk, nb, then per i dim (outermost first) its extent and
// its strides in A and C, per j dim its extent and strides in B and C, per k dim its extent and
// strides in A and B (elements; k dims in the block's summation order), per batch dim its extent and
// its strides in A, B and C, then the number of valid rows and of valid columns (0: all the dims
// span). No dims means extent 1. Batch dims make independent GEMMs (a batched matmul, attention's
// heads) that the threads share out as one loop. A valid count below the span cuts the flat rows
// or columns short: a weight in panels of 32 padded with zeros past its last column (a 50257-wide
// LM head) spans whole panels, C only the columns that exist. Returns 0.
// A 3x3 stride-1 convolution large enough to gain is computed by Winograd's F(4x4, 3x3) instead
// (winograd.h: the same sums, rounded differently; RLX_WINOGRAD=0 keeps the in-order GEMM).
int32_t rlx_sgemm(float* c, const float* a, const float* b, const int64_t* desc);

// The same GEMM, each block of C (rows [i0, i1) x columns [j0, j1) of the flattened i and j) then
// passed to `epilogue(ctx, i0, i1, j0, j1)` by the thread that computed it, as soon as the block is
// final: an element-wise epilogue (bias, activation, residual) reads C while it is in cache, and
// needs no pass of its own. The blocks partition C. Returns the first non-zero code an epilogue
// call returned (0 when all succeeded). The blocks carry no batch index: with batch dims of more than
// one element in all, the call computes nothing and returns -1.
typedef int32_t (*RlxGemmEpilogue)(void* ctx, int64_t i0, int64_t i1, int64_t j0, int64_t j1);
// The usual width of those blocks (j1 - j0): the micro-kernel's sliver of columns.
#define RLX_SGEMM_SLIVER_COLUMNS 32
int32_t rlx_sgemm_epilogue(float* c, const float* a, const float* b, const int64_t* desc, RlxGemmEpilogue epilogue, void* ctx);
}
