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
  // Applied to each block's read regions and to its write regions, as lists (a region may become
  // several: an inlined stage's reads); null leaves regions unchanged.
  std::function<std::vector<BufferRegion>(const std::vector<BufferRegion>&)> regions;

  Stmt stmt(const Stmt& s) const;
};

}  // namespace rlx
