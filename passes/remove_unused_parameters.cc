// RemoveUnusedParameters: drops the parameters a private function never uses, at the function and
// at every call of it (TVM's pass). Why: callers stop computing values nobody reads, and later
// passes (DCE, lifting, fusion) see smaller interfaces.
// A dropped parameter may have been where a symbolic var got its value (`A: R.Tensor([m, n])`
// with only m, n used). Each such var the kept parameters cannot define becomes a new trailing
// parameter `param_<var>: R.Prim(value=<var>)`, and call sites pass the value the old arguments
// gave it. Callers that changed lose the bindings that only fed dropped arguments.
// Public functions (with a global_symbol) keep their signature.
// Before: `def f(a, b): return a` (private) and `y = f(x, z)`   After: `def f(a): return a`, `y = f(x)`.
#include <algorithm>

#include "ir/expr_walk.h"
#include "ir/struct_info.h"
#include "passes/registry.h"
#include "passes/remove_all_unused.h"
#include "passes/signature_change.h"
#include "passes/symbolic_vars.h"

namespace rlx {

namespace {

bool contains(const std::vector<Ref<PrimVar>>& vars, const PrimVar* v) {
  return std::any_of(vars.begin(), vars.end(), [&](auto& x) { return x.get() == v; });
}

// The change for one private function, or nothing when it uses every parameter.
std::optional<CalleeChange> analyze(const FunctionRef& f) {
  std::vector<VarRef> free = freeVars(f->body);
  std::vector<bool> keep;
  std::vector<VarRef> params;
  for (auto& p : f->params) {
    bool used = std::any_of(free.begin(), free.end(), [&](auto& v) { return v.get() == p.get(); });
    keep.push_back(used);
    if (used) params.push_back(p);
  }
  if (params.size() == f->params.size()) return std::nullopt;
  std::vector<Ref<PrimVar>> defined;
  for (auto& p : params)
    for (auto& v : definableSymbols(sinfoOf(p))) defined.push_back(v);
  std::vector<Ref<PrimVar>> extra;
  for (auto& v : freeSymbols(f->body))
    if (!contains(defined, v.get())) extra.push_back(v);
  // TVM collects these in a hash set whose iteration order, for the few vars of a signature, is the
  // reverse of first use; following it keeps the signatures the same as TVM's.
  std::reverse(extra.begin(), extra.end());
  for (auto& v : extra) params.push_back(make<Var>("param_" + v->name, make<PrimSInfo>(v->dtype, v)));
  CalleeChange change;
  change.func = rebuildFunction(*f, std::move(params), f->body, f->retSInfo);
  change.rewriteCall = [keep, extra, old = f](const Call& call, const GlobalVarRef& gvar, const CalleeChange::Bind&) -> Expr {
    std::vector<Expr> args;
    for (size_t i = 0; i < call.args.size() && i < keep.size(); ++i)
      if (keep[i]) args.push_back(call.args[i]);
    if (!extra.empty()) {
      PrimVarMap values;
      for (size_t i = 0; i < call.args.size() && i < old->params.size(); ++i) sinfoMatch(sinfoOf(old->params[i]), sinfoOf(call.args[i]), values);
      for (auto& v : extra) {
        auto it = values.find(v.get());
        args.push_back(make<PrimValue>(it != values.end() ? it->second : PrimExpr(v)));
      }
    }
    return make<Call>(gvar, std::move(args), call.attrs, call.sinfoArgs);
  };
  return change;
}

}  // namespace

Result<Pass> createRemoveUnusedParametersPass(PassOptions&) {
  return Pass({"RemoveUnusedParameters", 0, {}}, [](const IRModuleRef& mod, const PassContext&) -> Result<IRModuleRef> {
    std::map<std::string, CalleeChange> changes;
    for (auto& e : mod->functions) {
      auto f = e.func.as<Function>();
      if (!f || isPublicFunction(*f)) continue;
      if (auto change = analyze(f)) changes[e.gvar->name] = std::move(*change);
    }
    if (changes.empty()) return mod;
    std::set<std::string> callers;
    IRModuleRef out = applyCalleeChanges(mod, changes, &callers);
    // Callers now pass fewer arguments: the bindings that computed the dropped ones may be dead.
    for (auto& name : callers) {
      auto* entry = out->find(name);
      Expr f = removeAllUnused(entry->func);
      if (!f.same(entry->func)) out = withFunction(out, entry->gvar, f);
    }
    return out;
  });
}

}  // namespace rlx
