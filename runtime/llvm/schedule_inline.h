// CPU schedule, compute inlining: an element-wise stage that fills an intermediate buffer is folded
// into the stages that read it, so a fused kernel's chain of element-wise ops becomes one loop nest.
#pragma once
#include "ir/tir.h"

namespace rlx {

// `func` with its inlinable stages folded into their readers and their buffers dropped (TVM's
// compute_inline). A stage is a top-level loop nest of the root block over one block that stores
// `T[v0, .., vn] = f(v, loads)` for every element of T, an alloc_buffer of the root block, with
// no init; it is inlined when T is written nowhere else and used only by BufferLoads after it, the
// buffers f reads are not written after it, and f is cheap (arithmetic, casts, selects, loads) or
// read at one place outside a reduction (a transcendental call is then still computed once per
// element). Returns `func` itself when nothing is inlined.
PrimFuncRef inlineElementwiseStages(const PrimFuncRef& func);

}  // namespace rlx
