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

#include "ir/expr_mutator.h"
#include "ir/tir.h"
#include "passes/registry.h"

namespace rlx {

namespace {

AttrsRef attrsOf(const Expr& func) {
  if (auto f = func.as<Function>()) return f->attrs;
  if (auto p = func.as<PrimFunc>()) return p->attrs;
  return nullptr;
}

class Renamer : public ExprMutator {
 public:
  explicit Renamer(const std::map<std::string, GlobalVarRef>& renamed) : renamed_(renamed) {}

 protected:
  Expr visitLeaf(const Expr& e) override {
    if (auto g = e.as<GlobalVar>())
      if (auto it = renamed_.find(g->name); it != renamed_.end()) return it->second;
    return e;
  }

 private:
  const std::map<std::string, GlobalVarRef>& renamed_;
};

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
    std::map<std::string, GlobalVarRef> renamed;
    for (auto& e : mod->functions) {
      if (newName[e.gvar->name] == e.gvar->name) continue;
      auto gv = make<GlobalVar>(newName[e.gvar->name]);
      gv->sinfo = e.gvar->sinfo;
      renamed[e.gvar->name] = gv;
    }
    auto out = make<IRModule>();
    out->attrs = mod->attrs;
    out->globalInfos = mod->globalInfos;
    Renamer renamer(renamed);
    for (auto& e : mod->functions) {
      GlobalVarRef gv = renamed.count(e.gvar->name) ? renamed[e.gvar->name] : e.gvar;
      Expr func = e.func->kind() == NodeKind::Function ? renamer.mutate(e.func) : e.func;
      out->functions.push_back({gv, func});
    }
    return IRModuleRef(out);
  });
}

}  // namespace rlx
