// Which module functions are reachable from a set of entry points (through calls, call_tir
// callees and any other GlobalVar reference). Shared by RemoveUnusedFunctions and DCE.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "ir/module.h"

namespace rlx {

// Entries are the named functions plus every public function (one with a global_symbol attr),
// which the outside world may call.
std::set<std::string> reachableFunctions(const IRModuleRef& mod, const std::vector<std::string>& entries);
// The module without the functions outside `keep` (the same module when nothing is removed).
IRModuleRef keepFunctions(const IRModuleRef& mod, const std::set<std::string>& keep);

}  // namespace rlx
