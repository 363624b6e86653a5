// AnnotateTIROpPattern: classifies every PrimFunc by the access pattern of its blocks and records it
// as the "op_pattern" func attr, as TVM's relax.transform.AnnotateTIROpPattern does, so that
// FuseOps can group kernels that were never Relax ops (legalized calls are R.call_tir of kernels).
// Kinds (TVM's OpPatternKind): 0 elementwise, 1 broadcast, 2 injective, 3 comm-reduce,
// 4 out-elementwise-fusable, 8 opaque. The rules follow TVM's AnalyzeOpPatternKind, block by block
// (the root block is skipped; the kernel's kind is the max over its blocks):
//   1. Collect the block body's stores and loads (not its init). Two stores with different
//      indices make the kernel opaque.
//   2. Compare each load with the store: same indices → elementwise; indices a subsequence of the
//      store's vars (size-1 dims read at 0 skipped) → broadcast; store indices all vars and load
//      indices using only them → injective; otherwise the block is not index-mapped. Broadcast
//      loads next to an elementwise one count as elementwise (C[i, j] = A[i, j] + B[j]).
//   3. An index-mapped block that writes a param after a reduction makes the kernel
//      out-elementwise-fusable (softmax, layer_norm); else it raises the kind to its pattern.
//   4. A block with reduction iter vars is out-elementwise-fusable when its body is a
//      multiply-accumulate of operands that are each reused (matmul) or when a load indexes a
//      reduction var in an expression (pooling), comm-reduce otherwise; without one, opaque.
// A PrimFunc that already has a nonzero op_pattern keeps it. Relax functions are unchanged.
// Before: `T.func_attr({"tir.noalias": True})` on `def add(...)` (T_add[i, j] = x[i, j] + b[j]);
// after: `T.func_attr({"op_pattern": 0, "tir.noalias": True})`.
#include <algorithm>
#include <unordered_set>

#include "ir/prim_expr_map.h"
#include "ir/tir.h"
#include "passes/registry.h"

