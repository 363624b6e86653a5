// Fresh copies of Relax code: every var it binds replaced by a new Var of the same name and struct
// info, so the same code can live in two functions (a Var is bound once per module, verifier V3).
#pragma once
#include "ir/expr.h"

namespace rlx {

// `e` with every var bound inside it (function params, bindings, nested functions) renamed apart;
// free vars and symbolic vars stay as they are.
Expr copyWithNewVars(const Expr& e);

}  // namespace rlx
