// The function-outlining machinery of passes/function_outliner.h (moved from fuse_ops.cc, where
// FuseOps used it alone): naming and order follow TVM, see fuse_ops.cc's header.
#include "passes/function_outliner.h"

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "ir/arith.h"
#include "ir/expr_mutator.h"
#include "ir/expr_walk.h"
#include "ir/struct_info.h"
#include "ir/structural_equal.h"

namespace rlx::fusion {

namespace {

bool isCallTIR(const Expr& e) {
  auto c = e.as<Call>();
  return c && c->opName() == "relax.call_tir";
}

bool isFusionTargetImpl(const Expr& func) {
  auto f = func.as<Function>();
  if (!f) return false;
  auto prim = f->attrs ? f->attrs->find("Primitive") : nullptr;
  bool primitive = prim && *prim && ((*prim)->kind == AttrValue::Bool ? (*prim)->b : (*prim)->i != 0);
  return !primitive && !attrStr(f->attrs, "Codegen");
}

// TVM's NameSupply: the first request for a name gets it, later ones get name1, name2, ...
class NameSupply {
 public:
  std::string fresh(std::string name) {
    std::replace(name.begin(), name.end(), '.', '_');
    auto it = counts_.find(name);
    if (it == counts_.end()) {
      counts_[name] = 0;
      return name;
    }
    std::string candidate = name;
    while (!counts_.emplace(candidate, 0).second) candidate = name + std::to_string(++counts_[name]);
    return candidate;
  }

 private:
  std::map<std::string, int> counts_;
};

// ---------------------------------------------------------------- grouped functions
// Symbolic vars that a parameter's struct info defines (bare vars in shapes and prim values).
void collectDefinableVars(const StructInfo& s, std::vector<const PrimVar*>& out) {
  auto bare = [&](const PrimExpr& e) {
    if (auto v = e.as<PrimVar>()) out.push_back(v.get());
  };
  if (auto t = s.as<TensorSInfo>()) {
    if (auto* d = t->dims())
      for (auto& x : *d) bare(x);
  } else if (auto sh = s.as<ShapeSInfo>()) {
    if (sh->values)
      for (auto& x : *sh->values) bare(x);
  } else if (auto p = s.as<PrimSInfo>()) {
    if (p->value) bare(p->value);
  } else if (auto tu = s.as<TupleSInfo>()) {
    for (auto& f : tu->fields) collectDefinableVars(f, out);
  }
}

// Rewrites a moved binding's value: group inputs become parameters, moved vars their copies, and
// symbolic vars the grouped function's own.
class GroupRemapper : public ExprMutator {
 public:
  std::unordered_map<const Object*, VarRef> argToParam;
  PrimVarMap prims;
  using ExprMutator::varMap;

  StructInfo sub(const StructInfo& s) const { return s && !prims.empty() ? sinfoSubstitute(s, prims) : s; }

 protected:
  Expr visitVar(const Ref<Var>& v) override {
    if (auto it = argToParam.find(v.get()); it != argToParam.end()) return it->second;
    return ExprMutator::visitVar(v);
  }
  Expr visitLeaf(const Expr& e) override {
    if (auto it = argToParam.find(e.get()); it != argToParam.end()) return it->second;
    if (prims.empty()) return e;
    if (auto s = e.as<ShapeExpr>()) {
      std::vector<PrimExpr> values;
      for (auto& v : s->values) values.push_back(primSubstitute(v, prims));
      auto out = make<ShapeExpr>(values);
      out->sinfo = make<ShapeSInfo>(std::move(values), 0);
      return out;
    }
    if (auto p = e.as<PrimValue>()) {
      auto out = make<PrimValue>(primSubstitute(p->value, prims));
      out->sinfo = sub(p->sinfo);
      return out;
    }
    return e;
  }
  Expr visitCall(const Ref<Call>& c) override {
    auto call = ExprMutator::visitCall(c).as<Call>();
    std::vector<StructInfo> sargs;
    for (auto& s : call->sinfoArgs) sargs.push_back(sub(s));
    auto copy = make<Call>(call->op, call->args, call->attrs, std::move(sargs));
    copy->sinfo = sub(c->sinfo);
    copy->span = c->span;
    return copy;
  }
  Expr visitTuple(const Ref<Tuple>& t) override {
    auto out = make<Tuple>(ExprMutator::visitTuple(t).as<Tuple>()->fields);
    out->sinfo = sub(t->sinfo);
    return out;
  }
  Expr visitTupleGetItem(const Ref<TupleGetItem>& t) override {
    auto out = make<TupleGetItem>(mutate(t->tuple), t->index);
    out->sinfo = sub(t->sinfo);
    return out;
  }
};

// TVM's FunctionCreator: collects one group's bindings, its parameters (the values it uses but
// does not define) and its outputs, then builds the grouped function.
class GroupFunction {
 public:
  std::vector<BindingRef> bindings;
  std::vector<VarRef> params;
  std::vector<Expr> arguments;  // caller side, one per param
  std::string name = "fused";
  std::vector<std::pair<std::string, Attr>> attrs;  // the group's own (Composite, Codegen)
  std::string codegen;                              // attrs' Codegen, "" when none
  bool liftConstants = true;
  FunctionRef function;         // null when no binding of the group is used (dead code)
  std::vector<const Var*> outputs;

