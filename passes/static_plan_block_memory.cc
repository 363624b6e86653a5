// StaticPlanBlockMemory: lets R.builtin.alloc_tensor calls whose lifetimes do not overlap share
// storage, as TVM v0.23's relax.transform.StaticPlanBlockMemory does. Why: one storage per
// intermediate tensor wastes memory; the VM allocates each planned storage once.
// Preconditions: after CallTIRRewrite (allocations explicit, PrimFuncs called in destination-passing
// style) and LambdaLift (nested functions are not planned).
// Per function, in three steps:
//  1. tokens: each alloc_tensor whose size is known (static, or bounded by the function's
//     "tir_var_upper_bound" attr for signature vars) gets a token; uses as arguments of PrimFunc /
//     packed calls in the allocating block count as references; a token that reaches any other
//     call, an if, a function result or another block is discarded (not planned). Aliases, tuples,
//     t[i] and reshape / memory.view / memory.ensure_zero_offset carry tokens along.
//  2. plan: in binding order each planned alloc takes a released token from the pool (storage_pool.h)
//     or new storage; a token whose references are all passed is released.
//  3. rewrite: `storage = R.memory.alloc_storage(R.shape([bytes]), dev, scope, dtype)` before the
//     first use of each storage, and `R.memory.alloc_tensor(storage, 0, shape, dtype)` for each
//     planned alloc. Function outputs keep R.builtin.alloc_tensor, except that with the attr
//     "relax.memory_plan_dynamic_func_output" a symbolic one gets its own storage sized by the upper
//     bounds (the attr is then dropped).
// One deviation, for well-formedness: storage first allocated inside an if branch is not reused
// after that branch (TVM would refer to the branch's storage var out of its scope).
// Before: `alloc = R.builtin.alloc_tensor(R.shape([1, 256]), R.dtype("float32"), R.prim_value(0), R.str("global"))`
// After:  `storage = R.memory.alloc_storage(R.shape([1024]), R.prim_value(0), R.str("global"), R.dtype("float32"))`
//         `alloc = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([1, 256]), R.dtype("float32"), R.prim_value(0))`
#include <unordered_map>

#include "ir/arith.h"
#include "ir/expr_walk.h"
#include "ir/struct_info.h"
#include "passes/binding_rewriter.h"
#include "passes/op_builder.h"
#include "passes/registry.h"
#include "passes/storage_pool.h"

