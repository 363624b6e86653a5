// Reachability over GlobalVar references, breadth-first from the entry functions.
// ExternFuncs and PrimFuncs are leaves; Relax functions are scanned with walkExpr.
#include "passes/call_graph.h"

#include "ir/expr_walk.h"

namespace rlx {

std::set<std::string> reachableFunctions(const IRModuleRef& mod, const std::vector<std::string>& entries) {
  std::set<std::string> seen;
  std::vector<std::string> work;
  auto push = [&](const std::string& n) {
    if (mod->find(n) && seen.insert(n).second) work.push_back(n);
  };
  for (auto& e : entries) push(e);
  for (auto& f : mod->functions) {
    AttrsRef attrs;
    if (auto rf = f.func.as<Function>()) attrs = rf->attrs;
    if (auto pf = f.func.as<PrimFunc>()) attrs = pf->attrs;
    if (attrs && attrs->find("global_symbol")) push(f.gvar->name);
  }
  while (!work.empty()) {
    std::string name = work.back();
    work.pop_back();
    Expr func = mod->lookup(name);
    if (!func || func->kind() != NodeKind::Function) continue;
    walkExpr(func, [&](const Expr& e) {
      if (auto g = e.as<GlobalVar>()) push(g->name);
    });
  }
  return seen;
}

IRModuleRef keepFunctions(const IRModuleRef& mod, const std::set<std::string>& keep) {
  if (keep.size() == mod->functions.size()) return mod;
  auto out = make<IRModule>();
  out->attrs = mod->attrs;
  out->globalInfos = mod->globalInfos;
  for (auto& e : mod->functions)
    if (keep.count(e.gvar->name)) out->functions.push_back(e);
  return out;
}

}  // namespace rlx