  void append(const BindingRef& b) {
    if (auto c = b->value.as<Call>()) {
      if (isCallTIR(b->value)) {
        if (auto g = c->args[0].as<GlobalVar>()) name += "_" + g->name;
        if (auto t = c->args[1].as<Tuple>())
          for (auto& a : t->fields) useInput(a);
      } else {
        if (auto op = c->op.as<Op>()) name += "_" + op->name();
        if (auto g = c->op.as<GlobalVar>()) name += "_" + (g->name.rfind("fused_", 0) == 0 ? g->name.substr(6) : g->name);
        for (auto& a : c->args) {
          useInput(a);
          if (a->sinfo.is<TupleSInfo>()) eraseTupleUse(a.get());
        }
      }
    } else if (auto t = b->value.as<TupleGetItem>()) {
      useInput(t->tuple);
      for (auto& [tuple, items] : partialTuples_)
        if (tuple == t->tuple.get()) items.push_back(t->index);
    }
    defined_.insert(b->var.get());
    if (!b->var->isDataflow()) addOutput(b->var.get());
    bindings.push_back(b);
  }

  size_t addOutput(const Var* v) {
    auto it = std::find(outputs.begin(), outputs.end(), v);
    if (it != outputs.end()) return size_t(it - outputs.begin());
    outputs.push_back(v);
    return outputs.size() - 1;
  }

  // The struct info of a call of the grouped function, in the caller's terms.
  StructInfo callSInfo() const {
    if (outputs.size() == 1) return outputs[0]->sinfo;
    std::vector<StructInfo> fields;
    for (auto* v : outputs) fields.push_back(v->sinfo);
    return make<TupleSInfo>(std::move(fields));
  }

  bool returnsTuple() const { return function && function->retSInfo.is<TupleSInfo>(); }
  bool returnsNestedTuple() const {
    auto t = function ? function->retSInfo.as<TupleSInfo>() : nullptr;
    if (!t) return false;
    for (auto& f : t->fields)
      if (f.is<TupleSInfo>()) return true;
    return false;
  }

  void create() {
    GroupRemapper remap;
    expandPartialTuples();
    if (outputs.empty()) return;  // TVM warns that DeadCodeElimination should run first
    addTirVarsParam();
    renewSymbolicVars(remap);
    std::vector<VarRef> newParams;
    for (size_t i = 0; i < params.size(); ++i) {
      auto p = make<Var>(params[i]->name, remap.sub(params[i]->sinfo));
      remap.argToParam[arguments[i].get()] = p;
      for (auto& [from, to] : tupleItemParams_)
        if (to.same(params[i])) to = p;
      newParams.push_back(p);
    }
    NameSupply names;
    std::vector<Expr> results(outputs.size());
    std::vector<BindingRef> moved;
    for (auto& b : bindings) {
      if (auto t = b->value.as<TupleGetItem>()) {
        auto it = tupleItemParams_.find({t->tuple.get(), t->index});
        if (it != tupleItemParams_.end()) {
          remap.varMap[b->var.get()] = it->second;
          if (auto idx = outputIndex(b->var.get())) results[*idx] = it->second;
          continue;
        }
      }
      Expr value = remap.mutate(b->value);
      auto idx = outputIndex(b->var.get());
      auto var = make<Var>(idx ? names.fresh("gv") : b->var->name, remap.sub(b->var->sinfo), !idx && b->var->isDataflow() && codegen.empty());
      var->span = b->var->span;
      remap.varMap[b->var.get()] = var;
      if (idx) results[*idx] = var;
      auto nb = make<Binding>(var, value, remap.sub(b->castSInfo));
      nb->span = b->span;
      moved.push_back(nb);
    }
    Expr body = results.size() == 1 ? results[0] : tupleOf(results);
    std::vector<BlockRef> blocks;
    if (!moved.empty()) blocks.push_back(make<BindingBlock>(std::move(moved), codegen.empty()));
    auto seq = make<SeqExpr>(std::move(blocks), body);
    seq->sinfo = body->sinfo;
    // A Codegen group (MergeCompositeFunctions) is offloaded whole: not Primitive, so FuseOps and
    // FuseTIR leave it alone.
    auto fattrs = attrs;
    if (codegen.empty()) fattrs.emplace_back("Primitive", AttrValue::boolean(true));
    function = make<Function>(newParams, seq, body->sinfo, true, makeDictAttrs(std::move(fattrs)));
    std::vector<StructInfo> paramSInfo;
    for (auto& p : newParams) paramSInfo.push_back(p->sinfo);
    function->sinfo = make<FuncSInfo>(std::move(paramSInfo), body->sinfo, true);
  }