namespace rlx {

namespace {

enum PatternKind : int { kElemWise = 0, kBroadcast = 1, kInjective = 2, kCommReduce = 3, kOutEWiseFusable = 4, kOpaque = 8 };

// Deep equality of index expressions; vars compare by identity.
bool sameExpr(const PrimExpr& a, const PrimExpr& b) {
  if (a.same(b)) return true;
  if (!a || !b || a->kind() != b->kind() || a->dtype != b->dtype) return false;
  switch (a->kind()) {
    case NodeKind::IntImm: return static_cast<const IntImm&>(*a).value == static_cast<const IntImm&>(*b).value;
    case NodeKind::FloatImm: return static_cast<const FloatImm&>(*a).value == static_cast<const FloatImm&>(*b).value;
    case NodeKind::PrimVar: return false;
    case NodeKind::Not: return sameExpr(static_cast<const PrimNot&>(*a).a, static_cast<const PrimNot&>(*b).a);
    case NodeKind::Cast: return sameExpr(static_cast<const Cast&>(*a).value, static_cast<const Cast&>(*b).value);
    case NodeKind::Select: {
      auto &x = static_cast<const Select&>(*a), &y = static_cast<const Select&>(*b);
      return sameExpr(x.cond, y.cond) && sameExpr(x.trueValue, y.trueValue) && sameExpr(x.falseValue, y.falseValue);
    }
    default:
      if (PrimBinary::classOf(a->kind())) {
        auto &x = static_cast<const PrimBinary&>(*a), &y = static_cast<const PrimBinary&>(*b);
        return sameExpr(x.a, y.a) && sameExpr(x.b, y.b);
      }
      return false;  // loads, calls, lets in indices: treated as different
  }
}

bool sameIndices(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!sameExpr(a[i], b[i])) return false;
  return true;
}

// Calls f on every PrimVar occurring in e.
template <typename F>
void forEachVar(const PrimExpr& e, F&& f) {
  if (!e) return;
  switch (e->kind()) {
    case NodeKind::PrimVar: f(static_cast<const PrimVar*>(e.get())); return;
    case NodeKind::Not: forEachVar(static_cast<const PrimNot&>(*e).a, f); return;
    case NodeKind::Cast: forEachVar(static_cast<const Cast&>(*e).value, f); return;
    case NodeKind::Select: {
      auto& s = static_cast<const Select&>(*e);
      forEachVar(s.cond, f), forEachVar(s.trueValue, f), forEachVar(s.falseValue, f);
      return;
    }
    case NodeKind::PrimCall:
      for (auto& a : static_cast<const PrimCall&>(*e).args) forEachVar(a, f);
      return;
    case NodeKind::BufferLoad:
      for (auto& a : static_cast<const BufferLoad&>(*e).indices) forEachVar(a, f);
      return;
    case NodeKind::PrimLet: {
      auto& l = static_cast<const PrimLet&>(*e);
      forEachVar(l.var, f), forEachVar(l.value, f), forEachVar(l.body, f);
      return;
    }
    case NodeKind::Ramp: {
      auto& r = static_cast<const Ramp&>(*e);
      forEachVar(r.base, f), forEachVar(r.stride, f);
      return;
    }
    case NodeKind::Broadcast: forEachVar(static_cast<const Broadcast&>(*e).value, f); return;
    default:
      if (PrimBinary::classOf(e->kind())) {
        forEachVar(static_cast<const PrimBinary&>(*e).a, f);
        forEachVar(static_cast<const PrimBinary&>(*e).b, f);
      }
  }
}

// The store's index vars, or nullopt when an index is not a plain var.
std::optional<std::unordered_set<const PrimVar*>> storeVars(const BufferStore& store) {
  std::unordered_set<const PrimVar*> vars;
  for (auto& i : store.indices) {
    auto v = i.as<PrimVar>();
    if (!v) return std::nullopt;
    vars.insert(v.get());
  }
  return vars;
}

bool isConstInt(const PrimExpr& e, int64_t v) {
  auto c = e.as<IntImm>();
  return c && c->value == v;
}

bool isBroadcast(const BufferStore& store, const BufferLoad& load) {
  size_t j = 0;
  for (size_t i = 0; i < load.indices.size(); ++i) {
    if (i < load.buffer->shape.size() && isConstInt(load.buffer->shape[i], 1) && isConstInt(load.indices[i], 0)) continue;
    while (j < store.indices.size() && !store.indices[j].same(load.indices[i])) ++j;
    if (j == store.indices.size()) return false;
  }
  return true;
}

bool isInjective(const BufferStore& store, const BufferLoad& load) {
  auto vars = storeVars(store);
  if (!vars) return false;
  bool foreign = false;
  for (auto& i : load.indices) forEachVar(i, [&](const PrimVar* v) { foreign |= !vars->count(v); });
  return !foreign;
}

// True when the load leaves some store var unused: each of its elements feeds several outputs.
bool allowsReuse(const BufferStore& store, const BufferLoad& load) {
  auto vars = storeVars(store);
  if (!vars) return false;
  for (auto& i : load.indices) forEachVar(i, [&](const PrimVar* v) { vars->erase(v); });
  return !vars->empty();
}

// C[...] = C[...] + A[...] * B[...] with A and B both reused (matmul, conv).
bool isFMA(const Stmt& body) {
  auto store = body.as<BufferStore>();
  if (!store || store->value->kind() != NodeKind::Add) return false;
  auto& add = static_cast<const PrimBinary&>(*store->value);
  auto acc = add.a.as<BufferLoad>();
  if (!acc || add.b->kind() != NodeKind::Mul) return false;
  auto& mul = static_cast<const PrimBinary&>(*add.b);
  auto l = mul.a.as<BufferLoad>(), r = mul.b.as<BufferLoad>();
  bool incremental = store->buffer.same(acc->buffer) && sameIndices(store->indices, acc->indices);
  return incremental && l && r && allowsReuse(*store, *l) && allowsReuse(*store, *r);
}

// Every index that uses a reduction var is exactly that var.
bool isPureReduce(const std::vector<const PrimVar*>& reduceVars, const BufferLoad& load) {
  for (auto& i : load.indices) {
    const PrimVar* used = nullptr;
    forEachVar(i, [&](const PrimVar* v) {
      if (!used && std::find(reduceVars.begin(), reduceVars.end(), v) != reduceVars.end()) used = v;
    });
    if (used && i.get() != used) return false;
  }
  return true;
}

class Analyzer {
 public:
  explicit Analyzer(const PrimFunc& f) {
    for (auto& [param, buf] : f.bufferMap) params_.insert(buf.get());
  }
  int run(const Stmt& body) {
    visitStmt(body);
    return kind_;
  }

 private:
  void visitExpr(const PrimExpr& e) {
    if (!e) return;
    if (e->kind() == NodeKind::BufferLoad) loads_.push_back(e.as<BufferLoad>());
    forEachOperand(e, [&](const PrimExpr& x) { visitExpr(x); });
  }

