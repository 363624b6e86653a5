// CPU schedule for reduction nests that are not GEMMs: k outside j when the loads stay contiguous
// along j, else the init hoisted and k's loop marked for a reassociated (vectorized) combiner.
#include "runtime/llvm/schedule_reduction.h"

#include <functional>
#include <optional>

#include "ir/prim_expr_map.h"
#include "ir/tir_empty_reduction.h"
#include "runtime/llvm/tir_copy.h"
#include "runtime/llvm/tir_usage.h"

namespace rlx {

namespace {

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

// The block's iter var bound exactly to loop variable `v`.
const PrimVar* blockVarOf(const BlockRealize& r, const PrimVar* v) {
  for (size_t k = 0; k < r.iterValues.size() && k < r.block->iterVars.size(); ++k)
    if (r.iterValues[k].get() == v) return r.block->iterVars[k].var.get();
  return nullptr;
}

bool sameIndices(const std::vector<PrimExpr>& x, const std::vector<PrimExpr>& y) {
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i)
    if (!exprDeepEqual(x[i], y[i])) return false;
  return true;
}

bool isAccumulator(const BufferLoad& l, const BufferStore& st) { return l.buffer.get() == st.buffer.get() && sameIndices(l.indices, st.indices); }

bool contiguousAlong(const BufferLoad& l, const PrimVar* v) { return !l.indices.empty() && l.indices.back().get() == v; }

// Whether `st` is `acc = acc OP x` (either side) with a combiner that may be reassociated and x
// not reading the accumulator's buffer.
bool reassociableUpdate(const BufferStore& st) {
  auto k = st.value->kind();
  if (k != NodeKind::Add && k != NodeKind::Mul && k != NodeKind::Min && k != NodeKind::Max) return false;
  auto& bin = static_cast<const PrimBinary&>(*st.value);
  for (const PrimExpr* side : {&bin.a, &bin.b}) {
    const PrimExpr& other = side == &bin.a ? bin.b : bin.a;
    if ((*side)->kind() != NodeKind::BufferLoad || !isAccumulator(static_cast<const BufferLoad&>(**side), st)) continue;
    bool readsAcc = false;
    forEachLoad(other, [&](const BufferLoad& l) { readsAcc |= l.buffer.get() == st.buffer.get(); });
    return !readsAcc;
  }
  return false;
}

Stmt rebuildOuter(const std::vector<const For*>& nest, size_t inner, Stmt body) {
  for (size_t i = inner; i-- > 0;) body = copyFor(*nest[i], body, nest[i]->loopKind);
  return body;
}

// `for j: {init block; for k (reassociate): update block}` in place of `for j: for k: block`.
Stmt decompose(const std::vector<const For*>& nest, const BlockRealize& r) {
  const TirBlock& blk = *r.block;
  const For& j = *nest[nest.size() - 2];
  const For& k = *nest.back();
  auto update = copyBlock(blk);
  update->init = nullptr;
  Stmt kLoop = copyFor(k, copyRealize(r, update), For::Serial);
  static_cast<For&>(*kLoop).annotations = withDictAttr(k.annotations, kReassociateAnnotation, AttrValue::boolean(true));
  std::vector<Stmt> seq;
  if (blk.init) seq.push_back(initRealize(r, blk.name + "_init"));
  seq.push_back(kLoop);
  return rebuildOuter(nest, nest.size() - 2, copyFor(j, make<SeqStmt>(std::move(seq)), j.loopKind));
}

// A window reduction (depthwise convolution, pooling): spatial loops, the innermost of which (j)
// writes contiguous outputs, then two or more reduction loops (the window). The window's loops go
// outside j: `for j: init; for k1..kn: for j: update`. Each output still sums in the window's
// order (same numerics); the inner loop now runs along j, a vector of outputs per window tap, where
// it ran 9 or 49 scalar steps per output. Null when the nest has another shape.
Stmt windowOutside(const std::vector<const For*>& nest, const BlockRealize& r) {
  size_t n = nest.size(), m = 0;
  while (m < n && exactBinding(r, nest[n - 1 - m]->loopVar.get()) == IterVar::CommReduce) ++m;
  if (m < 2 || n - m < 2) return nullptr;  // an outer loop stays outermost (and parallel)
  size_t jAt = n - 1 - m;
  const For& j = *nest[jAt];
  if (exactBinding(r, j.loopVar.get()) != IterVar::DataPar || j.loopKind != For::Serial) return nullptr;
  if (auto unit = j.extent.as<IntImm>(); unit && unit->value < 4) return nullptr;
  const TirBlock& blk = *r.block;
  const Stmt& body = blk.body;
  if (!body || body->kind() != NodeKind::BufferStore || !blk.allocBuffers.empty() || !blk.matchBuffers.empty()) return nullptr;
  auto& st = static_cast<const BufferStore&>(*body);
  const PrimVar* vj = blockVarOf(r, j.loopVar.get());
  if (st.indices.empty() || st.indices.back().get() != vj || !reassociableUpdate(st)) return nullptr;
  for (size_t k = jAt + 1; k < n; ++k) {
    const For& f = *nest[k];
    if (f.loopKind != For::Serial || mentions(f.min, j.loopVar.get()) || mentions(f.extent, j.loopVar.get()) || mentions(r.predicate, f.loopVar.get()))
      return nullptr;
    for (auto& i : st.indices)
      if (mentions(i, blockVarOf(r, f.loopVar.get()))) return nullptr;
  }
  auto update = copyBlock(blk);
  update->init = nullptr;
  Stmt inner = copyFor(j, copyRealize(r, update), For::Serial);
  for (size_t k = n; k-- > jAt + 1;) inner = copyFor(*nest[k], inner, For::Serial);
  std::vector<Stmt> seq;
  if (blk.init) seq.push_back(copyFor(j, initRealize(r, blk.name + "_init"), For::Serial));
  seq.push_back(inner);
  return rebuildOuter(nest, jAt, make<SeqStmt>(std::move(seq)));
}

// The innermost two (k1 of E1, k2 of E2, from 0) of the nest's `reductions` innermost loops as
// one, when every load that reads them has them as its last two indices over a compact buffer whose
// last dim is E2: a plane contiguous in memory (a global average pool's rows and columns).
// `for ..: for k1: for k2: block` becomes `init; for ..: for k (E1 E2, reassociating): block` with
// the block's k1 and k2 bound to k / E2 and k % E2 (the address folds back to k). The plane's 49
// or 196 elements then sum in vector lanes; alone, the 7- or 14-long row loop was vectorized across
// the rows with gathers (EfficientNet-B0's squeeze-excitation means). Null when the nest is not so.
Stmt mergedPlaneReduction(const std::vector<const For*>& nest, size_t reductions, const BlockRealize& r) {
  size_t n = nest.size();
  const For& k1 = *nest[n - 2];
  const For& k2 = *nest[n - 1];
  auto constant = [](const PrimExpr& e) {
    const IntImm* i = asIntImm(e);
    return i ? i->value : int64_t(-1);
  };
  int64_t e1 = constant(k1.extent), e2 = constant(k2.extent);
  if (e1 < 1 || e2 < 2 || constant(k1.min) != 0 || constant(k2.min) != 0) return nullptr;
  const TirBlock& blk = *r.block;
  if (!blk.init || !blk.body || blk.body->kind() != NodeKind::BufferStore || !blk.allocBuffers.empty() || !blk.matchBuffers.empty()) return nullptr;
  auto& st = static_cast<const BufferStore&>(*blk.body);
  const PrimVar* v1 = blockVarOf(r, k1.loopVar.get());
  const PrimVar* v2 = blockVarOf(r, k2.loopVar.get());
  if (!v1 || !v2 || !reassociableUpdate(st)) return nullptr;
  for (const For* f : {&k1, &k2})
    if (f->loopKind != For::Serial || exactBinding(r, f->loopVar.get()) != IterVar::CommReduce || mentions(r.predicate, f->loopVar.get())) return nullptr;
  for (auto& i : st.indices)
    if (mentions(i, v1) || mentions(i, v2)) return nullptr;
  bool plane = false, other = false;
  forEachLoad(st.value, [&](const BufferLoad& l) {
    if (isAccumulator(l, st)) return;
    size_t d = l.indices.size();
    bool uses = false;
    for (auto& i : l.indices) uses |= mentions(i, v1) || mentions(i, v2);
    if (!uses) return;
    bool trailing = d >= 2 && l.indices[d - 2].get() == v1 && l.indices[d - 1].get() == v2 && l.buffer->strides.empty() && constant(l.buffer->shape.back()) == e2;
    for (size_t i = 0; i + 2 < d && trailing; ++i) trailing = !mentions(l.indices[i], v1) && !mentions(l.indices[i], v2);
    plane |= trailing, other |= !trailing;
  });
  if (!plane || other) return nullptr;
  auto k = make<PrimVar>(k2.loopVar->name, k2.loopVar->dtype);
  auto update = copyBlock(blk);
  update->init = nullptr;
  auto realize = copyRealize(r, update);
  for (size_t i = 0; i < blk.iterVars.size(); ++i) {
    if (blk.iterVars[i].var.get() == v1) realize->iterValues[i] = make<PrimBinary>(NodeKind::FloorDiv, k->dtype, k, intImm(e2, k->dtype));
    if (blk.iterVars[i].var.get() == v2) realize->iterValues[i] = make<PrimBinary>(NodeKind::FloorMod, k->dtype, k, intImm(e2, k->dtype));
  }
  auto loop = make<For>();
  loop->loopVar = k, loop->min = intImm(0, k->dtype), loop->extent = intImm(e1 * e2, k->dtype), loop->loopKind = For::Serial, loop->body = realize;
  loop->annotations = withDictAttr(k2.annotations, kReassociateAnnotation, AttrValue::boolean(true));
  // Reduction loops outside the pair (a sum over three or more axes) stay around the merged loop;
  // the init goes before all of them.
  Stmt loops = loop;
  for (size_t k = n - 2; k-- > n - reductions;) loops = copyFor(*nest[k], loops, For::Serial);
  return rebuildOuter(nest, n - reductions, make<SeqStmt>(std::vector<Stmt>{initRealize(r, blk.name + "_init"), loops}));
}

}  // namespace

