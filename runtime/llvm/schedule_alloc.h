// CPU schedule, intermediate buffers: an alloc_buffer whose first use overwrites all of it needs no
// zeroing when the kernel allocates it (codegen zeroes the others, as the TIR interpreter does).
#pragma once
#include "ir/tir.h"

namespace rlx {

// The root block annotation listing (by position in its alloc_buffers) the buffers written first.
inline constexpr const char* kWrittenFirstAnnotation = "rlx.written_first";

// `func` with its root block annotated: an alloc_buffer T is listed when the first top-level
// statement that touches T is a loop nest writing every element of T (tir_usage.h, fullWriteNest)
// with a value that does not read T, before anything else reads it. A reduction counts when its
// init is that write (a GEMM's or convolution's output). Returns `func` when no buffer qualifies.
PrimFuncRef markWrittenFirst(const PrimFuncRef& func);

}  // namespace rlx
