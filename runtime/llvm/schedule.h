// The CPU schedule step before codegen: moves a nest's innermost reduction loop outside its
// innermost spatial loop (so that the inner loop vectorizes) and marks the outermost data-parallel
// loop of each nest as T.parallel, so that runtime/llvm runs its iterations on the thread pool.
#pragma once
#include "ir/tir.h"

namespace rlx {

// `func` with reductions moved outward (see schedule.cc) and every top-level loop nest's outer
// loop made parallel when that is safe: each block
// under it binds the loop variable, unchanged, to a spatial iter var only (so iterations write
// disjoint elements), and no store under it sits outside a block. Returns `func` when nothing changes.
PrimFuncRef scheduleForCpu(const PrimFuncRef& func);

}  // namespace rlx
