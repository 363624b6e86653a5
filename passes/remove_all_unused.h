// RemoveAllUnused: the dead-binding sweep shared by DeadCodeElimination and FoldConstant.
// Keeps impure calls, and match_cast outside dataflow blocks (a runtime check there).
#pragma once
#include "ir/expr.h"

namespace rlx {

// `e` without its unused pure bindings (same object when there are none). Handles functions,
// SeqExprs and if-branches, recursively.
Expr removeAllUnused(const Expr& e);

}  // namespace rlx
