// Field-by-field copies of TIR nodes (IR objects are not copyable: they carry a reference count),
// for schedule steps that rebuild a loop, block or kernel with one part changed.
#pragma once
#include <functional>

#include "ir/tir.h"

namespace rlx {

inline Ref<For> copyFor(const For& f, Stmt body, For::LoopKind kind) {
  auto p = make<For>();
  p->loopVar = f.loopVar;
  p->min = f.min;
  p->extent = f.extent;
  p->loopKind = kind;
  p->body = std::move(body);
  p->threadTag = f.threadTag;
  p->annotations = f.annotations;
  p->span = f.span;
  return p;
}

inline TirBlockRef copyBlock(const TirBlock& old) {
  auto blk = make<TirBlock>();
  blk->name = old.name;
  blk->iterVars = old.iterVars;
  blk->reads = old.reads;
  blk->writes = old.writes;
  blk->init = old.init;
  blk->body = old.body;
  blk->allocBuffers = old.allocBuffers;
  blk->matchBuffers = old.matchBuffers;
  blk->annotations = old.annotations;
  blk->span = old.span;
  return blk;
}

inline Ref<BlockRealize> copyRealize(const BlockRealize& r, TirBlockRef block) {
  auto out = make<BlockRealize>();
  out->iterValues = r.iterValues;
  out->predicate = r.predicate;
  out->block = std::move(block);
  out->span = r.span;
  return out;
}

// The SeqStmt `s` with each statement replaced by f(statement); `s` itself when none changes.
inline Stmt mapSeq(const Stmt& s, const std::function<Stmt(const Stmt&)>& f) {
  std::vector<Stmt> out;
  bool changed = false;
  for (auto& x : static_cast<const SeqStmt&>(*s).seq) {
    out.push_back(f(x));
    changed |= out.back().get() != x.get();
  }
  return changed ? Stmt(make<SeqStmt>(std::move(out))) : s;
}

// The BufferStore `s` with its value and indices replaced by f(expr); `s` itself when none changes.
inline Stmt mapStore(const Stmt& s, const std::function<PrimExpr(const PrimExpr&)>& f) {
  auto& st = static_cast<const BufferStore&>(*s);
  PrimExpr value = f(st.value);
  bool changed = value.get() != st.value.get();
  std::vector<PrimExpr> indices;
  for (auto& i : st.indices) {
    indices.push_back(f(i));
    changed |= indices.back().get() != i.get();
  }
  if (!changed) return s;
  auto out = make<BufferStore>(st.buffer, value, std::move(indices));
  out->span = st.span;
  return out;
}

inline PrimFuncRef withBody(const PrimFunc& func, Stmt body) { return withPrimFuncBody(func, std::move(body)); }

// The root block of a kernel (the block without iter vars its body realizes, holding the top-level
// loop nests and the intermediate buffers); null when the body is not such a block.
inline const TirBlock* rootBlock(const PrimFunc& func) {
  if (!func.body || func.body->kind() != NodeKind::BlockRealize) return nullptr;
  const TirBlock* rb = static_cast<const BlockRealize&>(*func.body).block.get();
  return rb->iterVars.empty() && rb->body ? rb : nullptr;
}

// The statements of a block body: a SeqStmt's list, else the one statement.
inline std::vector<Stmt> statementsOf(const Stmt& body) {
  return body->kind() == NodeKind::SeqStmt ? static_cast<const SeqStmt&>(*body).seq : std::vector<Stmt>{body};
}

// A block body of these statements: the one statement, else a SeqStmt.
inline Stmt sequence(std::vector<Stmt> seq) { return seq.size() == 1 ? seq[0] : Stmt(make<SeqStmt>(std::move(seq))); }

// `func` with its root block (rootBlock) replaced.
inline PrimFuncRef withRootBlock(const PrimFunc& func, TirBlockRef block) {
  return withBody(func, copyRealize(static_cast<const BlockRealize&>(*func.body), std::move(block)));
}

// A schedule step over the root block's statements and intermediate buffers: `edit` changes them in
// place and says whether it did; `func` itself comes back when it did not (or there is no root
// block of several statements).
inline PrimFuncRef editRootSequence(const PrimFuncRef& func, const std::function<bool(std::vector<Stmt>&, std::vector<BufferRef>&)>& edit) {
  const TirBlock* rb = rootBlock(*func);
  if (!rb || rb->body->kind() != NodeKind::SeqStmt) return func;
  std::vector<Stmt> seq = statementsOf(rb->body);
  std::vector<BufferRef> allocs = rb->allocBuffers;
  if (!edit(seq, allocs)) return func;
  auto blk = copyBlock(*rb);
  blk->body = sequence(std::move(seq));
  blk->allocBuffers = std::move(allocs);
  return withRootBlock(*func, blk);
}

}  // namespace rlx