 private:
  std::unordered_set<const Var*> defined_;
  int constParams_ = 0;
  std::vector<std::pair<const ExprNode*, std::vector<int>>> partialTuples_;  // tuple params used only through t[i]
  std::map<std::pair<const ExprNode*, int>, VarRef> tupleItemParams_;

  std::optional<size_t> outputIndex(const Var* v) const {
    auto it = std::find(outputs.begin(), outputs.end(), v);
    if (it == outputs.end()) return std::nullopt;
    return size_t(it - outputs.begin());
  }


  // Constant shapes and prim values stay inside the grouped function (TVM's IsInlinableConstants).
  static bool inlinable(const Expr& e) {
    auto noVars = [](const PrimExpr& p) {
      std::vector<PrimVarRef> vs;
      collectVars(p, vs);
      return vs.empty();
    };
    if (auto t = e.as<Tuple>()) return std::all_of(t->fields.begin(), t->fields.end(), inlinable);
    if (auto p = e.as<PrimValue>()) return noVars(p->value);
    if (auto s = e.as<ShapeExpr>()) return std::all_of(s->values.begin(), s->values.end(), noVars);
    return false;
  }

  void useInput(const Expr& e) {
    if (std::any_of(arguments.begin(), arguments.end(), [&](const Expr& a) { return a.same(e); })) return;
    auto v = e.as<Var>();
    if (v && defined_.count(v.get())) return;
    if (!liftConstants && e.is<Constant>()) return;  // bound constants stay inside
    std::string pname = v ? v->name : "param_" + std::to_string(constParams_++);
    if (!inlinable(e)) {
      arguments.push_back(e);
      params.push_back(make<Var>(pname, sinfoOf(e)));
    }
    if (sinfoOf(e).is<TupleSInfo>()) partialTuples_.push_back({e.get(), {}});
  }

  void eraseTupleUse(const ExprNode* tuple) {
    std::erase_if(partialTuples_, [&](auto& p) { return p.first == tuple; });
  }

  // A tuple parameter used only through t[i] is replaced by one parameter per accessed field.
  void expandPartialTuples() {
    for (auto& [tuple, items] : partialTuples_) {
      auto pos = std::find_if(arguments.begin(), arguments.end(), [&](const Expr& a) { return a.get() == tuple; });
      if (pos == arguments.end() || items.empty()) continue;
      size_t idx = size_t(pos - arguments.begin());
      Expr arg = arguments[idx];
      std::string base = params[idx]->name;
      auto fields = arg->sinfo.as<TupleSInfo>()->fields;
      std::vector<Expr> itemArgs;
      std::vector<VarRef> itemParams;
      for (int i : items) {
        auto p = make<Var>(base + "_" + std::to_string(i), fields[size_t(i)]);
        auto get = make<TupleGetItem>(arg, i);
        get->sinfo = fields[size_t(i)];
        itemArgs.push_back(get);
        itemParams.push_back(p);
        tupleItemParams_[{tuple, i}] = p;
      }
      arguments.erase(arguments.begin() + long(idx));
      arguments.insert(arguments.begin() + long(idx), itemArgs.begin(), itemArgs.end());
      params.erase(params.begin() + long(idx));
      params.insert(params.begin() + long(idx), itemParams.begin(), itemParams.end());
    }
  }

