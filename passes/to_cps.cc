// ToCPS and to_cps: Relay's continuation-passing-style conversion with Relax semantics (TVM Relax
// has none). Every converted function f(x...) -> T becomes a private f_cps(x..., k) -> R.Object,
// k: R.Callable((T,), R.Object), that never returns a value directly: it hands its result to k.
//
// Why: CPS makes control flow explicit (every call becomes a tail call, the join point after an
// R.If becomes a function both branches call), the form Relay's partial evaluator and
// higher-order analyses were built for; un_cps turns it back.
//
// The conversion (Relay's higher-order transform over Relax's blocks), inside a converted body:
//  - `v = g(args)` calling a converted function g, or a closure (a call through a var), becomes
//    `g_cps(args, K)`: in tail position (the body returns v right after) K is the current
//    continuation; otherwise K is a new local function `k_v(v) { <the rest of the body> }`
//    capturing what the rest needs (the continuation closure).
//  - `v = R.If(c, A, B)` becomes `R.If(c, A', B')` whose branches end by calling the continuation:
//    the current one in tail position, else a join continuation `k_v(v) { <the rest> }`.
//  - a local function (closure) is converted as well: it takes a continuation as last parameter.
//    Function types follow (R.Callable((A,), B) -> R.Callable((A, R.Callable((B,), R.Object)),
//    R.Object)), so closures passed to or returned from converted functions are CPS closures.
//  - op calls, calls of kernels (PrimFuncs, Primitive / Composite / Codegen functions) and of
//    unconverted functions stay direct bindings, in order; the end of a body calls the
//    continuation with the result: `ans = k(result)`.
//  - Relay's answer type is a type variable; Relax has none, so the answer is R.Object.
//  - A dataflow block without converted calls stays a dataflow block; one with a converted call is
//    split by continuations and becomes an ordinary block (its dataflow vars become vars).
// Which functions: every Relax function that is pure (impure functions keep direct style: their
// continuations would be impure and could not be passed to pure functions; they call converted
// functions through the wrappers below), not a kernel (Primitive / Composite / Codegen), not in CPS
// already (last parameter a continuation, R.Object returned) and not a wrapper written by ToCPS —
// so a second ToCPS changes nothing. A function that keeps a direct-style caller (it is public, an
// unconverted function uses it, or an op such as R.make_closure takes it) keeps its name as a
// direct-style wrapper `f(x...) = R.match_cast(f_cps(x..., identity), T)`, so `main` still runs
// with the same results; such a function must not take or return functions (a CPS closure cannot
// cross into direct code), or it is left unconverted, and so is every function that passes
// functions to an unconverted one.
// to_cps(func="f"): the same for f and the functions it reaches; f must be convertible (the error
// says why not).
// Before: `def f(x): y = cls.g(x); z = R.add(y, x); return z`   (f, g private)
// After:  `def f_cps(x, k): def k_y(y): z = R.add(y, x); ans = k(z); return ans
//                            ans1 = cls.g_cps(x, k_y); return ans1`
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include "ir/expr_mutator.h"
#include "ir/expr_walk.h"
#include "passes/cps_form.h"
#include "passes/emitting_mutator.h"
#include "passes/registry.h"
#include "passes/signature_change.h"
#include "passes/symbolic_vars.h"

namespace rlx {

namespace {

bool isKernelLike(const Function& f) { return f.attrs && (f.attrs->find("Primitive") || f.attrs->find("Composite") || f.attrs->find("Codegen")); }
bool isPublic(const Function& f) { return f.attrs && f.attrs->find("global_symbol"); }
bool forcedPure(const Function& f) {
  const Attr* a = f.attrs ? f.attrs->find("relax.force_pure") : nullptr;
  return a && *a && (((*a)->kind == AttrValue::Bool && (*a)->b) || ((*a)->kind == AttrValue::Int && (*a)->i));
}

// ---------------------------------------------------------------- which functions convert
// How a function refers to a module function: as the callee of a call, inside the arguments of an
// op call, inside the arguments of a call of another function (`callee`, "" for a closure call),
// or as a value anywhere else.
enum class Use { Callee, OpArg, CallArg, Value };
struct FuncUse {
  std::string target;
  Use use;
  std::string callee;
};

struct FunctionFacts {
  std::vector<FuncUse> uses;
  bool opaqueCallable = false;  // a var or parameter of type R.Callable without parameters
};

class UseCollector {
 public:
  UseCollector(const IRModule& mod, FunctionFacts& facts) : mod_(mod), facts_(facts) {}

