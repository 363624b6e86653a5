// Symbolic (TIR) vars of Relax expressions: which ones a struct info can define, which ones an
// expression uses without defining. Shared by the passes that move code between functions.
#pragma once
#include <vector>

#include "ir/struct_info.h"

namespace rlx {

// The vars a value of struct info `s` defines when bound to it (a parameter, a match_cast): those
// standing alone as a dim, a shape value or a prim value; `n` in (n, n * 2), not `m` in (m + 1).
// First-occurrence order, no duplicates.
std::vector<Ref<PrimVar>> definableSymbols(const StructInfo& s);
// The vars `e` uses (in struct info, shapes, prim values, sinfo_args) that nothing inside `e`
// defines (function parameters, match_cast). First-occurrence order, no duplicates.
std::vector<Ref<PrimVar>> freeSymbols(const Expr& e);
// Every var `e` uses, defined inside it or not, in first-occurrence order.
std::vector<Ref<PrimVar>> usedSymbols(const Expr& e);
// The vars `e` defines: those its function parameters' and match_casts' struct info can define.
std::vector<Ref<PrimVar>> definedSymbols(const Expr& e);
// `e` with symbolic vars replaced through `map` everywhere: struct info (of vars, calls, the
// function's signature), shapes, prim values, sinfo_args; results simplified. Vars whose struct
// info changes are replaced by new vars.
Expr substituteSymbols(const Expr& e, const PrimVarMap& map);

}  // namespace rlx
