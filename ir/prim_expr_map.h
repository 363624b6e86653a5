// Generic traversal of PrimExpr trees: visit a node's operands, or rebuild a node from mapped
// operands (sharing the node when no operand changes). Rewrites over TIR expressions build on these.
#pragma once
#include <functional>

#include "ir/prim_expr.h"

namespace rlx {

// Calls `f` on each operand of `e` (binary sides, call arguments, load indices, ...), in order.
void forEachOperand(const PrimExpr& e, const std::function<void(const PrimExpr&)>& f);

// `e` with each operand replaced by `f(operand)`; `e` itself when every result is the operand.
// Not simplified: callers that want canonical arithmetic call simplify() on the result.
PrimExpr mapOperands(const PrimExpr& e, const std::function<PrimExpr(const PrimExpr&)>& f);

// Whether `v` occurs anywhere in `e` (load indices and call arguments included).
bool mentions(const PrimExpr& e, const PrimVar* v);

// The number of nodes of `e` counted as a tree (a shared subexpression counts at every use, as
// code generation emits it).
int64_t treeSize(const PrimExpr& e, int64_t limit);

}  // namespace rlx
