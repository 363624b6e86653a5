// EmittingMutator: an ExprMutator whose hooks may add bindings around the binding being rebuilt,
// the way TVM's builder emits while a mutator visits: before it (a value a rewritten use needs) or
// after it (a call that consumes its result). Blocks come out merged as TVM's normalizer leaves them.
#pragma once
#include <string>
#include <vector>

#include "ir/expr_mutator.h"

namespace rlx {

// Appends `b` to `blocks`, merged into the last block when both are of the same kind (TVM's
// normalizer never leaves two adjacent blocks of one kind); an empty block is dropped.
void appendBlock(std::vector<BlockRef>& blocks, const BlockRef& b);
// A SeqExpr of `blocks` (merged as above) and `body`; its struct info is the body's.
Ref<SeqExpr> makeSeqExpr(const std::vector<BlockRef>& blocks, const Expr& body);

// Collects bindings into blocks of their kind, in order (a run of dataflow bindings is one dataflow
// block), then closes them into a SeqExpr.
class BlockCollector {
 public:
  void add(const BindingRef& b, bool dataflow) {
    if (!current_.empty() && dataflow != dataflow_) flush();
    dataflow_ = dataflow;
    current_.push_back(b);
  }
  Ref<SeqExpr> finish(const Expr& body) {
    flush();
    return makeSeqExpr(blocks_, body);
  }

 private:
  void flush() {
    if (!current_.empty()) appendBlock(blocks_, make<BindingBlock>(std::move(current_), dataflow_));
    current_.clear();
  }
  std::vector<BlockRef> blocks_;
  std::vector<BindingRef> current_;
  bool dataflow_ = false;
};

class EmittingMutator : public ExprMutator {
 protected:
  // Binds `value` (struct info set) to a new var placed before the binding being visited (a
  // dataflow var inside a dataflow block); a match_cast when `castSInfo` is given.
  VarRef emit(const Expr& value, const std::string& name, const StructInfo& castSInfo = nullptr);
  // Binds `value` to a new var placed after the binding being visited.
  VarRef emitAfter(const Expr& value, const std::string& name);
  // Adds an already-built binding before the binding being visited.
  void emitBinding(const BindingRef& b) { before_.push_back(b); }
  bool inDataflow() const { return inDataflow_; }
  // Called once the binding is rebuilt (null when removed); may emitAfter().
  virtual void afterBinding(const BindingRef& original, const BindingRef& rebuilt) {}

  BlockRef visitBlock(const BlockRef& b) override;
  Expr visitSeqExpr(const Ref<SeqExpr>& s) override;

 private:
  Expr visitSeqExprInner(const Ref<SeqExpr>& s);
  bool inDataflow_ = false;
  std::vector<BindingRef> before_, after_;
};

}  // namespace rlx
