// RemoveAllUnused: the dead-binding sweep shared by DeadCodeElimination and FoldConstant.
// Keeps impure calls, and match_cast outside dataflow blocks (a runtime check there).
#pragma once
#include <string>
#include <unordered_set>
#include <vector>

#include "ir/expr.h"
#include "ir/module.h"

namespace rlx {

// `e` without its unused pure bindings (same object when there are none). Handles functions,
// SeqExprs and if-branches, recursively.
Expr removeAllUnused(const Expr& e);

// `f` without the bindings of those of `vars` that nothing uses any more, other dead code kept (as
// TVM's pattern fusion leaves it): the intermediates a fusing pass folded into one kernel.
Expr removeUnusedBindingsOf(const Expr& f, const std::unordered_set<const Var*>& vars);

// DeadCodeElimination's work: the functions reachable from `entries` and the public functions,
// each without its unused pure bindings.
IRModuleRef eliminateDeadCode(const IRModuleRef& mod, const std::vector<std::string>& entries);

}  // namespace rlx
