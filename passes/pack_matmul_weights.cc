// PackMatmulWeights: a constant weight W (K x N) that kernels read only as the B of a matmul block
// (C[.., i, j] += A[.., i, k] * W[k, j]) is stored as [N / 32][K][32] column panels, the layout
// rlx_sgemm packs B into on every call, and the kernels read W'[j // 32, k, j % 32]. Why: the GEMM
// then streams each panel in place; packing a 768 x 3072 weight every call was a fifth of a ViT
// layer's GEMM, waiting on rows 12 KB apart. A weight read as the A of a GEMM with few columns (a 1x1
// or strided convolution's [O, I, kh, kw] over outputs of under 256 pixels), or of a strided one with
// at least as many output pixels as channels (whose gathered input makes it transposed), is stored so too, along
// its output channels ([O / 32][I][kh][kw][32], read W'[o // 32, i, ry, rx, o % 32]): the GEMM then
// runs transposed, its vectors along the channels, the weight never packed per call (sgemm.cc). rlx's CPU build runs it after FuseTIR
// (`rlx run`); TVM has no counterpart (its MetaSchedule rewrites layouts of "layout free" buffers
// the same way). Every call of the kernel must pass such a constant at that position, each used
// nowhere else, so that no copy of a weight is kept. A panel dim that 32 does not divide (GPT-2's
// 50257-word LM head, a 1000-class classifier) has its last panel padded with zeros: the GEMM reads
// it whole and writes only the columns that exist (it had packed the LM head's 154 MB every call).
// Before: `R.call_tir(cls.fused_matmul_add, (lv, metadata["relax.expr.Constant"][3], ..))` with
//         the kernel reading `w[v_k, v_j]` of a (768, 3072) buffer;
// After:  the constant is (96, 768, 32) and the kernel reads `w[v_j // 32, v_k, v_j % 32]`.
#include <algorithm>
#include <cstring>
#include <map>
#include <unordered_map>

#include "ir/arith.h"
#include "ir/block_builder.h"
#include "ir/expr_walk.h"
#include "ir/prim_expr_map.h"
#include "ir/tir_rewrite.h"
#include "passes/binding_rewriter.h"
#include "passes/registry.h"

