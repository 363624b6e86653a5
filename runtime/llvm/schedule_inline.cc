// CPU schedule, compute inlining: FuseTIR leaves one loop nest and one full-size intermediate buffer
// per fused op; folding element-wise stages into their readers makes the chain one pass over memory.
#include "runtime/llvm/schedule_inline.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "ir/prim_expr_map.h"
#include "ir/struct_info.h"
#include "ir/tir_rewrite.h"
#include "runtime/llvm/tir_copy.h"
#include "runtime/llvm/tir_usage.h"

namespace rlx {

namespace {

// A stage's expression is inlined only below this size (counted as a tree, as codegen emits it),
// so that chains like x1 = x0 * x0, x2 = x1 * x1, ... cannot grow exponentially.
constexpr int64_t kMaxInlinedSize = 192;
// A transcendental stage of at least this many elements (1 MB) is recomputed by two readers.
constexpr int64_t kRecomputeElements = int64_t(1) << 18;

// The number of elements of a buffer (0 when a dim is symbolic).
int64_t elementCount(const Buffer& b) {
  int64_t n = 1;
  for (auto& d : b.shape) {
    auto k = d.as<IntImm>();
    if (!k) return 0;
    n *= k->value;
  }
  return n;
}

// A top-level nest `for v0, .., vn: block: T[v0, .., vn] = value` that writes every element of the
// intermediate T exactly once, index k being iter var k (the Inliner maps them back by position).
std::optional<NestWrite> elementwiseStage(const Stmt& s, const std::vector<BufferRef>& allocs) {
  auto w = fullWriteNest(s);
  if (!w || isReduction(*w->block)) return std::nullopt;
  const Buffer* t = w->store->buffer.get();
  if (std::none_of(allocs.begin(), allocs.end(), [&](const BufferRef& a) { return a.get() == t; })) return std::nullopt;
  if (w->store->indices.size() != w->block->iterVars.size()) return std::nullopt;
  for (size_t k = 0; k < w->store->indices.size(); ++k)
    if (w->store->indices[k].get() != w->block->iterVars[k].var.get()) return std::nullopt;
  return w;
}

bool hasCall(const PrimExpr& e) {
  if (!e) return false;
  if (e->kind() == NodeKind::PrimCall && static_cast<const PrimCall&>(*e).op != "tir.if_then_else") return true;
  bool found = false;
  forEachOperand(e, [&](const PrimExpr& x) { found = found || hasCall(x); });
  return found;
}

// Whether e chooses between values (T.if_then_else or Select): a padding's bounds check.
bool hasSelect(const PrimExpr& e) {
  if (!e) return false;
  if (e->kind() == NodeKind::Select || (e->kind() == NodeKind::PrimCall && static_cast<const PrimCall&>(*e).op == "tir.if_then_else")) return true;
  bool found = false;
  forEachOperand(e, [&](const PrimExpr& x) { found = found || hasSelect(x); });
  return found;
}

// Replaces every load of one buffer by the stage's value at the load's indices.
struct Inliner {
  const Buffer* target;
  const TirBlock* stage;
  PrimExpr value;

  PrimVarMap indexMap(const std::vector<PrimExpr>& indices) const {
    PrimVarMap map;
    for (size_t k = 0; k < indices.size(); ++k) map[stage->iterVars[k].var.get()] = indices[k];
    return map;
  }

  PrimExpr expr(const PrimExpr& e) const {
    if (!e) return e;
    PrimExpr m = mapOperands(e, [&](const PrimExpr& x) { return expr(x); });
    if (m->kind() != NodeKind::BufferLoad || static_cast<const BufferLoad&>(*m).buffer.get() != target) return m;
    return primSubstitute(value, indexMap(static_cast<const BufferLoad&>(*m).indices));
  }

  // The stage's read regions in place of the target's: mapped to the reader's point when the reader
  // reads one element, else the whole of each buffer the stage reads.
  std::vector<BufferRegion> reads(const std::vector<BufferRegion>& rs) const {
    std::vector<BufferRegion> out;
    for (auto& r : rs) {
      if (r.buffer.get() != target) {
        out.push_back(r);
        continue;
      }
      bool point = std::all_of(r.region.begin(), r.region.end(), [](const Range& x) {
        auto* one = x.extent ? asIntImm(x.extent) : nullptr;
        return one && one->value == 1;
      });
      std::vector<PrimExpr> at;
      for (auto& x : r.region) at.push_back(x.min);
      for (auto& sr : stage->reads) {
        BufferRegion mapped{sr.buffer, {}};
        for (size_t d = 0; d < sr.region.size(); ++d) {
          if (point) mapped.region.push_back({primSubstitute(sr.region[d].min, indexMap(at)), sr.region[d].extent});
          else mapped.region.push_back({make<IntImm>(DataType::int64(), 0), d < sr.buffer->shape.size() ? sr.buffer->shape[d] : sr.region[d].extent});
        }
        out.push_back(std::move(mapped));
      }
    }
    return out;
  }

