// AttachGlobalSymbol: every function without a "global_symbol" attr gets one equal to its name,
// which makes it externally visible (the last step of TVM's build pipeline, before codegen).
// With the module attr "system_lib_prefix" (TVM's system-library builds), PrimFuncs getting a symbol
// get the prefixed one and are renamed to it, so that symbol and name still agree; Relax functions
// keep their names (the VM looks them up by name, not through the system library).
// Before: `@R.function(private=True) def f(...)`   After: `@R.function def f(...)`.
#include "passes/registry.h"
#include "passes/rename_globals.h"

namespace rlx {

namespace {

Expr attach(const Expr& func, const std::string& name) {
  if (auto f = func.as<Function>()) {
    if (f->attrs && f->attrs->find("global_symbol")) return func;
    auto nf = make<Function>(f->params, f->body, f->retSInfo, f->isPure, withDictAttr(f->attrs, "global_symbol", AttrValue::str(name)));
    nf->sinfo = f->sinfo;
    nf->span = f->span;
    return nf;
  }
  if (auto p = func.as<PrimFunc>()) {
    if (p->attrs && p->attrs->find("global_symbol")) return func;
    return withPrimFuncAttrs(*p, withDictAttr(p->attrs, "global_symbol", AttrValue::str(name)));
  }
  return func;
}

}  // namespace

Result<Pass> createAttachGlobalSymbolPass(PassOptions&) {
  return Pass({"AttachGlobalSymbol", 0, {}}, [](const IRModuleRef& mod, const PassContext&) -> Result<IRModuleRef> {
    std::string prefix = attrStr(mod->attrs, "system_lib_prefix").value_or("");
    IRModuleRef out = mod;
    std::map<std::string, std::string> prefixed;
    for (auto& e : mod->functions) {
      bool primFunc = e.func->kind() == NodeKind::PrimFunc;
      std::string symbol = primFunc ? prefix + e.gvar->name : e.gvar->name;
      Expr f = attach(e.func, symbol);
      if (f.same(e.func)) continue;
      out = withFunction(out, e.gvar, f);
      if (symbol != e.gvar->name) prefixed[e.gvar->name] = symbol;
    }
    return renameGlobals(out, prefixed);
  });
}

}  // namespace rlx