namespace rlx {

namespace {

constexpr const char* kPlanDynamicOutput = "relax.memory_plan_dynamic_func_output";

bool isAllocTensor(const Call& c) { return c.opName() == "relax.builtin.alloc_tensor"; }

// Ops whose result may be the very buffer of their first argument.
bool isInplaceMemoryOp(const Call& c) {
  const std::string& n = c.opName();
  return n == "relax.reshape" || n == "relax.memory.view" || n == "relax.memory.ensure_zero_offset";
}

// ------------------------------------------------------------------ upper bounds of shapes
using VarBounds = std::unordered_map<const PrimVar*, int64_t>;

// The "tir_var_upper_bound" entries that name vars of the function's signature.
VarBounds signatureUpperBounds(const Function& f) {
  VarBounds bounds;
  auto* attr = f.attrs ? f.attrs->find("tir_var_upper_bound") : nullptr;
  if (!attr || !*attr || (*attr)->kind != AttrValue::Map) return bounds;
  std::vector<PrimVarRef> vars;
  for (auto& p : f.params) sinfoCollectVars(p->sinfo, vars);
  sinfoCollectVars(f.retSInfo, vars);
  for (auto& [name, value] : (*attr)->map) {
    std::optional<int64_t> ub;
    if (value && value->kind == AttrValue::Int) ub = value->i;
    else if (value && value->kind == AttrValue::Prim && asIntImm(value->prim)) ub = asIntImm(value->prim)->value;
    if (!ub || *ub <= 0) continue;
    for (auto& v : vars)
      if (v->name == name) bounds[v.get()] = *ub;
  }
  return bounds;
}

// [lo, hi] of an integer expression given var bounds; nullopt = unbounded on that side.
struct Interval {
  std::optional<int64_t> lo, hi;
};

// a op b, unbounded when either side is or the result overflows.
template <typename Op>
std::optional<int64_t> combine(std::optional<int64_t> a, std::optional<int64_t> b, Op op) {
  int64_t r;
  if (!a || !b || op(*a, *b, &r)) return std::nullopt;
  return r;
}
std::optional<int64_t> plus(std::optional<int64_t> a, std::optional<int64_t> b) { return combine(a, b, [](int64_t x, int64_t y, int64_t* r) { return __builtin_add_overflow(x, y, r); }); }
std::optional<int64_t> minus(std::optional<int64_t> a, std::optional<int64_t> b) { return combine(a, b, [](int64_t x, int64_t y, int64_t* r) { return __builtin_sub_overflow(x, y, r); }); }
std::optional<int64_t> product(std::optional<int64_t> a, std::optional<int64_t> b) { return combine(a, b, [](int64_t x, int64_t y, int64_t* r) { return __builtin_mul_overflow(x, y, r); }); }
int64_t floorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

Interval boundOf(const PrimExpr& e, const VarBounds& bounds) {
  if (auto c = asIntImm(e)) return {c->value, c->value};
  switch (e->kind()) {
    case NodeKind::PrimVar: {
      auto v = static_cast<const PrimVar*>(e.get());
      if (auto it = bounds.find(v); it != bounds.end()) return {0, it->second};
      if (v->isSizeVar) return {0, std::nullopt};
      return {};
    }
    case NodeKind::Add:
    case NodeKind::Sub:
    case NodeKind::Mul:
    case NodeKind::FloorDiv:
    case NodeKind::FloorMod:
    case NodeKind::Min:
    case NodeKind::Max: {
      auto& bin = static_cast<const PrimBinary&>(*e);
      Interval a = boundOf(bin.a, bounds), b = boundOf(bin.b, bounds);
      switch (e->kind()) {
        case NodeKind::Add: return {plus(a.lo, b.lo), plus(a.hi, b.hi)};
        case NodeKind::Sub: return {minus(a.lo, b.hi), minus(a.hi, b.lo)};
        case NodeKind::Mul: {
          if (a.lo && a.hi && b.lo && b.hi) {
            Interval r;
            for (auto x : {product(a.lo, b.lo), product(a.lo, b.hi), product(a.hi, b.lo), product(a.hi, b.hi)}) {
              if (!x) return {};
              r.lo = r.lo ? std::min(*r.lo, *x) : *x;
              r.hi = r.hi ? std::max(*r.hi, *x) : *x;
            }
            return r;
          }
          if (a.lo && b.lo && *a.lo >= 0 && *b.lo >= 0) return {product(a.lo, b.lo), product(a.hi, b.hi)};
          return {};
        }
        case NodeKind::FloorDiv: {
          auto c = asIntImm(bin.b);
          if (!c || c->value <= 0) return {};
          return {a.lo ? std::optional<int64_t>(floorDiv(*a.lo, c->value)) : std::nullopt, a.hi ? std::optional<int64_t>(floorDiv(*a.hi, c->value)) : std::nullopt};
        }
        case NodeKind::FloorMod: {
          auto c = asIntImm(bin.b);
          if (!c || c->value <= 0) return {};
          return {0, c->value - 1};
        }
        case NodeKind::Min: {
          std::optional<int64_t> hi = a.hi && b.hi ? std::min(*a.hi, *b.hi) : (a.hi ? a.hi : b.hi);
          return {a.lo && b.lo ? std::optional<int64_t>(std::min(*a.lo, *b.lo)) : std::nullopt, hi};
        }
        default: {
          std::optional<int64_t> lo = a.lo && b.lo ? std::max(*a.lo, *b.lo) : (a.lo ? a.lo : b.lo);
          return {lo, a.hi && b.hi ? std::optional<int64_t>(std::max(*a.hi, *b.hi)) : std::nullopt};
        }
      }
    }
    default: return {};
  }
}

// Each dim replaced by its upper bound when it has one (the shape planning assumes).
std::vector<PrimExpr> upperBoundShape(const std::vector<PrimExpr>& shape, const VarBounds& bounds) {
  std::vector<PrimExpr> out;
  for (auto& d : shape) {
    auto hi = asIntImm(d) ? std::nullopt : boundOf(d, bounds).hi;
    out.push_back(hi ? intImm(*hi) : d);
  }
  return out;
}

// ------------------------------------------------------------------ token trees
// The tokens an expression holds: none, one, or one per tuple field (TVM's NestedMsg).
struct Tokens {
  StorageToken* leaf = nullptr;
  std::vector<Tokens> fields;
  bool nested = false;
  bool isNull() const { return !nested && (!leaf || leaf->discarded); }
};

template <typename F>
void forEachLeaf(const Tokens& t, const F& f) {
  if (t.nested) {
    for (auto& x : t.fields) forEachLeaf(x, f);
  } else if (t.leaf && !t.leaf->discarded) {
    f(t.leaf);
  }
}

// Steps 1 and 2 for one function: which token (storage) each planned alloc_tensor call uses.
class Planner {
 public:
  Planner(const IRModule& mod, const Function& func) : mod_(mod), bounds_(signatureUpperBounds(func)) {}