  void walk(const Expr& e, Use ctx, const std::string& callee) {
    if (!e) return;
    switch (e->kind()) {
      case NodeKind::GlobalVar: {
        auto g = e.as<GlobalVar>();
        if (mod_.lookup(g->name).as<Function>()) facts_.uses.push_back({g->name, ctx, callee});
        return;
      }
      case NodeKind::Call: {
        auto c = e.as<Call>();
        if (auto g = c->op.as<GlobalVar>()) {
          walk(c->op, Use::Callee, "");
          for (auto& a : c->args) walk(a, Use::CallArg, g->name);
        } else if (c->op.as<Op>()) {
          for (auto& a : c->args) walk(a, Use::OpArg, "");
        } else {
          walk(c->op, Use::Value, "");
          for (auto& a : c->args) walk(a, Use::CallArg, "");
        }
        return;
      }
      case NodeKind::Tuple:
        for (auto& f : e.as<Tuple>()->fields) walk(f, ctx, callee);
        return;
      case NodeKind::TupleGetItem: return walk(e.as<TupleGetItem>()->tuple, Use::Value, "");
      case NodeKind::If: {
        auto i = e.as<If>();
        walk(i->cond, Use::Value, "");
        walk(i->thenBranch, Use::Value, "");
        walk(i->elseBranch, Use::Value, "");
        return;
      }
      case NodeKind::SeqExpr: {
        auto s = e.as<SeqExpr>();
        for (auto& block : s->blocks)
          for (auto& b : block->bindings) {
            checkOpaque(b->var->sinfo);
            walk(b->value, Use::Value, "");
          }
        return walk(s->body, Use::Value, "");
      }
      case NodeKind::Function: {
        auto f = e.as<Function>();
        for (auto& p : f->params) checkOpaque(p->sinfo);
        checkOpaque(f->retSInfo);
        return walk(f->body, Use::Value, "");
      }
      default: return;
    }
  }

