// ToGraphNormalForm: substitutes single-use bindings back into their one use wherever the text
// format keeps them inline — values that are leaves (constants, shapes, prim values, aliases) or
// tuples of leaves, used as a call argument, tuple field or result (not as the operand of `t[i]`:
// `(a, b)[0]` reads back as `a`).
// Why: Relay's graph normal form shows the dataflow graph without let-noise; in Relax text the
// parser re-binds nested calls, so only atoms can move back without breaking the round trip.
// Preconditions: a normalized function. Kept: match_casts (checks), vars that struct info refers
// to, and vars whose value holds DataflowVars but that are used outside their dataflow block.
// Before: `t = (x, y); gv = R.concat(t, axis=0)`   After: `gv = R.concat((x, y), axis=0)`.
#include <unordered_map>
#include <unordered_set>

#include "ir/expr_mutator.h"
#include "ir/expr_walk.h"
#include "passes/registry.h"

namespace rlx {

namespace {

bool mentionsDataflowVar(const Expr& e) {
  bool found = false;
  walkExpr(e, [&](const Expr& x) { found |= x->kind() == NodeKind::DataflowVar; });
  return found;
}

void noteSInfoVars(const StructInfo& s, std::unordered_set<const Var*>& out) {
  if (!s) return;
  if (auto t = s.as<TensorSInfo>()) {
    if (auto v = t->shape.as<Var>()) out.insert(v.get());
  } else if (auto tu = s.as<TupleSInfo>()) {
    for (auto& f : tu->fields) noteSInfoVars(f, out);
  }
}

// Which bindings may be substituted: atom values whose var is used exactly once.
std::unordered_set<const Var*> inlinable(const Expr& func) {
  std::unordered_map<const Var*, int> uses;
  std::unordered_set<const Var*> inSInfo, candidates, indexed;
  walkExpr(func, [&](const Expr& x) {
    if (auto v = x.as<Var>()) ++uses[v.get()];
    // `(a, b)[0]` would read back as the field itself (the parser indexes Python tuples), so a
    // tuple stays bound where it is indexed.
    if (auto g = x.as<TupleGetItem>())
      if (auto v = g->tuple.as<Var>()) indexed.insert(v.get());
    if (auto s = x.as<SeqExpr>()) {
      for (auto& block : s->blocks)
        for (auto& b : block->bindings) {
          noteSInfoVars(b->var->sinfo, inSInfo);
          noteSInfoVars(b->castSInfo, inSInfo);
          if (b->isMatchCast() || !isAtomExpr(b->value) || b->value->kind() == NodeKind::Op) continue;
          if (!b->var->isDataflow() && mentionsDataflowVar(b->value)) continue;
          candidates.insert(b->var.get());
        }
    }
  });
  std::unordered_set<const Var*> out;
  for (auto* v : candidates)
    if (uses[v] == 1 && !inSInfo.count(v) && !indexed.count(v)) out.insert(v);
  return out;
}

class GraphNormalizer : public ExprMutator {
 protected:
  Expr visitFunction(const Ref<Function>& f) override {
    auto saved = std::move(inlinable_);
    inlinable_ = inlinable(f);
    Expr out = ExprMutator::visitFunction(f);
    inlinable_ = std::move(saved);
    return out;
  }

  BindingRef visitBinding(const BindingRef& b) override {
    if (!inlinable_.count(b->var.get())) return ExprMutator::visitBinding(b);
    varMap[b->var.get()] = mutate(b->value);
    return nullptr;
  }

 private:
  std::unordered_set<const Var*> inlinable_;
};

}  // namespace

Result<Pass> createToGraphNormalFormPass(PassOptions&) { return makeMutatorPass<GraphNormalizer>({"ToGraphNormalForm", 0, {}}); }

}  // namespace rlx