namespace rlx {

namespace {

constexpr int64_t kPanel = 32;  // rlx_sgemm's register tile width (kNR)

const PrimVar* varOf(const PrimExpr& e) { return e && e->kind() == NodeKind::PrimVar ? static_cast<const PrimVar*>(e.get()) : nullptr; }

void forEachBlock(const Stmt& s, const std::function<void(const TirBlock&)>& f) {
  if (!s) return;
  switch (s->kind()) {
    case NodeKind::SeqStmt:
      for (auto& x : static_cast<const SeqStmt&>(*s).seq) forEachBlock(x, f);
      return;
    case NodeKind::For: return forEachBlock(static_cast<const For&>(*s).body, f);
    case NodeKind::IfThenElse: {
      auto& i = static_cast<const IfThenElse&>(*s);
      forEachBlock(i.thenCase, f), forEachBlock(i.elseCase, f);
      return;
    }
    case NodeKind::LetStmt: return forEachBlock(static_cast<const LetStmt&>(*s).body, f);
    case NodeKind::AssertStmt: return forEachBlock(static_cast<const AssertStmt&>(*s).body, f);
    case NodeKind::BlockRealize: {
      const TirBlock& b = *static_cast<const BlockRealize&>(*s).block;
      f(b);
      forEachBlock(b.init, f), forEachBlock(b.body, f);
      return;
    }
    default: return;
  }
}

// The loads of `buf` in `e` (through every operand).
int loadsOf(const PrimExpr& e, const Buffer* buf) {
  if (!e) return 0;
  int n = e->kind() == NodeKind::BufferLoad && static_cast<const BufferLoad&>(*e).buffer.get() == buf;
  forEachOperand(e, [&](const PrimExpr& x) { n += loadsOf(x, buf); });
  return n;
}

// Below this many output elements per output channel (C's extent after the channel dim: an image's
// pixels) a weight the GEMM reads as A is stored in panels too, so that the GEMM runs transposed,
// its vectors along the channels: at 7 x 7 (49 pixels, two slivers of 32 computing 64 lanes) and
// 14 x 14, and for a squeeze-excitation's single pixel (a GEMV of one lane in sixteen otherwise).
constexpr int64_t kTransposedColumns = 256;

// Whether `e` scales a var by a constant above 1 (a strided convolution's input index, y * 2 + ry):
// such a window has no Winograd form, which a 3 x 3 stride-1 one keeps by its weight staying as it is.
bool strided(const PrimExpr& e) {
  if (!e) return false;
  if (e->kind() == NodeKind::Mul) {
    auto& m = static_cast<const PrimBinary&>(*e);
    for (auto [x, c] : {std::pair{m.a, m.b}, std::pair{m.b, m.a}})
      if (varOf(x) && asIntImm(c) && asIntImm(c)->value > 1) return true;
  }
  bool found = false;
  forEachOperand(e, [&](const PrimExpr& x) { found = found || strided(x); });
  return found;
}

// The dim of `buf` that block b's GEMM output var indexes (-1: b does not read buf so): b's body C[I] = C[I] + X * Y (with an init), one of X, Y buf[..] whose
// indices are one output var o (a spatial iter var C is indexed by, the other operand never) and
// otherwise distinct reduction vars. o must be C's last index (buf is the GEMM's B: a matmul's
// weight), or (buf the GEMM's A: a 1x1 or strided convolution's weight) an index of C with fewer than
// kTransposedColumns elements after it.
int panelDim(const TirBlock& b, const Buffer* buf) {
  if (!b.init || !b.body || b.body->kind() != NodeKind::BufferStore) return -1;
  auto& st = static_cast<const BufferStore&>(*b.body);
  if (st.indices.empty() || !st.value || st.value->kind() != NodeKind::Add) return -1;
  auto& sum = static_cast<const PrimBinary&>(*st.value);
  auto isC = [&](const PrimExpr& e) { return e->kind() == NodeKind::BufferLoad && static_cast<const BufferLoad&>(*e).buffer.get() == st.buffer.get(); };
  const PrimExpr& product = isC(sum.a) ? sum.b : isC(sum.b) ? sum.a : PrimExpr();
  if (!product || product->kind() != NodeKind::Mul) return -1;
  auto& mul = static_cast<const PrimBinary&>(*product);
  auto kindOf = [&](const PrimVar* v) -> int {
    for (auto& iv : b.iterVars)
      if (iv.var.get() == v) return iv.kind;
    return -1;
  };
  for (auto [w, other] : {std::pair{mul.a, mul.b}, std::pair{mul.b, mul.a}}) {
    if (w->kind() != NodeKind::BufferLoad) continue;
    auto& l = static_cast<const BufferLoad&>(*w);
    if (l.buffer.get() != buf) continue;
    int dim = -1, wide = 0;
    std::vector<const PrimVar*> seen;
    bool ok = true;
    for (size_t d = 0; d < l.indices.size() && ok; ++d) {
      const PrimVar* v = varOf(l.indices[d]);
      ok = v && std::find(seen.begin(), seen.end(), v) == seen.end();
      if (!ok) break;
      seen.push_back(v);
      if (kindOf(v) == IterVar::DataPar) {
        ok = dim < 0 && !mentions(other, v);
        dim = int(d);
      } else {
        ok = kindOf(v) == IterVar::CommReduce;
        auto* extent = asIntImm(buf->shape[d]);
        wide += !extent || extent->value != 1;
      }
    }
    if (!ok || dim < 0) continue;
    // Where the output var indexes C.
    const PrimVar* o = varOf(l.indices[size_t(dim)]);
    size_t at = st.indices.size();
    for (size_t d = 0; d < st.indices.size(); ++d)
      if (varOf(st.indices[d]) == o) at = d;
    if (at == st.indices.size()) continue;
    if (at + 1 == st.indices.size()) return dim;
    int64_t columns = 1;
    for (size_t d = at + 1; d < st.indices.size() && columns < kTransposedColumns; ++d) {
      auto* extent = asIntImm(st.buffer->shape[d]);
      columns = extent ? columns * extent->value : kTransposedColumns;  // symbolic: not few
    }
    if ((wide <= 1 || strided(other)) && columns < kTransposedColumns) return dim;
    // A strided window's input is gathered, so the GEMM runs transposed whenever the output has at
    // least as many pixels as channels (rlx_sgemm): the weight is then its B, packed on every call
    // unless stored in panels (a stride-2 3x3 layer of ResNet-50 at 28 x 28 spent 9% packing it).
    auto* channels = asIntImm(buf->shape[size_t(dim)]);
    if (strided(other) && channels && columns >= channels->value) return dim;
  }
  return -1;
}

// The dim of PrimFunc param `p`'s buffer that the kernel's GEMMs index by their output var, when
// every read of it is such a use (the same dim), float32 of constant shape, that dim at least the
// panel width; -1 otherwise.
int packableParam(const PrimFunc& f, size_t p) {
  if (p >= f.bufferMap.size()) return -1;
  const Buffer* buf = f.bufferMap[p].second.get();
  if (!buf || buf->dtype != DataType::float32() || buf->shape.size() < 2 || !buf->strides.empty()) return -1;
  for (auto& d : buf->shape)
    if (!asIntImm(d) || asIntImm(d)->value < 1) return -1;
  int all = 0, uses = 0, dim = -1;
  bool other = false;
  TirRewriter count;
  count.expr = [&](const PrimExpr& e) {
    all += loadsOf(e, buf);
    return e;
  };
  count.stmt(f.body);
  forEachBlock(f.body, [&](const TirBlock& b) {
    if (int d = panelDim(b, buf); d >= 0) {
      other |= dim >= 0 && dim != d;
      dim = d, uses += loadsOf(static_cast<const BufferStore&>(*b.body).value, buf);
    }
    for (auto& m : b.matchBuffers) other |= m.source.buffer.get() == buf;
    if (b.body && b.body->kind() == NodeKind::BufferStore) other |= static_cast<const BufferStore&>(*b.body).buffer.get() == buf;
  });
  if (other || uses == 0 || uses != all || asIntImm(buf->shape[size_t(dim)])->value < kPanel) return -1;
  return dim;
}

// W with its dim `dim` (extent O) split into panels: [ceil(O / 32)][the other dims in order][32], the
// last panel zero-padded when 32 does not divide O. A new array, or (`inPlace`, the input module
// being consumed, and no padding) W's own memory rewritten through a temporary copy in `scratch`
// and viewed with the new shape, so that a model's weights are not resident twice at the peak. The
// scratch serves every weight of the pass: a fresh copy each had every weight's pages faulted in once
// more (ViT-B/32: 350 MB).
Result<NDArrayRef> packPanels(const NDArrayRef& w, int dim, bool inPlace, std::vector<float>& scratch) {
  const std::vector<int64_t>& in = w->shape;
  // in = [before..., O, after...]: element (b, o, a) at (b * O + o) * after + a.
  int64_t before = 1, after = 1, o = in[size_t(dim)];
  for (int d = 0; d < dim; ++d) before *= in[size_t(d)];
  for (size_t d = size_t(dim) + 1; d < in.size(); ++d) after *= in[d];
  int64_t panels = (o + kPanel - 1) / kPanel;
  std::vector<int64_t> shape{panels};
  for (size_t d = 0; d < in.size(); ++d)
    if (int(d) != dim) shape.push_back(in[d]);
  shape.push_back(kPanel);
  int64_t total = before * o * after;
  const float* src = w->as<float>();
  NDArrayRef out;
  if (inPlace && o % kPanel == 0) {
    scratch.assign(src, src + total);
    src = scratch.data();
    out = make<NDArray>(DataType::float32(), shape, w->data(), w);
  } else {
    out = NDArray::uninitialized(DataType::float32(), shape);
    if (!out) return Error("PackMatmulWeights: out of memory for a weight of " + std::to_string(total) + " floats");
  }
  float* dst = out->as<float>();
  if (after == 1) {
    // O is the last dim (a matmul's [K, N] weight): a panel row is a run of 32 source floats.
    for (int64_t s = 0; s < panels; ++s) {
      const int64_t width = std::min<int64_t>(kPanel, o - s * kPanel);
      for (int64_t bi = 0; bi < before; ++bi) {
        float* row = dst + (s * before + bi) * kPanel;
        std::memcpy(row, src + bi * o + s * kPanel, size_t(width) * sizeof(float));
        std::fill(row + width, row + kPanel, 0.0f);
      }
    }
    return out;
  }
  // In tiles of kTile `a` by the panel's 32 rows: each source row's run of kTile floats is read
  // whole and the tile's kTile x 32 destination floats stay in L1 (element by element down the
  // panel's rows, a ResNet-50's weights took a tenth of its warm start).
  constexpr int64_t kTile = 16;
  for (int64_t s = 0; s < panels; ++s)
    for (int64_t bi = 0; bi < before; ++bi) {
      float* panel = dst + (s * before + bi) * after * kPanel;
      for (int64_t a0 = 0; a0 < after; a0 += kTile) {
        int64_t a1 = std::min(after, a0 + kTile);
        for (int64_t c = 0; c < kPanel; ++c) {
          const float* row = s * kPanel + c < o ? src + (bi * o + s * kPanel + c) * after : nullptr;
          for (int64_t a = a0; a < a1; ++a) panel[a * kPanel + c] = row ? row[a] : 0.0f;
        }
      }
    }
  return out;
}

// The kernel with param buffer `old` replaced by its panel layout along `dim`.
PrimFuncRef withPanels(const PrimFunc& f, size_t p, int dim) {
  const BufferRef& old = f.bufferMap[p].second;
  auto nb = make<Buffer>();
  nb->name = old->name, nb->dtype = old->dtype, nb->scope = old->scope, nb->data = old->data;
  int64_t o = asIntImm(old->shape[size_t(dim)])->value;
  nb->shape = {intImm((o + kPanel - 1) / kPanel)};
  for (size_t d = 0; d < old->shape.size(); ++d)
    if (int(d) != dim) nb->shape.push_back(old->shape[d]);
  nb->shape.push_back(intImm(kPanel));
  TirRewriter r;
  std::function<PrimExpr(const PrimExpr&)> expr = [&](const PrimExpr& e) -> PrimExpr {
    if (e->kind() == NodeKind::BufferLoad) {
      auto& l = static_cast<const BufferLoad&>(*e);
      if (l.buffer.get() == old.get()) {
        const PrimExpr& j = l.indices[size_t(dim)];
        PrimExpr panel = intImm(kPanel, j->dtype);
        std::vector<PrimExpr> idx{make<PrimBinary>(NodeKind::FloorDiv, j->dtype, j, panel)};
        for (size_t d = 0; d < l.indices.size(); ++d)
          if (int(d) != dim) idx.push_back(l.indices[d]);
        idx.push_back(make<PrimBinary>(NodeKind::FloorMod, j->dtype, j, panel));
        return make<BufferLoad>(l.dtype, nb, std::move(idx));
      }
    }
    return mapOperands(e, expr);
  };
  r.expr = expr;
  r.regions = [&](const std::vector<BufferRegion>& regs) {
    std::vector<BufferRegion> out;
    for (auto& reg : regs) {
      if (reg.buffer.get() != old.get()) {
        out.push_back(reg);
        continue;
      }
      BufferRegion whole{nb, {}};
      for (auto& d : nb->shape) whole.region.push_back({intImm(0), d});
      out.push_back(std::move(whole));
    }
    return out;
  };
  auto out = copyPrimFunc(f);
  out->bufferMap[p].second = nb;
  out->body = r.stmt(f.body);
  // Parameters untyped, as FuseTIR's kernels: the legalized kernel's typed signature named the old shape.
  out->sinfo = primFuncSInfo();
  return out;
}

// Replaces constants in call_tir argument tuples by pointer, and the callees whose kernels changed
// by their new GlobalVars (the binding rewriter re-infers the struct info of the rebuilt calls).
class ConstantSwap : public BindingRewriter {
 public:
  ConstantSwap(const std::unordered_map<const ExprNode*, Expr>& map, const std::map<std::string, GlobalVarRef>& kernels) : map_(map), kernels_(kernels) {}