  std::unordered_map<const Call*, StorageToken*> plan(const Function& func) {
    initSeq(*func.body.as<SeqExpr>());
    varTokens_.clear();
    planSeq(*func.body.as<SeqExpr>());
    return std::move(allocToken_);
  }

 private:
  Tokens tokensOf(const Expr& e) {
    switch (e->kind()) {
      case NodeKind::Var:
      case NodeKind::DataflowVar: {
        auto it = varTokens_.find(static_cast<const Var*>(e.get()));
        return it == varTokens_.end() ? Tokens{} : it->second;
      }
      case NodeKind::Tuple: {
        Tokens t;
        t.nested = true;
        for (auto& f : static_cast<const Tuple&>(*e).fields) t.fields.push_back(tokensOf(f));
        return t;
      }
      case NodeKind::TupleGetItem: {
        auto& g = static_cast<const TupleGetItem&>(*e);
        Tokens t = tokensOf(g.tuple);
        if (!t.nested || g.index < 0 || size_t(g.index) >= t.fields.size()) return {};
        return t.fields[g.index];
      }
      default: return {};
    }
  }

  static void discard(const Tokens& t) {
    forEachLeaf(t, [](StorageToken* tok) { tok->discarded = true; });
  }

  bool calleeIsPrimFunc(const Expr& op) const {
    auto gv = op.as<GlobalVar>();
    if (!gv) return false;
    auto* entry = mod_.find(gv->name);
    return entry && entry->func->kind() == NodeKind::PrimFunc;
  }

  // ---- step 1: tokens and reference counts
  void initSeq(const SeqExpr& s) {
    for (auto& b : s.blocks) {
      blocks_.push_back(b.get());
      for (auto& binding : b->bindings) {
        Tokens t = initValue(binding->value);
        if (!binding->isMatchCast()) varTokens_[binding->var.get()] = t;
      }
      blocks_.pop_back();
    }
    discard(tokensOf(s.body));  // the result escapes the block
  }

  Tokens initValue(const Expr& value) {
    if (auto c = value.as<Call>()) {
      if (isAllocTensor(*c)) return createToken(*c);
      if (isInplaceMemoryOp(*c) && !c->args.empty()) return tokensOf(c->args[0]);
      bool counted = calleeIsPrimFunc(c->op) || c->op->kind() == NodeKind::ExternFunc || c->opName() == "relax.vm.call_tir_dyn";
      for (auto& arg : c->args) {
        Tokens t = tokensOf(arg);
        if (!counted) {
          discard(t);
          continue;
        }
        // Planning is per block: a token used outside its allocating block is not planned.
        forEachLeaf(t, [&](StorageToken* tok) {
          if (tokenBlock_[tok] != blocks_.back()) tok->discarded = true;
        });
        forEachLeaf(t, [](StorageToken* tok) { ++tok->refCount; });
      }
      return {};
    }
    if (auto i = value.as<If>()) {
      discard(tokensOf(i->cond));
      for (auto& branch : {i->thenBranch, i->elseBranch})
        if (auto s = branch.as<SeqExpr>()) initSeq(*s);
      return {};
    }
    if (value->kind() == NodeKind::Function) {
      // Not planned (see the header): whatever it captures may outlive this block.
      discardUses(value);
      return {};
    }
    return tokensOf(value);
  }

