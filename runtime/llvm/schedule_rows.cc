// CPU schedule, row fusion (schedule_rows.h): runs of nests that share their leading loops and pass
// data only within a row are fused under those loops.
#include "runtime/llvm/schedule_rows.h"

#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "ir/prim_expr_map.h"
#include "ir/struct_info.h"
#include "runtime/llvm/schedule_epilogue.h"
#include "runtime/llvm/schedule_gemm.h"
#include "runtime/llvm/schedule_reduction.h"
#include "runtime/llvm/schedule_transpose.h"
#include "runtime/llvm/tir_copy.h"
#include "runtime/llvm/tir_usage.h"

namespace rlx {

namespace {

// The fewest iterations a nest may keep below the shared loops.
constexpr int64_t kMinRowLength = 64;

// One top-level nest: its loops, its block, and how many leading loops it could share (each bound
// unchanged to a data-parallel iter var, serial, from 0).
struct Nest {
  Stmt stmt;
  std::vector<const For*> loops;
  const BlockRealize* realize = nullptr;
  size_t rowLoops = 0;
  std::vector<const PrimVar*> rowVars;  // the block var bound to each leading loop
};

std::optional<Nest> nestOf(const Stmt& s) {
  Nest n;
  n.stmt = s;
  Stmt inner = loopNest(s, n.loops);
  if (n.loops.empty() || !inner || inner->kind() != NodeKind::BlockRealize) return std::nullopt;
  n.realize = static_cast<const BlockRealize*>(inner.get());
  const TirBlock& b = *n.realize->block;
  // Plain stores only (the dependence test reads their indices), no block-local buffers.
  auto isStore = [](const Stmt& st) { return !st || st->kind() == NodeKind::BufferStore; };
  if (!isStore(b.body) || !b.body || !isStore(b.init) || !b.allocBuffers.empty() || !b.matchBuffers.empty()) return std::nullopt;
  if (n.loops.front()->annotations && n.loops.front()->annotations->find(kGemmEpilogueAnnotation)) return std::nullopt;
  if (matchMatmulNest(s) || lowerTransposeNest(s)) return std::nullopt;  // runtime calls, kept whole
  for (const For* f : n.loops) {
    auto zero = f->min.as<IntImm>();
    if (f->loopKind != For::Serial || !zero || zero->value != 0 || f->annotations) break;
    const PrimVar* bound = nullptr;
    bool exact = true;
    for (size_t k = 0; k < n.realize->iterValues.size() && k < b.iterVars.size(); ++k) {
      if (!mentions(n.realize->iterValues[k], f->loopVar.get())) continue;
      if (n.realize->iterValues[k].get() != f->loopVar.get() || b.iterVars[k].kind != IterVar::DataPar || bound) exact = false;
      bound = b.iterVars[k].var.get();
    }
    if (!exact || !bound || mentions(n.realize->predicate, f->loopVar.get())) break;
    // Later loops' bounds must not depend on it (they become the inner nest's own).
    bool used = false;
    for (const For* g : n.loops)
      if (g != f) used |= mentions(g->min, f->loopVar.get()) || mentions(g->extent, f->loopVar.get());
    if (used) break;
    n.rowVars.push_back(bound);
    ++n.rowLoops;
  }
  if (n.rowLoops == 0) return std::nullopt;
  return n;
}

// The leading indices of every access to `buf` in `n`: true when the first d are the row vars.
bool accessesRowLocal(const Nest& n, const Buffer* buf, size_t d) {
  auto rowLocal = [&](const std::vector<PrimExpr>& idx) {
    if (idx.size() < d) return false;
    for (size_t l = 0; l < d; ++l)
      if (idx[l].get() != n.rowVars[l]) return false;
    return true;
  };
  bool ok = true;
  const TirBlock& b = *n.realize->block;
  for (const Stmt* st : {&b.body, &b.init}) {
    if (!*st) continue;
    auto& store = static_cast<const BufferStore&>(**st);
    if (store.buffer.get() == buf) ok &= rowLocal(store.indices);
    forEachLoad(store.value, [&](const BufferLoad& l) {
      if (l.buffer.get() == buf) ok &= rowLocal(l.indices);
    });
    for (auto& i : store.indices) forEachLoad(i, [&](const BufferLoad& l) { ok &= l.buffer.get() != buf; });
  }
  return ok;
}

const Buffer* storedBuffer(const Nest& n) { return static_cast<const BufferStore&>(*n.realize->block->body).buffer.get(); }

bool readsOrWrites(const Nest& n, const Buffer* buf) {
  if (storedBuffer(n) == buf) return true;
  bool found = false;
  const TirBlock& b = *n.realize->block;
  for (const Stmt* st : {&b.body, &b.init})
    if (*st) forEachLoad(static_cast<const BufferStore&>(**st).value, [&](const BufferLoad& l) { found |= l.buffer.get() == buf; });
  return found;
}

// Whether the loops of `n` past the first d are all reductions or all data-parallel: the rests this
// pass schedules itself (scheduleRowReduction) or that need no schedule (a row's element-wise loop).
// A mixed rest (a depthwise convolution's window under its output row) keeps its own nest and
// schedule (schedule_reduction.h), which fusing would take from it.
bool uniformRest(const Nest& n, size_t d) {
  const BlockRealize& r = *n.realize;
  int kinds = 0;
  for (size_t l = d; l < n.loops.size(); ++l) {
    const PrimVar* v = n.loops[l]->loopVar.get();
    for (size_t k = 0; k < r.iterValues.size() && k < r.block->iterVars.size(); ++k)
      if (mentions(r.iterValues[k], v)) kinds |= r.block->iterVars[k].kind == IterVar::CommReduce ? 1 : 2;
  }
  if (kinds == 3) return false;
  // Long rows only: under a convolution's output pixel a 3x3 window is too short to run as a loop
  // of its own, and the nest's own schedule (outputs along the row, the window outside) is faster.
  int64_t iterations = 1;
  for (size_t l = d; l < n.loops.size(); ++l) {
    auto k = n.loops[l]->extent.as<IntImm>();
    if (!k) return true;  // a symbolic row length (a sequence): long
    iterations *= k->value;
  }
  return iterations >= kMinRowLength;
}

// Whether the run of nests may run row by row under d shared loops.
bool fusable(const std::vector<Nest>& nests, size_t d) {
  for (size_t p = 0; p < nests.size(); ++p) {
    if (nests[p].rowLoops < d || !uniformRest(nests[p], d)) return false;
    for (size_t l = 0; l < d; ++l)
      if (!exprDeepEqual(nests[p].loops[l]->extent, nests[0].loops[l]->extent)) return false;
  }
  for (size_t p = 0; p < nests.size(); ++p) {
    const Buffer* written = storedBuffer(nests[p]);
    bool shared = false;
    for (size_t q = 0; q < nests.size(); ++q) shared |= q != p && readsOrWrites(nests[q], written);
    if (!shared) continue;
    for (size_t q = 0; q < nests.size(); ++q)
      if (readsOrWrites(nests[q], written) && !accessesRowLocal(nests[q], written, d)) return false;
  }
  return true;
}

// Nest n below its first d loops, those loops' variables replaced by the fused nest's.
Stmt innerPart(const Nest& n, size_t d, const PrimVarMap& rename) {
  auto realize = copyRealize(*n.realize, n.realize->block);
  for (auto& v : realize->iterValues) v = primSubstitute(v, rename);
  realize->predicate = primSubstitute(realize->predicate, rename);
  Stmt body = realize;
  for (size_t k = n.loops.size(); k-- > d;) {
    auto f = copyFor(*n.loops[k], body, n.loops[k]->loopKind);
    f->min = primSubstitute(f->min, rename), f->extent = primSubstitute(f->extent, rename);
    body = f;
  }
  if (n.loops.size() > d) body = scheduleRowReduction(body);
  return body;
}

Stmt fuse(const std::vector<Nest>& nests, size_t d) {
  std::vector<Stmt> parts;
  for (const Nest& n : nests) {
    PrimVarMap rename;
    for (size_t l = 0; l < d; ++l) rename[n.loops[l]->loopVar.get()] = nests[0].loops[l]->loopVar;
    parts.push_back(innerPart(n, d, rename));
  }
  Stmt body = sequence(std::move(parts));
  for (size_t l = d; l-- > 0;) body = copyFor(*nests[0].loops[l], body, For::Serial);
  return body;
}

}  // namespace

PrimFuncRef fuseRowNests(const PrimFuncRef& func) {
  const TirBlock* rb = rootBlock(*func);
  if (!rb || !rb->body || rb->body->kind() != NodeKind::SeqStmt) return func;
  std::vector<Stmt> seq = statementsOf(rb->body);
  std::vector<std::optional<Nest>> parsed;
  for (auto& s : seq) parsed.push_back(nestOf(s));
  std::vector<Stmt> out;
  bool changed = false;
  for (size_t i = 0; i < seq.size();) {
    if (!parsed[i]) {
      out.push_back(seq[i++]);
      continue;
    }
    // The longest run from i, and the most shared loops it allows.
    std::vector<Nest> run = {*parsed[i]};
    size_t d = run[0].rowLoops, j = i + 1;
    for (; j < seq.size() && parsed[j]; ++j) {
      std::vector<Nest> longer = run;
      longer.push_back(*parsed[j]);
      size_t dd = std::min(d, parsed[j]->rowLoops);
      while (dd > 0 && !fusable(longer, dd)) --dd;
      if (dd == 0) break;
      run = std::move(longer), d = dd;
    }
    if (run.size() < 2) {
      out.push_back(seq[i++]);
      continue;
    }
    out.push_back(fuse(run, d));
    changed = true;
    i = j;
  }
  if (!changed) return func;
  auto blk = copyBlock(*rb);
  blk->body = sequence(std::move(out));
  return withRootBlock(*func, blk);
}

}  // namespace rlx
