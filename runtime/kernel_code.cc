// Collects the PrimFuncs of a module and asks runtime/llvm for their optimized IR or assembly.
#include "runtime/kernel_code.h"

#include <fmt/format.h>

#include "runtime/jit.h"

namespace rlx {

Result<std::string> kernelCode(const IRModule& lowered, const std::string& kernel, bool assembly) {
  std::string out;
  std::vector<std::string> names;
  for (auto& e : lowered.functions) {
    auto pf = e.func.as<PrimFunc>();
    if (!pf) continue;
    names.push_back(e.gvar->name);
    if (!kernel.empty() && e.gvar->name != kernel) continue;
    auto text = assembly ? emitAsm(pf, e.gvar->name) : emitLLVM(pf, e.gvar->name);
    if (!text.ok()) return Error(fmt::format("kernel {}: {}", e.gvar->name, text.error().message));
    if (kernel.empty()) out += fmt::format("{} ---- kernel {}\n", assembly ? "#" : ";", e.gvar->name);
    out += *text;
    if (!out.empty() && out.back() != '\n') out += '\n';
  }
  if (!kernel.empty() && out.empty()) {
    std::string hint = closestName(kernel, names);
    return Error(fmt::format("the lowered module has no kernel named '{}'", kernel), {},
                 hint.empty() ? "kernels: " + fmt::format("{}", fmt::join(names, ", ")) : "did you mean '" + hint + "'?");
  }
  return out;
}

}  // namespace rlx
