// The CPU schedule: element-wise stages fold into their readers, float32 matmul nests become GEMM calls,
// other reductions move outside their innermost spatial loop, and safe outer loops run in parallel.
#include "runtime/llvm/schedule.h"

#include <optional>

#include "ir/prim_expr_map.h"
#include "runtime/llvm/schedule_gemm.h"
#include "runtime/llvm/schedule_inline.h"
#include "runtime/llvm/tir_copy.h"

namespace rlx {

namespace {

// Whether running the iterations of the loop over `v` concurrently keeps `s`'s meaning.
bool parallelSafe(const Stmt& s, const PrimVar* v) {
  if (!s) return true;
  switch (s->kind()) {
    case NodeKind::SeqStmt:
      for (auto& x : static_cast<const SeqStmt&>(*s).seq)
        if (!parallelSafe(x, v)) return false;
      return true;
    case NodeKind::For: {
      auto& f = static_cast<const For&>(*s);
      return !mentions(f.min, v) && !mentions(f.extent, v) && parallelSafe(f.body, v);
    }
    case NodeKind::BlockRealize: {
      auto& r = static_cast<const BlockRealize&>(*s);
      const TirBlock& b = *r.block;
      bool bound = false;
      for (size_t k = 0; k < r.iterValues.size() && k < b.iterVars.size(); ++k) {
        if (!mentions(r.iterValues[k], v)) continue;
        if (r.iterValues[k].get() != v || b.iterVars[k].kind != IterVar::DataPar) return false;
        bound = true;
      }
      // A block that does not bind the loop would run whole in every iteration: a race.
      return bound && b.allocBuffers.empty() && b.matchBuffers.empty();
    }
    default: return false;  // stores, lets, asserts, ... outside blocks: not analysed
  }
}

// The iter var kind a block binds `v` to when the binding is exactly `v`; nullopt when the block
// uses `v` any other way (or not at all).
std::optional<IterVar::Kind> exactBinding(const BlockRealize& r, const PrimVar* v) {
  std::optional<IterVar::Kind> kind;
  for (size_t k = 0; k < r.iterValues.size() && k < r.block->iterVars.size(); ++k) {
    if (!mentions(r.iterValues[k], v)) continue;
    if (r.iterValues[k].get() != v || kind) return std::nullopt;
    kind = r.block->iterVars[k].kind;
  }
  return kind;
}

// A perfect nest `for i: ... for j: for k: block` whose innermost loop is a reduction (k) right inside a
// spatial loop (j) becomes `... for k: for j: block`: each output element still sums in k's order
// (the same values as before), but the inner loop now runs along the output's contiguous j, which
// the loop vectorizer can vectorize (a float reduction along k it cannot, without reassociation).
Stmt reductionOutward(const Stmt& s) {
  std::vector<const For*> nest;
  Stmt cur = s;
  while (cur && cur->kind() == NodeKind::For) {
    nest.push_back(static_cast<const For*>(cur.get()));
    cur = nest.back()->body;
  }
  // Only below an outer loop, which stays outermost (and parallel).
  if (nest.size() < 3 || !cur || cur->kind() != NodeKind::BlockRealize) return s;
  auto& r = static_cast<const BlockRealize&>(*cur);
  const For& j = *nest[nest.size() - 2];
  const For& k = *nest.back();
  if (j.loopKind != For::Serial || k.loopKind != For::Serial) return s;
  if (exactBinding(r, k.loopVar.get()) != IterVar::CommReduce || exactBinding(r, j.loopVar.get()) != IterVar::DataPar) return s;
  if (mentions(k.min, j.loopVar.get()) || mentions(k.extent, j.loopVar.get())) return s;
  Stmt swapped = copyFor(k, copyFor(j, k.body, For::Serial), For::Serial);
  for (size_t i = nest.size() - 2; i-- > 0;) swapped = copyFor(*nest[i], swapped, nest[i]->loopKind);
  return swapped;
}

Stmt schedule(const Stmt& s) {
  if (!s) return s;
  switch (s->kind()) {
    case NodeKind::SeqStmt: {
      auto& seq = static_cast<const SeqStmt&>(*s);
      std::vector<Stmt> out;
      bool changed = false;
      for (auto& x : seq.seq) {
        out.push_back(schedule(x));
        changed |= out.back().get() != x.get();
      }
      return changed ? Stmt(make<SeqStmt>(std::move(out))) : s;
    }
    case NodeKind::For: {
      if (Stmt gemm = lowerMatmulNest(s)) return gemm;
      Stmt nest = reductionOutward(s);
      auto& f = static_cast<const For&>(*nest);
      if (f.loopKind != For::Serial) return nest;
      // A loop of one iteration (a batch of 1) would give all the work to one thread: the loop
      // inside it is the one to run in parallel.
      auto* unit = asIntImm(f.extent);
      if (unit && unit->value == 1 && f.body && f.body->kind() == NodeKind::For) {
        Stmt inner = schedule(f.body);
        return inner.get() == f.body.get() ? nest : Stmt(copyFor(f, inner, For::Serial));
      }
      if (!parallelSafe(f.body, f.loopVar.get())) return nest;
      return copyFor(f, f.body, For::Parallel);
    }
    case NodeKind::BlockRealize: {
      // The root block (no iter vars) holds the loop nests.
      auto& r = static_cast<const BlockRealize&>(*s);
      if (!r.block->iterVars.empty()) return s;
      Stmt body = schedule(r.block->body);
      if (body.get() == r.block->body.get()) return s;
      auto blk = copyBlock(*r.block);
      blk->body = body;
      return copyRealize(r, blk);
    }
    default: return s;
  }
}

}  // namespace

PrimFuncRef scheduleForCpu(const PrimFuncRef& func) {
  PrimFuncRef inlined = inlineElementwiseStages(func);
  Stmt body = schedule(inlined->body);
  if (body.get() == inlined->body.get()) return inlined;
  return withBody(*inlined, body);
}

}  // namespace rlx
