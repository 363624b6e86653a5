// hasReshapePattern: whether a PrimFunc only copies its first buffer into its last one in row-major
// element order (TVM's relax.analysis.has_reshape_pattern), so a call of it is a reshape.
#pragma once
#include "ir/tir.h"

namespace rlx {

// True when the kernel is a loop nest around one data-parallel block whose body is
// `dst[...] = src[...]` (src the first buffer param, dst the last) with equal flattened indices.
bool hasReshapePattern(const PrimFunc& func);

// The buffer params among the first `count` params that the body loads or stores.
std::vector<size_t> usedBufferParams(const PrimFunc& func, size_t count);

}  // namespace rlx