  // Symbolic vars used by the group but defined by no parameter arrive as a `tir_vars` shape.
  void addTirVarsParam() {
    std::vector<const PrimVar*> defined;
    for (auto& p : params) collectDefinableVars(p->sinfo, defined);
    std::vector<PrimVarRef> used;
    for (auto& b : bindings) {
      sinfoCollectVars(b->var->sinfo, used);
      walkExpr(b->value, [&](const Expr& e) {
        if (auto c = e.as<Call>())
          for (auto& s : c->sinfoArgs) sinfoCollectVars(s, used);
        if (auto s = e.as<ShapeExpr>())
          for (auto& v : s->values) collectVars(v, used);
        if (auto p = e.as<PrimValue>()) collectVars(p->value, used);
      });
    }
    std::vector<PrimExpr> free;
    std::unordered_set<const PrimVar*> seen;
    for (auto& v : used)
      if (std::find(defined.begin(), defined.end(), v.get()) == defined.end() && seen.insert(v.get()).second) free.push_back(v);
    if (free.empty()) return;
    auto shape = make<ShapeExpr>(free);
    shape->sinfo = make<ShapeSInfo>(free, 0);
    arguments.push_back(shape);
    params.push_back(make<Var>("tir_vars", shape->sinfo));
  }

  // The grouped function gets its own symbolic vars (TVM's SymbolicVarRenewMutator).
  void renewSymbolicVars(GroupRemapper& remap) {
    std::vector<PrimVarRef> vars;
    for (auto& p : params) sinfoCollectVars(p->sinfo, vars);
    for (auto& b : bindings) sinfoCollectVars(b->var->sinfo, vars);
    for (auto& v : vars)
      if (!remap.prims.count(v.get())) remap.prims[v.get()] = make<PrimVar>(v->name, v->dtype, v->isSizeVar);
  }
};

// ---------------------------------------------------------------- rewriting
// TVM's OperatorFusor: replaces each group by a call of its grouped function, block by block.
class OperatorFusor : public ExprMutator {
 public:
  OperatorFusor(IRModuleRef& mod, const Grouping& grouping, NameSupply& names)
      : mod_(mod), index_(grouping.index), part_(grouping.part), grouping_(grouping), names_(names) {}

 protected:
  BlockRef visitBlock(const BlockRef& b) override {
    // Blocks of nested functions are not in the graph (TVM fuses module-level functions only).
    bool inGraph = std::all_of(b->bindings.begin(), b->bindings.end(), [&](const BindingRef& x) { return index_.count(x->var.get()); });
    if (!b->isDataflow() || !inGraph) return ExprMutator::visitBlock(b);
    std::map<size_t, GroupFunction> groups;
    for (auto& x : b->bindings) {
      if (alone(x)) continue;
      size_t g = groupOf(x->var.get());
      auto [it, fresh] = groups.try_emplace(g);
      if (fresh) {
        it->second.liftConstants = grouping_.liftConstants;
        if (auto a = grouping_.attrs.find(g); a != grouping_.attrs.end()) {
          it->second.attrs = a->second;
          for (auto& [k, v] : a->second)
            if (k == "Codegen" && v && v->kind == AttrValue::Str) it->second.codegen = v->s;
        }
      }
      it->second.append(x);
    }
    collectBoundaries(b->bindings, groups);
    for (auto& [g, f] : groups) f.create();

    std::vector<BindingRef> out;
    std::map<size_t, std::vector<VarRef>> pendingItems;
    bool changed = false;
    for (auto& x : sortByGroupDeps(b->bindings)) {
      if (alone(x)) {
        BindingRef nb = visitBinding(x);
        changed |= !nb.same(x);
        out.push_back(nb);
        continue;
      }
      changed = true;
      size_t g = groupOf(x->var.get());
      GroupFunction& f = groups.at(g);
      if (!f.function) continue;
      if (f.returnsTuple() && itemIndex_.count(x->var.get()) && (!x->var->sinfo.is<TupleSInfo>() || f.returnsNestedTuple()))
        pendingItems[g].push_back(x->var);
      if (!f.bindings.back().same(x)) continue;

      GlobalVarRef gv = addFunction(f);
      std::vector<Expr> args;
      for (auto& a : f.arguments) args.push_back(normalizeArg(mutate(a), out));
      auto call = make<Call>(gv, std::move(args));
      call->sinfo = f.callSInfo();
      bool dataflow = x->var->isDataflow();
      auto var = make<Var>(names_.fresh(dataflow ? "lv" : "gv"), call->sinfo, dataflow);
      out.push_back(make<Binding>(var, call));
      // Only this group's pending vars: TVM tests the whole map, which drops the remap of a
      // tuple-typed result when another group of the block has pending items.
      if (f.returnsTuple() && !pendingItems[g].empty()) {
        for (auto& v : pendingItems[g]) {
          auto get = make<TupleGetItem>(var, int(itemIndex_.at(v.get())));
          get->sinfo = v->sinfo;
          auto item = make<Var>(names_.fresh("lv"), v->sinfo, true);
          out.push_back(make<Binding>(item, get));
          varMap[v.get()] = item;
        }
      } else {
        varMap[x->var.get()] = var;
      }
    }
    if (!changed) return b;
    return make<BindingBlock>(std::move(out), true);
  }