  // Discards the tokens of every var a nested function uses.
  void discardUses(const Expr& func) {
    walkExpr(func, [&](const Expr& e) {
      if (e.is<Var>()) discard(tokensOf(e));
    });
  }

  Tokens createToken(const Call& c) {
    auto t = c.sinfo.as<TensorSInfo>();
    const std::vector<PrimExpr>* dims = t ? t->dims() : nullptr;
    auto scope = c.args.size() > 3 ? c.args[3].as<StringImm>() : nullptr;
    if (!dims || t->dtype.isVoid() || !scope) return {};
    tokens_.push_back(std::make_unique<StorageToken>(upperBoundShape(*dims, bounds_), t->dtype, scope->value));
    StorageToken* tok = tokens_.back().get();
    prototype_[&c] = tok;
    tokenBlock_[tok] = blocks_.back();
    return Tokens{tok};
  }

  // ---- step 2: reuse or allocate, in binding order
  void planSeq(const SeqExpr& s) {
    for (auto& b : s.blocks) {
      for (auto& binding : b->bindings) {
        Tokens t = planValue(binding->value);
        if (!binding->isMatchCast()) varTokens_[binding->var.get()] = t;
      }
    }
  }

  Tokens planValue(const Expr& value) {
    if (auto c = value.as<Call>()) {
      if (isAllocTensor(*c)) {
        auto it = prototype_.find(c.get());
        if (it == prototype_.end() || it->second->discarded) return {};
        StorageToken* tok = pool_.requestReuse(*it->second);
        if (!tok) {
          tok = pool_.allocate(it->second);
          if (!branchAllocs_.empty()) branchAllocs_.back().push_back(tok);
        }
        allocToken_[c.get()] = tok;
        return Tokens{tok};
      }
      if (isInplaceMemoryOp(*c) && !c->args.empty()) return tokensOf(c->args[0]);
      for (auto& arg : c->args)
        forEachLeaf(tokensOf(arg), [&](StorageToken* tok) {
          if (--tok->refCount == 0) pool_.release(tok);
        });
      return {};
    }
    if (auto i = value.as<If>()) {
      for (auto& branch : {i->thenBranch, i->elseBranch}) {
        auto s = branch.as<SeqExpr>();
        if (!s) continue;
        branchAllocs_.emplace_back();
        planSeq(*s);
        pool_.withdraw(branchAllocs_.back());
        branchAllocs_.pop_back();
      }
      return {};
    }
    if (value->kind() == NodeKind::Function) return {};
    return tokensOf(value);
  }

  const IRModule& mod_;
  VarBounds bounds_;
  std::vector<std::unique_ptr<StorageToken>> tokens_;
  std::unordered_map<const Call*, StorageToken*> prototype_;  // step 1's token per alloc
  std::unordered_map<const StorageToken*, const BindingBlock*> tokenBlock_;
  std::vector<const BindingBlock*> blocks_;
  std::unordered_map<const Var*, Tokens> varTokens_;
  StoragePool pool_;
  std::vector<std::vector<StorageToken*>> branchAllocs_;  // storage first allocated per open branch
  std::unordered_map<const Call*, StorageToken*> allocToken_;
};

// ------------------------------------------------------------------ step 3
// TVM's fresh names: "storage", then "storage1", "storage2", ... across the whole module.
class NameSupply {
 public:
  std::string fresh(const std::string& base) {
    int& n = counts_[base];
    std::string name = n ? base + std::to_string(n) : base;
    ++n;
    return name;
  }

 private:
  std::unordered_map<std::string, int> counts_;
};

class StorageRewriter : public BindingRewriter {
 public:
  StorageRewriter(std::unordered_map<const Call*, StorageToken*> plan, NameSupply& names, bool planOutputs, VarBounds bounds)
      : plan_(std::move(plan)), names_(names), planOutputs_(planOutputs), bounds_(std::move(bounds)) {}

