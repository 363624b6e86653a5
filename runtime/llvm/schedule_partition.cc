// CPU schedule, loop partitioning at bound checks (schedule_partition.h): the comparisons of one
// iter var with constants in a stage's conditions give cut points; each part of the loops decides
// them, and the selects they guard fold to one branch.
#include "runtime/llvm/schedule_partition.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "ir/prim_expr_map.h"
#include "runtime/llvm/schedule_nest.h"
#include "runtime/llvm/tir_copy.h"

namespace rlx {

namespace {

// More parts than this and the copies of the body outweigh the checks they save.
constexpr int64_t kMaxParts = 27;

// Every atom in the conditions of `e`'s selects (through And, Or and Not), by node.
void collectAtoms(const PrimExpr& e, bool inCondition, std::unordered_map<const PrimExprNode*, BoundAtom>& out) {
  if (!e) return;
  if (inCondition) {
    auto k = e->kind();
    if (k == NodeKind::And || k == NodeKind::Or) {
      auto& b = static_cast<const PrimBinary&>(*e);
      collectAtoms(b.a, true, out), collectAtoms(b.b, true, out);
      return;
    }
    if (k == NodeKind::Not) return collectAtoms(static_cast<const PrimNot&>(*e).a, true, out);
    if (auto a = boundAtom(e)) out[e.get()] = *a;
    return;
  }
  if (e->kind() == NodeKind::Select) {
    auto& s = static_cast<const Select&>(*e);
    collectAtoms(s.cond, true, out), collectAtoms(s.trueValue, false, out), collectAtoms(s.falseValue, false, out);
    return;
  }
  if (e->kind() == NodeKind::PrimCall && static_cast<const PrimCall&>(*e).op == "tir.if_then_else") {
    auto& c = static_cast<const PrimCall&>(*e);
    if (c.args.size() == 3) {
      collectAtoms(c.args[0], true, out), collectAtoms(c.args[1], false, out), collectAtoms(c.args[2], false, out);
      return;
    }
  }
  forEachOperand(e, [&](const PrimExpr& x) { collectAtoms(x, false, out); });
}

struct LoopPart {
  int64_t begin, end;  // [begin, end)
};

// The rewrite of the stored value in one part: each atom decided by its var's range becomes a
// constant, then selects and logic on constants fold.
struct Decide {
  const std::unordered_map<const PrimExprNode*, BoundAtom>& atoms;
  const std::unordered_map<const PrimVar*, LoopPart>& ranges;

  std::optional<bool> truth(const BoundAtom& a) const {
    auto it = ranges.find(a.var);
    if (it == ranges.end()) return std::nullopt;
    const LoopPart& r = it->second;
    if (a.lower) return r.begin >= a.bound ? std::optional<bool>(true) : r.end <= a.bound ? std::optional<bool>(false) : std::nullopt;
    return r.end <= a.bound ? std::optional<bool>(true) : r.begin >= a.bound ? std::optional<bool>(false) : std::nullopt;
  }

  static std::optional<bool> constant(const PrimExpr& e) {
    auto* imm = e && e->dtype.isBool() ? asIntImm(e) : nullptr;
    return imm ? std::optional<bool>(imm->value != 0) : std::nullopt;
  }