 private:
  IRModuleRef& mod_;
  const std::unordered_map<const Object*, size_t>& index_;
  const Partition& part_;
  const Grouping& grouping_;
  NameSupply& names_;
  std::unordered_map<const Var*, size_t> itemIndex_;  // group outputs: position in the result tuple
  std::map<size_t, std::vector<size_t>> groupDeps_;

  size_t groupOf(const Object* key) const { return part_.root.at(index_.at(key)); }
  bool alone(const BindingRef& b) const {
    size_t g = groupOf(b->var.get());
    return part_.size[g] == 1 && !grouping_.attrs.count(g);
  }

  // A var defined in one group and used in another is an output of its group.
  void collectBoundaries(const std::vector<BindingRef>& bindings, std::map<size_t, GroupFunction>& groups) {
    for (auto& b : bindings) {
      size_t cur = groupOf(b->var.get());
      walkExpr(b->value, [&](const Expr& e) {
        auto v = e.as<Var>();
        if (!v || !index_.count(v.get())) return;
        size_t producer = groupOf(v.get());
        if (producer == cur) return;
        groupDeps_[cur].push_back(producer);
        if (auto it = groups.find(producer); it != groups.end()) itemIndex_[v.get()] = it->second.addOutput(v.get());
      });
    }
  }

  // Bindings in an order where every group comes after the groups it uses, otherwise as written.
  std::vector<BindingRef> sortByGroupDeps(const std::vector<BindingRef>& bindings) {
    std::map<size_t, std::vector<BindingRef>> perGroup;
    std::vector<size_t> order;
    for (auto& b : bindings) {
      size_t g = groupOf(b->var.get());
      order.push_back(g);
      perGroup[g].push_back(b);
    }
    std::unordered_set<size_t> visited;
    std::vector<BindingRef> sorted;
    std::function<void(size_t)> visit = [&](size_t g) {
      if (!visited.insert(g).second) return;
      for (size_t dep : groupDeps_[g]) visit(dep);
      for (auto& b : perGroup[g]) sorted.push_back(b);
    };
    for (size_t g : order) visit(g);
    return sorted;
  }

  // Call arguments must be leaves: a field of a tuple parameter is bound first (lv = t[i]).
  Expr normalizeArg(const Expr& a, std::vector<BindingRef>& out) {
    if (!a.is<TupleGetItem>()) return a;
    auto var = make<Var>(names_.fresh("lv"), a->sinfo, true);
    out.push_back(make<Binding>(var, a));
    return var;
  }

  // Equal grouped functions share one global (TVM's BlockBuilder::AddFunction deduplication).
  GlobalVarRef addFunction(const GroupFunction& f) {
    for (auto& e : mod_->functions)
      if (e.func->kind() == NodeKind::Function && structuralEqual(e.func, f.function)) return e.gvar;
    std::string name = names_.fresh(f.name);
    while (mod_->find(name)) name = names_.fresh(f.name);
    if (!f.codegen.empty()) {
      // TVM names the function first, then appends the codegen (fused_relax_nn_relu1_compiler_A).
      std::string base = name + "_" + f.codegen;
      name = base;
      for (int i = 1; mod_->find(name); ++i) name = base + std::to_string(i);
    }
    auto gv = make<GlobalVar>(name);
    gv->sinfo = f.function->sinfo;
    mod_ = withFunction(mod_, gv, f.function);
    return gv;
  }
};

}  // namespace

bool isFusionTarget(const Expr& func) { return isFusionTargetImpl(func); }

IRModuleRef outlineGroups(const IRModuleRef& mod, const Grouping& grouping) {
  IRModuleRef out = mod;
  NameSupply names;
  for (auto& e : mod->functions) {
    if (!isFusionTargetImpl(e.func)) continue;
    OperatorFusor fusor(out, grouping, names);
    Expr f = fusor.mutate(e.func);
    if (!f.same(e.func)) out = withFunction(out, e.gvar, f);
  }
  return out;
}

}  // namespace rlx::fusion
