// Which vars of a function hold values known before it runs (TVM's ComputableAtCompileTime): the
// rewrites that keep weight-only subexpressions together (so they can be lifted out) ask this.
#pragma once
#include <unordered_set>

#include "ir/expr.h"

namespace rlx {

// With a "num_input" attr, the params after the first num_input are known at compile time, and so
// is every binding whose value uses only known vars and symbolic vars those vars define. Without
// the attr no param is known (bindings of constants still are). Nested functions are not entered.
std::unordered_set<const Var*> computableAtCompileTime(const Function& f);

}  // namespace rlx
