// IRModule: named functions (Relax functions, PrimFuncs, ExternFuncs) plus module attrs and global infos.
// Functions keep insertion order; the printer sorts them the way TVM does.
#pragma once
#include <string>
#include <vector>

#include "ir/tir.h"

namespace rlx {

class IRModule final : public Object {
 public:
  IRModule() : Object(NodeKind::IRModule) {}
  static bool classOf(NodeKind k) { return k == NodeKind::IRModule; }

  struct Entry {
    GlobalVarRef gvar;
    Expr func;  // Function, PrimFunc or ExternFunc
  };
  std::vector<Entry> functions;
  AttrsRef attrs;        // module attrs (dict), may be null
  AttrsRef globalInfos;  // I.module_global_infos, may be null

  const Entry* find(std::string_view name) const {
    for (auto& e : functions)
      if (e.gvar->name == name) return &e;
    return nullptr;
  }
  Expr lookup(std::string_view name) const {
    auto* e = find(name);
    return e ? e->func : Expr();
  }
};
using IRModuleRef = Ref<IRModule>;

// A copy of the module with `name` bound to `func` (replaced in place, or appended).
IRModuleRef withFunction(const IRModuleRef& mod, const GlobalVarRef& gvar, Expr func);

}  // namespace rlx
