// The per-op gradient rules of the Gradient pass (gradient_rules.cc), and the emitter they build
// their partials with: a table keyed by op name, so each rule is found by the op it differentiates.
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/block_builder.h"
#include "ir/diagnostic.h"
#include "ir/expr.h"

namespace rlx::grad {

// Emits the backward bindings into one dataflow block the way TVM's normalizer does: nested
// non-atom subexpressions are bound to fresh vars in post-order, each shared subtree once.
class Emitter {
 public:
  explicit Emitter(BlockBuilder& bb) : bb_(bb) {}
  // `e` with its nested calls / tuple projections bound; `e` itself is not bound.
  Result<Expr> norm(const Expr& e);
  // norm, then `e` bound to a fresh var unless it is an atom (leaf or tuple of leaves).
  Result<Expr> atom(const Expr& e);
  // `e` normalized and bound to a var named `name` (an R.output var when `output`).
  Result<VarRef> emit(const Expr& e, const std::string& name, bool output = false);
  BlockBuilder& builder() { return bb_; }

 private:
  BlockBuilder& bb_;
  std::unordered_map<const ExprNode*, std::pair<Expr, Expr>> memo_;  // holds the key: no address reuse
};

// What a rule sees: the forward call (its args possibly recomputed under checkpointing), the
// forward result var and the adjoint of that result.
struct RuleInput {
  const Call& call;
  Expr out;
  Expr outGrad;
  Emitter& em;
};

// One partial per call argument; a null Expr means "no gradient flows to this argument"
// (TVM's R.grad.no_grad). Partials may be nested expressions; the pass normalizes them.
using Rule = Result<std::vector<Expr>> (*)(const RuleInput&);

// The rule for op `name` ("relax.add"), or null when rlx has none.
Rule findRule(const std::string& name);
// Every op name with a rule (sorted), for messages and tests.
std::vector<std::string> ruleNames();

}  // namespace rlx::grad
