// A broadcasting call whose operand sizes cannot be related at import (two unrelated size vars, one
// of which may be 1 at run time) has a result of unknown shape, which no kernel can be built for.
// Here the common size is computed at run time and each operand expanded to it exactly.
#include "frontend/onnx/importer.h"
#include "ir/arith.h"
#include "ir/op.h"

namespace rlx::onnx {

namespace {

Expr callOp(GraphImporter& g, const std::string& name, std::vector<PyValue> args, KwArgs kwargs = {}) {
  auto call = buildOpCall(*findOp("relax." + name), std::move(args), std::move(kwargs));
  if (!call) fail("R." + name + ": " + call.error().message);
  return g.emitCall(*call);
}

bool isOne(const PrimExpr& d) {
  auto k = d.as<IntImm>();
  return k && k->value == 1;
}

// The 1-D int64 tensor of `dims` (computed from the shape at run time).
Expr dimsTensor(GraphImporter& g, const std::vector<PrimExpr>& dims) { return callOp(g, "shape_to_tensor", {ex(shapeExpr(dims))}); }

// Whether `d` is min(n, C) (either order) with a constant C >= 2: then d is 1 only when n is, so
// broadcasting d against n is valid only when they are equal.
bool clampOf(const PrimExpr& d, const PrimExpr& n) {
  if (d->kind() != NodeKind::Min) return false;
  auto m = d.as<PrimBinary>();
  auto bound = [&](const PrimExpr& x, const PrimExpr& c) {
    auto k = c.as<IntImm>();
    return k && k->value >= 2 && proveEqual(x, n);
  };
  return bound(m->a, m->b) || bound(m->b, m->a);
}

// The size of a broadcast axis whose sizes are n and min(n, C) (any number of each): n.
PrimExpr clampedPair(const std::vector<PrimExpr>& sizes) {
  PrimExpr whole;
  for (auto& d : sizes)
    if (!isOne(d) && d->kind() != NodeKind::Min) {
      if (whole && !proveEqual(whole, d)) return PrimExpr();
      whole = d;
    }
  if (!whole || whole.as<IntImm>()) return PrimExpr();
  bool anyClamped = false;
  for (auto& d : sizes) {
    if (isOne(d) || proveEqual(d, whole)) continue;
    if (!clampOf(d, whole)) return PrimExpr();
    anyClamped = true;
  }
  return anyClamped ? whole : PrimExpr();
}

}  // namespace

Expr exactBroadcast(GraphImporter& g, const Call& call) {
  // Every call the importer emits passes here: the struct info test comes before the op lookup.
  auto out = call.sinfo.as<TensorSInfo>();
  if (!out || out->dims() || out->ndim < 0) return nullptr;
  auto info = findOp(call.opName());
  if (!info || info->pattern != OpPattern::Broadcast) return nullptr;
  size_t rank = size_t(out->ndim);
  std::vector<const std::vector<PrimExpr>*> shapes;
  for (auto& a : call.args) {
    auto t = sinfoOfExpr(a).as<TensorSInfo>();
    if (!t) continue;
    if (!t->dims()) return nullptr;  // an operand of unknown sizes: nothing to relate
    shapes.push_back(t->dims());
  }
  // Per result axis: the known common size, or a run-time one.
  std::vector<PrimExpr> target(rank);
  std::vector<size_t> unknown;
  for (size_t k = 0; k < rank; ++k) {
    std::vector<PrimExpr> sizes;
    for (auto* s : shapes)
      if (k + s->size() >= rank) sizes.push_back((*s)[k + s->size() - rank]);
    PrimExpr common;
    bool settled = true;
    if (auto whole = clampedPair(sizes)) {
      target[k] = whole;  // valid only when equal: the clamped operand is checked against it
      continue;
    }
    for (auto& d : sizes) {
      if (isOne(d)) continue;
      if (d.as<IntImm>()) {
        common = d;  // a known size other than 1 is the result's
        break;
      }
      if (!common) common = d;
      else if (!proveEqual(common, d)) settled = false;
    }
    if (common && common.as<IntImm>()) settled = true;
    if (!common) common = intImm(1);
    if (settled) {
      target[k] = common;
    } else {
      unknown.push_back(k);
    }
  }
  // Operands whose size on an axis differs from the target's only as min(n, C) differs from n: a
  // match_cast to the target's size checks at run time what a valid program has anyway.
  std::vector<Expr> args = call.args;
  bool cast = false;
  for (auto& a : args) {
    auto t = sinfoOfExpr(a).as<TensorSInfo>();
    if (!t) continue;
    auto dims = *t->dims();
    bool changed = false;
    for (size_t j = 0; j < dims.size(); ++j) {
      const PrimExpr& want = target[rank - dims.size() + j];
      if (want && !isOne(dims[j]) && clampOf(dims[j], want)) dims[j] = want, changed = true;
    }
    if (!changed) continue;
    auto bound = g.builder().emitMatchCast(a, make<TensorSInfo>(shapeExpr(dims), t->dtype, int(dims.size()), t->vdevice), "", {});
    if (!bound) fail(bound.error().message);
    a = *bound;
    cast = true;
  }
  if (unknown.empty()) return cast ? make<Call>(call.op, args, call.attrs, call.sinfoArgs) : nullptr;  // else the op's own rule had a reason
  // The run-time sizes: for each operand, its sizes at those axes (1 where it has none), folded
  // with "where(acc == 1, size, acc)".
  Expr acc;
  for (auto* s : shapes) {
    std::vector<PrimExpr> at;
    for (size_t k : unknown) at.push_back(k + s->size() >= rank ? (*s)[k + s->size() - rank] : intImm(1));
    Expr t = dimsTensor(g, at);
    acc = acc ? callOp(g, "where", {ex(callOp(g, "equal", {ex(acc), ex(dimsTensor(g, std::vector<PrimExpr>(unknown.size(), intImm(1))))})), ex(t), ex(acc)}) : t;
  }
  Expr shape = g.emitCall(makeCall("relax.tensor_to_shape", {acc}));
  std::vector<PrimExpr> vars;
  for (size_t j = 0; j < unknown.size(); ++j) vars.push_back(g.freshDim("bcast"));
  auto bound = g.builder().emitMatchCast(shape, make<ShapeSInfo>(vars, int(vars.size())), "", {});
  if (!bound) fail(bound.error().message);
  for (size_t j = 0; j < unknown.size(); ++j) target[unknown[j]] = vars[j];
  // Each operand: along an axis whose size may or may not be 1, gather index 0 or the position.
  std::vector<Expr> operands = std::move(args);
  args.clear();
  for (auto& a : operands) {
    auto t = sinfoOfExpr(a).as<TensorSInfo>();
    if (!t) {
      args.push_back(a);
      continue;
    }
    Expr x = a;
    auto dims = *t->dims();
    for (size_t j = 0; j < unknown.size(); ++j) {
      size_t k = unknown[j];
      if (k + dims.size() < rank) continue;
      int64_t axis = int64_t(k + dims.size() - rank);
      const PrimExpr& d = dims[size_t(axis)];
      if (isOne(d)) continue;
      Expr positions = callOp(g, "arange", {primValue(intImm(0)), primValue(vars[j]), primValue(intImm(1))}, {{"dtype", build::s("int64")}});
      Expr notOne = callOp(g, "astype", {ex(callOp(g, "not_equal", {ex(dimsTensor(g, {d})), ex(dimsTensor(g, {intImm(1)}))}))}, {{"dtype", build::s("int64")}});
      x = callOp(g, "take", {ex(x), ex(callOp(g, "multiply", {ex(positions), ex(notOne)}))}, {{"axis", build::i(axis)}});
    }
    args.push_back(x);
  }
  auto rebuilt = make<Call>(call.op, args, call.attrs, call.sinfoArgs);
  return rebuilt;
}

}  // namespace rlx::onnx
