// The rewriting half of the CombineParallel* passes: given which bindings of a dataflow block are
// branches to merge and the one expression that computes them all, rebuilds the block.
#pragma once
#include <functional>
#include <vector>

#include "ir/expr.h"

namespace rlx {

// One merge: `combined` (unnormalized, nested calls allowed) evaluates to a tuple whose field i is
// the value of `outputs[i]`, a var bound in the block.
struct ParallelCombination {
  std::vector<VarRef> outputs;
  Expr combined;
};

// Plans the merges of one dataflow block (its bindings as they are); empty = leave it.
using CombinationPlanner = std::function<std::vector<ParallelCombination>(const BindingBlock& block)>;

// Rewrites every dataflow block of `func` the way TVM's RewriteBindings places replacements: the
// combined expression is emitted where the first of its outputs was bound (bindings it needs that
// come later in the block are moved up before it), each output becomes `v = combined[i]` at its
// own place. Bindings left unused are then removed. Returns `func` itself when no plan applies.
Expr combineParallelBranches(const Expr& func, const CombinationPlanner& plan);

}  // namespace rlx
