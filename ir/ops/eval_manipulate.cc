// Reference evaluators of the shape manipulation, indexing, gather/scatter.
// (Filled in family by family; every op without an evaluator is reported by name when folded.)
#include "ir/ops/eval_util.h"

namespace rlx {

void registerManipulateEvals() {}

}  // namespace rlx
