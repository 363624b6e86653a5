// Small syntax-tree helpers shared by the builders.
// dottedName() is how builders recognize `R.nn.relu` and `T.axis.remap`.
#include "parser/ast.h"

#include <cstring>

namespace rlx::ast {

std::string Expr::dottedName() const {
  // Builders ask this of nearly every callee and annotation: one pass to check the chain and size
  // it, one to fill a single string (the recursive `base + "." + str` built one per link).
  size_t size = 0;
  const Expr* e = this;
  for (; e->kind == Attribute && e->a; e = e->a) size += e->str.size() + 1;
  if (e->kind != Name || e->str.empty()) return "";
  size += e->str.size();
  std::string out(size, '.');
  size_t end = size;
  for (e = this; e->kind == Attribute; e = e->a) {
    end -= e->str.size();
    std::memcpy(out.data() + end, e->str.data(), e->str.size());
    --end;  // the '.' before it
  }
  std::memcpy(out.data(), e->str.data(), e->str.size());
  return out;
}

}  // namespace rlx::ast
