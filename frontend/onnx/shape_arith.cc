// Elementwise integer ops over shape values (1-D or 0-d integer tensors whose elements are known
// symbolically, as Shape -> Gather -> Add -> Concat chains are): folded per element at import.
#include "frontend/onnx/shape_arith.h"

#include "ir/arith.h"

namespace rlx::onnx {

namespace {

// The elements of input i when it is a shape value or a small integer constant of rank <= 1.
std::optional<std::vector<PrimExpr>> elementsOf(NodeCtx& c, size_t i) {
  if (!c.has(i)) return std::nullopt;
  auto t = tensorInfo(c.x(i));
  if (!t || t->ndim < 0 || t->ndim > 1 || !(t->dtype.isInt() || t->dtype.isUInt() || t->dtype.isBool())) return std::nullopt;
  if (c.in(i).elems) return c.in(i).elems;
  auto k = c.x(i).as<Constant>();
  if (!k || k->data->numel() > 64) return std::nullopt;
  std::vector<PrimExpr> out;
  for (int64_t e = 0; e < k->data->numel(); ++e) out.push_back(intImm(k->data->getInt(e)));
  return out;
}

bool allInts(const std::vector<PrimExpr>& v) {
  for (auto& e : v)
    if (!e.as<IntImm>()) return false;
  return true;
}

// A tensor of rank 0 or 1 and dtype `t` holding `elems` (a constant when all are ints).
OValue valueTensor(NodeCtx& c, std::vector<PrimExpr> elems, int rank, DataType t) {
  Expr e;
  if (allInts(elems)) {
    std::vector<int64_t> v;
    for (auto& x : elems) v.push_back(x.as<IntImm>()->value);
    e = c.ints64(v);
  } else {
    e = c.op("shape_to_tensor", {ex(shapeExpr(elems))});
  }
  if (rank == 0) e = c.op("squeeze", {ex(e)}, {{"axis", build::ints({0})}});
  if (t != DataType::int64()) e = c.op("astype", {ex(e)}, {{"dtype", build::s(t.str())}});
  return {e, std::move(elems), nullptr};
}

// Broadcast element lists of lengths n or 1; nullopt when the lengths disagree.
std::optional<size_t> broadcastLength(const std::vector<std::vector<PrimExpr>>& in) {
  size_t n = 1;
  for (auto& v : in) {
    if (v.size() == 1) continue;
    if (n != 1 && v.size() != n) return std::nullopt;
    n = v.size();
  }
  return n;
}

const PrimExpr& at(const std::vector<PrimExpr>& v, size_t k) { return v.size() == 1 ? v[0] : v[k]; }

// One element of relaxOp, or null when it cannot be folded exactly (a comparison the analyzer
// cannot decide, a division whose sign is unknown).
PrimExpr foldElement(const std::string& op, const PrimExpr& a, const PrimExpr& b) {
  auto nonNeg = [](const PrimExpr& e) { return proveNonNegativeShape(e); };
  if (op == "add") return simplify(add(a, b));
  if (op == "subtract") return simplify(sub(a, b));
  if (op == "multiply") return simplify(mul(a, b));
  if (op == "maximum") return simplify(maxExpr(a, b));
  if (op == "minimum") return simplify(minExpr(a, b));
  // ONNX's integer Div truncates; it is floor division when both sides are non-negative.
  if (op == "divide" || op == "floor_divide") return nonNeg(a) && nonNeg(b) && constInt(b).value_or(1) != 0 ? simplify(floordiv(a, b)) : PrimExpr();
  if (op == "floor_mod") return nonNeg(a) && nonNeg(b) ? simplify(floormod(a, b)) : PrimExpr();
  // Comparisons: decided by the sign of a - b (dims are non-negative, which decides most).
  PrimExpr d = simplify(sub(a, b));
  int sign = 2;  // unknown
  if (auto v = constInt(d)) sign = *v > 0 ? 1 : *v < 0 ? -1 : 0;
  else if (proveNonNegativeShape(simplify(sub(d, intImm(1))))) sign = 1;
  else if (proveNonNegativeShape(simplify(sub(intImm(-1), d)))) sign = -1;
  bool nonNegD = sign != 2 ? sign >= 0 : proveNonNegativeShape(d), nonPosD = sign != 2 ? sign <= 0 : proveNonNegativeShape(simplify(sub(intImm(0), d)));
  std::optional<bool> r;
  if (op == "equal" && sign != 2) r = sign == 0;
  else if (op == "not_equal" && sign != 2) r = sign != 0;
  else if (op == "less") r = sign == -1 ? std::optional(true) : nonNegD ? std::optional(false) : std::nullopt;
  else if (op == "less_equal") r = nonPosD ? std::optional(true) : sign == 1 ? std::optional(false) : std::nullopt;
  else if (op == "greater") r = sign == 1 ? std::optional(true) : nonPosD ? std::optional(false) : std::nullopt;
  else if (op == "greater_equal") r = nonNegD ? std::optional(true) : sign == -1 ? std::optional(false) : std::nullopt;
  return r ? intImm(*r ? 1 : 0) : PrimExpr();
}

}  // namespace

std::optional<OValue> foldShapeArith(NodeCtx& c, const std::string& relaxOp) {
  if (c.numInputs() != 2) return std::nullopt;
  auto a = elementsOf(c, 0), b = elementsOf(c, 1);
  // Only worth it when a symbolic value is involved: constants fold through R ops already.
  if (!a || !b || (!c.in(0).elems && !c.in(1).elems)) return std::nullopt;
  auto n = broadcastLength({*a, *b});
  if (!n) return std::nullopt;
  std::vector<PrimExpr> out;
  for (size_t k = 0; k < *n; ++k) {
    PrimExpr e = foldElement(relaxOp, at(*a, k), at(*b, k));
    if (!e) return std::nullopt;
    out.push_back(e);
  }
  bool compare = relaxOp.find("equal") != std::string::npos || relaxOp == "less" || relaxOp == "greater";
  int rank = std::max(c.ndim(0), c.ndim(1));
  return valueTensor(c, std::move(out), rank, compare ? DataType::boolean() : c.dtype(0));
}

std::optional<OValue> foldShapeWhere(NodeCtx& c) {
  auto cond = elementsOf(c, 0), x = elementsOf(c, 1), y = elementsOf(c, 2);
  if (!cond || !x || !y || (!c.in(1).elems && !c.in(2).elems) || !allInts(*cond)) return std::nullopt;
  auto n = broadcastLength({*cond, *x, *y});
  if (!n) return std::nullopt;
  std::vector<PrimExpr> out;
  for (size_t k = 0; k < *n; ++k) out.push_back(at(*cond, k).as<IntImm>()->value ? at(*x, k) : at(*y, k));
  int rank = std::max({c.ndim(0), c.ndim(1), c.ndim(2)});
  return valueTensor(c, std::move(out), rank, c.dtype(1));
}

}  // namespace rlx::onnx
