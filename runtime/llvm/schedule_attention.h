// CPU schedule, softmax attention kernels: a PrimFunc FuseSoftmaxAttention made (func attr
// "rlx.kernel": "softmax_attention") runs as one rlx.attention call (attention.h). Internal.
#pragma once
#include "ir/tir.h"

namespace rlx {

// `func` with its body replaced by the call when it is such a kernel over float32 buffers
// q [B.., m, d], k [B.., d, n], v [B.., n, e] and out [B.., m, e] of constant shapes; null otherwise
// (its TIR body, the same computation stage by stage, then compiles as any kernel does).
PrimFuncRef lowerSoftmaxAttention(const PrimFuncRef& func);

}  // namespace rlx
