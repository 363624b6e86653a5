// Pre-order walk over every Relax sub-expression (binding values, nested functions, branches),
// the building block of analyses such as "which vars / functions are used".
#pragma once
#include <functional>

#include "ir/expr.h"

namespace rlx {

// Calls `visit` on `e` and on each sub-expression; binding vars are visited as expressions too
// only where they are used, not where they are defined.
void walkExpr(const Expr& e, const std::function<void(const Expr&)>& visit);

}  // namespace rlx
