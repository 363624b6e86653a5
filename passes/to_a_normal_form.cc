// ToANormalForm: binds every nested non-leaf expression to its own var (TVM Relax's Normalize /
// Relay's ToANormalForm): call arguments, tuple fields and tuple-get-item operands that are calls
// become `lv…`/`gv…` bindings just before their user, and a SeqExpr whose result is not a leaf
// gets a binding for it. Why: every other pass assumes this form, and a module built by hand or
// by ToGraphNormalForm may nest. Idempotent: normalized input comes back as the same object.
// Before: `gv = R.add(R.multiply(x, y), z)`   After: `lv = R.multiply(x, y); gv = R.add(lv, z)`.
#include "passes/binding_rewriter.h"
#include "passes/registry.h"

namespace rlx {

namespace {

bool hasNestedNonAtom(const Expr& value) {
  if (auto c = value.as<Call>()) {
    for (auto& a : c->args)
      if (!isAtomExpr(a) && a->kind() != NodeKind::Function) return true;
    return false;
  }
  if (auto t = value.as<Tuple>()) return !isAtomExpr(value);
  if (auto g = value.as<TupleGetItem>()) return !isAtomExpr(g->tuple);
  return false;
}

class ANormalizer : public BindingRewriter {
 protected:
  Expr rewriteValue(const BindingRef&, const Expr& value) override { return hasNestedNonAtom(value) ? value : Expr(); }

  Expr visitSeqExpr(const Ref<SeqExpr>& s) override {
    Expr out = BindingRewriter::visitSeqExpr(s);
    auto seq = out.as<SeqExpr>();
    if (!seq || isAtomExpr(seq->body) || seq->body->kind() == NodeKind::If) return out;
    // The result gets its own binding, in a trailing ordinary block (merged with a last one).
    std::vector<BlockRef> blocks = seq->blocks;
    std::vector<BindingRef> tail;
    if (!blocks.empty() && !blocks.back()->isDataflow()) {
      tail = blocks.back()->bindings;
      blocks.pop_back();
    }
    builder().beginBlock(false);
    auto var = builder().emit(seq->body, "", seq->body->span);
    BlockRef emitted = builder().endBlock();
    if (!var.ok()) return out;
    tail.insert(tail.end(), emitted->bindings.begin(), emitted->bindings.end());
    blocks.push_back(make<BindingBlock>(std::move(tail), false));
    auto result = make<SeqExpr>(std::move(blocks), var.value());
    result->sinfo = seq->sinfo;
    result->span = seq->span;
    return result;
  }
};

}  // namespace

Result<Pass> createToANormalFormPass(PassOptions&) { return makeMutatorPass<ANormalizer>({"ToANormalForm", 0, {}}); }

}  // namespace rlx
