// Changing the signature of module functions and every call of them at once: the shared core of
// RemoveUnusedParameters, RemoveUnusedOutputs and ExpandTupleArguments.
#pragma once
#include <functional>
#include <map>
#include <set>
#include <string>

#include "ir/diagnostic.h"
#include "ir/module.h"

namespace rlx {

// Whether the outside world can call `f` (it has a global_symbol): its signature must not change.
bool isPublicFunction(const Function& f);
// R.Callable(params, ret, purity) of a function, as its GlobalVar carries it.
StructInfo functionSInfo(const Function& f);
// `f` with new params, body and return struct info (attrs, purity, span kept; struct info rebuilt).
FunctionRef rebuildFunction(const Function& f, std::vector<VarRef> params, Expr body, StructInfo ret);

struct CalleeChange {
  FunctionRef func;  // the function with its new signature
  // The value that replaces `call` of the old function in a binding, calling `gvar` (the new
  // GlobalVar); nested calls in it are bound to fresh vars before the binding, and `bind(e)` binds
  // `e` once when the value uses it more than once (returning the var).
  using Bind = std::function<Expr(const Expr&)>;
  std::function<Expr(const Call& call, const GlobalVarRef& gvar, const Bind& bind)> rewriteCall;
};

// Replaces each named function by its change under a new GlobalVar of the same name (its struct
// info is the new signature) and rewrites every call of it in the module's Relax functions.
// `changedCallers` receives the functions whose bodies changed.
IRModuleRef applyCalleeChanges(const IRModuleRef& mod, const std::map<std::string, CalleeChange>& changes, std::set<std::string>* changedCallers = nullptr);

// The functions some other function of the module refers to (calls, passes as a value): their
// signature cannot change without their callers.
std::set<std::string> referencedByOthers(const IRModule& mod);

// `attrs` without `key` (null when nothing is left).
AttrsRef withoutDictAttr(const AttrsRef& attrs, const std::string& key);

// CanonicalizeBindings then DeadCodeElimination keeping the public functions: the clean-up TVM runs
// after a signature change, which leaves aliases and tuple accesses of known tuples behind.
Result<IRModuleRef> canonicalizeAndEliminate(const IRModuleRef& mod);

}  // namespace rlx