  PrimExpr expr(const PrimExpr& e) const {
    if (!e) return e;
    if (auto it = atoms.find(e.get()); it != atoms.end())
      if (auto t = truth(it->second)) return boolImm(*t);
    PrimExpr m = mapOperands(e, [&](const PrimExpr& x) { return expr(x); });
    switch (m->kind()) {
      case NodeKind::And:
      case NodeKind::Or: {
        auto& b = static_cast<const PrimBinary&>(*m);
        bool isAnd = m->kind() == NodeKind::And;
        for (auto [x, y] : {std::pair{b.a, b.b}, std::pair{b.b, b.a}})
          if (auto c = constant(x)) return *c == isAnd ? y : boolImm(!isAnd);
        return m;
      }
      case NodeKind::Not:
        if (auto c = constant(static_cast<const PrimNot&>(*m).a)) return boolImm(!*c);
        return m;
      case NodeKind::Select: {
        auto& s = static_cast<const Select&>(*m);
        if (auto c = constant(s.cond)) return *c ? s.trueValue : s.falseValue;
        return m;
      }
      case NodeKind::PrimCall: {
        auto& c = static_cast<const PrimCall&>(*m);
        if (c.op == "tir.if_then_else" && c.args.size() == 3)
          if (auto t = constant(c.args[0])) return *t ? c.args[1] : c.args[2];
        return m;
      }
      default: return m;
    }
  }
};

}  // namespace

Stmt partitionBoundChecks(const Stmt& s) {
  auto pn = perfectNest(s);
  if (!pn || !pn->block->body || pn->block->body->kind() != NodeKind::BufferStore || pn->block->init) return nullptr;
  for (auto& iv : pn->block->iterVars)
    if (iv.kind != IterVar::DataPar) return nullptr;
  auto& store = static_cast<const BufferStore&>(*pn->block->body);
  std::unordered_map<const PrimExprNode*, BoundAtom> atoms;
  collectAtoms(store.value, false, atoms);
  if (atoms.empty()) return nullptr;
  // Cut points per loop, inside its constant extent.
  std::vector<std::vector<int64_t>> cuts(pn->loops.size());
  int64_t parts = 1;
  for (size_t k = 0; k < pn->block->iterVars.size(); ++k) {
    const For& loop = *pn->loops[pn->loopOf[k]];
    auto* extent = asIntImm(loop.extent);
    if (!extent) continue;
    std::set<int64_t> points;
    for (auto& [node, a] : atoms)
      if (a.var == pn->block->iterVars[k].var.get() && a.bound > 0 && a.bound < extent->value) points.insert(a.bound);
    cuts[pn->loopOf[k]].assign(points.begin(), points.end());
    parts *= int64_t(points.size()) + 1;
  }
  if (parts == 1 || parts > kMaxParts) return nullptr;
  // Iter var of each loop (the block binds each loop var to one iter var).
  std::vector<const PrimVar*> iterOf(pn->loops.size());
  for (size_t k = 0; k < pn->block->iterVars.size(); ++k) iterOf[pn->loopOf[k]] = pn->block->iterVars[k].var.get();
  std::unordered_map<const PrimVar*, LoopPart> ranges;
  // The loops from `depth` in, each split at its cuts.
  std::function<Stmt(size_t)> build = [&](size_t depth) -> Stmt {
    if (depth == pn->loops.size()) {
      Decide d{atoms, ranges};
      auto body = make<BufferStore>(store.buffer, d.expr(store.value), store.indices);
      body->span = store.span;
      auto blk = copyBlock(*pn->block);
      blk->body = body;
      return copyRealize(*pn->realize, blk);
    }
    const For& loop = *pn->loops[depth];
    auto* extent = asIntImm(loop.extent);
    std::vector<int64_t> bounds = {0};
    bounds.insert(bounds.end(), cuts[depth].begin(), cuts[depth].end());
    if (extent) bounds.push_back(extent->value);
    std::vector<Stmt> seq;
    for (size_t i = 0; i + 1 < bounds.size() || (!extent && i == 0); ++i) {
      Stmt inner;
      if (extent) {
        ranges[iterOf[depth]] = LoopPart{bounds[i], bounds[i + 1]};
        inner = build(depth + 1);
        ranges.erase(iterOf[depth]);
      } else {
        inner = build(depth + 1);
      }
      auto f = copyFor(loop, inner, loop.loopKind);
      if (extent) f->min = intImm(bounds[i], loop.loopVar->dtype), f->extent = intImm(bounds[i + 1] - bounds[i], loop.loopVar->dtype);
      seq.push_back(f);
    }
    return seq.size() == 1 ? seq[0] : Stmt(make<SeqStmt>(std::move(seq)));
  };
  return build(0);
}

}  // namespace rlx
