// Renaming module functions (see rename_globals.h): one GlobalVar per renamed function, substituted
// for the old one wherever a Relax function refers to it (PrimFuncs never refer to GlobalVars).
#include "passes/rename_globals.h"

#include "ir/expr_mutator.h"

namespace rlx {

namespace {

class GlobalRenamer : public ExprMutator {
 public:
  explicit GlobalRenamer(const std::map<std::string, GlobalVarRef>& renamed) : renamed_(renamed) {}

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

IRModuleRef renameGlobals(const IRModuleRef& mod, const std::map<std::string, std::string>& newNames) {
  std::map<std::string, GlobalVarRef> renamed;
  for (auto& e : mod->functions) {
    auto it = newNames.find(e.gvar->name);
    if (it == newNames.end() || it->second == e.gvar->name) continue;
    auto gv = make<GlobalVar>(it->second);
    gv->sinfo = e.gvar->sinfo;
    renamed[e.gvar->name] = gv;
  }
  if (renamed.empty()) return mod;
  auto out = make<IRModule>();
  out->attrs = mod->attrs;
  out->globalInfos = mod->globalInfos;
  GlobalRenamer renamer(renamed);
  for (auto& e : mod->functions) {
    auto it = renamed.find(e.gvar->name);
    GlobalVarRef gv = it != renamed.end() ? it->second : e.gvar;
    Expr func = e.func->kind() == NodeKind::Function ? renamer.mutate(e.func) : e.func;
    out->functions.push_back({gv, func});
  }
  return IRModuleRef(out);
}

}  // namespace rlx
