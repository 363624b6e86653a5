// BindingRewriter: splices the bindings a rewritten value needs into the block being rebuilt, and
// rebinds the original var (a fresh var when the struct info changed) to the normalized value.
#include "passes/binding_rewriter.h"

#include "passes/registry.h"
#include "passes/remove_all_unused.h"

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
      if (!nb->isMatchCast()) bound_[nb->var.get()] = nb->value;
      continue;
    }
    if (emitted)
      for (auto& eb : emitted->bindings) {
        out.push_back(eb);
        if (!eb->isMatchCast()) bound_[eb->var.get()] = eb->value;
      }
    out.push_back(rebind(nb, normalized.value(), sinfoOf(normalized.value()), nb->var->isDataflow()));
    bound_[out.back()->var.get()] = out.back()->value;
    changed = true;
  }
  inDataflow_ = saved;
  if (!changed) return b;
  if (out.empty()) return nullptr;
  return make<BindingBlock>(std::move(out), b->isDataflow());
}

Expr BindingRewriter::boundValue(const Expr& e) const {
  auto v = e.as<Var>();
  if (!v) return e;
  auto it = bound_.find(v.get());
  return it == bound_.end() ? e : it->second;
}

Pass makeRewriteCallPass(PassInfo info, std::function<std::unique_ptr<BindingRewriter>(const Ref<Function>&)> make) {
  return makeFunctionPass(std::move(info), [make](const Expr& func, const GlobalVarRef&, const IRModuleRef&) -> Result<Expr> {
    Expr cur = func;
    // Each round only rewrites what the previous one produced; the bound keeps a rewrite that
    // undoes another from looping forever.
    for (int round = 0; round < 16; ++round) {
      auto f = cur.as<Function>();
      if (!f) break;
      Expr next = make(f)->mutate(cur);
      if (next.same(cur)) break;
      cur = next;
    }
    return removeAllUnused(cur);
  });
}

Result<Pass> createCanonicalizeBindingsPass(PassOptions& options);

Pass makeRewriteCallPassSubstitutingAliases(PassInfo info, std::function<std::unique_ptr<BindingRewriter>(const Ref<Function>&)> make) {
  Pass rewrite = makeRewriteCallPass(info, std::move(make));
  PassOptions none;
  Pass canonicalize = createCanonicalizeBindingsPass(none).value();
  return Pass(info, [rewrite, canonicalize](const IRModuleRef& mod, const PassContext& ctx) -> Result<IRModuleRef> {
    PassContext quiet = ctx;
    quiet.instruments.clear();  // the inner steps are this pass, not passes of their own
    RLX_TRY(rewritten, rewrite(mod, quiet));
    if (rewritten.same(mod)) return mod;
    RLX_TRY(canonical, canonicalize(rewritten, quiet));
    return rewrite(canonical, quiet);  // drops the bindings canonicalizing left unused
  });
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
