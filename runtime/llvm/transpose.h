// The copy kernels call for a permutation of 32-bit elements whose innermost output dim is not the
// input's (a transpose; schedule_transpose.cc recognizes the nests): tiles moved through registers.
#pragma once
#include <cstdint>

extern "C" {
// dst[i] = src[i] for every index i of a tuple of dims: `desc` holds n, then per dim its extent, its
// stride in dst and its stride in src (elements of 4 bytes; any order of dims). A dim of dst stride
// 1 and one of src stride 1 (the transposed pair) are copied in 16 x 8 tiles through AVX-512
// registers, each tile read and written a cache line at a time (a pair whose dst-contiguous dim has 2
// to 4 elements, adjacent in dst, is interleaved a whole vector at a time), the other dims and the
// tiles shared out over the thread pool. Returns 0.
int32_t rlx_transpose32(void* dst, const void* src, const int64_t* desc);
}
