// KillAfterLastUse: frees every VM object right after its last use, as TVM's
// relax.transform.KillAfterLastUse does, so memory is returned before the function ends.
// Steps (TVM's, per function):
//   1. CanonicalizeBindings, then drop trivial `y = x` bindings (and no-op match_casts) nobody uses.
//   2. For each SeqExpr, find each binding's var's last use (a later binding, or the SeqExpr's result,
//      which is never killed). Storage (memory/vm.alloc_storage) gets R.memory.kill_storage, other
//      tensors R.memory.kill_tensor, other objects R.vm.kill_object; constants, shapes, prim values,
//      functions and already-killed vars get nothing. Kills follow the binding of last use: tensors,
//      then storage, then objects, each in binding order.
//   3. As in TVM, the analysis of a nested SeqExpr (an if branch) replaces the enclosing one and is
//      dropped afterwards: bindings after an if get no kills.
// Before: `alloc = R.memory.alloc_tensor(storage, ...)`, `cls.f(x, alloc1)`, `cls.g(alloc, alloc2)`;
// after: `R.memory.kill_storage(storage)` after the alloc_tensor, `R.memory.kill_tensor(alloc)` after g.
#include <unordered_map>
#include <unordered_set>

#include "ir/expr_mutator.h"
#include "ir/expr_walk.h"
#include "ir/struct_info.h"
#include "passes/registry.h"

namespace rlx {

namespace {

bool isVarExpr(const Expr& e) { return e && (e->kind() == NodeKind::Var || e->kind() == NodeKind::DataflowVar); }

// Step 1's second half: trivial bindings (`y = x`, match_cast to x's own struct info) never used.
class UnusedTrivialRemover : public ExprMutator {
 public:
  static Expr apply(const Expr& e) {
    std::unordered_set<const Var*> used;
    walkExpr(e, [&](const Expr& x) {
      if (isVarExpr(x)) used.insert(static_cast<const Var*>(x.get()));
    });
    UnusedTrivialRemover r;
    walkExpr(e, [&](const Expr& x) {
      auto s = x.as<SeqExpr>();
      if (!s) return;
      for (auto& b : s->blocks)
        for (auto& binding : b->bindings) {
          bool trivial = isVarExpr(binding->value) && (!binding->isMatchCast() || sinfoEqual(binding->var->sinfo, sinfoOf(binding->value)));
          if (trivial && !used.count(binding->var.get())) r.remove_.insert(binding->var.get());
        }
    });
    return r.remove_.empty() ? e : r.mutate(e);
  }

 protected:
  BindingRef visitBinding(const BindingRef& b) override { return remove_.count(b->var.get()) ? nullptr : ExprMutator::visitBinding(b); }

 private:
  std::unordered_set<const Var*> remove_;
};

// The kills to emit after a binding.
struct Kills {
  std::vector<const Var*> tensors, storage, objects;
};
using KillMap = std::unordered_map<const Var*, Kills>;

// Step 2: last uses within one function or SeqExpr (nested ones included, as TVM's visitor does).
class LastUse {
 public:
  static KillMap collect(const Expr& e) {
    LastUse c;
    c.expr(e);
    KillMap out;
    for (const Var* v : c.order_) {
      auto it = c.lastUse_.find(v);
      if (it == c.lastUse_.end() || !it->second || c.killed_.count(v)) continue;  // unused, the result, or killed
      const StructInfo& s = v->sinfo;
      bool inRegister = !c.constants_.count(v) && !s.is<FuncSInfo>() && !s.is<ShapeSInfo>() && !s.is<PrimSInfo>();
      if (c.storage_.count(v)) out[it->second].storage.push_back(v);
      else if (s.is<TensorSInfo>() && inRegister) out[it->second].tensors.push_back(v);
      else if (inRegister) out[it->second].objects.push_back(v);
    }
    return out;
  }

