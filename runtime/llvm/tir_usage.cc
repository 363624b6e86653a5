// What TIR statements do with buffers (tir_usage.h): use counts over statement lists, and the
// recognizer of loop nests that overwrite a whole buffer.
#include "runtime/llvm/tir_usage.h"

#include <algorithm>

#include "ir/prim_expr_map.h"
#include "ir/struct_info.h"

namespace rlx {

bool isTrue(const PrimExpr& e) {
  auto* imm = e ? asIntImm(e) : nullptr;
  return !e || (imm && imm->value == 1);
}

bool isZero(const PrimExpr& e) {
  auto* imm = e ? asIntImm(e) : nullptr;
  return imm && imm->value == 0;
}

bool isReduction(const TirBlock& b) {
  if (b.init) return true;
  for (auto& iv : b.iterVars)
    if (iv.kind != IterVar::DataPar) return true;
  return false;
}

bool compact(const Buffer& b) { return b.strides.empty() && (!b.elemOffset || isZero(b.elemOffset)); }

namespace {

// A load in `b` that does not vary with some spatial iter var of b (reads one element many times).
bool broadcast(const BufferLoad& l, const TirBlock& b) {
  for (auto& iv : b.iterVars) {
    if (iv.kind != IterVar::DataPar) continue;
    if (std::none_of(l.indices.begin(), l.indices.end(), [&](const PrimExpr& i) { return mentions(i, iv.var.get()); })) return true;
  }
  return false;
}

// A load in reduction block `b` with an index that mentions both a spatial and a reduction iter var.
bool window(const BufferLoad& l, const TirBlock& b) {
  auto mentionsKind = [&](const PrimExpr& i, bool spatial) {
    return std::any_of(b.iterVars.begin(), b.iterVars.end(), [&](const IterVar& iv) { return (iv.kind == IterVar::DataPar) == spatial && mentions(i, iv.var.get()); });
  };
  return std::any_of(l.indices.begin(), l.indices.end(), [&](const PrimExpr& i) { return mentionsKind(i, true) && mentionsKind(i, false); });
}

}  // namespace

void forEachLoad(const PrimExpr& e, const std::function<void(const BufferLoad&)>& f) {
  if (!e) return;
  if (e->kind() == NodeKind::BufferLoad) f(static_cast<const BufferLoad&>(*e));
  forEachOperand(e, [&](const PrimExpr& x) { forEachLoad(x, f); });
}

void Usage::expr(const PrimExpr& e, const TirBlock* block) {
  if (!e) return;
  if (e->kind() == NodeKind::PrimVar) vars.insert(static_cast<const PrimVar*>(e.get()));
  if (e->kind() == NodeKind::BufferLoad) {
    auto& l = static_cast<const BufferLoad&>(*e);
    ++loads[l.buffer.get()];
    if (block && isReduction(*block)) ++reductionLoads[l.buffer.get()];
    if (block && isReduction(*block) && window(l, *block)) ++windowLoads[l.buffer.get()];
    if (block && broadcast(l, *block)) ++broadcastLoads[l.buffer.get()];
  }
  forEachOperand(e, [&](const PrimExpr& x) { expr(x, block); });
}

void Usage::stmt(const Stmt& s, const TirBlock* block) {
  if (!s) return;
  switch (s->kind()) {
    case NodeKind::BufferStore: {
      auto& st = static_cast<const BufferStore&>(*s);
      stored.insert(st.buffer.get());
      expr(st.value, block);
      for (auto& i : st.indices) expr(i, block);
      return;
    }
    case NodeKind::SeqStmt:
      for (auto& x : static_cast<const SeqStmt&>(*s).seq) stmt(x, block);
      return;
    case NodeKind::For: {
      auto& f = static_cast<const For&>(*s);
      vars.insert(f.loopVar.get());
      expr(f.min, block), expr(f.extent, block), stmt(f.body, block);
      return;
    }
    case NodeKind::IfThenElse: {
      auto& i = static_cast<const IfThenElse&>(*s);
      expr(i.cond, block), stmt(i.thenCase, block), stmt(i.elseCase, block);
      return;
    }
    case NodeKind::LetStmt: {
      auto& l = static_cast<const LetStmt&>(*s);
      expr(l.value, block), stmt(l.body, block);
      return;
    }
    case NodeKind::Evaluate: expr(static_cast<const Evaluate&>(*s).value, block); return;
    case NodeKind::AssertStmt: {
      auto& a = static_cast<const AssertStmt&>(*s);
      expr(a.cond, block), expr(a.message, block), stmt(a.body, block);
      return;
    }
    case NodeKind::BlockRealize: {
      auto& r = static_cast<const BlockRealize&>(*s);
      for (auto& v : r.iterValues) expr(v, block);
      expr(r.predicate, block);
      const TirBlock& b = *r.block;
      for (auto& iv : b.iterVars) expr(iv.dom.min, &b), expr(iv.dom.extent, &b);
      for (auto& m : b.matchBuffers) matched.insert(m.source.buffer.get());
      stmt(b.init, &b), stmt(b.body, &b);
      return;
    }
    default:
      // A statement kind not analysed here: make every buffer it could touch look opaque.
      matched.insert(nullptr);
      return;
  }
}

Usage usageOf(const std::vector<Stmt>& seq, size_t begin, size_t end) {
  Usage u;
  for (size_t i = begin; i < end; ++i) u.stmt(seq[i], nullptr);
  return u;
}

std::optional<NestWrite> fullWriteNest(const Stmt& s) {
  NestWrite w;
  Stmt cur = s;
  std::vector<const For*> loops;
  while (cur && cur->kind() == NodeKind::For) {
    auto* f = static_cast<const For*>(cur.get());
    if (f->loopKind != For::Serial || !isZero(f->min)) return std::nullopt;
    loops.push_back(f);
    w.loopVars.push_back(f->loopVar.get());
    cur = f->body;
  }
  if (!cur || cur->kind() != NodeKind::BlockRealize) return std::nullopt;
  auto& r = static_cast<const BlockRealize&>(*cur);
  const TirBlock& b = *r.block;
  if (!isTrue(r.predicate) || !b.allocBuffers.empty() || !b.matchBuffers.empty()) return std::nullopt;
  const Stmt& first = b.init ? b.init : b.body;
  if (!first || first->kind() != NodeKind::BufferStore) return std::nullopt;
  auto& store = static_cast<const BufferStore&>(*first);
  const Buffer& t = *store.buffer;
  if (!compact(t) || store.indices.size() != t.shape.size()) return std::nullopt;
  // Every iter var runs over [0, extent) with a whole loop of its own.
  size_t n = b.iterVars.size();
  if (r.iterValues.size() != n || loops.size() != n) return std::nullopt;
  for (size_t k = 0; k < n; ++k) {
    const IterVar& iv = b.iterVars[k];
    auto* loopVar = r.iterValues[k]->kind() == NodeKind::PrimVar ? static_cast<const PrimVar*>(r.iterValues[k].get()) : nullptr;
    auto at = std::find(w.loopVars.begin(), w.loopVars.end(), loopVar);
    if (at == w.loopVars.end() || !isZero(iv.dom.min) || !exprDeepEqual(loops[size_t(at - w.loopVars.begin())]->extent, iv.dom.extent)) return std::nullopt;
    for (size_t j = 0; j < k; ++j)
      if (r.iterValues[j].get() == loopVar) return std::nullopt;
  }
  // Each index of the store a distinct spatial iter var over its dim's whole extent.
  std::vector<const PrimVar*> used;
  for (size_t d = 0; d < store.indices.size(); ++d) {
    auto it = std::find_if(b.iterVars.begin(), b.iterVars.end(), [&](const IterVar& iv) { return iv.var.get() == store.indices[d].get(); });
    if (it == b.iterVars.end() || it->kind != IterVar::DataPar || !exprDeepEqual(it->dom.extent, t.shape[d])) return std::nullopt;
    if (std::find(used.begin(), used.end(), it->var.get()) != used.end()) return std::nullopt;
    used.push_back(it->var.get());
  }
  w.block = &b;
  w.store = &store;
  return w;
}

}  // namespace rlx
