// The recursive pre-order walk behind walkExpr; ANF keeps Relax trees shallow, so recursion
// depth stays small (nested calls are bound to vars by the normalizer).
#include "ir/expr_walk.h"

#include <unordered_set>

namespace rlx {

void walkExpr(const Expr& e, const std::function<void(const Expr&)>& visit) {
  if (!e) return;
  visit(e);
  switch (e->kind()) {
    case NodeKind::Call: {
      auto& c = static_cast<const Call&>(*e);
      walkExpr(c.op, visit);
      for (auto& a : c.args) walkExpr(a, visit);
      break;
    }
    case NodeKind::Tuple:
      for (auto& f : static_cast<const Tuple&>(*e).fields) walkExpr(f, visit);
      break;
    case NodeKind::TupleGetItem: walkExpr(static_cast<const TupleGetItem&>(*e).tuple, visit); break;
    case NodeKind::If: {
      auto& i = static_cast<const If&>(*e);
      walkExpr(i.cond, visit);
      walkExpr(i.thenBranch, visit);
      walkExpr(i.elseBranch, visit);
      break;
    }
    case NodeKind::SeqExpr: {
      auto& s = static_cast<const SeqExpr&>(*e);
      for (auto& b : s.blocks)
        for (auto& x : b->bindings) walkExpr(x->value, visit);
      walkExpr(s.body, visit);
      break;
    }
    case NodeKind::Function: walkExpr(static_cast<const Function&>(*e).body, visit); break;
    default: break;
  }
}

std::vector<VarRef> freeVars(const Expr& e) {
  std::unordered_set<const Var*> defined, seen;
  std::vector<VarRef> used;
  walkExpr(e, [&](const Expr& x) {
    if (auto f = x.as<Function>()) {
      for (auto& p : f->params) defined.insert(p.get());
    } else if (auto s = x.as<SeqExpr>()) {
      for (auto& b : s->blocks)
        for (auto& bind : b->bindings) defined.insert(bind->var.get());
    } else if (auto v = x.as<Var>()) {
      if (seen.insert(v.get()).second) used.push_back(v);
    }
  });
  std::vector<VarRef> out;
  for (auto& v : used)
    if (!defined.count(v.get())) out.push_back(v);
  return out;
}

}  // namespace rlx