Stmt scheduleRowReduction(const Stmt& s) {
  std::vector<const For*> nest;
  Stmt cur = loopNest(s, nest);
  if (nest.empty() || !cur || cur->kind() != NodeKind::BlockRealize) return s;
  auto& r = static_cast<const BlockRealize&>(*cur);
  const TirBlock& blk = *r.block;
  if (!blk.init || !blk.body || blk.body->kind() != NodeKind::BufferStore || !blk.allocBuffers.empty() || !blk.matchBuffers.empty()) return s;
  auto& st = static_cast<const BufferStore&>(*blk.body);
  for (const For* f : nest) {
    if (f->loopKind != For::Serial || exactBinding(r, f->loopVar.get()) != IterVar::CommReduce || mentions(r.predicate, f->loopVar.get())) return s;
    for (auto& i : st.indices)
      if (mentions(i, blockVarOf(r, f->loopVar.get()))) return s;
  }
  const PrimVar* vk = blockVarOf(r, nest.back()->loopVar.get());
  bool contiguousAlongK = false;
  forEachLoad(st.value, [&](const BufferLoad& l) { contiguousAlongK |= !isAccumulator(l, st) && contiguousAlong(l, vk); });
  if (!contiguousAlongK || !reassociableUpdate(st)) return s;
  auto update = copyBlock(blk);
  update->init = nullptr;
  Stmt loops = copyFor(*nest.back(), copyRealize(r, update), For::Serial);
  static_cast<For&>(*loops).annotations = withDictAttr(nest.back()->annotations, kReassociateAnnotation, AttrValue::boolean(true));
  for (size_t k = nest.size() - 1; k-- > 0;) loops = copyFor(*nest[k], loops, For::Serial);
  return make<SeqStmt>(std::vector<Stmt>{initRealize(r, blk.name + "_init"), loops});
}