  // The statement with the target's loads replaced (tir_rewrite.h) and its read regions mapped.
  Stmt stmt(const Stmt& s) const {
    TirRewriter r;
    r.expr = [this](const PrimExpr& e) { return expr(e); };
    r.regions = [this](const std::vector<BufferRegion>& rs) { return reads(rs); };
    return r.stmt(s);
  }
};

// Inlines (or drops, when nothing reads it) the stage at seq[p]; false when it must stay.
bool foldStage(std::vector<Stmt>& seq, size_t p, std::vector<BufferRef>& allocs) {
  auto stage = elementwiseStage(seq[p], allocs);
  if (!stage) return false;
  const Buffer* t = stage->store->buffer.get();
  Usage before = usageOf(seq, 0, p), after = usageOf(seq, p + 1, seq.size());
  if (before.loads.count(t) || before.stored.count(t) || before.opaque(t)) return false;
  if (after.stored.count(t) || after.opaque(t)) return false;
  const PrimExpr& value = stage->store->value;
  int sites = after.loads.count(t) ? after.loads.at(t) : 0;
  if (sites > 0) {
    Usage own;
    own.expr(value, nullptr);
    for (auto* v : stage->loopVars)
      if (mentions(value, v)) return false;  // the value must depend on the block's iter vars only
    for (auto& [buf, n] : own.loads)
      if (buf == t || after.stored.count(buf) || after.opaque(buf)) return false;
    int64_t size = treeSize(value, kMaxInlinedSize);
    if (size > kMaxInlinedSize || size * sites > 4 * kMaxInlinedSize) return false;
    // Reductions keep operands that they broadcast as buffers: a GEMM nest is recognized by its plain
    // loads, and such a reduction reads each element once per output. One that reads each element
    // once (softmax's sum of exps, a variance's squares) takes the value like any other reader.
    // A plain copy (a convolution's pad_temp without padding) stays a plain load when inlined, so
    // it is inlined there too: the GEMM reads the source in place instead of a copy of it.
    bool copy = value->kind() == NodeKind::BufferLoad;
    if (!copy && after.reductionLoads.count(t) && after.broadcastLoads.count(t)) return false;
    // A padded input that a window slides over (a depthwise convolution's or a pool's pad_temp) is
    // read window-size times per element: its bounds checks are made once, and the window reads
    // plain loads (a depthwise convolution then runs as rlx_sgemm's window kernel).
    if (!copy && after.windowLoads.count(t) && hasSelect(value)) return false;
    // A transcendental stays computed once per element (one reader, reading each element once),
    // or twice when its buffer is large: softmax's exp is read by the sum and by the normalization,
    // and recomputing a vector exp costs far less than writing and reading back a buffer of
    // megabytes (Whisper's 6x1500x1500 scores: 54 MB per layer).
    if (hasCall(value) && (sites > 2 || (sites == 2 && elementCount(*t) < kRecomputeElements) || after.broadcastLoads.count(t))) return false;
    Inliner in{t, stage->block, value};
    for (size_t q = p + 1; q < seq.size(); ++q) seq[q] = in.stmt(seq[q]);
  }
  seq.erase(seq.begin() + std::ptrdiff_t(p));
  allocs.erase(std::find_if(allocs.begin(), allocs.end(), [&](const BufferRef& a) { return a.get() == t; }));
  return true;
}

}  // namespace

PrimFuncRef inlineElementwiseStages(const PrimFuncRef& func) {
  return editRootSequence(func, [](std::vector<Stmt>& seq, std::vector<BufferRef>& allocs) {
    bool changed = false;
    for (size_t p = 0; p < seq.size();) {
      if (foldStage(seq, p, allocs)) changed = true;
      else ++p;
    }
    return changed;
  });
}

}  // namespace rlx
