// CPU schedule, GEMM epilogues (schedule_epilogue.h): an element-wise pass over a GEMM's output would
// read it back from memory after the GEMM; fused, each block goes through it while in cache.
#include "runtime/llvm/schedule_epilogue.h"

#include <algorithm>

#include "ir/arith.h"
#include "ir/prim_expr_map.h"
#include "ir/struct_info.h"
#include "runtime/llvm/schedule_gemm.h"
#include "runtime/llvm/tir_copy.h"
#include "runtime/llvm/tir_usage.h"

namespace rlx {

namespace {

bool isOne(const PrimExpr& e) {
  auto* imm = e ? asIntImm(e) : nullptr;
  return imm && imm->value == 1;
}

bool sameShape(const Buffer& a, const Buffer& b) {
  if (a.shape.size() != b.shape.size()) return false;
  for (size_t d = 0; d < a.shape.size(); ++d)
    if (!exprDeepEqual(a.shape[d], b.shape[d])) return false;
  return true;
}

const Buffer* operandBuffer(const PrimExpr& arg) {
  return arg && arg->kind() == NodeKind::BufferLoad ? static_cast<const BufferLoad&>(*arg).buffer.get() : nullptr;
}

bool sameStorage(const Buffer* a, const Buffer* b) { return a && b && (a == b || (a->data && a->data.get() == b->data.get())); }

// The rewrite of an epilogue nest over (m, n).
struct Flattening {
  const GemmNest& gemm;
  const NestWrite& epilogue;
  bool intoOut = false;  // C's loads become loads of `out` (the GEMM writes `out` itself)
  PrimVarRef m = make<PrimVar>("m", DataType::int64()), n = make<PrimVar>("n", DataType::int64());
  std::vector<PrimExpr> flat;  // C's indices at (m, n): m and n on the innermost non-unit row and column dims
  PrimVarMap dimValue;         // each epilogue iter var: its dim's index as a function of m and n
  PrimExpr rows = intImm(1), cols = intImm(1);

  // False when the dims of either role that are not of extent 1 are not adjacent in C.
  bool plan() {
    const Buffer& c = *gemm.c;
    std::vector<size_t> nonUnit;
    for (size_t d = 0; d < c.shape.size(); ++d)
      if (!isOne(c.shape[d])) nonUnit.push_back(d);
    flat.assign(c.shape.size(), intImm(0));
    for (bool row : {true, false}) {
      std::vector<size_t> dims;
      for (size_t d : nonUnit)
        if (gemm.rowDims[d] == row) dims.push_back(d);
      for (size_t i = 1; i < dims.size(); ++i) {
        auto a = std::find(nonUnit.begin(), nonUnit.end(), dims[i - 1]), b = std::find(nonUnit.begin(), nonUnit.end(), dims[i]);
        if (b - a != 1) return false;
      }
      PrimExpr var = row ? PrimExpr(m) : PrimExpr(n), below = intImm(1);
      if (!dims.empty()) flat[dims.back()] = var;
      // Each dim's index from the flattened one, innermost first: (var / below) % extent.
      for (size_t i = dims.size(); i-- > 0;) {
        PrimExpr index = isOne(below) ? var : floordiv(var, below);
        if (i > 0) index = floormod(index, c.shape[dims[i]]);
        setDim(dims[i], index);
        below = mul(below, c.shape[dims[i]]);
      }
      (row ? rows : cols) = below;
    }
    for (size_t d = 0; d < c.shape.size(); ++d)
      if (isOne(c.shape[d])) setDim(d, intImm(0));
    return true;
  }

  void setDim(size_t d, PrimExpr index) {
    auto* v = static_cast<const PrimVar*>(epilogue.store->indices[d].get());
    dimValue[v] = v->dtype == index->dtype ? index : PrimExpr(make<Cast>(v->dtype, index));
  }

  // A load of a buffer shaped like C at exactly the element being written.
  bool pointwise(const BufferLoad& l) const {
    if (!compact(*l.buffer) || !sameShape(*l.buffer, *gemm.c) || l.indices.size() != epilogue.store->indices.size()) return false;
    for (size_t d = 0; d < l.indices.size(); ++d)
      if (l.indices[d].get() != epilogue.store->indices[d].get()) return false;
    return true;
  }