 protected:
  Expr rewriteValue(const BindingRef&, const Expr& value) override {
    auto c = value.as<Call>();
    auto args = c && c->opName() == "relax.call_tir" && c->args.size() >= 2 ? c->args[1].as<Tuple>() : Ref<Tuple>();
    if (!args) return nullptr;
    std::vector<Expr> fields;
    bool changed = false;
    for (auto& f : args->fields) {
      auto it = map_.find(f.get());
      fields.push_back(it == map_.end() ? f : it->second);
      changed |= it != map_.end();
    }
    if (!changed) return nullptr;
    std::vector<Expr> callArgs = c->args;
    callArgs[1] = make<Tuple>(std::move(fields));
    if (auto gv = callArgs[0].as<GlobalVar>())
      if (auto it = kernels_.find(gv->name); it != kernels_.end()) callArgs[0] = it->second;
    return make<Call>(c->op, std::move(callArgs), c->attrs, c->sinfoArgs);
  }

 private:
  const std::unordered_map<const ExprNode*, Expr>& map_;
  const std::map<std::string, GlobalVarRef>& kernels_;
};

Result<IRModuleRef> packMatmulWeights(const IRModuleRef& mod, bool inPlace) {
  // Each kernel's call-site arguments by position, and every constant's number of uses.
  std::map<std::string, std::vector<std::vector<Expr>>> calls;
  // Uses of each constant's data (two constants may share an array).
  std::unordered_map<const NDArray*, int> uses;
  for (auto& entry : mod->functions) {
    if (!entry.func.as<Function>()) continue;
    walkExpr(entry.func, [&](const Expr& e) {
      if (auto c = e.as<Constant>()) ++uses[c->data.get()];
      auto c = e.as<Call>();
      if (!c || c->opName() != "relax.call_tir" || c->args.size() < 2) return;
      auto gv = c->args[0].as<GlobalVar>();
      auto args = c->args[1].as<Tuple>();
      if (gv && args) calls[gv->name].push_back(args->fields);
    });
  }
  IRModuleRef out = mod;
  std::unordered_map<const ExprNode*, Expr> swap;
  std::map<std::string, GlobalVarRef> kernels;
  std::vector<float> scratch;
  for (auto& [name, sites] : calls) {
    auto* entry = out->find(name);
    auto prim = entry ? entry->func.as<PrimFunc>() : Ref<PrimFunc>();
    if (!prim) continue;
    PrimFuncRef changed = prim;
    for (size_t p = 0; p < sites[0].size(); ++p) {
      int dim = packableParam(*changed, p);
      if (dim < 0) continue;
      const Buffer& buf = *changed->bufferMap[p].second;
      bool all = true;
      for (auto& args : sites) {
        auto c = p < args.size() ? args[p].as<Constant>() : Ref<Constant>();
        all = all && c && uses[c->data.get()] == 1 && c->data->dtype == DataType::float32() && c->data->shape.size() == buf.shape.size();
        for (size_t d = 0; all && d < buf.shape.size(); ++d) all = c->data->shape[d] == asIntImm(buf.shape[d])->value;
      }
      if (!all) continue;
      for (auto& args : sites) {
        auto c = args[p].as<Constant>();
        BlockBuilder bb;
        RLX_TRY(panels, packPanels(c->data, dim, inPlace, scratch));
        RLX_TRY(packed, bb.normalize(make<Constant>(panels)));
        swap[c.get()] = packed;
      }
      changed = withPanels(*changed, p, dim);
    }
    if (changed.get() != prim.get()) {
      auto gv = make<GlobalVar>(name);
      gv->sinfo = changed->sinfo;
      kernels[name] = gv;
      out = withFunction(out, gv, changed);
    }
  }
  if (swap.empty()) return out;
  IRModuleRef before = out;  // withFunction makes a new module: walk the one it started from
  for (auto& entry : before->functions) {
    if (!entry.func.as<Function>()) continue;
    ConstantSwap s(swap, kernels);
    out = withFunction(out, entry.gvar, s.mutate(entry.func));
  }
  return out;
}

}  // namespace

Result<Pass> createPackMatmulWeightsPass(PassOptions&) {
  return Pass({"PackMatmulWeights", 0, {}}, [](const IRModuleRef& mod, const PassContext& ctx) -> Result<IRModuleRef> { return packMatmulWeights(mod, ctx.consumesInput); });
}

}  // namespace rlx
