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

bool exprDeepEqual(const PrimExpr& a, const PrimExpr& b) {
  if (a.get() == b.get()) return true;
  if (!a || !b || a->kind() != b->kind() || a->dtype != b->dtype) return false;
  switch (a->kind()) {
    case NodeKind::IntImm: return static_cast<const IntImm&>(*a).value == static_cast<const IntImm&>(*b).value;
    case NodeKind::FloatImm: return static_cast<const FloatImm&>(*a).value == static_cast<const FloatImm&>(*b).value;
    case NodeKind::PrimVar: return false;
    case NodeKind::Cast: return exprDeepEqual(static_cast<const Cast&>(*a).value, static_cast<const Cast&>(*b).value);
    case NodeKind::BufferLoad: {
      auto &x = static_cast<const BufferLoad&>(*a), &y = static_cast<const BufferLoad&>(*b);
      if (x.buffer.get() != y.buffer.get() || x.indices.size() != y.indices.size()) return false;
      for (size_t i = 0; i < x.indices.size(); ++i)
        if (!exprDeepEqual(x.indices[i], y.indices[i])) return false;
      return true;
    }
    default:
      if (PrimBinary::classOf(a->kind())) {
        auto &x = static_cast<const PrimBinary&>(*a), &y = static_cast<const PrimBinary&>(*b);
        return exprDeepEqual(x.a, y.a) && exprDeepEqual(x.b, y.b);
      }
      return false;  // other nodes: treated as different
  }
}

}  // namespace rlx
