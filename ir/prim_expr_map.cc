// Operand traversal for PrimExpr: one switch over the node kinds that have operands, so rewrites
// (substitution, load inlining) do not each repeat it.
#include "ir/prim_expr_map.h"

namespace rlx {

void forEachOperand(const PrimExpr& e, const std::function<void(const PrimExpr&)>& f) {
  if (!e) return;
  if (PrimBinary::classOf(e->kind())) {
    auto& b = static_cast<const PrimBinary&>(*e);
    f(b.a), f(b.b);
    return;
  }
  switch (e->kind()) {
    case NodeKind::Not: f(static_cast<const PrimNot&>(*e).a); break;
    case NodeKind::Select: {
      auto& s = static_cast<const Select&>(*e);
      f(s.cond), f(s.trueValue), f(s.falseValue);
      break;
    }
    case NodeKind::Cast: f(static_cast<const Cast&>(*e).value); break;
    case NodeKind::PrimCall:
      for (auto& a : static_cast<const PrimCall&>(*e).args) f(a);
      break;
    case NodeKind::BufferLoad:
      for (auto& i : static_cast<const BufferLoad&>(*e).indices) f(i);
      break;
    case NodeKind::PrimLet: {
      auto& l = static_cast<const PrimLet&>(*e);
      f(l.value), f(l.body);
      break;
    }
    case NodeKind::Ramp: {
      auto& r = static_cast<const Ramp&>(*e);
      f(r.base), f(r.stride);
      break;
    }
    case NodeKind::Broadcast: f(static_cast<const Broadcast&>(*e).value); break;
    default: break;
  }
}

PrimExpr mapOperands(const PrimExpr& e, const std::function<PrimExpr(const PrimExpr&)>& f) {
  if (!e) return e;
  bool changed = false;
  auto map = [&](const PrimExpr& x) {
    PrimExpr r = f(x);
    changed |= r.get() != x.get();
    return r;
  };
  auto list = [&](const std::vector<PrimExpr>& xs) {
    std::vector<PrimExpr> out;
    out.reserve(xs.size());
    for (auto& x : xs) out.push_back(map(x));
    return out;
  };
  if (PrimBinary::classOf(e->kind())) {
    auto& b = static_cast<const PrimBinary&>(*e);
    PrimExpr x = map(b.a), y = map(b.b);
    return changed ? PrimExpr(make<PrimBinary>(e->kind(), e->dtype, x, y)) : e;
  }
  switch (e->kind()) {
    case NodeKind::Not: {
      PrimExpr x = map(static_cast<const PrimNot&>(*e).a);
      return changed ? PrimExpr(make<PrimNot>(x)) : e;
    }
    case NodeKind::Select: {
      auto& s = static_cast<const Select&>(*e);
      PrimExpr c = map(s.cond), t = map(s.trueValue), v = map(s.falseValue);
      return changed ? PrimExpr(make<Select>(c, t, v)) : e;
    }
    case NodeKind::Cast: {
      PrimExpr v = map(static_cast<const Cast&>(*e).value);
      return changed ? PrimExpr(make<Cast>(e->dtype, v)) : e;
    }
    case NodeKind::PrimCall: {
      auto& c = static_cast<const PrimCall&>(*e);
      auto args = list(c.args);
      return changed ? PrimExpr(make<PrimCall>(e->dtype, c.op, std::move(args))) : e;
    }
    case NodeKind::BufferLoad: {
      auto& l = static_cast<const BufferLoad&>(*e);
      auto idx = list(l.indices);
      return changed ? PrimExpr(make<BufferLoad>(e->dtype, l.buffer, std::move(idx))) : e;
    }
    case NodeKind::PrimLet: {
      auto& l = static_cast<const PrimLet&>(*e);
      PrimExpr v = map(l.value), body = map(l.body);
      return changed ? PrimExpr(make<PrimLet>(l.var, v, body)) : e;
    }
    case NodeKind::Ramp: {
      auto& r = static_cast<const Ramp&>(*e);
      PrimExpr b = map(r.base), s = map(r.stride);
      return changed ? PrimExpr(make<Ramp>(b, s, r.lanes)) : e;
    }
    case NodeKind::Broadcast: {
      auto& r = static_cast<const Broadcast&>(*e);
      PrimExpr v = map(r.value);
      return changed ? PrimExpr(make<Broadcast>(v, r.lanes)) : e;
    }
    default: return e;
  }
}

bool mentions(const PrimExpr& e, const PrimVar* v) {
  if (!e) return false;
  if (e.get() == v) return true;
  bool found = false;
  forEachOperand(e, [&](const PrimExpr& x) { found = found || mentions(x, v); });
  return found;
}

int64_t treeSize(const PrimExpr& e, int64_t limit) {
  int64_t n = 0;
  std::function<void(const PrimExpr&)> count = [&](const PrimExpr& x) {
    if (!x || n > limit) return;
    ++n;
    forEachOperand(x, count);
  };
  count(e);
  return n;
}

}  // namespace rlx
