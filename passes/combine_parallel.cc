// combineParallelBranches: rebuilds each planned dataflow block through a BlockBuilder so that the
// combined computation is normalized (its nested calls bound to fresh vars) in place.
#include "passes/combine_parallel.h"

#include <unordered_map>
#include <unordered_set>

#include "ir/block_builder.h"
#include "ir/expr_mutator.h"
#include "ir/expr_walk.h"
#include "passes/remove_all_unused.h"

namespace rlx {

namespace {

class BlockCombiner : public ExprMutator {
 public:
  explicit BlockCombiner(const CombinationPlanner& plan) : plan_(plan) {}

 protected:
  BlockRef visitBlock(const BlockRef& b) override {
    BlockRef block = ExprMutator::visitBlock(b);
    if (!block || !block->isDataflow()) return block;
    std::vector<ParallelCombination> combos = plan_(*block);
    if (combos.empty()) return block;
    if (auto out = rebuild(*block, combos)) return out;
    return block;
  }

 private:
  // The rebuilt block, or null when a combined expression does not normalize (then nothing changes).
  BlockRef rebuild(const BindingBlock& block, const std::vector<ParallelCombination>& combos) {
    std::unordered_map<const Var*, std::pair<size_t, size_t>> outputOf;  // var -> (combo, field)
    for (size_t c = 0; c < combos.size(); ++c)
      for (size_t f = 0; f < combos[c].outputs.size(); ++f) outputOf[combos[c].outputs[f].get()] = {c, f};
    std::unordered_map<const Var*, size_t> position;
    for (size_t k = 0; k < block.bindings.size(); ++k) position[block.bindings[k]->var.get()] = k;

    BlockBuilder bb;
    bb.beginBlock(true);
    std::vector<bool> emitted(block.bindings.size(), false);
    std::vector<Expr> tuples(combos.size());
    bool cyclic = false;  // a combined expression needs one of the branches it replaces
    // Emits binding k after the later bindings its value needs (TVM's EmitUsedVars).
    std::function<void(size_t)> emitWithDeps = [&](size_t k) {
      if (emitted[k]) return;
      if (outputOf.count(block.bindings[k]->var.get())) {
        cyclic = true;
        return;
      }
      emitted[k] = true;
      for (auto& v : freeVars(block.bindings[k]->value))
        if (auto it = position.find(v.get()); it != position.end() && it->second > k) emitWithDeps(it->second);
      bb.addBinding(block.bindings[k]);
    };
    for (size_t k = 0; k < block.bindings.size(); ++k) {
      if (emitted[k]) continue;
      auto& b = block.bindings[k];
      auto it = outputOf.find(b->var.get());
      if (it == outputOf.end()) {
        emitWithDeps(k);
        continue;
      }
      emitted[k] = true;
      auto [c, field] = it->second;
      if (!tuples[c]) {
        for (auto& v : freeVars(combos[c].combined))
          if (auto p = position.find(v.get()); p != position.end() && p->second > k) emitWithDeps(p->second);
        if (cyclic) return nullptr;
        auto var = bb.emit(combos[c].combined, "", b->span);
        if (!var.ok()) return nullptr;
        tuples[c] = var.value();
      }
      auto item = make<TupleGetItem>(tuples[c], int(field));
      auto normalized = bb.normalize(item);
      if (!normalized.ok()) return nullptr;
      // The var keeps its struct info: the field has the branch's shape by construction, and a
      // split of a symbolic extent infers min/max forms later ops could not match again.
      auto nb = make<Binding>(b->var, normalized.value());
      nb->span = b->span;
      bb.addBinding(nb);
    }
    return bb.endBlock();
  }

  const CombinationPlanner& plan_;
};

}  // namespace

Expr combineParallelBranches(const Expr& func, const CombinationPlanner& plan) {
  BlockCombiner combiner(plan);
  Expr out = combiner.mutate(func);
  return out.same(func) ? func : removeAllUnused(out);
}

}  // namespace rlx
