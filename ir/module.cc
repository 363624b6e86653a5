// IRModule helpers: functional update of one function, keeping every other entry shared.
// Used by the parser (defining functions) and later by passes and the REPL.
#include "ir/module.h"

namespace rlx {

IRModuleRef withFunction(const IRModuleRef& mod, const GlobalVarRef& gvar, Expr func) {
  auto out = make<IRModule>();
  if (mod) {
    out->functions = mod->functions;
    out->attrs = mod->attrs;
    out->globalInfos = mod->globalInfos;
  }
  for (auto& e : out->functions)
    if (e.gvar->name == gvar->name) {
      e = {gvar, std::move(func)};
      return out;
    }
  out->functions.push_back({gvar, std::move(func)});
  return out;
}

}  // namespace rlx
