// DeadCodeElimination: removes bindings whose value is unused and free of side effects, then the
// functions unreachable from entry_functions (default ["main"]) and public functions.
// Before: `a = R.add(x, x); b = R.exp(x); return a`   After: `a = R.add(x, x); return a`.
// Impure calls (R.print, call_packed, ...) always stay; match_cast stays outside dataflow blocks
// because there it is a runtime check.
#include "passes/call_graph.h"
#include "passes/registry.h"
#include "passes/remove_all_unused.h"

namespace rlx {

Result<Pass> createDeadCodeEliminationPass(PassOptions& options) {
  std::vector<std::string> entries = options.strings("entry_functions").value_or(std::vector<std::string>{"main"});
  return Pass({"DeadCodeElimination", 1, {}}, [entries](const IRModuleRef& mod, const PassContext&) -> Result<IRModuleRef> { return eliminateDeadCode(mod, entries); });
}

IRModuleRef eliminateDeadCode(const IRModuleRef& mod, const std::vector<std::string>& entries) {
  IRModuleRef out = keepFunctions(mod, reachableFunctions(mod, entries));
  const IRModuleRef kept = out;  // iterated while `out` is replaced (which may free the old module)
  for (auto& e : kept->functions) {
    if (e.func->kind() != NodeKind::Function) continue;
    Expr f = removeAllUnused(e.func);
    if (!f.same(e.func)) out = withFunction(out, e.gvar, f);
  }
  return out;
}

}  // namespace rlx
