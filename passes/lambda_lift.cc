// LambdaLift: TVM's relax.transform.LambdaLift. Every function bound inside another function
// becomes a private module-level function, because the VM (and most later passes) only handle
// module-level functions. Naming follows TVM: the lambda's global_symbol if it has one, else
// `<outer>_<var>`, else the whole nesting path `<outer>_<a>_<b>`, else `<outer>_<var>_<n>`; names
// already in the module are never reused.
// A lambda without free vars is replaced by its GlobalVar at every use (its binding disappears).
// A lambda that captures outer vars becomes a function taking the captured vars as extra trailing
// params, its binding becomes `R.make_closure(gvar, (captured...))`, and calls through a closure
// become `R.invoke_pure_closure` / `R.invoke_closure` (by the purity of the call that produced the
// closure). A recursive closure calls its lifted self directly, passing the captured vars along.
//
// Preconditions: a normalized module.
// Before:                                       After:
//   def main(x, y):                               @R.function(private=True)
//     @R.function                                 def main_inner(a, b): s = R.add(a, b); return s
//     def inner(a, b): s = R.add(a, b); return s  def main(x, y):
//     gv = inner(x, y)                              gv = cls.main_inner(x, y)
//     return gv                                     return gv
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ir/expr_mutator.h"
#include "ir/expr_walk.h"
#include "ir/op.h"
#include "passes/registry.h"
#include "passes/symbolic_vars.h"

namespace rlx {

namespace {

// ---------------------------------------------------------------- naming
// Records, for every bound lambda, its nesting path: [module function, binding var, ...].
class LambdaNamer {
 public:
  std::unordered_map<const Function*, std::string> names;

  Status run(const IRModule& mod) {
    for (auto& e : mod.functions) taken_.insert(e.gvar->name);
    for (auto& e : mod.functions) {
      if (e.func->kind() != NodeKind::Function) continue;
      path_ = {e.gvar->name};
      visit(e.func);
    }
    return finish();
  }

 private:
  std::vector<std::string> path_;
  std::set<std::string> taken_;
  std::vector<std::pair<const Function*, std::vector<std::string>>> lambdas_;  // discovery order
  std::unordered_map<const Function*, std::string> publicNames_;

  void visit(const Expr& e) {
    if (!e) return;
    if (auto f = e.as<Function>()) return visit(f->body);
    if (auto i = e.as<If>()) {
      visit(i->thenBranch);
      visit(i->elseBranch);
      return;
    }
    auto s = e.as<SeqExpr>();
    if (!s) return;
    for (auto& block : s->blocks)
      for (auto& b : block->bindings) {
        if (auto f = b->value.as<Function>(); f && !b->isMatchCast()) {
          if (auto sym = attrStr(f->attrs, "global_symbol")) publicNames_[f.get()] = *sym;
          path_.push_back(b->var->name);
          lambdas_.push_back({f.get(), path_});
          visit(f->body);
          path_.pop_back();
        } else {
          visit(b->value);
        }
      }
  }

  // Applies one naming scheme to the still-unnamed lambdas: a proposal is taken when it is free
  // and no other lambda proposed the same name in this round.
  void attempt(const std::function<std::optional<std::string>(const Function*, const std::vector<std::string>&)>& propose) {
    std::map<std::string, const Function*> round;
    std::vector<std::string> order;
    for (auto& [f, path] : lambdas_) {
      if (names.count(f)) continue;
      auto name = propose(f, path);
      if (!name || taken_.count(*name)) continue;
      auto [it, fresh] = round.insert({*name, f});
      if (fresh) order.push_back(*name);
      else it->second = nullptr;
    }
    for (auto& n : order) {
      if (!round[n]) continue;
      names[round[n]] = n;
      taken_.insert(n);
    }
  }

