// The float32 GEMM that kernels call for reduction nests the CPU schedule recognizes (schedule_gemm.cc):
// packed, cache-blocked, register-blocked (AVX-512 micro-kernel), parallel on the thread pool.
#pragma once
#include <cstdint>

extern "C" {
// C[i, j] = sum over k in order of A[i, k] * B[k, j], each element accumulating from 0 (as the TIR
// block with its init does; each multiply is fused with its add). i, j and k are each a row-major
// tuple of up to a few loop indices, so that batched, transposed and convolution operands (implicit
// GEMM) need no copy: `desc` holds nm, nn, nk, then per i dim (outermost first) its extent and its
// strides in A and C, per j dim its extent and strides in B and C, per k dim its extent and strides
// in A and B (elements; k dims in the block's summation order). No dims means extent 1. Returns 0.
int32_t rlx_sgemm(float* c, const float* a, const float* b, const int64_t* desc);
}
