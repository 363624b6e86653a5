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
  // Small constants only (a shape's worth); larger ones stay tensors.
  if (!c.in(i).elems && (!c.x(i).as<Constant>() || c.x(i).as<Constant>()->data->numel() > 64)) return std::nullopt;
  return c.knownValue(i);
}

bool allInts(const std::vector<PrimExpr>& v) {
  for (auto& e : v)
    if (!e.as<IntImm>()) return false;
  return true;
}

// A tensor of rank 0 or 1 and dtype `t` holding `elems`.
OValue valueTensor(NodeCtx& c, std::vector<PrimExpr> elems, int rank, DataType t) {
  OValue out = shapeTensor(c, elems);
  if (rank == 0) out.expr = c.op("squeeze", {ex(out.expr)}, {{"axis", build::ints({0})}});
  if (t != DataType::int64()) out.expr = c.op("astype", {ex(out.expr)}, {{"dtype", build::s(t.str())}});
  return out;
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
  // Comparisons: decided by what the analyzer proves of d = a - b (dims are non-negative).
  PrimExpr d = simplify(sub(a, b));
  auto proves = [&](const PrimExpr& e) { return proveNonNegativeShape(simplify(e)); };
  bool ge = proves(d), le = proves(sub(intImm(0), d)), gt = proves(sub(d, intImm(1))), lt = proves(sub(intImm(-1), d));
  std::optional<bool> r;
  auto decide = [&](bool yes, bool no) { r = yes ? std::optional(true) : no ? std::optional(false) : std::nullopt; };
  if (op == "equal") decide(ge && le, gt || lt);
  else if (op == "not_equal") decide(gt || lt, ge && le);
  else if (op == "less") decide(lt, ge);
  else if (op == "less_equal") decide(le, gt);
  else if (op == "greater") decide(gt, le);
  else if (op == "greater_equal") decide(ge, lt);
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
