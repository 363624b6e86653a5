// BindingRewriter: an ExprMutator for passes that replace a binding's value by a small expression
// tree (e.g. batch_norm → subtract/divide/...). The tree's inner calls are bound to fresh vars
// (lv… in dataflow blocks, gv… outside) just before the binding, as TVM's BlockBuilder emits them.
#pragma once
#include "ir/block_builder.h"
#include "ir/expr_mutator.h"

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

 private:
  BlockBuilder builder_;  // one per pass run: fresh names keep counting across rewrites
  bool inDataflow_ = false;
  bool bindFailed_ = false;
};

}  // namespace rlx
