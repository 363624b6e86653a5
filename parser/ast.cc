// Small syntax-tree helpers shared by the builders.
// dottedName() is how builders recognize `R.nn.relu` and `T.axis.remap`.
#include "parser/ast.h"

namespace rlx::ast {

std::string Expr::dottedName() const {
  if (kind == Name) return str;
  if (kind == Attribute && a) {
    std::string base = a->dottedName();
    if (base.empty()) return "";
    return base + "." + str;
  }
  return "";
}

}  // namespace rlx::ast