  Status finish() {
    // A lambda's global_symbol must be usable as is (TVM raises the same errors).
    std::set<std::string> seen;
    for (auto& [f, sym] : publicNames_) {
      if (taken_.count(sym)) return Error("LambdaLift: a nested function has global_symbol \"" + sym + "\", but the module already has a function of that name");
      if (!seen.insert(sym).second) return Error("LambdaLift: two nested functions share the global_symbol \"" + sym + "\"");
    }
    attempt([&](const Function* f, const auto&) -> std::optional<std::string> {
      auto it = publicNames_.find(f);
      if (it == publicNames_.end()) return std::nullopt;
      return it->second;
    });
    attempt([](const Function*, const auto& path) -> std::optional<std::string> { return path.front() + "_" + path.back(); });
    attempt([](const Function*, const auto& path) -> std::optional<std::string> {
      if (path.size() == 2) return std::nullopt;
      std::string s;
      for (auto& p : path) s += (s.empty() ? "" : "_") + p;
      return s;
    });
    std::map<std::string, int> usage;
    attempt([&](const Function*, const auto& path) -> std::optional<std::string> {
      std::string base = path.front() + "_" + path.back();
      return base + "_" + std::to_string(usage[base]++);
    });
    return okStatus();
  }
};

// ---------------------------------------------------------------- lifting
class LambdaLifter : public ExprMutator {
 public:
  LambdaLifter(const IRModule& mod, std::unordered_map<const Function*, std::string> names) : mod_(mod), names_(std::move(names)) {}

  std::vector<std::pair<GlobalVarRef, Expr>> lifted;

 protected:
  BindingRef visitBinding(const BindingRef& b) override {
    const Var* saved = currentLambda_;
    currentLambda_ = b->value->kind() == NodeKind::Function ? b->var.get() : nullptr;
    Expr value = mutate(b->value);
    currentLambda_ = saved;
    if (rebind_.count(b->var.get())) return nullptr;  // a lifted lambda without captures: uses name the global
    VarRef var = b->var;
    // The value's struct info may change kind (a lambda becomes an R.Object closure): a new var.
    if (!value.same(b->value) && value->sinfo && var->sinfo && value->sinfo->kind() != var->sinfo->kind()) {
      auto nv = make<Var>(var->name, value->sinfo, var->isDataflow());
      nv->span = var->span;
      varMap[var.get()] = nv;
      var = nv;
    }
    bound_[b->var.get()] = value;
    bound_[var.get()] = value;
    if (b->isMatchCast()) noteDefiner(var, b->castSInfo);
    if (var.same(b->var) && value.same(b->value)) return b;
    auto nb = make<Binding>(var, value, b->castSInfo);
    nb->span = b->span;
    return nb;
  }

  Expr visitVar(const Ref<Var>& v) override {
    if (auto it = rebind_.find(v.get()); it != rebind_.end()) return it->second;
    return ExprMutator::visitVar(v);
  }

