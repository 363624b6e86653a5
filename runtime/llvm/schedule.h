// The CPU schedule step before codegen: marks the outermost data-parallel loop of each loop nest
// of a PrimFunc as T.parallel, so that runtime/llvm runs its iterations on the thread pool.
#pragma once
#include "ir/tir.h"

namespace rlx {

// `func` with every top-level loop nest's outer loop made parallel when that is safe: each block
// under it binds the loop variable, unchanged, to a spatial iter var only (so iterations write
// disjoint elements), and no store under it sits outside a block. Returns `func` when nothing changes.
PrimFuncRef scheduleForCpu(const PrimFuncRef& func);

}  // namespace rlx
