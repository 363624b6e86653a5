// Plain PrimExpr constructors and operator metadata (symbols, comparison-ness) used by the
// simplifier and the printer.
#include "ir/prim_expr.h"

namespace rlx {

bool isComparison(NodeKind k) { return k >= NodeKind::EQ && k <= NodeKind::GE; }

PrimExpr binary(NodeKind k, PrimExpr a, PrimExpr b) {
  DataType t = (isComparison(k) || k == NodeKind::And || k == NodeKind::Or) ? DataType::boolean().withLanes(a->dtype.lanes) : a->dtype;
  return make<PrimBinary>(k, t, std::move(a), std::move(b));
}

const char* binaryOpSymbol(NodeKind k) {
  switch (k) {
    case NodeKind::Add: return "+";
    case NodeKind::Sub: return "-";
    case NodeKind::Mul: return "*";
    case NodeKind::Div: return "/";
    case NodeKind::Mod: return "%";
    case NodeKind::FloorDiv: return "//";
    case NodeKind::FloorMod: return "%";
    case NodeKind::EQ: return "==";
    case NodeKind::NE: return "!=";
    case NodeKind::LT: return "<";
    case NodeKind::LE: return "<=";
    case NodeKind::GT: return ">";
    case NodeKind::GE: return ">=";
    case NodeKind::And: return "and";
    case NodeKind::Or: return "or";
    default: return nullptr;
  }
}

}  // namespace rlx
