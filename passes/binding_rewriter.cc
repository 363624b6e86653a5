// BindingRewriter: splices the bindings a rewritten value needs into the block being rebuilt, and
// rebinds the original var (a fresh var when the struct info changed) to the normalized value.
#include "passes/binding_rewriter.h"

namespace rlx {

BlockRef BindingRewriter::visitBlock(const BlockRef& b) {
  bool saved = inDataflow_;
  inDataflow_ = b->isDataflow();
  std::vector<BindingRef> out;
  bool changed = false;
  for (auto& x : b->bindings) {
    BindingRef nb = visitBinding(x);
    if (!nb) {
      changed = true;
      continue;
    }
    builder_.beginBlock(b->isDataflow());
    bindFailed_ = false;
    Expr replacement = nb->isMatchCast() ? Expr() : rewriteValue(nb, nb->value);
    auto normalized = replacement ? builder_.normalize(replacement) : Result<Expr>(Error("no rewrite"));
    BlockRef emitted = builder_.endBlock();
    if (!normalized.ok() || bindFailed_) {  // no rewrite, or one the op rules reject: keep the binding
      changed |= !nb.same(x);
      out.push_back(nb);
      continue;
    }
    if (emitted) out.insert(out.end(), emitted->bindings.begin(), emitted->bindings.end());
    out.push_back(rebind(nb, normalized.value(), sinfoOf(normalized.value()), nb->var->isDataflow()));
    changed = true;
  }
  inDataflow_ = saved;
  if (!changed) return b;
  if (out.empty()) return nullptr;
  return make<BindingBlock>(std::move(out), b->isDataflow());
}

Expr BindingRewriter::bind(const Expr& e) {
  auto var = builder_.emit(e, "", e->span);
  if (!var.ok()) {
    bindFailed_ = true;
    return e;
  }
  return var.value();
}

}  // namespace rlx
