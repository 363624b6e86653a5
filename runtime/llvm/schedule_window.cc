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

// The padding a stage applies: T = pad(X) with `top` rows and `left` columns before two adjacent
// dims of X, its last two (planes) or, channels last, the two before its last (every other dim
// unpadded).
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

// The padding of stage `s` over the dims pair, pair + 1 counted from the end (2: the last two, 3: the
// two before the channels).
std::optional<Padding> paddingStage(const Stmt& s, const std::vector<BufferRef>& allocs, size_t pair) {
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
  if (n < pair) return std::nullopt;
  const size_t rowDim = n - pair, colDim = rowDim + 1;
  Padding p;
  p.padded = &t, p.input = load.buffer, p.fill = fill->value;
  std::vector<int64_t> shift(n);
  for (size_t d = 0; d < n; ++d) {
    auto td = constDim(t.shape[d]), xd = constDim(x.shape[d]);
    Affine index;
    if (!td || !xd || !affineOf(load.indices[d], index) || index.terms.size() != 1 || index.terms[0].second != 1) return std::nullopt;
    if (index.terms[0].first != static_cast<const PrimVar*>(st.indices[d].get())) return std::nullopt;
    shift[d] = -index.constant;
    if (d != rowDim && d != colDim && (shift[d] != 0 || *td != *xd)) return std::nullopt;
  }
  p.paddedRows = *constDim(t.shape[rowDim]), p.paddedCols = *constDim(t.shape[colDim]);
  p.rows = *constDim(x.shape[rowDim]), p.cols = *constDim(x.shape[colDim]);
  p.top = shift[rowDim], p.left = shift[colDim];
  if (p.top < 0 || p.left < 0 || p.top + p.rows > p.paddedRows || p.left + p.cols > p.paddedCols) return std::nullopt;
  // The condition must be exactly "inside X": a bound per side, present unless the loop's own range
  // implies it.
  std::vector<BoundAtom> atoms;
  if (!conjuncts(cond, atoms)) return std::nullopt;
  for (size_t d : {rowDim, colDim}) {
    const PrimVar* v = static_cast<const PrimVar*>(st.indices[d].get());
    int64_t lo = shift[d], hi = shift[d] + (d == rowDim ? p.rows : p.cols), extent = d == rowDim ? p.paddedRows : p.paddedCols;
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
    if (a.var != static_cast<const PrimVar*>(st.indices[rowDim].get()) && a.var != static_cast<const PrimVar*>(st.indices[colDim].get())) return std::nullopt;
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

// A max pooling nest: C[I] = max(C[I], T[..]) (either order) from an init of the padding's value
// (the lowest float, or -inf for both: pad.fill is the maximum's start), C float32 and indexed by
// distinct spatial vars, T `pad`'s padded operand read at affine indices.
struct MaxNest {
  PerfectNest nest;
  const BufferStore* update = nullptr;
  Operand t;
  std::vector<const PrimVar*> cVars;  // C's index vars
};

std::optional<MaxNest> matchMaxNest(const Stmt& s, const Padding& pad) {
  auto pn = perfectNest(s);
  if (!pn || !pn->block->init || !pn->block->body) return std::nullopt;
  const TirBlock& block = *pn->block;
  if (block.init->kind() != NodeKind::BufferStore || block.body->kind() != NodeKind::BufferStore) return std::nullopt;
  auto& init = static_cast<const BufferStore&>(*block.init);
  auto& update = static_cast<const BufferStore&>(*block.body);
  const Buffer& c = *update.buffer;
  auto* start = init.value && init.value->kind() == NodeKind::FloatImm ? static_cast<const FloatImm*>(init.value.get()) : nullptr;
  if (init.buffer.get() != &c || c.dtype != DataType::float32() || !compact(c) || !start || start->value != pad.fill || start->value > -3.4e38) return std::nullopt;
  if (!update.value || update.value->kind() != NodeKind::Max || update.indices.size() < 2) return std::nullopt;
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
  MaxNest out{*pn, &update, {}, {}};
  if (!value || !parseOperand(value, block, out.t) || out.t.load->buffer.get() != pad.padded || !out.t.splits.empty()) return std::nullopt;
  for (auto& e : update.indices) {
    auto* v = asVar(e);
    if (!v || std::find(out.cVars.begin(), out.cVars.end(), v) != out.cVars.end()) return std::nullopt;
    out.cVars.push_back(v);
  }
  return out;
}

// A max pooling nest of `s` over `padded` whose plane is C's last two dims: 2+ reduction dims of at
// most 64 taps. Its rlx.pool_padded call over `pad`'s input (window_conv.h), or null.
PrimExpr poolCall(const Stmt& s, const Padding& pad) {
  auto mn = matchMaxNest(s, pad);
  if (!mn) return nullptr;
  const PerfectNest* pn = &mn->nest;
  const TirBlock& block = *pn->block;
  const BufferStore& update = *mn->update;
  const Buffer& c = *update.buffer;
  const Operand& x = mn->t;
  const std::vector<const PrimVar*>& cVars = mn->cVars;
  std::vector<const PrimVar*> red;
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
  for (double v : {pad.fill, pad.fill}) args.push_back(intImm(int64_t(std::bit_cast<uint32_t>(float(v)))));  // the padding, the init
  return make<PrimCall>(DataType::int32(), "rlx.pool_padded", std::move(args));
}

// A window nest over padded channels-last T: what channelsLastCall reads off it.
struct ChannelsLastNest {
  const PerfectNest* nest = nullptr;
  const BufferStore* update = nullptr;  // C's
  const Operand* t = nullptr;           // the padded input's load
  const Operand* w = nullptr;           // the weights' (null: max pooling)
  const std::vector<const PrimVar*>* cVars = nullptr;
};

// The window nest `n` over `pad` (padded channels last) as an rlx.window_channels_last call
// (window_channels_last.h), with what fusing its epilogue needs (the pixels its rows, the channels
// its columns):
//   C[b, y, x, c] = C[b, y, x, c] + T[b, y * sy + ky * dy, x * sx + kx * dx, c (+ rc)] * W[..]
// (either order), or C[b, y, x, c] = max(C[b, y, x, c], T[..]) from the padding's value (pad.fill), C compact
// with X's images and channels, looping over all of C; the reductions ky before kx in the nest (the
// kernel's order of sums), any rc of extent 1; W read at constant strides along c, ky and kx only.
std::optional<GemmNest> channelsLastCall(const ChannelsLastNest& n, const Padding& pad) {
  const PerfectNest& pn = *n.nest;
  const Buffer& c = *n.update->buffer;
  const Buffer& x = *pad.input;
  const Operand* t = n.t;
  if (!t->splits.empty() || t->index.size() != 4 || c.shape.size() != 4 || x.shape.size() != 4 || !compact(c) || n.cVars->size() != 4) return std::nullopt;
  if (n.w && !n.w->splits.empty()) return std::nullopt;
  const std::vector<const PrimVar*>& cVars = *n.cVars;
  const PrimVar *image = cVars[0], *y = cVars[1], *col = cVars[2], *ch = cVars[3];
  std::vector<int64_t> shape;
  for (size_t d = 0; d < 4; ++d) {
    auto extent = constDim(c.shape[d]);
    if (!extent || constDim(pn.loopOfVar(cVars[d]).extent) != extent) return std::nullopt;
    shape.push_back(*extent);
  }
  if (constDim(x.shape[0]) != shape[0] || constDim(x.shape[3]) != shape[3]) return std::nullopt;
  // The reductions, in nest order.
  std::vector<std::pair<size_t, const PrimVar*>> reductions;
  for (size_t k = 0; k < pn.block->iterVars.size(); ++k) {
    const PrimVar* v = pn.block->iterVars[k].var.get();
    if (pn.block->iterVars[k].kind == IterVar::CommReduce) reductions.push_back({pn.loopOf[k], v});
    else if (std::find(cVars.begin(), cVars.end(), v) == cVars.end()) return std::nullopt;
  }
  std::sort(reductions.begin(), reductions.end());
  auto reduction = [&](const PrimVar* v) { return std::any_of(reductions.begin(), reductions.end(), [&](auto& r) { return r.second == v; }); };
  // T's index `a` as out * stride + tap * dilation (no tap: a window of one along it).
  auto windowIndex = [&](const Affine& a, const PrimVar* out, int64_t& stride, const PrimVar*& tap, int64_t& dilation) {
    stride = a.coef(out), tap = nullptr, dilation = 1;
    for (auto& [v, k] : a.terms)
      if (v != out && (tap || k < 1 || !reduction(v))) return false;
      else if (v != out) tap = v, dilation = k;
    return a.constant == 0 && stride >= 1;
  };
  // T[image, y * sy + ky * dy, x * sx + kx * dx, c + rc].
  const Affine& imageIndex = t->index[0];
  if (imageIndex.constant != 0 || imageIndex.terms.size() != 1 || imageIndex.coef(image) != 1) return std::nullopt;
  int64_t sy = 0, sx = 0, dy = 1, dx = 1, chStep = 0, rcStep = 0;
  const PrimVar *ky = nullptr, *kx = nullptr, *rc = nullptr;
  if (!windowIndex(t->index[1], y, sy, ky, dy) || !windowIndex(t->index[2], col, sx, kx, dx)) return std::nullopt;
  if (!windowIndex(t->index[3], ch, chStep, rc, rcStep) || chStep != 1) return std::nullopt;
  if (rc && constDim(pn.loopOfVar(rc).extent) != std::optional<int64_t>(1)) return std::nullopt;
  for (auto& r : reductions)
    if (r.second != ky && r.second != kx && r.second != rc) return std::nullopt;
  auto position = [&](const PrimVar* v) { return std::find_if(reductions.begin(), reductions.end(), [&](auto& r) { return r.second == v; }) - reductions.begin(); };
  // (kx outside ky would be another order of sums.)
  if ((ky && (ky == kx || ky == rc)) || (kx && kx == rc) || (ky && kx && position(ky) > position(kx))) return std::nullopt;
  int64_t kh = 1, kw = 1;
  if (ky) kh = constDim(pn.loopOfVar(ky).extent).value_or(0);
  if (kx) kw = constDim(pn.loopOfVar(kx).extent).value_or(0);
  if (kh < 1 || kw < 1 || kh * kw > 64 || (!ky && !kx)) return std::nullopt;
  if ((shape[1] - 1) * sy + (kh - 1) * dy >= pad.paddedRows || (shape[2] - 1) * sx + (kw - 1) * dx >= pad.paddedCols) return std::nullopt;
  // W along the channel and the taps only.
  std::optional<int64_t> wc = 0, wy = 0, wx = 0;
  if (const Operand* w = n.w) {
    for (auto& index : w->index)
      for (auto& [v, k] : index.terms)
        if (v != ch && v != ky && v != kx && v != rc) return std::nullopt;
    wc = constDim(w->stride(ch)), wy = ky ? constDim(w->stride(ky)) : std::optional<int64_t>(0), wx = kx ? constDim(w->stride(kx)) : std::optional<int64_t>(0);
    if (!wc || !wy || !wx) return std::nullopt;
  }
  PrimExpr input = make<BufferLoad>(DataType::float32(), pad.input, std::vector<PrimExpr>(4, intImm(0)));
  std::vector<PrimExpr> args = {make<BufferLoad>(DataType::float32(), n.update->buffer, std::vector<PrimExpr>(4, intImm(0))), n.w ? n.w->first() : input, input};
  const int64_t fill = int64_t(std::bit_cast<uint32_t>(float(pad.fill)));
  for (int64_t v : {shape[0], shape[3], pad.rows, pad.cols, shape[1], shape[2], kh, kw, sy, sx, dy, dx, pad.top, pad.left, *wc, *wy, *wx, n.w ? int64_t(0) : int64_t(1), n.w ? int64_t(0) : fill})
    args.push_back(intImm(v));
  GemmNest out;
  out.call = make<PrimCall>(DataType::int32(), "rlx.window_channels_last", std::move(args));
  out.stmt = make<Evaluate>(out.call);
  out.c = n.update->buffer;
  out.rowDims = {true, true, true, false}, out.batchDims = {false, false, false, false};
  return out;
}

}  // namespace

PrimFuncRef fusePaddedWindows(const PrimFuncRef& func) {
  if (!windowKernelAvailable()) return func;
  return editRootSequence(func, [](std::vector<Stmt>& seq, std::vector<BufferRef>& allocs) {
    bool changed = false;
    // The padding of stage p (over the dims `pair` from the end) when stage p + 1 alone reads it, once.
    auto paddingReadOnce = [&](size_t p, size_t pair) -> std::optional<Padding> {
      auto pad = paddingStage(seq[p], allocs, pair);
      if (!pad) return std::nullopt;
      Usage before = usageOf(seq, 0, p), after = usageOf(seq, p + 2, seq.size());
      if (before.touches(pad->padded) || after.touches(pad->padded)) return std::nullopt;
      Usage reader = usageOf(seq, p + 1, p + 2);
      if (reader.loads.count(pad->padded) != 1 || reader.loads.at(pad->padded) != 1) return std::nullopt;
      return pad;
    };
    // Stages p and p + 1 (and the element-wise nest after them, fused as the call's epilogue when it
    // can be) replaced by `window`'s call over the unpadded input.
    auto replace = [&](size_t p, const Padding& pad, const GemmNest& window) {
      const Buffer* c = window.c.get();
      auto cAlloc = std::find_if(allocs.begin(), allocs.end(), [&](const BufferRef& a) { return a.get() == c; });
      bool intoOut = cAlloc != allocs.end() && !usageOf(seq, 0, p + 1).touches(c) && !usageOf(seq, p + 3, seq.size()).touches(c);
      Stmt fused = p + 2 < seq.size() ? fuseGemmEpilogue(window, seq[p + 2], intoOut) : Stmt();
      if (fused && intoOut) allocs.erase(cAlloc);
      seq[p] = fused ? fused : Stmt(make<Evaluate>(window.call));
      seq.erase(seq.begin() + std::ptrdiff_t(p + 1), seq.begin() + std::ptrdiff_t(fused ? p + 3 : p + 2));
      allocs.erase(std::find_if(allocs.begin(), allocs.end(), [&](const BufferRef& a) { return a.get() == pad.padded; }));
      changed = true;
    };
    for (size_t p = 0; p + 1 < seq.size(); ++p) {
      if (auto pad = paddingReadOnce(p, 2)) {
        if (PrimExpr pool = poolCall(seq[p + 1], *pad)) {
          seq[p] = make<Evaluate>(pool);
          seq.erase(seq.begin() + std::ptrdiff_t(p + 1));
          allocs.erase(std::find_if(allocs.begin(), allocs.end(), [&](const BufferRef& a) { return a.get() == pad->padded; }));
          changed = true;
          continue;
        }
        auto gemm = pad->fill == 0 ? matchMatmulNest(seq[p + 1]) : std::nullopt;
        if (const PrimCall* call = windowCall(gemm, pad->padded)) {
          std::vector<PrimExpr> args = call->args;
          args[2] = make<BufferLoad>(DataType::float32(), pad->input, std::vector<PrimExpr>(pad->input->shape.size(), intImm(0)));
          for (int64_t v : {pad->paddedRows, pad->paddedCols, pad->rows, pad->cols, pad->top, pad->left}) args.push_back(intImm(v));
          // The element-wise nest after it (bias, activation) runs on each channel plane as the kernel
          // finishes it: the channels act as the epilogue's rows (schedule_epilogue.h).
          GemmNest window = *gemm;
          window.call = make<PrimCall>(DataType::int32(), "rlx.sgemm_padded", std::move(args));
          window.rowDims = window.batchDims, window.batchRows = true;
          replace(p, *pad, window);
          continue;
        }
      }
      // Channels last (NHWC): the epilogue runs on each finished output row, its channels the columns.
      // A depthwise convolution, or a max pool (its padding the maximum's start).
      if (auto pad = paddingReadOnce(p, 3)) {
        std::optional<GemmNest> window;
        if (auto ps = pad->fill == 0 ? matchProductSum(seq[p + 1]) : std::nullopt) {
          const Operand* t = ps->x.load->buffer.get() == pad->padded ? &ps->x : ps->y.load->buffer.get() == pad->padded ? &ps->y : nullptr;
          if (t) window = channelsLastCall({&ps->nest, ps->update, t, t == &ps->x ? &ps->y : &ps->x, &ps->cVars}, *pad);
        } else if (auto mn = matchMaxNest(seq[p + 1], *pad)) {
          window = channelsLastCall({&mn->nest, mn->update, &mn->t, nullptr, &mn->cVars}, *pad);
        }
        if (window) replace(p, *pad, *window);
      }
    }
    return changed;
  });
}

}  // namespace rlx
