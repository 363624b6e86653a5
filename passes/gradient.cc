// Gradient: reverse-mode automatic differentiation (TVM v0.23 Relax's pass; Relay's `gradient`
// in first-order mode). Adds `<func_name>_adjoint` returning (original result, (adjoints...)).
//
// Why: training and sensitivity analysis need d target / d inputs as ordinary Relax code that the
// rest of the pipeline (FoldConstant, LegalizeOps, FuseOps, the VM) compiles like any function.
// Preconditions (clear errors otherwise): `func_name` is a Relax function whose body is one
// dataflow block; the target (the result, or field `target_index` of a returned tuple) is a var
// holding a float scalar tensor; `require_grads` (parameter names, default all) are float tensors
// or tuples of them. Every op on the path to the target needs a rule (passes/gradient_rules.cc).
//
// Algorithm (TVM's, so that its test pairs match structurally):
//  1. Copy the function with fresh vars; drop R.grad.start_checkpoint / end_checkpoint bindings,
//     recording which vars are checkpointed (params, start_checkpoint inputs, and vars computed
//     only from checkpointed vars or end_checkpoint results).
//  2. Re-emit the forward bindings, then seed the target's adjoint with R.ones.
//  3. Walk the bindings backwards; for each var with an adjoint, apply its op's rule to the call
//     (with non-checkpointed operands recomputed as `<v>_cp` bindings) and add each partial to the
//     operand's adjoint, emitted at once as `<v>_adjoint` (tuples are handled field by field; a
//     projection `t[i]` adds into field i of t's adjoint, zeros elsewhere).
//  4. Emit `<p>_adjoint_out` for each required parameter (zeros when the target does not depend on
//     it), return (result, (adjoints...)), drop unused bindings, set global_symbol.
// Not done: TVM's SimplifyGradient (transpose/matmul pattern clean-up), call_tir_with_grad, and
// differentiation of functions with several blocks or control flow.
// Before: `gv = R.sum(x)` in main(x). After: main_adjoint(x) with `gv_adjoint = R.ones(R.shape([]),
// "float32"); x_adjoint = R.broadcast_to(gv_adjoint, R.shape([3, 3]))`, returning (gv, (x_adjoint_out,)).
#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "ir/block_builder.h"
#include "ir/expr_mutator.h"
#include "ir/expr_walk.h"
#include "ir/ops/infer_util.h"
#include "passes/copy_with_new_vars.h"
#include "passes/gradient_rules.h"
#include "passes/op_builder.h"
#include "passes/registry.h"
#include "passes/remove_all_unused.h"
#include "passes/signature_change.h"

