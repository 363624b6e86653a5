// Reference evaluators of the structural ops: shape_of, tuple and shape/prim ops.
// (Filled in family by family; every op without an evaluator is reported by name when folded.)
#include "ir/ops/eval_util.h"

namespace rlx {

void registerStructuralEvals() {}

}  // namespace rlx
