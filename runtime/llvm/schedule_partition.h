// CPU schedule, loop partitioning at bound checks: a padding stage stores
// `T.if_then_else(1 <= y and y < 15 and 1 <= x and x < 15, in[y - 1, x - 1], 0)`; split at 1 and 15,
// each part of its loops knows the condition, so the middle copies plainly (vectorized) and the edges
// store the pad value, instead of a branch around every element's load.
#pragma once
#include "ir/tir.h"

namespace rlx {

// `s` (a perfect nest of serial loops from 0 with constant extents over one non-reduction block
// storing one value) with each loop whose iter var the value's conditions (T.if_then_else and Select
// conditions: conjunctions, disjunctions and negations of `v + c` compared with a constant) bound
// split at those bounds, and the conditions each part decides replaced by their truth; null when no
// loop splits (or the parts would exceed a small number).
Stmt partitionBoundChecks(const Stmt& s);

}  // namespace rlx