 protected:
  Expr rewriteValue(const BindingRef& binding, const Expr& value) override {
    auto c = value.as<Call>();
    if (!c || !isAllocTensor(*c)) return nullptr;
    auto t = c->sinfo.as<TensorSInfo>();
    if (!t || !t->dims()) return nullptr;
    if (auto it = plan_.find(c.get()); it != plan_.end()) {
      auto [storage, fresh] = storageVars_.try_emplace(it->second);
      if (fresh) storage->second = emitStorage(it->second->bytes, c->args[2], c->args[3], t->dtype, binding->span);
      return allocTensor(storage->second, *c, *t);
    }
    if (!planOutputs_ || isStatic(*t->dims())) return nullptr;
    // An unplanned symbolic output: its own storage sized by the upper bounds.
    std::vector<PrimExpr> ub = upperBoundShape(*t->dims(), bounds_);
    PrimExpr bytes = ub[0];
    for (size_t i = 1; i < ub.size(); ++i) bytes = tvmMul(bytes, ub[i]);
    bytes = tvmMul(bytes, intImm(t->dtype.bytes()));
    return allocTensor(emitStorage(bytes, c->args[2], c->args[3], t->dtype, binding->span), *c, *t);
  }

 private:
  static bool isStatic(const std::vector<PrimExpr>& dims) {
    for (auto& d : dims)
      if (!asIntImm(d)) return false;
    return true;
  }

  Expr emitStorage(const PrimExpr& bytes, const Expr& device, const Expr& scope, DataType dtype, const Span& span) {
    Expr call = build::call("memory.alloc_storage", {build::e(make<ShapeExpr>(std::vector<PrimExpr>{bytes})), build::e(device), build::e(scope), build::e(make<DataTypeImm>(dtype))});
    auto var = builder().emit(call, names_.fresh("storage"), span);
    RLX_CHECK(var.ok());
    return var.value();
  }

  static Expr allocTensor(const Expr& storage, const Call& alloc, const TensorSInfo& t) {
    return build::call("memory.alloc_tensor", {build::e(storage), build::e(primValue(0)), build::e(alloc.args[0]), build::e(make<DataTypeImm>(t.dtype))});
  }

  std::unordered_map<const Call*, StorageToken*> plan_;
  NameSupply& names_;
  bool planOutputs_;
  VarBounds bounds_;
  std::unordered_map<const StorageToken*, Expr> storageVars_;
};

AttrsRef withoutAttr(const AttrsRef& attrs, const std::string& key) {
  auto out = make<Attrs>();
  out->typeKey = attrs->typeKey;
  for (auto& f : attrs->fields)
    if (f.first != key) out->fields.push_back(f);
  return out->fields.empty() ? nullptr : out;
}

}  // namespace

Result<Pass> createStaticPlanBlockMemoryPass(PassOptions&) {
  return Pass({"StaticPlanBlockMemory", 0, {}}, [](const IRModuleRef& mod, const PassContext& ctx) -> Result<IRModuleRef> {
    IRModuleRef out = mod;
    NameSupply names;
    for (auto& e : mod->functions) {
      auto f = e.func.as<Function>();
      if (!f || !f->body.is<SeqExpr>() || !ctx.inScope(e.gvar->name)) continue;
      bool planOutputs = attrInt(f->attrs, kPlanDynamicOutput).value_or(0) != 0;
      Planner planner(*mod, *f);
      StorageRewriter rewriter(planner.plan(*f), names, planOutputs, signatureUpperBounds(*f));
      Expr g = rewriter.mutate(f);
      if (planOutputs) {
        auto nf = g.as<Function>();
        g = make<Function>(nf->params, nf->body, nf->retSInfo, nf->isPure, withoutAttr(nf->attrs, kPlanDynamicOutput));
        g->sinfo = f->sinfo;
        g->span = f->span;
      }
      if (!g.same(f)) out = withFunction(out, e.gvar, g);
    }
    return out;
  });
}

}  // namespace rlx
