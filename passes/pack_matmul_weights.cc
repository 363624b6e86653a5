// PackMatmulWeights: a constant weight W (K x N) that kernels read only as the B of a matmul block
// (C[.., i, j] += A[.., i, k] * W[k, j]) is stored as [N / 32][K][32] column panels, the layout
// rlx_sgemm packs B into on every call, and the kernels read W'[j // 32, k, j % 32]. Why: the GEMM
// then streams each panel in place; packing a 768 x 3072 weight every call was a fifth of a ViT
// layer's GEMM, waiting on rows 12 KB apart. rlx's CPU build runs it after FuseTIR (`rlx run`); TVM
// has no counterpart (its MetaSchedule rewrites layouts of "layout free" buffers the same way).
// Every call of the kernel must pass such a constant at that position, each used nowhere else, so
// that no copy of a weight is kept; N must be a multiple of 32.
// Before: `R.call_tir(cls.fused_matmul_add, (lv, metadata["relax.expr.Constant"][3], ..))` with
//         the kernel reading `w[v_k, v_j]` of a (768, 3072) buffer;
// After:  the constant is (96, 768, 32) and the kernel reads `w[v_j // 32, v_k, v_j % 32]`.
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

// The matmul operand loads of `buf` in block b: b's body is C[I] = C[I] + X * Y (with an init), one
// of X, Y is buf[k, j] with k a reduction iter var and j C's last index, which the other operand
// does not use.
int matmulLoads(const TirBlock& b, const Buffer* buf) {
  if (!b.init || !b.body || b.body->kind() != NodeKind::BufferStore) return 0;
  auto& st = static_cast<const BufferStore&>(*b.body);
  if (st.indices.empty() || !st.value || st.value->kind() != NodeKind::Add) return 0;
  auto& sum = static_cast<const PrimBinary&>(*st.value);
  auto isC = [&](const PrimExpr& e) { return e->kind() == NodeKind::BufferLoad && static_cast<const BufferLoad&>(*e).buffer.get() == st.buffer.get(); };
  const PrimExpr& product = isC(sum.a) ? sum.b : isC(sum.b) ? sum.a : PrimExpr();
  if (!product || product->kind() != NodeKind::Mul) return 0;
  auto& mul = static_cast<const PrimBinary&>(*product);
  const PrimVar* j = varOf(st.indices.back());
  auto kindOf = [&](const PrimVar* v) -> int {
    for (auto& iv : b.iterVars)
      if (iv.var.get() == v) return iv.kind;
    return -1;
  };
  int n = 0;
  for (auto [w, other] : {std::pair{mul.a, mul.b}, std::pair{mul.b, mul.a}}) {
    if (w->kind() != NodeKind::BufferLoad) continue;
    auto& l = static_cast<const BufferLoad&>(*w);
    if (l.buffer.get() != buf || l.indices.size() != 2) continue;
    const PrimVar* k = varOf(l.indices[0]);
    if (j && varOf(l.indices[1]) == j && k && kindOf(k) == IterVar::CommReduce && kindOf(j) == IterVar::DataPar && !mentions(other, j)) ++n;
  }
  return n;
}

// The buffer of PrimFunc param `p` when the kernel reads it only as a matmul's B, 2-D float32 of
// constant shape (K, N) with N a multiple of the panel width; null otherwise.
const Buffer* packableParam(const PrimFunc& f, size_t p) {
  if (p >= f.bufferMap.size()) return nullptr;
  const Buffer* buf = f.bufferMap[p].second.get();
  if (!buf || buf->dtype != DataType::float32() || buf->shape.size() != 2 || !buf->strides.empty()) return nullptr;
  auto* n = asIntImm(buf->shape[1]);
  auto* k = asIntImm(buf->shape[0]);
  if (!n || !k || n->value % kPanel != 0 || k->value < 1) return nullptr;
  int all = 0, matmul = 0;
  bool other = false;
  TirRewriter count;
  count.expr = [&](const PrimExpr& e) {
    all += loadsOf(e, buf);
    return e;
  };
  count.stmt(f.body);
  forEachBlock(f.body, [&](const TirBlock& b) {
    matmul += matmulLoads(b, buf);
    for (auto& m : b.matchBuffers) other |= m.source.buffer.get() == buf;
    if (b.body && b.body->kind() == NodeKind::BufferStore) other |= static_cast<const BufferStore&>(*b.body).buffer.get() == buf;
  });
  return !other && matmul > 0 && matmul == all ? buf : nullptr;
}