Stmt scheduleReductionNest(const Stmt& s) {
  std::vector<const For*> nest;
  Stmt cur = loopNest(s, nest);
  // Only below an outer loop, which stays outermost (and parallel).
  if (nest.size() < 3 || !cur || cur->kind() != NodeKind::BlockRealize) return s;
  auto& r = static_cast<const BlockRealize&>(*cur);
  if (Stmt window = windowOutside(nest, r)) return window;
  // Two or more reduction loops innermost that no window schedule took (a global average pool's
  // rows and columns under its channel loop): as a row-fused nest's, the init before them and the
  // innermost one reassociating. They had summed in scalar order, one dependent add per element (a
  // fifth of EfficientNet's squeeze-excitation means: 1.4 ms of its 16).
  size_t n = nest.size(), m = 0;
  while (m < n && exactBinding(r, nest[n - 1 - m]->loopVar.get()) == IterVar::CommReduce) ++m;
  if (m >= 2 && m < n) {
    if (Stmt merged = mergedPlaneReduction(nest, m, r)) return merged;
    const For& first = *nest[n - m];
    Stmt reductions = copyFor(first, first.body, first.loopKind);
    Stmt rows = scheduleRowReduction(reductions);
    return rows.get() == reductions.get() ? s : rebuildOuter(nest, n - m, rows);
  }
  const For& j = *nest[nest.size() - 2];
  const For& k = *nest.back();
  if (j.loopKind != For::Serial || k.loopKind != For::Serial) return s;
  if (exactBinding(r, k.loopVar.get()) != IterVar::CommReduce || exactBinding(r, j.loopVar.get()) != IterVar::DataPar) return s;
  if (mentions(k.min, j.loopVar.get()) || mentions(k.extent, j.loopVar.get())) return s;
  const PrimVar* vj = blockVarOf(r, j.loopVar.get());
  const PrimVar* vk = blockVarOf(r, k.loopVar.get());
  const Stmt& body = r.block->body;
  bool gathersAlongJ = false, contiguousAlongK = false;
  if (body && body->kind() == NodeKind::BufferStore) {
    auto& st = static_cast<const BufferStore&>(*body);
    forEachLoad(st.value, [&](const BufferLoad& l) {
      if (isAccumulator(l, st)) return;
      bool alongJ = false;
      for (auto& i : l.indices) alongJ |= mentions(i, vj);
      gathersAlongJ |= alongJ && !contiguousAlong(l, vj);
      contiguousAlongK |= contiguousAlong(l, vk);
    });
    // A loop of one iteration gains nothing from running innermost.
    auto* unit = j.extent->kind() == NodeKind::IntImm ? &static_cast<const IntImm&>(*j.extent) : nullptr;
    if (gathersAlongJ || (unit && unit->value == 1)) {
      bool hoistable = r.block->allocBuffers.empty() && r.block->matchBuffers.empty() && !mentions(r.predicate, k.loopVar.get());
      for (auto& i : st.indices) hoistable &= !mentions(i, vk);
      if (contiguousAlongK && hoistable && reassociableUpdate(st)) return decompose(nest, r);
      return s;
    }
  }
  // k outside j: each output still sums in k's order, the inner loop runs along j.
  return rebuildOuter(nest, nest.size() - 2, copyFor(k, copyFor(j, k.body, For::Serial), For::Serial));
}

}  // namespace rlx
