// EliminateCommonSubexpr: TVM's relax.transform.EliminateCommonSubexpr(call_only=False). When a
// binding's value is structurally identical to the value of an earlier binding in scope (and the
// value holds no impure call), the binding becomes a trivial alias of the earlier var and later uses
// are redirected to the earlier var; CanonicalizeBindings / DeadCodeElimination then drop the alias.
// Why: duplicated pure computations (often produced by other passes or by hand-written models) cost
// kernel launches; merging them is safe because pure values depend only on their operands.
// Preconditions: a normalized module (values are leaves, calls, tuples, ... bound to vars).
// Scoping follows TVM: dataflow vars leave scope at the end of their dataflow block, if-branches
// see the enclosing scope but do not leak into it, and nested functions start from a clean scope.
// A match_cast is keyed on its value *and* its target struct info (it defines symbolic vars).
// Allocations never merge, nor in-place calls or the vars they overwrite. Option call_only=True
// restricts merging to call values.
// Before: `a = R.add(x, y); b = R.add(x, y); c = R.multiply(a, b)`
// After:  `a = R.add(x, y); b = a;           c = R.multiply(a, a)`
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/expr_mutator.h"
#include "ir/expr_walk.h"
#include "ir/op.h"
#include "ir/structural_equal.h"
#include "passes/registry.h"

