// Renaming module functions: every GlobalVar reference in Relax functions follows the new names.
// Shared by the passes that rename functions (NormalizeGlobalVar, AttachGlobalSymbol's prefix).
#pragma once

#include <map>
#include <string>

#include "ir/module.h"

namespace rlx {

// A copy of mod in which each function named by a key of newNames is called by the mapped name;
// names not in the map (or mapped to themselves) stay. The caller keeps the new names unique.
IRModuleRef renameGlobals(const IRModuleRef& mod, const std::map<std::string, std::string>& newNames);

}  // namespace rlx
