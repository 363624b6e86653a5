// BindingRewriter: an ExprMutator for passes that replace a binding's value by a small expression
// tree (e.g. batch_norm → subtract/divide/...). The tree's inner calls are bound to fresh vars
// (lv… in dataflow blocks, gv… outside) just before the binding, as TVM's BlockBuilder emits them.
#pragma once
#include <functional>
#include <memory>
#include <unordered_map>

#include "ir/block_builder.h"
#include "ir/expr_mutator.h"
#include "passes/pass.h"

namespace rlx {

class BindingRewriter : public ExprMutator {
 protected:
  // Called for every binding after its value was mutated. Returns the replacement value (nested
  // calls allowed, struct info not needed) or null to keep the binding as it is.
  virtual Expr rewriteValue(const BindingRef& binding, const Expr& value) = 0;
  BlockRef visitBlock(const BlockRef& b) override;

  // Binds `e` to a fresh var placed before the binding being rewritten and returns the var — for
  // a subexpression the replacement uses more than once. Only valid inside rewriteValue.
  Expr bind(const Expr& e);
  // The builder whose fresh-name counters all of this pass's new bindings share.
  BlockBuilder& builder() { return builder_; }
  // Whether the binding being rewritten sits in a dataflow block.
  bool inDataflow() const { return inDataflow_; }
  // The value `e` is bound to when it is a var bound (not match_cast) earlier in the function as
  // rewritten so far, else `e` itself: rewrites that match a chain of calls across bindings look
  // through vars this way, as TVM's pattern matcher does.
  Expr boundValue(const Expr& e) const;

 private:
  BlockBuilder builder_;  // one per pass run: fresh names keep counting across rewrites
  bool inDataflow_ = false;
  bool bindFailed_ = false;
  std::unordered_map<const Var*, Expr> bound_;  // var -> value of every binding kept or emitted
};

// A function pass in the manner of TVM's RewriteCall: a fresh rewriter from `make` runs over the
// function until it changes nothing more (a rewrite may enable another), then bindings left unused
// are removed (RewriteCall always ends with RemoveAllUnused). `make` sees the function as it is
// before each round, for per-function facts (attrs, which params are known at compile time).
Pass makeRewriteCallPass(PassInfo info, std::function<std::unique_ptr<BindingRewriter>(const Ref<Function>&)> make);

// The same, for rewrites that may replace a value by an existing var (`c = x`): as TVM's rewriter
// does, such aliases are then substituted into their uses (CanonicalizeBindings) and the bindings
// this leaves unused go. Changes nothing when no rewrite applied.
Pass makeRewriteCallPassSubstitutingAliases(PassInfo info, std::function<std::unique_ptr<BindingRewriter>(const Ref<Function>&)> make);

}  // namespace rlx
