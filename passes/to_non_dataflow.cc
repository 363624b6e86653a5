// ToNonDataflow: turns every dataflow block into an ordinary binding block and every DataflowVar
// into a Var (uses substituted), merging the now-adjacent blocks, as TVM does before lowering.
// Before: `with R.dataflow(): lv = R.add(x, x); gv = R.exp(lv); R.output(gv)`  After: flat bindings.
#include "ir/expr_mutator.h"
#include "passes/registry.h"

namespace rlx {

namespace {

class ToNonDataflowMutator : public ExprMutator {
 protected:
  BindingRef visitBinding(const BindingRef& b) override {
    Expr value = mutate(b->value);
    return rebind(b, value, b->var->sinfo, false);
  }
  Expr visitSeqExpr(const Ref<SeqExpr>& s) override {
    std::vector<BlockRef> blocks;
    bool changed = false;
    for (auto& b : s->blocks) {
      BlockRef nb = visitBlock(b);
      changed |= !nb.same(b) || b->isDataflow();
      if (!nb) continue;
      std::vector<BindingRef> bindings = nb->bindings;
      // Adjacent blocks are all ordinary now: merge them (the normal form).
      if (!blocks.empty()) {
        auto merged = blocks.back()->bindings;
        merged.insert(merged.end(), bindings.begin(), bindings.end());
        blocks.back() = make<BindingBlock>(std::move(merged), false);
        changed = true;
      } else {
        blocks.push_back(nb->isDataflow() ? make<BindingBlock>(std::move(bindings), false) : nb);
      }
    }
    Expr body = mutate(s->body);
    if (!changed && body.same(s->body)) return s;
    auto out = make<SeqExpr>(std::move(blocks), body);
    out->sinfo = s->sinfo;
    out->span = s->span;
    return out;
  }
};

}  // namespace

Result<Pass> createToNonDataflowPass(PassOptions&) { return makeMutatorPass<ToNonDataflowMutator>({"ToNonDataflow", 0, {}}); }

}  // namespace rlx