  Expr visitFunction(const Ref<Function>& f) override {
    // Module functions may share symbolic vars (copies made by passes): definers are per function.
    if (!currentLambda_) definers_.clear();
    for (auto& p : f->params) noteDefiner(p, p->sinfo);
    if (!currentLambda_) return ExprMutator::visitFunction(f);  // module-level function
    const Var* self = currentLambda_;
    currentLambda_ = nullptr;
    const std::string& name = names_.at(f.get());

    // A captured var may already have been rebound (a lambda bound before this one is now a
    // closure of another struct info): the closure captures, and the body reads, the new var.
    std::vector<VarRef> captured;
    bool recursive = false;
    for (auto& v : freeVars(f)) {
      if (v.get() == self) recursive = true;
      else if (rebind_.count(v.get())) continue;  // a lambda lifted without captures: its uses name the global
      else if (auto it = varMap.find(v.get()); it != varMap.end() && it->second.as<Var>()) captured.push_back(it->second.as<Var>());
      else captured.push_back(v);
    }
    // Symbolic vars the lambda uses but neither its parameters nor its captures define (a shape
    // var of the outer function's R.Prim(value=k) parameter, say): the lifted function would not
    // know them, so the var of the enclosing scope that defines each one is captured too.
    std::set<const PrimVar*> covered;
    auto cover = [&](const StructInfo& s) {
      for (auto& v : definableSymbols(s)) covered.insert(v.get());
    };
    for (auto& p : f->params) cover(p->sinfo);
    for (auto& c : captured) cover(c->sinfo);
    for (auto& sym : freeSymbols(f)) {
      if (covered.count(sym.get())) continue;
      auto it = definers_.find(sym.get());
      if (it == definers_.end()) continue;
      captured.push_back(it->second);
      cover(it->second->sinfo);
    }
    bool closure = !captured.empty();
    std::vector<VarRef> params = f->params;
    std::unordered_map<const Var*, Expr> toParams;
    for (auto& c : captured) {
      auto p = make<Var>(c->name, c->sinfo);
      p->span = c->span;
      params.push_back(p);
      toParams[c.get()] = p;
    }
    auto gvar = make<GlobalVar>(name);
    std::vector<StructInfo> paramSInfo;
    for (auto& p : params) paramSInfo.push_back(sinfoOf(p));
    gvar->sinfo = make<FuncSInfo>(paramSInfo, f->retSInfo, f->isPure);

    // Registered before the body is visited so recursive uses inside it are rewritten.
    if (recursive && closure) selfCalls_[self] = {gvar, captured};
    if (!closure) rebind_[self] = gvar;

    Expr body = mutate(f->body);
    if (closure) body = substituteVars(body, toParams);
    StructInfo ret = sinfoOf(body.as<SeqExpr>() ? body.as<SeqExpr>()->body : body);
    auto fn = make<Function>(params, body, ret, f->isPure, f->attrs);
    fn->sinfo = make<FuncSInfo>(paramSInfo, ret, f->isPure);
    fn->span = f->span;
    gvar->sinfo = fn->sinfo;
    liftedByName_[name] = fn;
    if (closure || isClosure(fn, 0)) closures_.insert(name);
    lifted.push_back({gvar, fn});

    if (!closure) return gvar;
    Expr tuple = tupleOf(std::vector<Expr>(captured.begin(), captured.end()));
    auto call = make<Call>(opRef("relax.make_closure"), std::vector<Expr>{gvar, tuple}, nullptr, std::vector<StructInfo>{});
    call->sinfo = objectSInfo();
    return call;
  }

  Expr visitCall(const Ref<Call>& c) override {
    Ref<Call> call = c;
    if (auto v = c->op.as<Var>()) {
      auto it = bound_.find(v.get());
      if (it != bound_.end() && it->second.as<Call>() && isClosure(v, 0)) {
        auto producer = it->second.as<Call>();
        bool pure = true;
        if (auto op = producer->op.as<Op>()) pure = op->info->pure;
        else if (auto fs = sinfoOf(producer->op).as<FuncSInfo>()) pure = fs->isPure;
        auto args = make<Tuple>(c->args);
        std::vector<StructInfo> argSInfo;
        for (auto& a : c->args) argSInfo.push_back(sinfoOf(a));
        args->sinfo = make<TupleSInfo>(argSInfo);
        call = make<Call>(opRef(pure ? "relax.invoke_pure_closure" : "relax.invoke_closure"), std::vector<Expr>{c->op, args}, nullptr, std::vector<StructInfo>{sinfoOf(c)});
        call->sinfo = c->sinfo;
        call->span = c->span;
      }
    }
    if (auto v = call->op.as<Var>()) {
      if (auto it = selfCalls_.find(v.get()); it != selfCalls_.end()) {
        std::vector<Expr> args = call->args;
        args.insert(args.end(), it->second.captured.begin(), it->second.captured.end());
        auto nc = make<Call>(it->second.gvar, std::move(args), call->attrs, call->sinfoArgs);
        nc->sinfo = call->sinfo;
        nc->span = call->span;
        call = nc;
      }
    }
    Expr out = ExprMutator::visitCall(call);
    // A call of a lifted function returns what the lifted function now returns (a closure
    // returned from a lambda is an R.Object, no longer an R.Callable).
    if (auto oc = out.as<Call>()) {
      if (auto g = oc->op.as<GlobalVar>()) {
        if (auto it = liftedByName_.find(g->name); it != liftedByName_.end() && !it->second->retSInfo.same(sinfoOf(out))) {
          auto nc = make<Call>(oc->op, oc->args, oc->attrs, oc->sinfoArgs);
          nc->sinfo = it->second->retSInfo;
          nc->span = oc->span;
          return nc;
        }
      }
    }
    return out;
  }