namespace rlx {

namespace {

using grad::Emitter;
using VarSet = std::unordered_set<const Var*>;

Error gradError(const std::string& msg) { return Error("Gradient: " + msg); }

bool isFloatTensor(const StructInfo& s) {
  auto t = s.as<TensorSInfo>();
  return t && !t->dtype.isVoid() && t->dtype.isFloat();
}

// Float tensors of known shape (their zero gradient is R.zeros(shape)), or tuples of them.
bool isNestedFloatTensor(const StructInfo& s) {
  if (auto t = s.as<TupleSInfo>()) {
    for (auto& f : t->fields)
      if (!isNestedFloatTensor(f)) return false;
    return true;
  }
  return isFloatTensor(s) && s.as<TensorSInfo>()->shape;
}

bool isCallTo(const Expr& e, const char* op) {
  auto c = e.as<Call>();
  return c && c->op.as<Op>() && c->opName() == op;
}

// Step 1: the forward bindings without checkpoint markers, and the checkpointed vars.
struct Checkpoints {
  std::vector<BindingRef> bindings;
  VarSet checkpointed;
  std::unordered_map<const Var*, Expr> remap;  // marker result -> the var it marked
};

Result<Checkpoints> collectCheckpoints(const Function& f, const BindingBlock& block) {
  Checkpoints cp;
  VarSet endVars;
  for (auto& p : f.params) cp.checkpointed.insert(p.get());
  for (auto& b : block.bindings) {
    if (b->isMatchCast()) return gradError("match_cast bindings are not supported (" + b->var->name + ")");
    bool start = isCallTo(b->value, "relax.grad.start_checkpoint"), end = isCallTo(b->value, "relax.grad.end_checkpoint");
    if (start || end) {
      auto marked = b->value.as<Call>()->args[0];
      if (!marked.as<Var>()) return gradError("the argument of a checkpoint marker must be a var (" + b->var->name + ")");
      Expr orig = substituteVars(marked, cp.remap);
      if (!b->var->isDataflow() && marked.as<Var>()->isDataflow()) {
        // The marker's result leaves the block: keep an output alias of the marked var.
        auto out = make<Var>(orig.as<Var>()->name, sinfoOf(orig));
        cp.bindings.push_back(make<Binding>(out, orig));
        cp.remap[b->var.get()] = out;
      } else {
        cp.remap[b->var.get()] = orig;
      }
      if (start) cp.checkpointed.insert(orig.as<Var>().get());
      if (end) endVars.insert(b->var.get());
      continue;
    }
    bool allCheckpointed = true;
    walkExpr(b->value, [&](const Expr& e) {
      if (auto v = e.as<Var>()) allCheckpointed &= cp.checkpointed.count(v.get()) || endVars.count(v.get());
    });
    if (allCheckpointed) cp.checkpointed.insert(b->var.get());
    Expr value = cp.remap.empty() ? b->value : substituteVars(b->value, cp.remap);
    cp.bindings.push_back(value.same(b->value) ? b : make<Binding>(b->var, value));
  }
  return cp;
}

// Recomputes, in the backward part, the forward values that are not checkpointed (`<v>_cp`).
class Recomputer {
 public:
  Recomputer(Emitter& em, const Function& f, const Checkpoints& cp) : em_(em) {
    for (auto& p : f.params) kept_[p.get()] = p;
    for (auto& b : cp.bindings) {
      values_[b->var.get()] = b->value;
      if (cp.checkpointed.count(b->var.get())) kept_[b->var.get()] = b->var;
    }
  }

  // The var holding `var`'s value in the backward part, and `value` with its operands so mapped.
  Result<std::pair<Expr, Expr>> update(const VarRef& var, const Expr& value) {
    RLX_TRY(nv, rewrite(value));
    auto it = kept_.find(var.get());
    if (it != kept_.end()) return std::make_pair(it->second, nv);
    RLX_TRY(v, em_.emit(nv, var->name + "_cp"));
    kept_[var.get()] = v;
    return std::make_pair(Expr(v), nv);
  }

 private:
  Result<Expr> use(const VarRef& v) {
    auto it = kept_.find(v.get());
    if (it != kept_.end()) return it->second;
    auto vt = values_.find(v.get());
    if (vt == values_.end()) return Expr(v);  // defined outside the block
    RLX_TRY(nv, rewrite(vt->second));
    RLX_TRY(out, em_.emit(nv, v->name + "_cp"));
    kept_[v.get()] = out;
    return Expr(out);
  }

  Result<Expr> rewrite(const Expr& e) {
    if (auto v = e.as<Var>()) return use(v);
    if (auto c = e.as<Call>()) {
      std::vector<Expr> args;
      bool changed = false;
      for (auto& a : c->args) {
        RLX_TRY(na, rewrite(a));
        changed |= !na.same(a);
        args.push_back(na);
      }
      if (!changed) return e;
      auto nc = make<Call>(c->op, std::move(args), c->attrs, c->sinfoArgs);
      nc->sinfo = c->sinfo;
      return Expr(nc);
    }
    if (auto t = e.as<Tuple>()) {
      std::vector<Expr> fields;
      bool changed = false;
      for (auto& f : t->fields) {
        RLX_TRY(nf, rewrite(f));
        changed |= !nf.same(f);
        fields.push_back(nf);
      }
      return changed ? tupleOf(std::move(fields)) : e;
    }
    if (auto g = e.as<TupleGetItem>()) {
      RLX_TRY(nt, rewrite(g->tuple));
      if (nt.same(g->tuple)) return e;
      auto ng = make<TupleGetItem>(nt, g->index);
      ng->sinfo = g->sinfo;
      return Expr(ng);
    }
    return e;
  }

