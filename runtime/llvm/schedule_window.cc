// CPU schedule, padded windows (schedule_window.h): the padding stage is read off its store (shifted
// load, a constant elsewhere, bounds checked against X's shape), then dropped with its buffer; the
// convolution's rlx.sgemm call becomes rlx.sgemm_padded on X, a max pool's nest rlx.pool_padded.
#include "runtime/llvm/schedule_window.h"

#include <algorithm>
#include <bit>

#include "ir/arith.h"
#include "runtime/llvm/schedule_epilogue.h"
#include "runtime/llvm/schedule_gemm.h"
#include "runtime/llvm/schedule_nest.h"
#include "runtime/llvm/tir_copy.h"
#include "runtime/llvm/tir_usage.h"
#include "runtime/llvm/window_conv.h"

namespace rlx {

namespace {

// The padding a stage applies: T = pad(X) with `top` rows and `left` columns before X's last two
// dims (every other dim unpadded).
struct Padding {
  const Buffer* padded = nullptr;
  BufferRef input;
  int64_t paddedRows = 0, paddedCols = 0, rows = 0, cols = 0, top = 0, left = 0;
  double fill = 0;  // the value outside X (0 for a convolution, the lowest float for a max pool)
};

std::optional<int64_t> constDim(const PrimExpr& e) {
  auto* imm = e ? asIntImm(e) : nullptr;
  return imm ? std::optional<int64_t>(imm->value) : std::nullopt;
}

// The conjuncts of `cond` (And nodes) as bound atoms; false when one is something else.
bool conjuncts(const PrimExpr& cond, std::vector<BoundAtom>& out) {
  if (cond->kind() == NodeKind::And) {
    auto& b = static_cast<const PrimBinary&>(*cond);
    return conjuncts(b.a, out) && conjuncts(b.b, out);
  }
  auto a = boundAtom(cond);
  if (!a) return false;
  out.push_back(*a);
  return true;
}

std::optional<Padding> paddingStage(const Stmt& s, const std::vector<BufferRef>& allocs) {
  auto nest = fullWriteNest(s);
  if (!nest || isReduction(*nest->block)) return std::nullopt;
  const BufferStore& st = *nest->store;
  const Buffer& t = *st.buffer;
  if (std::none_of(allocs.begin(), allocs.end(), [&](const BufferRef& a) { return a.get() == &t; })) return std::nullopt;
  if (t.dtype != DataType::float32() || t.shape.size() < 2) return std::nullopt;
  // if_then_else(cond, X[..], 0) or Select(cond, X[..], 0).
  PrimExpr cond, inside, outside;
  if (st.value->kind() == NodeKind::Select) {
    auto& sel = static_cast<const Select&>(*st.value);
    cond = sel.cond, inside = sel.trueValue, outside = sel.falseValue;
  } else if (st.value->kind() == NodeKind::PrimCall && static_cast<const PrimCall&>(*st.value).op == "tir.if_then_else") {
    auto& c = static_cast<const PrimCall&>(*st.value);
    if (c.args.size() != 3) return std::nullopt;
    cond = c.args[0], inside = c.args[1], outside = c.args[2];
  } else {
    return std::nullopt;
  }
  auto* fill = outside->kind() == NodeKind::FloatImm ? static_cast<const FloatImm*>(outside.get()) : nullptr;
  if (!fill || inside->kind() != NodeKind::BufferLoad) return std::nullopt;
  auto& load = static_cast<const BufferLoad&>(*inside);
  const Buffer& x = *load.buffer;
  if (x.dtype != DataType::float32() || !compact(x) || x.shape.size() != t.shape.size() || load.indices.size() != st.indices.size()) return std::nullopt;
  size_t n = t.shape.size();
  Padding p;
  p.padded = &t, p.input = load.buffer, p.fill = fill->value;
  std::vector<int64_t> shift(n);
  for (size_t d = 0; d < n; ++d) {
    auto td = constDim(t.shape[d]), xd = constDim(x.shape[d]);
    Affine index;
    if (!td || !xd || !affineOf(load.indices[d], index) || index.terms.size() != 1 || index.terms[0].second != 1) return std::nullopt;
    if (index.terms[0].first != static_cast<const PrimVar*>(st.indices[d].get())) return std::nullopt;
    shift[d] = -index.constant;
    if (d + 2 < n && (shift[d] != 0 || *td != *xd)) return std::nullopt;
  }
  p.paddedRows = *constDim(t.shape[n - 2]), p.paddedCols = *constDim(t.shape[n - 1]);
  p.rows = *constDim(x.shape[n - 2]), p.cols = *constDim(x.shape[n - 1]);
  p.top = shift[n - 2], p.left = shift[n - 1];
  if (p.top < 0 || p.left < 0 || p.top + p.rows > p.paddedRows || p.left + p.cols > p.paddedCols) return std::nullopt;
  // The condition must be exactly "inside X": a bound per side, present unless the loop's own range
  // implies it.
  std::vector<BoundAtom> atoms;
  if (!conjuncts(cond, atoms)) return std::nullopt;
  for (size_t d = n - 2; d < n; ++d) {
    const PrimVar* v = static_cast<const PrimVar*>(st.indices[d].get());
    int64_t lo = shift[d], hi = shift[d] + (d == n - 2 ? p.rows : p.cols), extent = d == n - 2 ? p.paddedRows : p.paddedCols;
    bool hasLo = lo == 0, hasHi = hi == extent;
    for (auto& a : atoms) {
      if (a.var != v) continue;
      if (a.lower && a.bound == lo) hasLo = true;
      else if (!a.lower && a.bound == hi) hasHi = true;
      else return std::nullopt;
    }
    if (!hasLo || !hasHi) return std::nullopt;
  }
  for (auto& a : atoms)
    if (a.var != static_cast<const PrimVar*>(st.indices[n - 2].get()) && a.var != static_cast<const PrimVar*>(st.indices[n - 1].get())) return std::nullopt;
  return p;
}

// The GEMM call of `s` when it is a window convolution reading `padded` as its B: one row, 2+
// reduction dims of at most 64 taps.
const PrimCall* windowCall(const std::optional<GemmNest>& gemm, const Buffer* padded) {
  if (!gemm || gemm->batched == false) return nullptr;
  auto& call = static_cast<const PrimCall&>(*gemm->call);
  auto* b = call.args[2]->kind() == NodeKind::BufferLoad ? static_cast<const BufferLoad*>(call.args[2].get()) : nullptr;
  if (!b || b->buffer.get() != padded) return nullptr;
  auto nm = constDim(call.args[3]), nn = constDim(call.args[4]), nk = constDim(call.args[5]);
  if (!nm || !nn || !nk || *nn < 1 || *nk < 2) return nullptr;
  size_t at = 7;
  for (int64_t d = 0; d < *nm; ++d, at += 3)
    if (constDim(call.args[at]) != std::optional<int64_t>(1)) return nullptr;
  at += size_t(3 * *nn);
  int64_t taps = 1;
  for (int64_t d = 0; d < *nk; ++d, at += 3) {
    auto e = constDim(call.args[at]);
    if (!e) return nullptr;
    taps *= *e;
  }
  return taps <= 64 ? &call : nullptr;
}

// A max pooling nest of `s` over `padded`: C[I] = max(C[I], T[..]) (either order) from an init of the
// padding's value (the lowest float, or -inf for both), C float32 and indexed by distinct spatial
// vars (the last two its plane), T read at affine indices, 2+ reduction dims of at most 64 taps. Its
// rlx.pool_padded call over `pad`'s input (window_conv.h), or null.
PrimExpr poolCall(const Stmt& s, const Padding& pad) {
  auto pn = perfectNest(s);
  if (!pn || !pn->block->init || !pn->block->body) return nullptr;
  const TirBlock& block = *pn->block;
  if (block.init->kind() != NodeKind::BufferStore || block.body->kind() != NodeKind::BufferStore) return nullptr;
  auto& init = static_cast<const BufferStore&>(*block.init);
  auto& update = static_cast<const BufferStore&>(*block.body);
  const Buffer& c = *update.buffer;
  auto* start = init.value && init.value->kind() == NodeKind::FloatImm ? static_cast<const FloatImm*>(init.value.get()) : nullptr;
  if (init.buffer.get() != &c || c.dtype != DataType::float32() || !compact(c) || !start || start->value != pad.fill || start->value > -3.4e38) return nullptr;
  if (!update.value || update.value->kind() != NodeKind::Max || update.indices.size() < 2) return nullptr;
  auto& mx = static_cast<const PrimBinary&>(*update.value);
  auto isSelf = [&](const PrimExpr& e) {
    if (e->kind() != NodeKind::BufferLoad) return false;
    auto& l = static_cast<const BufferLoad&>(*e);
    if (l.buffer.get() != &c || l.indices.size() != update.indices.size()) return false;
    for (size_t d = 0; d < l.indices.size(); ++d)
      if (asVar(l.indices[d]) != asVar(update.indices[d]) || !asVar(l.indices[d])) return false;
    return true;
  };
  const PrimExpr& value = isSelf(mx.a) ? mx.b : isSelf(mx.b) ? mx.a : PrimExpr();
  Operand x;
  if (!value || !parseOperand(value, block, x) || x.load->buffer.get() != pad.padded || !x.splits.empty()) return nullptr;
  std::vector<const PrimVar*> cVars, red;
  for (auto& e : update.indices) {
    auto* v = asVar(e);
    if (!v || std::find(cVars.begin(), cVars.end(), v) != cVars.end()) return nullptr;
    cVars.push_back(v);
  }
  std::vector<std::pair<size_t, const PrimVar*>> reductions;  // in nest order
  for (size_t k = 0; k < block.iterVars.size(); ++k) {
    const PrimVar* v = block.iterVars[k].var.get();
    if (block.iterVars[k].kind == IterVar::CommReduce) reductions.push_back({pn->loopOf[k], v});
    else if (std::find(cVars.begin(), cVars.end(), v) == cVars.end()) return nullptr;
  }
  std::sort(reductions.begin(), reductions.end());
  int64_t taps = 1;
  for (auto& r : reductions) {
    auto extent = constDim(pn->loopOfVar(r.second).extent);
    if (!extent) return nullptr;
    taps *= *extent, red.push_back(r.second);
  }
  if (red.size() < 2 || taps > 64) return nullptr;
  // C compact: a var's stride is the product of the dims after its own.
  std::vector<PrimExpr> args = {make<BufferLoad>(DataType::float32(), update.buffer, std::vector<PrimExpr>(update.indices.size(), intImm(0))),
                                make<BufferLoad>(DataType::float32(), pad.input, std::vector<PrimExpr>(pad.input->shape.size(), intImm(0))), intImm(0),
                                intImm(int64_t(cVars.size())), intImm(int64_t(red.size())), intImm(0)};
  for (size_t d = 0; d < cVars.size(); ++d) {
    int64_t stride = 1;
    for (size_t e = d + 1; e < c.shape.size(); ++e) {
      auto extent = constDim(c.shape[e]);
      if (!extent) return nullptr;
      stride *= *extent;
    }
    args.insert(args.end(), {pn->loopOfVar(cVars[d]).extent, x.stride(cVars[d]), intImm(stride)});
  }
  for (auto* v : red) args.insert(args.end(), {pn->loopOfVar(v).extent, intImm(0), x.stride(v)});
  args.insert(args.end(), {intImm(0), intImm(0)});  // every row and column valid
  for (int64_t v : {pad.paddedRows, pad.paddedCols, pad.rows, pad.cols, pad.top, pad.left}) args.push_back(intImm(v));
  for (double v : {pad.fill, start->value}) args.push_back(intImm(int64_t(std::bit_cast<uint32_t>(float(v)))));
  return make<PrimCall>(DataType::int32(), "rlx.pool_padded", std::move(args));
}

}  // namespace

PrimFuncRef fusePaddedWindows(const PrimFuncRef& func) {
  if (!windowKernelAvailable()) return func;
  return editRootSequence(func, [](std::vector<Stmt>& seq, std::vector<BufferRef>& allocs) {
    bool changed = false;
    for (size_t p = 0; p + 1 < seq.size(); ++p) {
      auto pad = paddingStage(seq[p], allocs);
      if (!pad) continue;
      Usage before = usageOf(seq, 0, p), after = usageOf(seq, p + 2, seq.size());
      if (before.touches(pad->padded) || after.touches(pad->padded)) continue;
      Usage reader = usageOf(seq, p + 1, p + 2);
      if (reader.loads.count(pad->padded) != 1 || reader.loads.at(pad->padded) != 1) continue;
      if (PrimExpr pool = poolCall(seq[p + 1], *pad)) {
        seq[p] = make<Evaluate>(pool);
        seq.erase(seq.begin() + std::ptrdiff_t(p + 1));
        allocs.erase(std::find_if(allocs.begin(), allocs.end(), [&](const BufferRef& a) { return a.get() == pad->padded; }));
        changed = true;
        continue;
      }
      if (pad->fill != 0) continue;
      auto gemm = matchMatmulNest(seq[p + 1]);
      const PrimCall* call = windowCall(gemm, pad->padded);
      if (!call) continue;
      std::vector<PrimExpr> args = call->args;
      args[2] = make<BufferLoad>(DataType::float32(), pad->input, std::vector<PrimExpr>(pad->input->shape.size(), intImm(0)));
      for (int64_t v : {pad->paddedRows, pad->paddedCols, pad->rows, pad->cols, pad->top, pad->left}) args.push_back(intImm(v));
      PrimExpr padded = make<PrimCall>(DataType::int32(), "rlx.sgemm_padded", std::move(args));
      // The element-wise nest after it (bias, activation) runs on each channel plane as the kernel
      // finishes it: the channels act as the epilogue's rows (schedule_epilogue.h).
      GemmNest window = *gemm;
      window.call = padded, window.rowDims = window.batchDims, window.batchRows = true;
      const Buffer* c = window.c.get();
      auto cAlloc = std::find_if(allocs.begin(), allocs.end(), [&](const BufferRef& a) { return a.get() == c; });
      bool intoOut = cAlloc != allocs.end() && !usageOf(seq, 0, p + 1).touches(c) && !usageOf(seq, p + 3, seq.size()).touches(c);
      Stmt fused = p + 2 < seq.size() ? fuseGemmEpilogue(window, seq[p + 2], intoOut) : Stmt();
      if (fused && intoOut) allocs.erase(cAlloc);
      seq[p] = fused ? fused : Stmt(make<Evaluate>(padded));
      seq.erase(seq.begin() + std::ptrdiff_t(p + 1), seq.begin() + std::ptrdiff_t(fused ? p + 3 : p + 2));
      allocs.erase(std::find_if(allocs.begin(), allocs.end(), [&](const BufferRef& a) { return a.get() == pad->padded; }));
      changed = true;
    }
    return changed;
  });
}

}  // namespace rlx
