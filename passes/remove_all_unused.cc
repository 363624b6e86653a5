// RemoveAllUnused (TVM's relax.analysis helper): drops every binding whose var is unused and whose
// value has no side effects, in a function, its nested functions and if-branches; empty blocks go.
#include "passes/remove_all_unused.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

#include "ir/expr_mutator.h"
#include "ir/expr_walk.h"
#include "ir/op.h"
#include "ir/struct_info.h"

namespace rlx {

namespace {

using VarSet = std::unordered_set<const Var*>;
using SymSet = std::unordered_set<const PrimVar*>;

// The symbolic vars a struct info mentions.
void noteSymbols(const StructInfo& s, SymSet& out) {
  std::vector<Ref<PrimVar>> vars;
  sinfoCollectVars(s, vars);
  for (auto& v : vars) out.insert(v.get());
}

void noteSInfoVars(const StructInfo& s, VarSet& used) {
  if (!s) return;
  if (auto t = s.as<TensorSInfo>()) {
    if (auto v = t->shape.as<Var>()) used.insert(v.get());
  } else if (auto tu = s.as<TupleSInfo>()) {
    for (auto& f : tu->fields) noteSInfoVars(f, used);
  }
}

void noteUses(const Expr& e, VarSet& used) {
  walkExpr(e, [&](const Expr& x) {
    if (auto v = x.as<Var>()) used.insert(v.get());
  });
}

bool hasSideEffects(const Binding& b, bool inDataflow) {
  if (b.isMatchCast()) return !inDataflow;
  const Expr& v = b.value;
  if (auto c = v.as<Call>()) {
    if (auto op = c->op.as<Op>()) return !op->info->pure;
    if (auto fs = sinfoOf(c->op).as<FuncSInfo>()) return !fs->isPure;
    return true;  // call_packed and unknown callees
  }
  return v->kind() == NodeKind::If;  // branches may hold impure calls; keep them (conservative)
}

Expr eliminate(const Expr& e);

// One backward sweep over a SeqExpr: a binding survives if its var is used later (or by the
// body), or if it has side effects.
Expr eliminateSeq(const Ref<SeqExpr>& seq) {
  VarSet used;
  noteUses(seq->body, used);
  // A match_cast that defines symbolic vars later struct info uses stays even when its var is
  // unused: it is where those vars get their values.
  SymSet usedSymbols;
  noteSymbols(sinfoOf(seq->body), usedSymbols);
  std::vector<BlockRef> blocks(seq->blocks.size());
  bool changed = false;
  for (size_t bi = seq->blocks.size(); bi-- > 0;) {
    const BlockRef& block = seq->blocks[bi];
    std::vector<BindingRef> kept;
    for (size_t i = block->bindings.size(); i-- > 0;) {
      const BindingRef& b = block->bindings[i];
      bool definesUsed = false;
      if (b->isMatchCast()) {
        SymSet defined;
        noteSymbols(b->castSInfo, defined);
        for (auto* v : defined) definesUsed |= usedSymbols.count(v) > 0;
      }
      if (!used.count(b->var.get()) && !hasSideEffects(*b, block->isDataflow()) && !definesUsed) {
        changed = true;
        continue;
      }
      BindingRef nb = b;
      Expr value = eliminate(b->value);  // nested functions and if-branches
      if (!value.same(b->value)) {
        nb = make<Binding>(b->var, value, b->castSInfo);
        nb->span = b->span;
        changed = true;
      }
      noteUses(nb->value, used);
      noteSInfoVars(nb->var->sinfo, used);
      noteSInfoVars(nb->castSInfo, used);
      noteSymbols(sinfoOf(nb->value), usedSymbols);
      if (!nb->isMatchCast()) noteSymbols(nb->var->sinfo, usedSymbols);
      kept.push_back(nb);
    }
    std::reverse(kept.begin(), kept.end());
    if (kept.size() != block->bindings.size() || changed) blocks[bi] = kept.empty() ? nullptr : make<BindingBlock>(std::move(kept), block->isDataflow());
    else blocks[bi] = block;
  }
  if (!changed) return seq;
  std::vector<BlockRef> nonEmpty;
  for (auto& b : blocks)
    if (b) nonEmpty.push_back(b);
  auto out = make<SeqExpr>(std::move(nonEmpty), seq->body);
  out->sinfo = seq->sinfo;
  out->span = seq->span;
  return out;
}

Expr eliminate(const Expr& e) {
  if (auto seq = e.as<SeqExpr>()) return eliminateSeq(seq);
  if (auto f = e.as<Function>()) {
    Expr body = eliminate(f->body);
    if (body.same(f->body)) return e;
    auto nf = make<Function>(f->params, body, f->retSInfo, f->isPure, f->attrs);
    nf->sinfo = f->sinfo;
    nf->span = f->span;
    return nf;
  }
  if (auto i = e.as<If>()) {
    Expr t = eliminate(i->thenBranch), el = eliminate(i->elseBranch);
    if (t.same(i->thenBranch) && el.same(i->elseBranch)) return e;
    auto ni = make<If>(i->cond, t, el);
    ni->sinfo = i->sinfo;
    ni->span = i->span;
    return ni;
  }
  return e;
}

}  // namespace

Expr removeAllUnused(const Expr& e) { return eliminate(e); }

Expr removeUnusedBindingsOf(const Expr& f, const std::unordered_set<const Var*>& vars) {
  std::unordered_set<const Var*> used;
  walkExpr(f, [&](const Expr& e) {
    if (auto v = e.as<Var>()) used.insert(v.get());
  });
  struct Dropper : ExprMutator {
    std::function<bool(const Var*)> dead;
    BlockRef visitBlock(const BlockRef& b) override {
      std::vector<BindingRef> kept;
      for (auto& x : b->bindings)
        if (!dead(x->var.get())) kept.push_back(x);
      if (kept.size() == b->bindings.size()) return b;
      if (kept.empty()) return nullptr;
      return make<BindingBlock>(std::move(kept), b->isDataflow());
    }
  } dropper;
  dropper.dead = [&](const Var* v) { return vars.count(v) && !used.count(v); };
  Expr out = dropper.mutate(f);
  // A dropped binding may have been the last use of another of `vars` (a chain folded whole).
  return out.same(f) ? out : removeUnusedBindingsOf(out, vars);
}

}  // namespace rlx
