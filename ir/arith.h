// Shape arithmetic: folding constructors and the canonicalizing simplifier for symbolic PrimExprs.
// `n * 2 + 1` prints the same however it was built; proveEqual decides `2 * n == n + n`.
#pragma once
#include <optional>

#include "ir/prim_expr.h"

namespace rlx {

// Canonical form of an integer/bool expression: sum of monomials with sorted terms, constants
// folded, floordiv/floormod by constants normalized. Float expressions are only constant-folded.
PrimExpr simplify(const PrimExpr& e);

// True when a == b holds for every value of the variables (after canonicalization).
bool proveEqual(const PrimExpr& a, const PrimExpr& b);
// True when `e` is provably >= 0 with every integer var taken as non-negative: the rule for
// symbolic shape vars, which TVM's block builder marks non-negative in struct info inference.
bool proveNonNegativeShape(const PrimExpr& e);
// `e` simplified with its if_then_else / Select conditions decided where shape vars being
// non-negative decides them (if_then_else(N < 0, a, b) is b for a shape var N).
PrimExpr simplifyWithShapeFacts(const PrimExpr& e);
// The value of e when it is a constant integer after simplification.
std::optional<int64_t> constInt(const PrimExpr& e);

// Folding constructors: fold constants and simplify (the shape-inference building blocks).
PrimExpr add(const PrimExpr& a, const PrimExpr& b);
PrimExpr sub(const PrimExpr& a, const PrimExpr& b);
PrimExpr mul(const PrimExpr& a, const PrimExpr& b);
PrimExpr floordiv(const PrimExpr& a, const PrimExpr& b);
PrimExpr floormod(const PrimExpr& a, const PrimExpr& b);
PrimExpr minExpr(const PrimExpr& a, const PrimExpr& b);
PrimExpr maxExpr(const PrimExpr& a, const PrimExpr& b);

// Folds `a op b` when both are constants (Python semantics for floordiv/floormod, dtype wrapping);
// null when it does not fold (a non-constant operand, or division by zero). No other rewriting.
PrimExpr foldConstants(NodeKind k, const PrimExpr& a, const PrimExpr& b);

// Collects the distinct PrimVars of e in first-occurrence order (depth-first, left to right).
void collectVars(const PrimExpr& e, std::vector<Ref<PrimVar>>& out);

}  // namespace rlx
