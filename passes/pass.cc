// Pass execution: instruments around every pass, Sequential's opt-level and disable rules, and the
// function-pass adaptor that rebuilds the module only when a function changed.
#include "passes/pass.h"

#include <algorithm>

namespace rlx {

bool PassContext::isDisabled(const std::string& name) const { return std::find(disabledPass.begin(), disabledPass.end(), name) != disabledPass.end(); }
bool PassContext::inScope(const std::string& function) const { return scope.empty() || std::find(scope.begin(), scope.end(), function) != scope.end(); }

bool PassContext::isRequired(const std::string& name) const { return std::find(requiredPass.begin(), requiredPass.end(), name) != requiredPass.end(); }

Result<IRModuleRef> Pass::operator()(const IRModuleRef& mod, const PassContext& ctx) const {
  for (auto& i : ctx.instruments) i->beforePass(info_, mod);
  auto r = fn_(mod, ctx);
  if (!r.ok()) return Error("pass " + info_.name + " failed: " + r.error().message, r.error().span);
  for (auto& i : ctx.instruments) {
    auto st = i->afterPass(info_, mod, r.value());
    if (!st.ok()) return st.error();
  }
  return r;
}

Pass makeFunctionPass(PassInfo info, std::function<Result<Expr>(const Expr&, const GlobalVarRef&, const IRModuleRef&)> fn) {
  return Pass(std::move(info), [fn](const IRModuleRef& mod, const PassContext& ctx) -> Result<IRModuleRef> {
    IRModuleRef out = mod;
    for (auto& e : mod->functions) {
      if (e.func->kind() != NodeKind::Function || !ctx.inScope(e.gvar->name)) continue;
      RLX_TRY(f, fn(e.func, e.gvar, mod));
      if (!f.same(e.func)) out = withFunction(out, e.gvar, f);
    }
    return out;
  });
}

Result<IRModuleRef> runSequential(const std::vector<Pass>& passes, const IRModuleRef& mod, const PassContext& ctx) {
  IRModuleRef cur = mod;
  for (auto& p : passes) {
    const std::string& name = p.info().name;
    if (ctx.isDisabled(name)) continue;
    if (p.info().optLevel > ctx.optLevel && !ctx.isRequired(name)) continue;
    RLX_TRY(next, p(cur, ctx));
    cur = next;
  }
  return cur;
}

}  // namespace rlx