 private:
  void checkOpaque(const StructInfo& s) {
    if (auto f = s.as<FuncSInfo>(); f && !f->params) facts_.opaqueCallable = true;
    if (auto t = s.as<TupleSInfo>())
      for (auto& x : t->fields) checkOpaque(x);
  }
  const IRModule& mod_;
  FunctionFacts& facts_;
};

// Why `name` cannot be converted on its own merits, or "" when it can.
std::string whyNotCandidate(const IRModule& mod, const std::string& name, const FunctionFacts& facts) {
  auto f = mod.lookup(name).as<Function>();
  if (!f) return "it is not a Relax function";
  if (!f->isPure || forcedPure(*f)) return "it is impure (impure functions keep direct style)";
  if (isKernelLike(*f)) return "it is a kernel (Primitive, Composite or Codegen function)";
  if (isCpsFunction(*f)) return "it is in CPS already (its last parameter is a continuation and it returns R.Object)";
  if (auto target = cpsWrapperTarget(mod, *f)) return "it is the direct-style wrapper of " + *target;
  if (facts.opaqueCallable) return "it uses a function value of unknown signature (R.Callable without parameter types)";
  return "";
}

struct Plan {
  std::set<std::string> convert;  // the functions that get a CPS version
  std::set<std::string> wrapped;  // those that keep a direct-style wrapper under their name
  std::map<std::string, std::string> why;  // why a function is not converted
};

Plan planConversion(const IRModule& mod, const std::optional<std::string>& only) {
  std::map<std::string, FunctionFacts> facts;
  for (auto& e : mod.functions)
    if (e.func.as<Function>()) UseCollector(mod, facts[e.gvar->name]).walk(e.func, Use::Value, "");
  Plan plan;
  for (auto& [name, f] : facts) {
    std::string why = whyNotCandidate(mod, name, f);
    if (why.empty()) plan.convert.insert(name);
    else plan.why[name] = why;
  }
  if (only) {  // the named function and the convertible functions it reaches
    std::set<std::string> reached;
    std::vector<std::string> work;
    if (plan.convert.count(*only)) work.push_back(*only);
    while (!work.empty()) {
      std::string n = work.back();
      work.pop_back();
      if (!reached.insert(n).second) continue;
      for (auto& u : facts[n].uses)
        if (plan.convert.count(u.target)) work.push_back(u.target);
    }
    plan.convert = reached;
  }
  auto signatureOf = [&](const std::string& n) { return mod.lookup(n).as<Function>(); };
  for (bool changed = true; changed;) {
    changed = false;
    plan.wrapped.clear();
    for (auto& n : plan.convert)
      if (isPublic(*signatureOf(n))) plan.wrapped.insert(n);
    for (auto& [from, f] : facts)
      for (auto& u : f.uses) {
        if (!plan.convert.count(u.target)) continue;
        bool direct = !plan.convert.count(from) || u.use == Use::OpArg || (u.use == Use::CallArg && !u.callee.empty() && !plan.convert.count(u.callee));
        if (direct) plan.wrapped.insert(u.target);
      }
    for (auto& n : plan.wrapped)
      if (plan.convert.count(n) && signatureMentionsCallable(*signatureOf(n))) {
        plan.convert.erase(n);
        plan.why[n] = "it has direct-style callers and takes or returns functions (a CPS closure cannot cross into direct code)";
        changed = true;
      }
    for (auto it = plan.convert.begin(); it != plan.convert.end();) {
      std::string blocker;
      for (auto& u : facts[*it].uses)
        if (!plan.convert.count(u.target) && signatureOf(u.target) && signatureMentionsCallable(*signatureOf(u.target))) blocker = u.target;
      if (blocker.empty()) {
        ++it;
        continue;
      }
      plan.why[*it] = "it uses " + blocker + ", which stays in direct style and takes or returns functions";
      it = plan.convert.erase(it);
      changed = true;
    }
  }
  return plan;
}

// ---------------------------------------------------------------- the conversion
// A binding of a body being converted; `dataflow` when it stays in a dataflow block.
struct Item {
  BindingRef binding;
  bool dataflow;
};

class CpsConverter : public ExprMutator {
 public:
  explicit CpsConverter(const std::map<std::string, GlobalVarRef>& cpsOf) : cpsOf_(cpsOf) {}

  // f(x...) -> T  ==>  f_cps(x..., k) -> R.Object.
  FunctionRef convertFunction(const FunctionRef& f) {
    names_.clear();
    collectNames(f);
    auto out = convertLambda(*f);
    auto fn = make<Function>(out->params, out->body, out->retSInfo, out->isPure, withoutDictAttr(f->attrs, "global_symbol"));
    fn->sinfo = out->sinfo;
    fn->span = f->span;
    return fn;
  }

 protected:
  Expr visitLeaf(const Expr& e) override {
    if (auto g = e.as<GlobalVar>(); g && !direct_)
      if (auto it = cpsOf_.find(g->name); it != cpsOf_.end()) return it->second;
    return e;
  }

  // A call that stays direct (an op, a kernel, an unconverted function): the functions among its
  // arguments are passed in direct style (their wrappers).
  Expr visitCall(const Ref<Call>& c) override {
    bool saved = direct_;
    direct_ = true;
    std::vector<Expr> args;
    bool changed = false;
    for (auto& a : c->args) {
      args.push_back(mutate(a));
      changed |= !args.back().same(a);
    }
    direct_ = saved;
    std::vector<StructInfo> sinfoArgs;
    for (auto& s : c->sinfoArgs) {
      sinfoArgs.push_back(cpsSInfo(remapSInfo(s)));
      changed |= !sinfoArgs.back().same(s);
    }
    StructInfo own = cpsSInfo(remapSInfo(c->sinfo));
    if (!changed && own.same(c->sinfo)) return c;
    auto out = make<Call>(c->op, std::move(args), c->attrs, std::move(sinfoArgs));
    out->sinfo = own;
    out->span = c->span;
    return out;
  }

  Expr visitTuple(const Ref<Tuple>& t) override { return withCpsSInfo(ExprMutator::visitTuple(t), t); }

  Expr visitTupleGetItem(const Ref<TupleGetItem>& t) override {
    bool saved = direct_;
    direct_ = false;
    Expr out = withCpsSInfo(ExprMutator::visitTupleGetItem(t), t);
    direct_ = saved;
    return out;
  }