namespace rlx {

namespace {

// Whether evaluating `e` may call something impure. Function literals are not evaluated by binding
// them, so their bodies do not count.
bool containsImpureCall(const Expr& e) {
  if (!e) return false;
  switch (e->kind()) {
    case NodeKind::Call: {
      auto c = e.as<Call>();
      if (auto op = c->op.as<Op>()) {
        if (!op->info->pure) return true;
      } else if (auto fs = sinfoOf(c->op).as<FuncSInfo>()) {
        if (!fs->isPure) return true;
      } else {
        return true;  // unknown callee
      }
      for (auto& a : c->args)
        if (containsImpureCall(a)) return true;
      return false;
    }
    case NodeKind::Tuple:
      for (auto& f : e.as<Tuple>()->fields)
        if (containsImpureCall(f)) return true;
      return false;
    case NodeKind::TupleGetItem: return containsImpureCall(e.as<TupleGetItem>()->tuple);
    case NodeKind::If: {
      auto i = e.as<If>();
      return containsImpureCall(i->cond) || containsImpureCall(i->thenBranch) || containsImpureCall(i->elseBranch);
    }
    case NodeKind::SeqExpr: {
      auto s = e.as<SeqExpr>();
      for (auto& b : s->blocks)
        for (auto& x : b->bindings)
          if (containsImpureCall(x->value)) return true;
      return containsImpureCall(s->body);
    }
    default: return false;
  }
}

// Allocations are pure (no visible effect) but each must yield a distinct buffer: TVM tags these
// ops as allocators and keeps them (test_keep_alloc_tensor / test_keep_alloc_storage).
bool isAllocation(const Expr& e) {
  auto c = e.as<Call>();
  if (!c) return false;
  const std::string& n = c->opName();
  return n == "relax.builtin.alloc_tensor" || n == "relax.memory.alloc_storage" || n == "relax.memory.alloc_tensor" || n == "relax.vm.alloc_storage" || n == "relax.vm.alloc_tensor";
}

// Calls that write over some of their arguments (R.call_tir_inplace, R.call_inplace_packed).
bool isInplaceCall(const Expr& e) {
  auto c = e.as<Call>();
  return c && (c->opName() == "relax.call_tir_inplace" || c->opName() == "relax.call_inplace_packed");
}

// Ops whose result may share storage with their first argument.
bool isViewOp(const std::string& op) {
  return op == "relax.reshape" || op == "relax.expand_dims" || op == "relax.squeeze" || op == "relax.permute_dims" || op == "relax.flatten" ||
         op == "relax.nn.batch_flatten" || op == "relax.memory.view" || op == "relax.memory.ensure_zero_offset";
}

// The arguments call `c` (R.call_tir_inplace / R.call_inplace_packed) writes over.
std::vector<Expr> overwrittenArgs(const Call& c) {
  std::vector<Expr> args;  // call_tir_inplace(func, (args...), ...); call_inplace_packed(func, args..., ...)
  if (c.opName() == "relax.call_tir_inplace") {
    if (c.args.size() > 1) {
      if (auto t = c.args[1].as<Tuple>()) args = t->fields;
      else args = {c.args[1]};
    }
  } else if (!c.args.empty()) {
    args.assign(c.args.begin() + 1, c.args.end());
  }
  std::vector<Expr> out;
  for (int64_t i : attrInts(c.attrs, "inplace_indices"))
    if (i >= 0 && size_t(i) < args.size()) out.push_back(args[size_t(i)]);
  return out;
}

// The vars an in-place call overwrites and every var sharing storage with one of them (aliases
// x = y, views, in-place results, a tuple holding one, the element taken from it): their values
// change after their binding, so none may stand for an equal earlier value (`a = R.exp(x);
// h = R.exp(x); k = R.call_tir_inplace(f, (h,), ...)` keeps h its own tensor) or be reused later.
std::unordered_set<const Var*> overwrittenVars(const Expr& func) {
  std::unordered_set<const Var*> out;
  std::vector<std::pair<const Var*, const Var*>> same;               // share all their storage
  std::unordered_map<const Var*, std::vector<const Var*>> tuples;    // t = (fields...)
  std::vector<std::tuple<const Var*, const Var*, int>> items;        // u = t[i]
  auto varOf = [](const Expr& e) -> const Var* { return e.is<Var>() ? static_cast<const Var*>(e.get()) : nullptr; };
  walkExpr(func, [&](const Expr& e) {
    if (auto seq = e.as<SeqExpr>())
      for (auto& b : seq->blocks)
        for (auto& x : b->bindings) {
          const Var* def = x->var.get();
          const Expr& value = x->value;
          if (auto v = varOf(value)) same.push_back({def, v});
          else if (auto g = value.as<TupleGetItem>()) {
            if (auto t = varOf(g->tuple)) items.push_back({def, t, g->index});
          } else if (auto t = value.as<Tuple>()) {
            for (auto& f : t->fields) tuples[def].push_back(varOf(f));
          } else if (auto c = value.as<Call>()) {
            if (isViewOp(c->opName()) && !c->args.empty())
              if (auto v = varOf(c->args[0])) same.push_back({def, v});
            if (isInplaceCall(value))
              for (auto& a : overwrittenArgs(*c))
                if (auto v = varOf(a)) same.push_back({def, v});
          }
        }
    if (isInplaceCall(e))
      for (auto& a : overwrittenArgs(*e.as<Call>()))
        if (auto v = varOf(a)) out.insert(v);
  });
  for (bool grew = true; grew;) {
    grew = false;
    auto add = [&](const Var* v) {
      if (v && out.insert(v).second) grew = true;
    };
    for (auto& [a, b] : same)
      if (out.count(a) || out.count(b)) add(a), add(b);
    for (auto& [t, fields] : tuples)
      for (auto* f : fields)
        if (f && out.count(f)) add(t);
    for (auto& [u, t, i] : items) {
      auto def = tuples.find(t);
      const Var* field = def != tuples.end() && i >= 0 && size_t(i) < def->second.size() ? def->second[size_t(i)] : nullptr;
      if (out.count(u)) add(t), add(field);
      if ((field && out.count(field)) || (def == tuples.end() && out.count(t))) add(u);
    }
  }
  return out;
}

// A bound value plus the match_cast target (null for a plain binding).
struct Key {
  Expr value;
  StructInfo cast;
  uint64_t hash;
};

struct KeyHash {
  size_t operator()(const Key& k) const { return size_t(k.hash); }
};

struct KeyEq {
  bool operator()(const Key& a, const Key& b) const {
    if (a.hash != b.hash || bool(a.cast) != bool(b.cast)) return false;
    if (!structuralEqual(a.value, b.value)) return false;
    return !a.cast || bool(structuralEqual(a.cast, b.cast));
  }
};

// Every var that holds each value, oldest first (the first one is the replacement).
using Table = std::unordered_map<Key, std::vector<VarRef>, KeyHash, KeyEq>;

class CseMutator : public ExprMutator {
 public:
  CseMutator(bool callOnly, const std::unordered_set<const Var*>& overwritten) : callOnly_(callOnly), overwritten_(overwritten) {}