 private:
  void expr(const Expr& e) {
    if (!e) return;
    switch (e->kind()) {
      case NodeKind::Var:
      case NodeKind::DataflowVar: lastUse_[static_cast<const Var*>(e.get())] = current_; return;
      case NodeKind::Call: {
        auto& c = static_cast<const Call&>(*e);
        expr(c.op);
        for (auto& a : c.args) expr(a);
        return;
      }
      case NodeKind::Tuple:
        for (auto& f : static_cast<const Tuple&>(*e).fields) expr(f);
        return;
      case NodeKind::TupleGetItem: expr(static_cast<const TupleGetItem&>(*e).tuple); return;
      case NodeKind::If: {
        auto& i = static_cast<const If&>(*e);
        expr(i.cond), expr(i.thenBranch), expr(i.elseBranch);
        return;
      }
      case NodeKind::SeqExpr: {
        auto& s = static_cast<const SeqExpr&>(*e);
        for (auto& b : s.blocks)
          for (auto& x : b->bindings) binding(*x);
        expr(s.body);
        return;
      }
      case NodeKind::Function: expr(static_cast<const Function&>(*e).body); return;
      default: return;
    }
  }

  void binding(const Binding& b) {
    const Var* saved = current_;
    current_ = b.var.get();
    order_.push_back(current_);
    auto c = b.value.as<Call>();
    const std::string op = c && !b.isMatchCast() ? c->opName() : "";
    if (op == "relax.memory.alloc_storage" || op == "relax.vm.alloc_storage") {
      storage_.insert(current_);  // its arguments are not uses
    } else if (op == "relax.memory.kill_tensor" || op == "relax.memory.kill_storage" || op == "relax.vm.kill_object") {
      if (c->args.size() == 1 && isVarExpr(c->args[0])) killed_.insert(static_cast<const Var*>(c->args[0].get()));
    } else if (!b.isMatchCast() && b.value->kind() == NodeKind::Constant) {
      constants_.insert(current_);
    } else {
      expr(b.value);
    }
    current_ = saved;
  }

  const Var* current_ = nullptr;  // the binding being visited; null in a SeqExpr's result
  std::vector<const Var*> order_;
  std::unordered_map<const Var*, const Var*> lastUse_;
  std::unordered_set<const Var*> storage_, constants_, killed_;
};

BindingRef killBinding(const char* op, const Var* v, bool dataflow) {
  Expr call = makeCall(op, {Expr(const_cast<Var*>(v))});
  call->sinfo = voidSInfo();
  return make<Binding>(make<Var>("_", voidSInfo(), dataflow), call);
}

// Steps 2 and 3.
class KillInserter : public ExprMutator {
 protected:
  Expr visitFunction(const Ref<Function>& f) override {
    kills_ = LastUse::collect(f);
    Expr out = ExprMutator::visitFunction(f);
    kills_.clear();
    return out;
  }
  Expr visitSeqExpr(const Ref<SeqExpr>& s) override {
    kills_ = LastUse::collect(s);
    Expr out = ExprMutator::visitSeqExpr(s);
    kills_.clear();
    return out;
  }
  BlockRef visitBlock(const BlockRef& b) override {
    std::vector<BindingRef> out;
    bool changed = false;
    for (auto& x : b->bindings) {
      BindingRef nb = visitBinding(x);
      changed |= !nb.same(x);
      out.push_back(nb);
      auto it = kills_.find(x->var.get());  // looked up after the value: a nested SeqExpr clears it
      if (it == kills_.end()) continue;
      changed = true;
      for (const Var* v : it->second.tensors) out.push_back(killBinding("relax.memory.kill_tensor", v, b->isDataflow()));
      for (const Var* v : it->second.storage) out.push_back(killBinding("relax.memory.kill_storage", v, b->isDataflow()));
      for (const Var* v : it->second.objects) out.push_back(killBinding("relax.vm.kill_object", v, b->isDataflow()));
    }
    return changed ? make<BindingBlock>(std::move(out), b->isDataflow()) : b;
  }

 private:
  KillMap kills_;
};

}  // namespace

Result<Pass> createKillAfterLastUsePass(PassOptions&) {
  PassOptions none;
  RLX_TRY(canonicalize, createCanonicalizeBindingsPass(none));
  Pass insert = makeFunctionPass({"KillAfterLastUse", 0, {}}, [](const Expr& func, const GlobalVarRef&, const IRModuleRef&) -> Result<Expr> {
    KillInserter inserter;
    return inserter.mutate(UnusedTrivialRemover::apply(func));
  });
  return Pass({"KillAfterLastUse", 0, {}}, [canonicalize, insert](const IRModuleRef& mod, const PassContext& ctx) -> Result<IRModuleRef> {
    PassContext quiet = ctx;  // the inner passes are steps of this one: no instruments
    quiet.instruments.clear();
    RLX_TRY(canonical, canonicalize(mod, quiet));
    return insert(canonical, quiet);
  });
}

}  // namespace rlx