  Emitter& em_;
  std::unordered_map<const Var*, Expr> kept_;
  std::unordered_map<const Var*, Expr> values_;
};

// Steps 2-4: the backward bindings.
class Backward {
 public:
  Backward(Emitter& em, Recomputer& rc) : em_(em), rc_(rc) {}

  Status seed(const VarRef& target) {
    auto t = sinfoOf(target).as<TensorSInfo>();
    auto shape = make<ShapeExpr>(std::vector<PrimExpr>{});
    shape->sinfo = make<ShapeSInfo>(std::vector<PrimExpr>{}, 0);
    return addTo(target, build::call("ones", {build::e(shape)}, {{"dtype", build::s(t->dtype.str())}}));
  }

  Status visit(const BindingRef& b) {
    auto it = adjoint_.find(b->var.get());
    if (it == adjoint_.end()) return okStatus();  // the target does not depend on this var
    Expr adj = it->second;
    const Expr& value = b->value;
    if (auto c = value.as<Call>()) {
      if (!c->op.as<Op>()) return okStatus();  // calls of functions: TVM skips them too
      const std::string& op = c->opName();
      if (op == "relax.call_tir" || op == "relax.call_tir_with_grad" || op == "relax.call_dps_packed")
        return gradError("cannot differentiate " + op + " (" + b->var->name + "): no gradient is registered for its kernel");
      auto rule = grad::findRule(op);
      if (!rule) return gradError("no gradient rule for " + op + " (binding " + b->var->name + ")");
      RLX_TRY(cpv, rc_.update(b->var, value));
      auto recomputed = cpv.second.as<Call>();
      grad::RuleInput in{*recomputed, cpv.first, adj, em_};
      RLX_TRY(partials, rule(in));
      for (size_t i = 0; i < partials.size() && i < c->args.size(); ++i)
        if (partials[i]) RLX_TRY_STATUS(addTo(c->args[i], partials[i]));
      return okStatus();
    }
    if (value.as<Tuple>() || value.as<Var>()) return addTo(value, adj);
    if (auto g = value.as<TupleGetItem>()) return addToField(*g, adj);
    if (value.as<Constant>() || value.as<ShapeExpr>() || value.as<PrimValue>() || value.as<StringImm>() || value.as<DataTypeImm>()) return okStatus();
    return gradError("cannot differentiate the binding of " + b->var->name);
  }

  // The adjoint of each required var, as an R.output var (zeros when it got none).
  Result<std::vector<Expr>> finish(const std::vector<VarRef>& require) {
    std::vector<Expr> outs;
    for (auto& v : require) {
      if (!adjoint_.count(v.get())) RLX_TRY_STATUS(addTo(v, zerosOf(sinfoOf(v))));
      RLX_TRY(out, em_.emit(adjoint_[v.get()], v->name + "_adjoint_out", true));
      outs.push_back(out);
    }
    return outs;
  }

 private:
  static Expr zerosOf(const StructInfo& s) {
    if (auto t = s.as<TupleSInfo>()) {
      std::vector<Expr> fields;
      for (auto& f : t->fields) fields.push_back(zerosOf(f));
      return make<Tuple>(std::move(fields));
    }
    auto t = s.as<TensorSInfo>();
    return build::call("zeros", {build::e(t->shape)}, {{"dtype", build::s(t->dtype.str())}});
  }

  // Field i of `e` (a tuple literal's field, else a projection).
  static Expr field(const Expr& e, int i) {
    if (auto t = e.as<Tuple>()) return t->fields[i];
    return make<TupleGetItem>(e, i);
  }