  void visitStmt(const Stmt& s) {
    if (!s) return;
    switch (s->kind()) {
      case NodeKind::BufferStore: {
        auto st = s.as<BufferStore>();
        // One store per block (a TE compute); a second one elsewhere makes the kernel opaque.
        if (store_ && !sameIndices(st->indices, store_->indices)) {
          kind_ = kOpaque;
          return;
        }
        store_ = st;
        visitExpr(st->value);
        for (auto& i : st->indices) visitExpr(i);
        return;
      }
      case NodeKind::SeqStmt:
        for (auto& c : static_cast<const SeqStmt&>(*s).seq) visitStmt(c);
        return;
      case NodeKind::For: {
        auto& f = static_cast<const For&>(*s);
        visitExpr(f.min), visitExpr(f.extent), visitStmt(f.body);
        return;
      }
      case NodeKind::IfThenElse: {
        auto& i = static_cast<const IfThenElse&>(*s);
        visitExpr(i.cond), visitStmt(i.thenCase), visitStmt(i.elseCase);
        return;
      }
      case NodeKind::LetStmt: {
        auto& l = static_cast<const LetStmt&>(*s);
        visitExpr(l.value), visitStmt(l.body);
        return;
      }
      case NodeKind::Evaluate: visitExpr(static_cast<const Evaluate&>(*s).value); return;
      case NodeKind::AssertStmt: {
        auto& a = static_cast<const AssertStmt&>(*s);
        visitExpr(a.cond), visitExpr(a.message), visitStmt(a.body);
        return;
      }
      case NodeKind::BlockRealize: {
        auto& r = static_cast<const BlockRealize&>(*s);
        for (auto& v : r.iterValues) visitExpr(v);
        visitExpr(r.predicate);
        visitBlock(*r.block);
        return;
      }
      case NodeKind::TirBlock: visitBlock(static_cast<const TirBlock&>(*s)); return;
      default: return;
    }
  }

  bool isOutputBlock(const TirBlock& b) const {
    for (auto& w : b.writes)
      if (params_.count(w.buffer.get())) return true;
    return false;
  }

  void visitBlock(const TirBlock& b) {
    if (b.name == "root") {
      visitStmt(b.body);
      return;
    }
    loads_.clear();
    store_ = nullptr;
    visitStmt(b.body);
    if (!store_) {
      kind_ = kOpaque;
      return;
    }
    const BufferStore& store = *store_;

    // Step 2: the index relation of every load to the store.
    int pattern = kElemWise;
    bool hasElemWise = false;
    for (auto& load : loads_) {
      if (sameIndices(store.indices, load->indices)) {
        hasElemWise = true;
      } else if (isBroadcast(store, *load)) {
        pattern = std::max(pattern, int(kBroadcast));
      } else if (isInjective(store, *load)) {
        pattern = std::max(pattern, int(kInjective));
      } else {
        pattern = kOpaque;
        break;
      }
    }
    if (pattern == kBroadcast && hasElemWise) pattern = kElemWise;
    // Step 3: index-mapped blocks; an output block after a reduction (softmax, layer_norm).
    if (pattern != kOpaque) {
      if (isOutputBlock(b) && kind_ == kCommReduce) kind_ = kOutEWiseFusable;
      else kind_ = std::max(kind_, pattern);
      return;
    }
    // Step 4: reductions.
    std::vector<const PrimVar*> reduceVars;
    for (auto& iv : b.iterVars)
      if (iv.kind == IterVar::CommReduce) reduceVars.push_back(iv.var.get());
    if (reduceVars.empty()) {
      kind_ = kOpaque;
      return;
    }
    if (isFMA(b.body)) {
      kind_ = std::max(kind_, int(kOutEWiseFusable));
      return;
    }
    for (auto& load : loads_)
      if (!isPureReduce(reduceVars, *load)) {
        kind_ = std::max(kind_, int(kOutEWiseFusable));
        return;
      }
    kind_ = std::max(kind_, int(kCommReduce));
  }

  std::unordered_set<const Buffer*> params_;
  std::vector<Ref<BufferLoad>> loads_;
  Ref<BufferStore> store_;
  int kind_ = kElemWise;
};

Expr annotate(const Expr& func) {
  auto p = func.as<PrimFunc>();
  if (!p) return func;
  if (auto k = attrInt(p->attrs, "op_pattern"); k && *k != 0) return func;
  int kind = Analyzer(*p).run(p->body);
  if (auto k = attrInt(p->attrs, "op_pattern"); k && *k == kind) return func;
  return withPrimFuncAttrs(*p, withDictAttr(p->attrs, "op_pattern", AttrValue::integer(kind)));
}

}  // namespace

Result<Pass> createAnnotateTIROpPatternPass(PassOptions&) {
  return Pass({"AnnotateTIROpPattern", 0, {}}, [](const IRModuleRef& mod, const PassContext& ctx) -> Result<IRModuleRef> {
    IRModuleRef out = mod;
    for (auto& e : mod->functions) {
      if (!ctx.inScope(e.gvar->name)) continue;
      Expr f = annotate(e.func);
      if (!f.same(e.func)) out = withFunction(out, e.gvar, f);
    }
    return out;
  });
}

}  // namespace rlx
