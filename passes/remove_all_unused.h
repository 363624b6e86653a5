// RemoveAllUnused: the dead-binding sweep shared by DeadCodeElimination and FoldConstant.
// Keeps impure calls, and match_cast outside dataflow blocks (a runtime check there).
#pragma once
#include <string>
#include <vector>

#include "ir/expr.h"
#include "ir/module.h"

namespace rlx {

// `e` without its unused pure bindings (same object when there are none). Handles functions,
// SeqExprs and if-branches, recursively.
Expr removeAllUnused(const Expr& e);

// DeadCodeElimination's work: the functions reachable from `entries` and the public functions,
// each without its unused pure bindings.
IRModuleRef eliminateDeadCode(const IRModuleRef& mod, const std::vector<std::string>& entries);

}  // namespace rlx