 protected:
  BlockRef visitBlock(const BlockRef& b) override {
    if (!b->isDataflow()) return ExprMutator::visitBlock(b);
    // Dataflow vars die with their block: neither replacements nor aliases to them survive it.
    auto savedMap = varMap;
    BlockRef out = ExprMutator::visitBlock(b);
    for (auto& [key, vars] : table_)
      vars.erase(std::remove_if(vars.begin(), vars.end(), [](const VarRef& v) { return v->isDataflow(); }), vars.end());
    varMap = std::move(savedMap);
    return out;
  }

  BindingRef visitBinding(const BindingRef& b) override {
    Expr value = mutate(b->value);
    uint64_t h = structuralHashSampled(value);
    if (b->castSInfo) h = h * 0x9e3779b97f4a7c15ull + structuralHashSampled(b->castSInfo);
    Key key{value, b->castSInfo, h};
    Expr newValue = value;
    StructInfo cast = b->castSInfo;
    if ((callOnly_ && value->kind() != NodeKind::Call) || containsImpureCall(value) || isAllocation(value) || isInplaceCall(value) ||
        overwritten_.count(b->var.get())) {
      // never merged
    } else if (auto it = table_.find(key); it != table_.end() && !it->second.empty()) {
      // A duplicate: keep the binding as a trivial alias and send later uses to the original.
      newValue = it->second.front();
      cast = nullptr;
      varMap[b->var.get()] = it->second.front();
      it->second.push_back(b->var);
    } else {
      table_[key].push_back(b->var);
    }
    if (newValue.same(b->value) && cast == b->castSInfo) return b;
    auto nb = make<Binding>(b->var, newValue, cast);
    nb->span = b->span;
    return nb;
  }

  Expr visitFunction(const Ref<Function>& f) override {
    // A nested function must neither reuse outer values nor export its own.
    if (!table_.empty() || !varMap.empty()) {
      CseMutator clean(callOnly_, overwritten_);
      return clean.mutate(f);
    }
    return ExprMutator::visitFunction(f);
  }

  Expr visitIf(const Ref<If>& i) override {
    Expr cond = mutate(i->cond);
    Expr t = inInnerScope(i->thenBranch);
    Expr e = inInnerScope(i->elseBranch);
    if (cond.same(i->cond) && t.same(i->thenBranch) && e.same(i->elseBranch)) return i;
    auto ni = make<If>(cond, t, e);
    ni->sinfo = i->sinfo;
    ni->span = i->span;
    return ni;
  }

 private:
  Expr inInnerScope(const Expr& e) {
    auto savedMap = varMap;
    auto savedTable = table_;
    Expr out = mutate(e);
    varMap = std::move(savedMap);
    table_ = std::move(savedTable);
    return out;
  }

  bool callOnly_;
  const std::unordered_set<const Var*>& overwritten_;
  Table table_;
};

}  // namespace

Result<Pass> createEliminateCommonSubexprPass(PassOptions& options) {
  bool callOnly = options.boolean("call_only").value_or(false);
  return makeFunctionPass({"EliminateCommonSubexpr", 1, {}}, [callOnly](const Expr& func, const GlobalVarRef&, const IRModuleRef&) -> Result<Expr> {
    std::unordered_set<const Var*> overwritten = overwrittenVars(func);
    CseMutator m(callOnly, overwritten);
    return m.mutate(func);
  });
}

}  // namespace rlx
