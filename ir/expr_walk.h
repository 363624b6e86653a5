// Pre-order walk over every Relax sub-expression (binding values, nested functions, branches),
// the building block of analyses such as "which vars / functions are used".
#pragma once
#include <functional>
#include <vector>

#include "ir/expr.h"

namespace rlx {

// Calls `visit` on `e` and on each sub-expression; binding vars are visited as expressions too
// only where they are used, not where they are defined.
void walkExpr(const Expr& e, const std::function<void(const Expr&)>& visit);

// The vars `e` uses without defining them (function params and bindings inside `e` are
// definitions), in first-use order: what a function literal captures, what a subtree needs.
std::vector<VarRef> freeVars(const Expr& e);

}  // namespace rlx