 private:
  struct SelfCall {
    GlobalVarRef gvar;
    std::vector<VarRef> captured;
  };
  const IRModule& mod_;
  std::unordered_map<const Function*, std::string> names_;
  const Var* currentLambda_ = nullptr;
  std::unordered_map<const Var*, Expr> rebind_;
  std::unordered_map<const Var*, SelfCall> selfCalls_;
  std::unordered_map<const Var*, Expr> bound_;  // the rewritten value of every binding seen
  std::set<std::string> closures_;
  std::unordered_map<std::string, FunctionRef> liftedByName_;
  std::unordered_map<const PrimVar*, VarRef> definers_;  // a var in scope defining each symbolic var

  void noteDefiner(const VarRef& var, const StructInfo& s) {
    for (auto& v : definableSymbols(s)) definers_.emplace(v.get(), var);
  }

  // Does evaluating `e` produce a closure? Follows var bindings, calls and function bodies as
  // TVM's IsClosure does; `depth` stops recursive functions from looping.
  bool isClosure(const Expr& e, int depth) {
    if (!e || depth > 64) return false;
    Expr val = e;
    if (auto v = e.as<Var>()) {
      auto it = bound_.find(v.get());
      if (it == bound_.end()) return false;
      val = it->second;
    }
    if (auto c = val.as<Call>()) {
      if (c->op.as<Var>()) return isClosure(c->op, depth + 1);
      if (auto g = c->op.as<GlobalVar>()) return isClosure(g, depth + 1);
      if (auto op = c->op.as<Op>()) return op->info->name == "relax.make_closure";
      return false;
    }
    if (auto g = val.as<GlobalVar>()) {
      if (closures_.count(g->name)) return true;
      if (auto it = liftedByName_.find(g->name); it != liftedByName_.end()) return isClosure(it->second->body, depth + 1);
      if (auto f = mod_.lookup(g->name).as<Function>()) return isClosure(f->body, depth + 1);
      return false;
    }
    if (auto f = val.as<Function>()) return isClosure(f->body, depth + 1);
    if (auto s = val.as<SeqExpr>()) return isClosure(s->body, depth + 1);
    return false;
  }
};

}  // namespace

Result<Pass> createLambdaLiftPass(PassOptions&) {
  return Pass({"LambdaLift", 1, {}}, [](const IRModuleRef& mod, const PassContext&) -> Result<IRModuleRef> {
    LambdaNamer namer;
    RLX_TRY_STATUS(namer.run(*mod));
    if (namer.names.empty()) return mod;  // nothing nested: the same module
    LambdaLifter lifter(*mod, namer.names);
    IRModuleRef out = mod;
    for (auto& e : mod->functions) {
      if (e.func->kind() != NodeKind::Function) continue;
      Expr f = lifter.mutate(e.func);
      if (!f.same(e.func)) out = withFunction(out, e.gvar, f);
    }
    for (auto& [gvar, fn] : lifter.lifted) out = withFunction(out, gvar, fn);
    return out;
  });
}

}  // namespace rlx