  Expr visitFunction(const Ref<Function>& f) override {  // a local function (closure) is converted too
    bool saved = direct_;
    direct_ = false;
    Expr out = convertLambda(*f);
    direct_ = saved;
    return out;
  }

 private:
  const std::map<std::string, GlobalVarRef>& cpsOf_;
  std::set<std::string> names_;  // every name the function uses, for fresh ones
  bool direct_ = false;

  void collectNames(const FunctionRef& f) { rlx::collectNames(f, names_); }

  VarRef newVar(const std::string& base, const StructInfo& s) { return make<Var>(freshName(base, names_), s); }

  // `out` carrying the CPS form of `old`'s struct info (function values among its parts).
  Expr withCpsSInfo(const Expr& out, const Expr& old) {
    StructInfo s = cpsSInfo(old->sinfo);
    if (s.same(out->sinfo)) return out;
    Expr copy = out.same(old) ? Expr() : out;
    if (!copy) {
      if (auto t = out.as<Tuple>()) copy = make<Tuple>(t->fields);
      else if (auto g = out.as<TupleGetItem>()) copy = make<TupleGetItem>(g->tuple, g->index);
      else return out;
      copy->span = old->span;
    }
    copy->sinfo = s;
    return copy;
  }

  // The var a parameter or binding var becomes: a new one when its struct info changes (function
  // types) or when its dataflow block becomes an ordinary block.
  VarRef define(const VarRef& v, bool keepDataflow) {
    StructInfo s = cpsSInfo(v->sinfo);
    bool dataflow = v->isDataflow() && keepDataflow;
    if (s.same(v->sinfo) && dataflow == v->isDataflow()) return v;
    auto nv = make<Var>(v->name, s, dataflow);
    nv->span = v->span;
    varMap[v.get()] = nv;
    return nv;
  }

  // A call of a converted function or of a closure, or an R.If: what CPS turns inside out.
  bool isSerious(const Expr& value) const {
    if (value.as<If>()) return true;
    auto c = value.as<Call>();
    if (!c) return false;
    if (c->op.as<Var>()) return true;
    auto g = c->op.as<GlobalVar>();
    return g && cpsOf_.count(g->name);
  }

  std::vector<Item> itemsOf(const Expr& body) {
    std::vector<Item> items;
    auto seq = body.as<SeqExpr>();
    if (!seq) return items;
    for (auto& block : seq->blocks) {
      bool serious = false;
      for (auto& b : block->bindings) serious |= isSerious(b->value);
      for (auto& b : block->bindings) items.push_back({b, block->isDataflow() && !serious});
    }
    return items;
  }

  Expr resultOf(const Expr& body) {
    auto seq = body.as<SeqExpr>();
    return seq ? seq->body : body;
  }

  // fn(x...) -> T { body }  ==>  fn(x'..., k) -> R.Object { body handing its result to k }.
  FunctionRef convertLambda(const Function& f) {
    std::vector<VarRef> params;
    std::vector<StructInfo> paramSInfo;
    for (auto& p : f.params) {
      params.push_back(define(p, false));
      paramSInfo.push_back(sinfoOf(params.back()));
    }
    auto k = newVar("k", continuationSInfo(cpsSInfo(f.retSInfo)));
    params.push_back(k);
    paramSInfo.push_back(k->sinfo);
    Expr body = convertSeq(itemsOf(f.body), 0, resultOf(f.body), k);
    auto fn = make<Function>(std::move(params), body, objectSInfo(), f.isPure, f.attrs);
    fn->sinfo = make<FuncSInfo>(std::move(paramSInfo), objectSInfo(), f.isPure);
    fn->span = f.span;
    return fn;
  }

  // The CPS form of a serious value, handing its result to continuation `k`.
  Expr convertSerious(const Expr& value, const Expr& k) {
    if (auto i = value.as<If>()) {
      auto branch = [&](const Expr& b) { return convertSeq(itemsOf(b), 0, resultOf(b), k); };
      auto out = make<If>(mutate(i->cond), branch(i->thenBranch), branch(i->elseBranch));
      out->sinfo = objectSInfo();
      out->span = i->span;
      return out;
    }
    auto c = value.as<Call>();
    Expr callee = c->op.as<GlobalVar>() ? Expr(cpsOf_.at(c->op.as<GlobalVar>()->name)) : mutate(c->op);
    std::vector<Expr> args;
    for (auto& a : c->args) args.push_back(mutate(a));
    args.push_back(k);
    auto out = make<Call>(callee, std::move(args), c->attrs, std::vector<StructInfo>{});
    out->sinfo = objectSInfo();
    out->span = c->span;
    return out;
  }

