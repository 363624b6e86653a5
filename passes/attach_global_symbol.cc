// AttachGlobalSymbol: every function without a "global_symbol" attr gets one equal to its name,
// which makes it externally visible (the last step of TVM's build pipeline, before codegen).
// Before: `@R.function(private=True) def f(...)`   After: `@R.function def f(...)`.
#include "passes/registry.h"

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
    IRModuleRef out = mod;
    for (auto& e : mod->functions) {
      Expr f = attach(e.func, e.gvar->name);
      if (!f.same(e.func)) out = withFunction(out, e.gvar, f);
    }
    return out;
  });
}

}  // namespace rlx
