// CPU schedule, row fusion: consecutive loop nests over the same leading loops whose data pass from
// one to the next row by row (softmax's max, sum and normalization; a layer norm's mean and variance)
// become one nest over those loops, so each row is read from cache instead of from memory each time.
#pragma once
#include "ir/tir.h"

namespace rlx {

// `func` with each run of fusable top-level nests of its root block fused. Nests are fusable when
// they start with the same d >= 1 serial loops from 0 (equal extents), each of which their block
// binds, unchanged, to a data-parallel iter var, and every buffer one nest of the run writes and
// another accesses is accessed by all of them at the block vars of those loops, in order, as its
// leading indices (so a row only ever reads what the same row wrote: the order of rows and nests
// may interleave). GEMM and transpose nests (runtime calls) are never fused. Each fused nest is
// `for l1..ld: {rest of nest 1; rest of nest 2; ...}`; a rest made of reduction loops only takes
// the init-hoisted, reassociating form (schedule_reduction.h). Returns `func` when nothing fuses.
PrimFuncRef fuseRowNests(const PrimFuncRef& func);

}  // namespace rlx
