// RemoveUnusedFunctions: drops functions that no entry function (default "main") or public
// function reaches. Before: main calls f; g is private and unused.  After: g is gone.
#include "passes/call_graph.h"
#include "passes/registry.h"

namespace rlx {

Result<Pass> createRemoveUnusedFunctionsPass(PassOptions& options) {
  std::vector<std::string> entries = options.strings("entry_functions").value_or(std::vector<std::string>{"main"});
  return Pass({"RemoveUnusedFunctions", 0, {}}, [entries](const IRModuleRef& mod, const PassContext&) -> Result<IRModuleRef> {
    return keepFunctions(mod, reachableFunctions(mod, entries));
  });
}

}  // namespace rlx