  // lhs + rhs, field by field for tuples.
  static Expr tupleAwareAdd(const Expr& lhs, const Expr& rhs) {
    if (auto t = sinfoOf(lhs).as<TupleSInfo>()) {
      std::vector<Expr> fields;
      for (size_t i = 0; i < t->fields.size(); ++i) {
        Expr l = field(lhs, int(i)), r = field(rhs, int(i));
        if (!l->sinfo) l->sinfo = t->fields[i];
        if (!r->sinfo) r->sinfo = sinfoOf(rhs).as<TupleSInfo>()->fields[i];
        fields.push_back(tupleAwareAdd(l, r));
      }
      return make<Tuple>(std::move(fields));
    }
    return build::call("add", {build::e(lhs), build::e(rhs)});
  }

  // Adds `partial` to the adjoint of `base` (a var, a constant, or a tuple literal of those).
  Status addTo(const Expr& base, const Expr& partial) {
    RLX_TRY(p, em_.norm(partial));
    return addNormalized(base, p);
  }

  Status addNormalized(const Expr& base, const Expr& p) {
    if (auto t = base.as<Tuple>()) {
      for (size_t i = 0; i < t->fields.size(); ++i) {
        Expr f = field(p, int(i));
        if (!f->sinfo) {
          auto ts = sinfoOf(p).as<TupleSInfo>();
          if (!ts) return gradError("a tuple's adjoint is not a tuple");
          f->sinfo = ts->fields[i];
        }
        RLX_TRY_STATUS(addNormalized(t->fields[i], f));
      }
      return okStatus();
    }
    if (auto v = base.as<Var>()) {
      RLX_TRY(update, em_.norm(p));
      auto it = adjoint_.find(v.get());
      Expr value = it == adjoint_.end() ? update : tupleAwareAdd(it->second, update);
      RLX_TRY(adj, em_.emit(value, v->name + "_adjoint"));
      adjoint_[v.get()] = adj;
      return okStatus();
    }
    return okStatus();  // constants, shapes, prim values: nothing to accumulate
  }

  // b = t[i]: field i of t's adjoint grows by b's adjoint (a zeros tuple when t had none).
  Status addToField(const TupleGetItem& g, const Expr& adj) {
    auto tv = g.tuple.as<Var>();
    auto ts = sinfoOf(g.tuple).as<TupleSInfo>();
    if (!tv || !ts) return gradError("a tuple projection of something other than a tuple var");
    std::vector<Expr> fields;
    auto it = adjoint_.find(tv.get());
    for (size_t i = 0; i < ts->fields.size(); ++i) {
      Expr f;
      if (it == adjoint_.end()) {
        f = int(i) == g.index ? adj : zerosOf(ts->fields[i]);
      } else {
        f = field(it->second, int(i));
        if (!f->sinfo) f->sinfo = ts->fields[i];
        if (int(i) == g.index) f = tupleAwareAdd(f, adj);
      }
      fields.push_back(f);
    }
    RLX_TRY(out, em_.emit(make<Tuple>(std::move(fields)), tv->name + "_adjoint"));
    adjoint_[tv.get()] = out;
    return okStatus();
  }

