// Reference evaluators of the creation ops (zeros/ones/full/arange/eye/tril/triu and their *_like forms).
// (Filled in family by family; every op without an evaluator is reported by name when folded.)
#include "ir/ops/eval_util.h"

namespace rlx {

void registerCreateEvals() {}

}  // namespace rlx
