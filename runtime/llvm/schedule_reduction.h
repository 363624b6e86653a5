// CPU schedule for reduction nests that are not GEMMs: the loop order and form that let LLVM's loop
// vectorizer use whole vectors, chosen by which axis the block reads contiguously.
#pragma once
#include "ir/tir.h"

namespace rlx {

// The For annotation that tells code generation the loop is a reduction whose combiner (the outer
// add, multiply, min or max of its accumulator update) may be reassociated, so that it vectorizes.
inline constexpr const char* kReassociateAnnotation = "rlx.reassociate";

// A perfect nest `for ...: for j: for k: block` whose innermost loop k is a reduction right inside a
// spatial loop j, scheduled for vectors:
// - when every load that varies with j reads along its last (contiguous) axis (a matmul's output
//   row, a column sum) and j runs more than once, k moves outside j: each output still accumulates in k's order, and the
//   inner loop runs along contiguous memory;
// - else, when a load reads along k contiguously (softmax's row max and sum, a layer norm's mean),
//   the init moves out of k's loop into a block of its own before it (TVM's decompose_reduction)
//   and k's loop carries kReassociateAnnotation: the row's partial sums then run in vector lanes,
//   which changes float rounding as any vectorized library's row reduction does;
// - else the nest is returned unchanged.
Stmt scheduleReductionNest(const Stmt& nest);

// The rest of a row-fused nest (schedule_rows.h), `for k1..kn: block` of reduction loops only: the
// init before the loops and the innermost loop reassociating, when the block reads along it
// contiguously and its update may be reassociated (as above); else the nest unchanged.
Stmt scheduleRowReduction(const Stmt& nest);

}  // namespace rlx