  // Converts items[i..] followed by `result`, ending in a call of continuation `k`.
  Expr convertSeq(const std::vector<Item>& items, size_t i, const Expr& result, const Expr& k) {
    std::vector<BlockRef> blocks;
    std::vector<BindingRef> current;
    bool currentDataflow = false;
    auto push = [&](const BindingRef& b, bool dataflow) {
      if (!current.empty() && dataflow != currentDataflow) {
        appendBlock(blocks, make<BindingBlock>(std::move(current), currentDataflow));
        current.clear();
      }
      currentDataflow = dataflow;
      current.push_back(b);
    };
    auto bind = [&](const VarRef& v, const Expr& value, const Span& span) {
      auto b = make<Binding>(v, value);
      b->span = span;
      push(b, false);
    };
    auto finish = [&](const Expr& body) -> Expr {
      if (!current.empty()) appendBlock(blocks, make<BindingBlock>(std::move(current), currentDataflow));
      return makeSeqExpr(blocks, body);
    };
    for (; i < items.size(); ++i) {
      const BindingRef& b = items[i].binding;
      if (!isSerious(b->value)) {
        VarRef var = define(b->var, items[i].dataflow);
        Expr value = mutate(b->value);
        StructInfo cast = cpsSInfo(b->castSInfo);
        if (var.same(b->var) && value.same(b->value) && cast.same(b->castSInfo)) {
          push(b, items[i].dataflow);
        } else {
          auto nb = make<Binding>(var, value, cast);
          nb->span = b->span;
          push(nb, items[i].dataflow);
        }
        continue;
      }
      if (i + 1 == items.size() && !b->isMatchCast() && result.get() == b->var.get()) {
        // Tail position: the current continuation receives the result.
        // The answer keeps the name of the value it stands for (un_cps gives it back).
        bind(make<Var>(b->var->name, objectSInfo()), convertSerious(b->value, k), b->span);
        return finish(current.back()->var);
      }
      // Otherwise the rest of the body becomes the continuation k_v(v).
      VarRef param;
      BindingRef cast;
      if (b->isMatchCast()) {
        param = newVar(b->var->name + "_value", cpsSInfo(sinfoOf(b->value)));
        cast = make<Binding>(define(b->var, false), param, cpsSInfo(b->castSInfo));
        cast->span = b->span;
      } else {
        param = define(b->var, false);
      }
      Expr rest = convertSeq(items, i + 1, result, k);
      if (cast) {
        auto seq = rest.as<SeqExpr>();
        std::vector<BlockRef> restBlocks{make<BindingBlock>(std::vector<BindingRef>{cast}, false)};
        for (auto& rb : seq->blocks) appendBlock(restBlocks, rb);
        rest = makeSeqExpr(restBlocks, seq->body);
      }
      auto cont = make<Function>(std::vector<VarRef>{param}, rest, objectSInfo(), true, nullptr);
      cont->sinfo = continuationSInfo(sinfoOf(param));
      cont->span = b->span;
      auto kv = newVar("k_" + b->var->name, cont->sinfo);
      bind(kv, cont, b->span);
      bind(newVar("ans", objectSInfo()), convertSerious(b->value, kv), b->span);
      return finish(current.back()->var);
    }
    auto call = make<Call>(k, std::vector<Expr>{mutate(result)});
    call->sinfo = objectSInfo();
    bind(newVar("ans", objectSInfo()), call, Span());
    return finish(current.back()->var);
  }
};

// f(x...) -> T  ==>  { k = fn(v: T) -> T { return v }; ans = f_cps(x..., k); r = R.match_cast(ans, T); return r }
FunctionRef makeWrapper(const FunctionRef& fref, const GlobalVarRef& cps) {
  const Function& f = *fref;
  std::set<std::string> names;
  for (auto& v : usedSymbols(fref)) names.insert(v->name);
  std::vector<VarRef> params;
  std::vector<Expr> args;
  for (auto& p : f.params) {
    auto np = make<Var>(p->name, p->sinfo);
    np->span = p->span;
    names.insert(p->name);
    params.push_back(np);
    args.push_back(np);
  }
  StructInfo ret = f.retSInfo ? f.retSInfo : objectSInfo();
  auto v = make<Var>(freshName("v", names), ret);
  auto idBody = make<SeqExpr>(std::vector<BlockRef>{}, v);
  idBody->sinfo = ret;
  // Its return struct info is T, the body's, as TVM's normalizer infers it (T is an R.Object).
  auto id = make<Function>(std::vector<VarRef>{v}, idBody, ret, true, nullptr);
  id->sinfo = make<FuncSInfo>(std::vector<StructInfo>{ret}, ret, true);
  auto k = make<Var>(freshName("k", names), id->sinfo);
  args.push_back(k);
  auto call = make<Call>(cps, std::move(args));
  call->sinfo = objectSInfo();
  auto ans = make<Var>(freshName("ans", names), objectSInfo());
  std::vector<BindingRef> bindings{make<Binding>(k, id), make<Binding>(ans, call)};
  VarRef result = ans;
  if (!ret.as<ObjectSInfo>()) {
    result = make<Var>(freshName("r", names), ret);
    bindings.push_back(make<Binding>(result, ans, ret));
  }
  auto body = make<SeqExpr>(std::vector<BlockRef>{make<BindingBlock>(std::move(bindings), false)}, result);
  body->sinfo = ret;
  auto fn = make<Function>(std::move(params), body, ret, true, f.attrs);
  fn->sinfo = f.sinfo;
  fn->span = f.span;
  return fn;
}

Result<IRModuleRef> toCps(const IRModuleRef& mod, const std::optional<std::string>& only) {
  if (only) {  // converted already: nothing to do (a second to_cps changes nothing)
    auto f = mod->lookup(*only).as<Function>();
    if (f && (isCpsFunction(*f) || cpsWrapperTarget(*mod, *f))) return mod;
  }
  Plan plan = planConversion(*mod, only);
  if (only && !plan.convert.count(*only)) {
    if (!mod->find(*only)) return Error("the module has no function \"" + *only + "\"");
    return Error("\"" + *only + "\" cannot be converted to CPS: " + plan.why[*only]);
  }
  if (plan.convert.empty()) return mod;
  std::set<std::string> taken;
  for (auto& e : mod->functions) taken.insert(e.gvar->name);
  std::map<std::string, GlobalVarRef> cpsOf;
  for (auto& e : mod->functions) {
    if (!plan.convert.count(e.gvar->name)) continue;
    auto f = e.func.as<Function>();
    auto g = make<GlobalVar>(freshName(e.gvar->name + "_cps", taken));
    std::vector<StructInfo> params;
    for (auto& p : f->params) params.push_back(cpsSInfo(sinfoOf(p)));
    params.push_back(continuationSInfo(cpsSInfo(f->retSInfo ? f->retSInfo : objectSInfo())));
    g->sinfo = make<FuncSInfo>(std::move(params), objectSInfo(), true);
    cpsOf[e.gvar->name] = g;
  }
  auto out = make<IRModule>();
  out->attrs = mod->attrs;
  out->globalInfos = mod->globalInfos;
  CpsConverter converter(cpsOf);
  for (auto& e : mod->functions) {
    if (!plan.convert.count(e.gvar->name)) {
      out->functions.push_back(e);
      continue;
    }
    auto f = e.func.as<Function>();
    const GlobalVarRef& cps = cpsOf.at(e.gvar->name);
    if (plan.wrapped.count(e.gvar->name)) out->functions.push_back({e.gvar, makeWrapper(f, cps)});
    out->functions.push_back({cps, converter.convertFunction(f)});
  }
  return IRModuleRef(out);
}

}  // namespace

Result<Pass> createToCPSPass(PassOptions&) {
  return Pass({"ToCPS", 1, {}}, [](const IRModuleRef& mod, const PassContext&) { return toCps(mod, std::nullopt); });
}

Result<Pass> createto_cpsPass(PassOptions& options) {
  std::string func = options.string("func").value_or("main");
  return Pass({"to_cps", 1, {}}, [func](const IRModuleRef& mod, const PassContext&) { return toCps(mod, func); });
}

}  // namespace rlx
