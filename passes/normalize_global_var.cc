// NormalizeGlobalVar: renames module functions so that every public function is called by its
// global_symbol (TVM's pass). Why: after passes that copy or rename functions, a function named
// `f1` may carry global_symbol "f"; the VM and the printer expect the two to agree.
// Public functions (with a global_symbol) take that name (two with the same symbol are an error);
// private functions keep theirs unless a public function took it, then get the first free
// `<name>1`, `<name>2`, ...; every reference in Relax functions follows. Nothing changes when every
// global_symbol already equals its function's name.
// Before: private `f`, and `f1` with global_symbol "f" calling `f`
// After:  `f` (public, was f1) calling private `f1` (was f).
#include <map>
#include <set>

#include "ir/tir.h"
#include "passes/registry.h"
#include "passes/rename_globals.h"

namespace rlx {

namespace {

AttrsRef attrsOf(const Expr& func) {
  if (auto f = func.as<Function>()) return f->attrs;
  if (auto p = func.as<PrimFunc>()) return p->attrs;
  return nullptr;
}

}  // namespace

Result<Pass> createNormalizeGlobalVarPass(PassOptions&) {
  return Pass({"NormalizeGlobalVar", 0, {}}, [](const IRModuleRef& mod, const PassContext&) -> Result<IRModuleRef> {
    bool needed = false;
    for (auto& e : mod->functions)
      if (auto sym = attrStr(attrsOf(e.func), "global_symbol"); sym && *sym != e.gvar->name) needed = true;
    if (!needed) return mod;
    std::set<std::string> taken;
    std::map<std::string, std::string> newName;  // old name -> new name
    for (auto& e : mod->functions) {
      auto sym = attrStr(attrsOf(e.func), "global_symbol");
      if (!sym) continue;
      if (!taken.insert(*sym).second) return Error("NormalizeGlobalVar: two functions have the global_symbol \"" + *sym + "\"");
      newName[e.gvar->name] = *sym;
    }
    for (auto& e : mod->functions) {
      if (attrStr(attrsOf(e.func), "global_symbol")) continue;
      std::string name = e.gvar->name;
      for (int i = 1; taken.count(name); ++i) name = e.gvar->name + std::to_string(i);
      taken.insert(name);
      newName[e.gvar->name] = name;
    }
    return renameGlobals(mod, newName);
  });
}

}  // namespace rlx
