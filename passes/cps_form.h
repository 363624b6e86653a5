// The continuation-passing convention ToCPS writes and un_cps reads: what a continuation, a CPS
// function and a direct-style wrapper look like in Relax, and the struct info maps between styles.
#pragma once
#include <optional>
#include <set>
#include <string>

#include "ir/module.h"

namespace rlx {

// A continuation: R.Callable((T,), R.Object), one value in, the answer (R.Object) out. Relay's
// answer is a type variable; Relax has none, so the answer is R.Object, the base of everything.
bool isContinuationSInfo(const StructInfo& s);
StructInfo continuationSInfo(const StructInfo& valueSInfo);
// A function in CPS: at least one parameter, the last a continuation, and R.Object returned.
bool isCpsFunction(const Function& f);
// The struct info of a value once every function type in it is in CPS:
// R.Callable((A...), B) -> R.Callable((A'..., R.Callable((B',), R.Object)), R.Object), through tuples
// too. The same object comes back when nothing changes.
StructInfo cpsSInfo(const StructInfo& s);
// The inverse: a CPS function type back to R.Callable((A...), B).
StructInfo directSInfo(const StructInfo& s);
// Whether `s` contains a function type (R.Callable), in tuple fields too.
bool mentionsCallable(const StructInfo& s);
// The signature of `f` (parameters and return) mentions a function type.
bool signatureMentionsCallable(const Function& f);

// A direct-style wrapper as ToCPS writes it: binds the identity continuation, calls a CPS function
// of the module with the wrapper's parameters and it, match_casts the answer back and returns it:
//   k = fn(v: T) -> T { return v };  ans = f_cps(x..., k);  r = R.match_cast(ans, T);  return r
// Returns the name of the CPS function called, or nullopt when `f` is not such a wrapper.
std::optional<std::string> cpsWrapperTarget(const IRModule& mod, const Function& f);

// A name starting with `base` not in `taken` (base, base1, ...; x1, x1_1, ...), added to `taken`.
std::string freshName(const std::string& base, std::set<std::string>& taken);
// Every name `f` uses (symbolic vars, parameters of it and of its local functions, bound vars):
// what a fresh name must avoid (no continuation `k` shadowing a shape var k).
void collectNames(const FunctionRef& f, std::set<std::string>& names);

}  // namespace rlx
