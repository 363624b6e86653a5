// Reference evaluators of the statistical reductions, search/sort, cumulative ops.
// (Filled in family by family; every op without an evaluator is reported by name when folded.)
#include "ir/ops/eval_util.h"

namespace rlx {

void registerReduceEvals() {}

}  // namespace rlx
