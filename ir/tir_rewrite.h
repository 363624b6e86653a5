// A rebuilding walk over TIR statements: every expression and every block read/write region goes
// through the caller's functions, and the statements around a change are rebuilt (others shared).
#pragma once
#include <functional>

#include "ir/tir.h"

namespace rlx {

struct TirRewriter {
  // Applied to each expression root (store values and indices, loop bounds, conditions, block
  // bindings and predicates, let values); it recurses into operands itself when it wants to.
  std::function<PrimExpr(const PrimExpr&)> expr;
  // Applied to each read and write region of every block (null: regions unchanged).
  std::function<BufferRegion(const BufferRegion&)> region;

  Stmt stmt(const Stmt& s) const;
};

}  // namespace rlx
