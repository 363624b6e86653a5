// PrintIR: prints the module to standard output with a header comment and changes nothing — the
// pass form of "show me the IR here" inside a pipeline, as in TVM.
// Example: `-p 'LegalizeOps,PrintIR(header="after legalize"),FuseOps'`.
#include <cstdio>

#include "passes/registry.h"
#include "printer/printer.h"

namespace rlx {

Result<Pass> createPrintIRPass(PassOptions& options) {
  std::string header = options.string("header").value_or("");
  return Pass({"PrintIR", 0, {}}, [header](const IRModuleRef& mod, const PassContext&) -> Result<IRModuleRef> {
    std::printf("# PrintIR%s%s\n%s", header.empty() ? "" : ": ", header.c_str(), printModule(mod).c_str());
    return mod;
  });
}

}  // namespace rlx