  Emitter& em_;
  Recomputer& rc_;
  std::unordered_map<const Var*, Expr> adjoint_;
};

Result<FunctionRef> differentiate(const FunctionRef& orig, const std::string& funcName, const std::optional<std::vector<std::string>>& requireNames, int64_t targetIndex) {
  auto copy = copyWithNewVars(orig).as<Function>();
  auto seq = copy->body.as<SeqExpr>();
  if (!seq || seq->blocks.size() != 1 || !seq->blocks[0]->isDataflow())
    return gradError("'" + funcName + "' must consist of exactly one dataflow block (TVM's restriction)");

  // The target: the result var, or field target_index of the returned tuple.
  Expr ret = seq->body;
  VarRef target;
  if (auto v = ret.as<Var>()) {
    if (targetIndex != 0) return gradError("target_index must be 0 when '" + funcName + "' returns a single value (got " + std::to_string(targetIndex) + ")");
    target = v;
  } else if (auto t = ret.as<Tuple>()) {
    if (targetIndex < 0 || targetIndex >= int64_t(t->fields.size()))
      return gradError("target_index " + std::to_string(targetIndex) + " is out of range: '" + funcName + "' returns " + std::to_string(t->fields.size()) + " values");
    auto fv = t->fields[targetIndex].as<Var>();
    if (!fv) return gradError("the target (returned field " + std::to_string(targetIndex) + ") must be a var");
    target = fv;
  } else {
    return gradError("'" + funcName + "' must return a var or a tuple of vars");
  }
  auto ts = sinfoOf(target).as<TensorSInfo>();
  if (!ts || ts->ndim != 0 || !isFloatTensor(sinfoOf(target)))
    return gradError("the target must be a float scalar (0-d tensor), but " + target->name + " is " + ops::sinfoStr(sinfoOf(target)));

  // require_grads: parameter names, each once, float tensors or tuples of them.
  std::vector<VarRef> require;
  if (!requireNames) {
    require = copy->params;
  } else {
    for (auto& name : *requireNames) {
      auto it = std::find_if(copy->params.begin(), copy->params.end(), [&](const VarRef& p) { return p->name == name; });
      if (it == copy->params.end()) return gradError("'" + funcName + "' has no parameter named '" + name + "'");
      if (std::find(require.begin(), require.end(), *it) != require.end()) return gradError("'" + name + "' appears more than once in require_grads");
      require.push_back(*it);
    }
  }
  for (auto& p : require)
    if (!isNestedFloatTensor(sinfoOf(p)))
      return gradError("only float tensors of known shape or tuples of them can require gradients, but " + p->name + " is " + ops::sinfoStr(sinfoOf(p)));

  RLX_TRY(cp, collectCheckpoints(*copy, *seq->blocks[0]));
  if (!cp.remap.empty()) {
    ret = substituteVars(ret, cp.remap);
    if (auto it = cp.remap.find(target.get()); it != cp.remap.end()) target = it->second.as<Var>();
  }

  BlockBuilder bb;
  bb.beginFunction();
  bb.beginBlock(true);
  for (auto& b : cp.bindings) bb.addBinding(b);
  Emitter em(bb);
  Recomputer rc(em, *copy, cp);
  Backward bw(em, rc);
  RLX_TRY_STATUS(bw.seed(target));
  for (auto it = cp.bindings.rbegin(); it != cp.bindings.rend(); ++it) RLX_TRY_STATUS(bw.visit(*it));
  RLX_TRY(outs, bw.finish(require));
  BlockRef block = bb.endBlock();

  Expr result = tupleOf({ret, tupleOf(outs)});
  auto body = make<SeqExpr>(std::vector<BlockRef>{block}, result);
  body->sinfo = result->sinfo;
  StructInfo retSInfo = eraseToSignature(result->sinfo, copy->params);
  auto fn = make<Function>(copy->params, body, retSInfo, copy->isPure, withDictAttr(copy->attrs, "global_symbol", AttrValue::str(funcName + "_adjoint")));
  fn->sinfo = functionSInfo(*fn);
  return removeAllUnused(fn).as<Function>();
}

}  // namespace

Result<Pass> createGradientPass(PassOptions& options) {
  std::string funcName = options.string("func_name").value_or("main");
  std::optional<std::vector<std::string>> require;
  if (!options.isNone("require_grads")) require = options.strings("require_grads");
  else (void)options.raw("require_grads");
  int64_t targetIndex = options.integer("target_index").value_or(0);
  return Pass({"Gradient", 0, {}}, [funcName, require, targetIndex](const IRModuleRef& mod, const PassContext&) -> Result<IRModuleRef> {
    auto* entry = mod->find(funcName);
    if (!entry) return gradError("the module has no function '" + funcName + "'");
    auto f = entry->func.as<Function>();
    if (!f) return gradError("'" + funcName + "' is not a Relax function");
    RLX_TRY(adjoint, differentiate(f, funcName, require, targetIndex));
    auto gv = make<GlobalVar>(funcName + "_adjoint");
    gv->sinfo = adjoint->sinfo;
    return withFunction(mod, gv, adjoint);
  });
}

}  // namespace rlx
