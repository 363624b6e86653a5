// StructInfo algebra: structural equality, "is base of" (subtyping), least common ancestor (the
// struct info of an if whose branches differ), and substitution of symbolic vars.
#pragma once
#include <unordered_map>

#include "ir/expr.h"

namespace rlx {

using PrimVarMap = std::unordered_map<const PrimVar*, PrimExpr>;

// Structural equality of struct info (symbolic dims compared with proveEqual, vars by identity).
bool sinfoEqual(const StructInfo& a, const StructInfo& b);
// True when every value described by `derived` is also described by `base` (R.Object is base of all).
bool sinfoIsBaseOf(const StructInfo& base, const StructInfo& derived);
// True when no value described by `value` can be described by `base`, whatever its symbolic dims
// turn out to be: a different kind, dtype, rank or constant extent (TVM's StructInfoBaseCheck
// kFailL0, the only failure an annotation may not have). R.Object on either side never fails.
bool sinfoNeverBaseOf(const StructInfo& base, const StructInfo& value);
// The most specific struct info describing both (e.g. Tensor((2,3)) ∨ Tensor((2,4)) = Tensor(ndim=2)).
StructInfo sinfoLCA(const StructInfo& a, const StructInfo& b);
// Replaces symbolic vars by the mapped expressions (simplifying the results).
StructInfo sinfoSubstitute(const StructInfo& s, const PrimVarMap& map);
PrimExpr primSubstitute(const PrimExpr& e, const PrimVarMap& map);
// Collects symbolic vars of a struct info in first-occurrence order.
void sinfoCollectVars(const StructInfo& s, std::vector<Ref<PrimVar>>& out);
// Matches `pattern` (e.g. a callee's param sinfo with vars n, m) against `actual`, extending `map`
// with the var bindings it implies (n -> 4). Returns false when they cannot match.
bool sinfoMatch(const StructInfo& pattern, const StructInfo& actual, PrimVarMap& map);

}  // namespace rlx
