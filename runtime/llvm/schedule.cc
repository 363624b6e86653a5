// The CPU schedule: element-wise stages fold into their readers, float32 matmul nests and 32-bit
// transposes become runtime calls, other reductions take a vectorizable loop order, outer loops run in parallel.
#include "runtime/llvm/schedule.h"

#include "ir/prim_expr_map.h"
#include "ir/tir_empty_reduction.h"
#include "runtime/llvm/schedule_alloc.h"
#include "runtime/llvm/schedule_attention.h"
#include "runtime/llvm/schedule_bounds.h"
#include "runtime/llvm/schedule_epilogue.h"
#include "runtime/llvm/schedule_gemm.h"
#include "runtime/llvm/schedule_inline.h"
#include "runtime/llvm/schedule_partition.h"
#include "runtime/llvm/schedule_reduction.h"
#include "runtime/llvm/schedule_rows.h"
#include "runtime/llvm/schedule_transpose.h"
#include "runtime/llvm/schedule_window.h"
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

Stmt schedule(const Stmt& s) {
  if (!s) return s;
  switch (s->kind()) {
    case NodeKind::SeqStmt: return mapSeq(s, schedule);
    case NodeKind::For: {
      // A GEMM with its fused epilogue (schedule_epilogue.h) runs on the GEMM's threads.
      if (auto& a = static_cast<const For&>(*s).annotations; a && a->find(kGemmEpilogueAnnotation)) return s;
      if (Stmt gemm = lowerMatmulNest(s)) return gemm;
      if (Stmt transpose = lowerTransposeNest(s)) return transpose;
      if (Stmt parts = partitionBoundChecks(s)) return schedule(parts);
      Stmt nest = scheduleReductionNest(s);
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
  // A fused softmax attention kernel runs whole as one runtime call.
  if (PrimFuncRef attention = lowerSoftmaxAttention(func)) return attention;
  // A reduction nest that may run no iteration writes its init first (tir_empty_reduction.h).
  Stmt withInits = initEmptyReductions(func->body);
  PrimFuncRef complete = withInits.get() == func->body.get() ? func : withBody(*func, withInits);
  // Before the GEMM nests become opaque calls: their outputs are written first by their inits.
  PrimFuncRef inlined = fuseRowNests(fuseGemmEpilogues(markWrittenFirst(fusePaddedWindows(inlineElementwiseStages(complete)))));
  Stmt body = schedule(foldIndexDivisions(inlined->body));
  if (body.get() == inlined->body.get()) return inlined;
  return withBody(*inlined, body);
}

}  // namespace rlx