// W (K x N) as [N / 32][K][32]: a new array, or (`inPlace`, the input module being consumed) W's
// own memory rewritten through a temporary copy and viewed with the new shape, so that a model's
// weights are not resident twice at the peak.
Result<NDArrayRef> packPanels(const NDArrayRef& w, bool inPlace) {
  int64_t k = w->shape[0], n = w->shape[1];
  std::vector<int64_t> shape{n / kPanel, k, kPanel};
  std::vector<float> copy;
  const float* src = w->as<float>();
  NDArrayRef out;
  if (inPlace) {
    copy.assign(src, src + k * n);
    src = copy.data();
    out = make<NDArray>(DataType::float32(), shape, w->data(), w);
  } else {
    out = NDArray::uninitialized(DataType::float32(), shape);
    if (!out) return Error("PackMatmulWeights: out of memory for a " + std::to_string(k) + " x " + std::to_string(n) + " weight");
  }
  float* dst = out->as<float>();
  for (int64_t s = 0; s < n / kPanel; ++s)
    for (int64_t r = 0; r < k; ++r)
      for (int64_t c = 0; c < kPanel; ++c) dst[(s * k + r) * kPanel + c] = src[r * n + s * kPanel + c];
  return out;
}

// The kernel with param buffer `old` replaced by its panel layout.
PrimFuncRef withPanels(const PrimFunc& f, size_t p) {
  const BufferRef& old = f.bufferMap[p].second;
  auto nb = make<Buffer>();
  nb->name = old->name, nb->dtype = old->dtype, nb->scope = old->scope, nb->data = old->data;
  PrimExpr k = old->shape[0];
  int64_t n = asIntImm(old->shape[1])->value;
  nb->shape = {intImm(n / kPanel), k, intImm(kPanel)};
  TirRewriter r;
  std::function<PrimExpr(const PrimExpr&)> expr = [&](const PrimExpr& e) -> PrimExpr {
    if (e->kind() == NodeKind::BufferLoad) {
      auto& l = static_cast<const BufferLoad&>(*e);
      if (l.buffer.get() == old.get()) {
        const PrimExpr& j = l.indices[1];
        PrimExpr panel = intImm(kPanel, j->dtype);
        return make<BufferLoad>(l.dtype, nb, std::vector<PrimExpr>{make<PrimBinary>(NodeKind::FloorDiv, j->dtype, j, panel), l.indices[0],
                                                                   make<PrimBinary>(NodeKind::FloorMod, j->dtype, j, panel)});
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
  for (auto& [name, sites] : calls) {
    auto* entry = out->find(name);
    auto prim = entry ? entry->func.as<PrimFunc>() : Ref<PrimFunc>();
    if (!prim) continue;
    PrimFuncRef changed = prim;
    for (size_t p = 0; p < sites[0].size(); ++p) {
      const Buffer* buf = packableParam(*changed, p);
      if (!buf) continue;
      bool all = true;
      for (auto& args : sites) {
        auto c = p < args.size() ? args[p].as<Constant>() : Ref<Constant>();
        all = all && c && uses[c->data.get()] == 1 && c->data->dtype == DataType::float32() && c->data->shape.size() == 2 &&
              c->data->shape[0] == asIntImm(buf->shape[0])->value && c->data->shape[1] == asIntImm(buf->shape[1])->value;
      }
      if (!all) continue;
      for (auto& args : sites) {
        auto c = args[p].as<Constant>();
        BlockBuilder bb;
        RLX_TRY(panels, packPanels(c->data, inPlace));
        RLX_TRY(packed, bb.normalize(make<Constant>(panels)));
        swap[c.get()] = packed;
      }
      changed = withPanels(*changed, p);
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
