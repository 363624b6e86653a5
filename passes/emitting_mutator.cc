// EmittingMutator (see emitting_mutator.h): bindings queued by the hooks are spliced around the
// binding being rebuilt; those queued while visiting a SeqExpr's result get a block of their own.
#include "passes/emitting_mutator.h"

namespace rlx {

void appendBlock(std::vector<BlockRef>& blocks, const BlockRef& b) {
  if (!b || b->bindings.empty()) return;
  if (!blocks.empty() && blocks.back()->isDataflow() == b->isDataflow()) {
    auto bindings = blocks.back()->bindings;
    bindings.insert(bindings.end(), b->bindings.begin(), b->bindings.end());
    blocks.back() = make<BindingBlock>(std::move(bindings), b->isDataflow());
  } else {
    blocks.push_back(b);
  }
}

Ref<SeqExpr> makeSeqExpr(const std::vector<BlockRef>& blocks, const Expr& body) {
  std::vector<BlockRef> merged;
  for (auto& b : blocks) appendBlock(merged, b);
  auto out = make<SeqExpr>(std::move(merged), body);
  out->sinfo = sinfoOf(body);
  return out;
}

VarRef EmittingMutator::emit(const Expr& value, const std::string& name, const StructInfo& castSInfo) {
  auto var = make<Var>(name, castSInfo ? castSInfo : sinfoOf(value), inDataflow_);
  before_.push_back(make<Binding>(var, value, castSInfo));
  return var;
}

VarRef EmittingMutator::emitAfter(const Expr& value, const std::string& name) {
  auto var = make<Var>(name, sinfoOf(value), inDataflow_);
  after_.push_back(make<Binding>(var, value));
  return var;
}

BlockRef EmittingMutator::visitBlock(const BlockRef& b) {
  bool saved = inDataflow_;
  inDataflow_ = b->isDataflow();
  std::vector<BindingRef> out;
  bool changed = false;
  for (auto& x : b->bindings) {
    BindingRef nb = visitBinding(x);
    afterBinding(x, nb);
    changed |= !before_.empty() || !after_.empty() || !nb.same(x);
    out.insert(out.end(), before_.begin(), before_.end());
    if (nb) out.push_back(nb);
    out.insert(out.end(), after_.begin(), after_.end());
    before_.clear();
    after_.clear();
  }
  inDataflow_ = saved;
  if (!changed) return b;
  if (out.empty()) return nullptr;
  return make<BindingBlock>(std::move(out), b->isDataflow());
}

Expr EmittingMutator::visitSeqExpr(const Ref<SeqExpr>& s) {
  // A nested SeqExpr (an if branch, a local function) emits into its own blocks; what the
  // enclosing binding queued so far waits until it is back.
  std::vector<BindingRef> outerBefore = std::move(before_), outerAfter = std::move(after_);
  before_.clear();
  after_.clear();
  bool outerDataflow = inDataflow_;
  Expr out = visitSeqExprInner(s);
  before_ = std::move(outerBefore);
  after_ = std::move(outerAfter);
  inDataflow_ = outerDataflow;
  return out;
}

Expr EmittingMutator::visitSeqExprInner(const Ref<SeqExpr>& s) {
  std::vector<BlockRef> blocks;
  bool changed = false;
  for (auto& b : s->blocks) {
    BlockRef nb = visitBlock(b);
    changed |= !nb.same(b);
    if (nb) blocks.push_back(nb);
  }
  bool saved = inDataflow_;
  inDataflow_ = false;
  Expr body = mutate(s->body);
  inDataflow_ = saved;
  if (!before_.empty()) {
    blocks.push_back(make<BindingBlock>(std::move(before_), false));
    before_.clear();
    changed = true;
  }
  if (!changed && body.same(s->body)) return s;
  auto out = makeSeqExpr(blocks, body);
  out->sinfo = s->sinfo;
  out->span = s->span;
  return out;
}

}  // namespace rlx