  // `e` over (m, n); null when it reads C elsewhere than at the element, or reads `out`.
  PrimExpr rewrite(const PrimExpr& e, bool& ok) const {
    if (!e || !ok) return e;
    if (e->kind() == NodeKind::BufferLoad) {
      auto& l = static_cast<const BufferLoad&>(*e);
      const Buffer* buf = l.buffer.get();
      if (sameStorage(buf, epilogue.store->buffer.get())) return ok = false, e;
      bool isC = sameStorage(buf, gemm.c.get());
      if (pointwise(l) && (!isC || buf == gemm.c.get())) return make<BufferLoad>(l.dtype, isC && intoOut ? epilogue.store->buffer : l.buffer, flat);
      if (isC) return ok = false, e;
    }
    if (e->kind() == NodeKind::PrimVar) {
      auto it = dimValue.find(static_cast<const PrimVar*>(e.get()));
      return it == dimValue.end() ? e : it->second;
    }
    return mapOperands(e, [&](const PrimExpr& x) { return rewrite(x, ok); });
  }
};

}  // namespace

// (schedule_epilogue.h) No C buffer is written and read back when `intoOut` holds.

Stmt fuseGemmEpilogue(const GemmNest& gemm, const Stmt& next, bool& intoOut) {
  if ((gemm.batched && !gemm.batchRows) || !compact(*gemm.c)) return nullptr;
  auto epilogue = fullWriteNest(next);
  if (!epilogue || isReduction(*epilogue->block)) return nullptr;
  const BufferStore& store = *epilogue->store;
  const Buffer* out = store.buffer.get();
  auto& call = static_cast<const PrimCall&>(*gemm.call);
  if (!sameShape(*out, *gemm.c) || sameStorage(out, gemm.c.get()) || sameStorage(out, operandBuffer(call.args[1])) || sameStorage(out, operandBuffer(call.args[2])))
    return nullptr;
  // Each element written once: the block's iter vars are exactly the store's indices.
  if (epilogue->block->iterVars.size() != store.indices.size()) return nullptr;
  for (auto* v : epilogue->loopVars)
    if (mentions(store.value, v)) return nullptr;
  intoOut = intoOut && compact(*out) && out->dtype == gemm.c->dtype;
  Flattening f{gemm, *epilogue, intoOut};
  if (!f.plan()) return nullptr;
  bool ok = true;
  PrimExpr value = f.rewrite(store.value, ok);
  if (!ok) return nullptr;
  auto first = make<PrimVar>("n0", DataType::int64()), count = make<PrimVar>("n_count", DataType::int64());
  auto inner = make<For>();
  inner->loopVar = f.n, inner->min = first, inner->extent = count, inner->loopKind = For::Serial;
  inner->body = make<BufferStore>(store.buffer, value, f.flat);
  auto outer = make<For>();
  outer->loopVar = f.m, outer->min = intImm(0), outer->extent = f.rows, outer->loopKind = For::Serial;
  outer->body = inner;
  PrimExpr sgemm = gemm.call;
  if (intoOut) {
    auto& c = static_cast<const PrimCall&>(*gemm.call);
    auto args = c.args;
    auto& at = static_cast<const BufferLoad&>(*args[0]);
    args[0] = make<BufferLoad>(at.dtype, store.buffer, at.indices);
    sgemm = make<PrimCall>(c.dtype, c.op, std::move(args));
  }
  outer->annotations = withDictAttr(nullptr, kGemmEpilogueAnnotation, AttrValue::primOf(sgemm));
  return outer;
}

PrimFuncRef fuseGemmEpilogues(const PrimFuncRef& func) {
  return editRootSequence(func, [](std::vector<Stmt>& seq, std::vector<BufferRef>& allocs) {
    bool changed = false;
    for (size_t p = 0; p + 1 < seq.size(); ++p) {
      auto gemm = matchMatmulNest(seq[p]);
      if (!gemm) continue;
      const Buffer* c = gemm->c.get();
      auto alloc = std::find_if(allocs.begin(), allocs.end(), [&](const BufferRef& b) { return b.get() == c; });
      bool privateC = alloc != allocs.end() && !usageOf(seq, 0, p).touches(c) && !usageOf(seq, p + 2, seq.size()).touches(c);
      bool intoOut = privateC;
      if (Stmt fused = fuseGemmEpilogue(*gemm, seq[p + 1], intoOut)) {
        if (intoOut) allocs.erase(alloc);
        seq[p] = fused;
        seq.erase(seq.begin() + std::ptrdiff_t(p + 1));
        changed = true;
      }
    }
    return changed;
  });
}

}  // namespace rlx
