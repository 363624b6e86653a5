// un_cps: Relay's helper with Relax semantics — turns functions in continuation-passing style (as
// ToCPS writes them, see to_cps.cc and cps_form.h) back into direct style.
//
// Relay's un_cps only wrapped a CPS function in one that passes the identity continuation; here
// the CPS code itself is read back, so un_cps(ToCPS(m)) is m again (up to the dataflow blocks
// ToCPS had to split, which stay ordinary blocks):
//  - a local function k_v(v) { rest } that is only passed as a continuation (the last argument of a
//    call) or called with a value is a continuation: not kept, its body continues the code;
//  - `ans = g_cps(args, K)` at the end of a body becomes `v = g(args)`, then K's body (or the
//    function's result when K is the function's own continuation);
//  - `ans = K(v)` at the end hands v on the same way; an R.If whose branches both end in the same
//    continuation K becomes `v = R.If(...)` with the branches' values as its results, then K;
//  - local functions in CPS (closures: last parameter a continuation) lose that parameter, and
//    function types go back: R.Callable((A, R.Callable((B,), R.Object)), R.Object) -> R.Callable((A,), B).
// Names: f_cps becomes f, replacing the direct-style wrapper f that ToCPS left (its attrs, such as
// global_symbol, stay); another CPS function keeps its name. A CPS function some other function
// still calls in CPS (with a continuation of its own) is kept beside the direct version, with the
// CPS functions it calls.
// func=None converts every CPS function of the module; func="f_cps" only that one — then it must
// not take or return functions (their callers would pass CPS closures), and the CPS functions it
// calls are called with the identity continuation and an R.match_cast of the answer.
// Errors (CPS code in another shape) name the function and the binding: a continuation called
// before the end of a body, used as a value, inlined twice, or branches ending in different
// continuations.
// Before: `def f_cps(x, k): def k_y(y): z = R.add(y, x); ans = k(z); return ans
//                           ans1 = cls.g_cps(x, k_y); return ans1`
// After:  `def f(x): y = cls.g(x); z = R.add(y, x); return z`
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ir/block_builder.h"
#include "ir/expr_mutator.h"
#include "ir/expr_walk.h"
#include "ir/struct_info.h"
#include "passes/cps_form.h"
#include "passes/emitting_mutator.h"
#include "passes/registry.h"
#include "passes/signature_change.h"
#include "passes/symbolic_vars.h"

namespace rlx {

namespace {

// How a local function var is used, for telling continuations from closures.
struct VarUse {
  enum Kind { LastArg, CalleeOfOne, Other } kind;
  const Var* arg = nullptr;  // CalleeOfOne: the argument when it is a var
};

// Bindings of a body with the kind of their block.
struct Item {
  BindingRef binding;
  bool dataflow;
};

std::vector<Item> itemsOf(const Expr& body) {
  std::vector<Item> items;
  if (auto seq = body.as<SeqExpr>())
    for (auto& block : seq->blocks)
      for (auto& b : block->bindings) items.push_back({b, block->isDataflow()});
  return items;
}

Expr resultOf(const Expr& body) {
  auto seq = body.as<SeqExpr>();
  return seq ? seq->body : body;
}


// Where a body ends: value handed to continuation k.
struct Tail {
  const Var* k = nullptr;
  Expr value;
};

class DirectConverter : public ExprMutator {
 public:
  // directOf: the CPS functions converted, with the GlobalVar of their direct version (its struct
  // info the direct signature); calls of other CPS functions pass the identity continuation.
  explicit DirectConverter(const std::map<std::string, GlobalVarRef>& directOf) : directOf_(directOf) {}

  Result<FunctionRef> convertFunction(const FunctionRef& h, const std::string& name) {
    name_ = name;
    uses_.clear();
    conts_.clear();
    inlined_.clear();
    names_.clear();
    collectUses(h);
    for (auto& v : usedSymbols(h)) names_.insert(v->name);
    RLX_TRY(fn, convertLambda(*h));
    return fn;
  }

 protected:
  Expr visitVar(const Ref<Var>& v) override {
    if (isContinuationVar(v.get()) && error_.empty())
      error_ = "the continuation " + v->name + " is used as a value";
    return ExprMutator::visitVar(v);
  }

  Expr visitLeaf(const Expr& e) override {
    if (auto g = e.as<GlobalVar>())
      if (auto it = directOf_.find(g->name); it != directOf_.end()) return it->second;
    return e;
  }

  Expr visitTuple(const Ref<Tuple>& t) override { return withDirectSInfo(ExprMutator::visitTuple(t), t); }
  Expr visitTupleGetItem(const Ref<TupleGetItem>& t) override { return withDirectSInfo(ExprMutator::visitTupleGetItem(t), t); }
  Expr visitCall(const Ref<Call>& c) override {
    Expr out = ExprMutator::visitCall(c);
    return withDirectSInfo(out, c);
  }

 private:
  struct Cont {
    FunctionRef fn;
    int scope;
  };
  const std::map<std::string, GlobalVarRef>& directOf_;
  std::string name_;
  std::unordered_map<const Var*, std::vector<VarUse>> uses_;
  std::unordered_map<const Var*, const Function*> localFunctions_;
  std::unordered_map<const Var*, bool> isCont_;  // classification memo
  std::unordered_map<const Var*, Cont> conts_;
  std::unordered_set<const Var*> returnKs_;  // continuation parameters of the functions converted
  std::unordered_set<const Var*> inlined_;
  std::set<std::string> names_;
  std::string error_;
  int scopes_ = 0;

  Error fail(const std::string& what, const Span& span = Span()) const { return Error(name_ + ": " + what, span); }

  Expr withDirectSInfo(const Expr& out, const Expr& old) {
    StructInfo s = directSInfo(out->sinfo);
    if (s.same(out->sinfo)) return out;
    Expr copy;
    if (auto t = out.as<Tuple>()) copy = make<Tuple>(t->fields);
    else if (auto g = out.as<TupleGetItem>()) copy = make<TupleGetItem>(g->tuple, g->index);
    else if (auto c = out.as<Call>()) copy = make<Call>(c->op, c->args, c->attrs, c->sinfoArgs);
    else return out;
    copy->span = old->span;
    copy->sinfo = s;
    return copy;
  }

  // ---------------------------------------------------------------- continuations
  void collectUses(const Expr& root) {
    localFunctions_.clear();
    isCont_.clear();
    walkExpr(root, [&](const Expr& e) {
      if (auto s = e.as<SeqExpr>())
        for (auto& block : s->blocks)
          for (auto& b : block->bindings) {
            if (auto f = b->value.as<Function>(); f && !b->isMatchCast()) localFunctions_[b->var.get()] = f.get();
            if (auto v = b->value.as<Var>()) uses_[v.get()].push_back({VarUse::Other});
          }
      if (auto c = e.as<Call>()) {
        if (auto v = c->op.as<Var>()) uses_[v.get()].push_back({VarUse::CalleeOfOne, c->args.size() == 1 && c->args[0].as<Var>() ? c->args[0].as<Var>().get() : nullptr});
        for (size_t i = 0; i < c->args.size(); ++i)
          if (auto v = c->args[i].as<Var>()) uses_[v.get()].push_back({i + 1 == c->args.size() && !c->op.as<Op>() ? VarUse::LastArg : VarUse::Other});
          else if (auto t = c->args[i].as<Tuple>())
            for (auto& f : t->fields)
              if (auto v = f.as<Var>()) uses_[v.get()].push_back({VarUse::Other});
      }
      if (auto t = e.as<Tuple>(); t)
        for (auto& f : t->fields)
          if (auto v = f.as<Var>()) uses_[v.get()].push_back({VarUse::Other});
      if (auto g = e.as<TupleGetItem>())
        if (auto v = g->tuple.as<Var>()) uses_[v.get()].push_back({VarUse::Other});
      if (auto i = e.as<If>())
        if (auto v = i->cond.as<Var>()) uses_[v.get()].push_back({VarUse::Other});
      if (auto s = e.as<SeqExpr>())
        if (auto v = s->body.as<Var>()) uses_[v.get()].push_back({VarUse::Other});
    });
  }

  // A local function is a continuation when it takes one value, returns the answer and is only
  // passed as the last argument of calls or called with a value (not with a continuation: a
  // closure in CPS without parameters of its own is called with one).
  bool classify(const Var* v) {
    auto fit = localFunctions_.find(v);
    if (fit == localFunctions_.end()) return false;
    if (auto it = isCont_.find(v); it != isCont_.end()) return it->second;
    isCont_[v] = false;  // while deciding (a use cycle is not a continuation)
    const Function& f = *fit->second;
    bool ok = f.params.size() == 1 && f.retSInfo && f.retSInfo.as<ObjectSInfo>();
    for (auto& u : uses_[v]) {
      if (!ok) break;
      if (u.kind == VarUse::Other) ok = false;
      else if (u.kind == VarUse::CalleeOfOne && u.arg && (returnKs_.count(u.arg) || classify(u.arg))) ok = false;
    }
    isCont_[v] = ok;
    return ok;
  }

  bool isContinuationVar(const Var* v) { return returnKs_.count(v) || conts_.count(v); }

  // ---------------------------------------------------------------- functions
  // The var a parameter or binding var becomes (function types back to direct style).
  VarRef define(const VarRef& v) {
    StructInfo s = directSInfo(v->sinfo);
    if (s.same(v->sinfo)) return v;
    auto nv = make<Var>(v->name, s, v->isDataflow());
    nv->span = v->span;
    varMap[v.get()] = nv;
    return nv;
  }

  // fn(x..., k) -> R.Object { CPS body }  ==>  fn(x...) -> T { direct body }.
  Result<FunctionRef> convertLambda(const Function& f) {
    if (f.params.empty() || !isContinuationSInfo(sinfoOf(f.params.back())))
      return fail("a local function is not in CPS (its last parameter is not a continuation R.Callable((T,), R.Object))", f.span);
    const Var* k = f.params.back().get();
    returnKs_.insert(k);
    std::vector<VarRef> params;
    std::vector<StructInfo> paramSInfo;
    for (size_t i = 0; i + 1 < f.params.size(); ++i) {
      params.push_back(define(f.params[i]));
      paramSInfo.push_back(sinfoOf(params.back()));
    }
    StructInfo ret = directSInfo((*sinfoOf(f.params.back()).as<FuncSInfo>()->params)[0]);
    BlockCollector out;
    int scope = ++scopes_;
    RLX_TRY(tail, convertSeq(itemsOf(f.body), 0, resultOf(f.body), scope, out));
    if (tail.k != k) return fail("the body ends in a continuation that is not its own", f.span);
    auto body = out.finish(tail.value);
    auto fn = make<Function>(std::move(params), body, ret, f.isPure, f.attrs);
    fn->sinfo = make<FuncSInfo>(std::move(paramSInfo), ret, f.isPure);
    fn->span = f.span;
    return fn;
  }

  Expr mapped(const Expr& e) { return mutate(e); }

  // Direct style of items[i..] then `result`, into `out`; returns where the code ends.
  Result<Tail> convertSeq(const std::vector<Item>& items, size_t i, const Expr& result, int scope, BlockCollector& out) {
    for (; i < items.size(); ++i) {
      const BindingRef& b = items[i].binding;
      bool last = i + 1 == items.size() && result.get() == b->var.get() && !b->isMatchCast();
      if (auto f = b->value.as<Function>(); f && !b->isMatchCast()) {
        if (classify(b->var.get())) {
          conts_[b->var.get()] = {f, scope};
          continue;
        }
        VarRef var = define(b->var);  // a closure in CPS (recursive ones call themselves through var)
        RLX_TRY(fn, convertLambda(*f));
        auto nb = make<Binding>(var, fn);
        nb->span = b->span;
        out.add(nb, false);
        continue;
      }
      if (auto tail = seriousTail(b, last, scope, out)) return std::move(*tail);
      if (!error_.empty()) return fail(error_, b->span);
      Expr value = mapped(b->value);
      if (!error_.empty()) return fail(error_, b->span);
      VarRef var = define(b->var);
      StructInfo cast = directSInfo(b->castSInfo);
      if (var.same(b->var) && value.same(b->value) && cast.same(b->castSInfo)) {
        out.add(b, items[i].dataflow);
      } else {
        auto nb = make<Binding>(var, value, cast);
        nb->span = b->span;
        out.add(nb, items[i].dataflow);
      }
    }
    return fail("a body ends without handing its result to a continuation", result->span);
  }

  // The continuation a CPS call passes (its last argument), if any.
  const Var* passedContinuation(const Call& c) {
    if (c.args.empty() || c.op.as<Op>()) return nullptr;
    auto v = c.args.back().as<Var>();
    return v && isContinuationVar(v.get()) ? v.get() : nullptr;
  }

  // Handles a binding that calls a continuation, makes a CPS call or branches: the end of the
  // body (nullopt for other bindings; error_ set when one of these is not at the end).
  std::optional<Result<Tail>> seriousTail(const BindingRef& b, bool last, int scope, BlockCollector& out) {
    const Expr& value = b->value;
    auto c = value.as<Call>();
    auto i = value.as<If>();
    const Var* invoked = c && c->op.as<Var>() && isContinuationVar(c->op.as<Var>().get()) ? c->op.as<Var>().get() : nullptr;
    const Var* passed = c && !invoked ? passedContinuation(*c) : nullptr;
    if (!invoked && !passed && !(i && last)) return std::nullopt;
    if (!last) return Result<Tail>(fail("a continuation is called before the end of a body", b->span));
    if (invoked) {
      if (c->args.size() != 1) return Result<Tail>(fail("a continuation is called with " + std::to_string(c->args.size()) + " arguments", b->span));
      Expr v = mapped(c->args[0]);
      if (!error_.empty()) return Result<Tail>(fail(error_, b->span));
      return passTo(invoked, v, b->var->name, scope, out, b->span);
    }
    if (passed) {
      auto call = directCall(*c, b->span, out);
      if (!call.ok()) return Result<Tail>(call.error());
      return passTo(passed, call.value(), b->var->name, scope, out, b->span);
    }
    // An R.If whose branches end in the same continuation.
    BlockCollector thenOut, elseOut;
    Expr cond = mapped(i->cond);
    auto t = convertSeq(itemsOf(i->thenBranch), 0, resultOf(i->thenBranch), ++scopes_, thenOut);
    if (!t.ok()) return Result<Tail>(t.error());
    auto e = convertSeq(itemsOf(i->elseBranch), 0, resultOf(i->elseBranch), ++scopes_, elseOut);
    if (!e.ok()) return Result<Tail>(e.error());
    if (t.value().k != e.value().k) return Result<Tail>(fail("the branches of an R.If end in different continuations", b->span));
    auto thenSeq = thenOut.finish(t.value().value);
    auto elseSeq = elseOut.finish(e.value().value);
    auto branch = make<If>(cond, thenSeq, elseSeq);
    branch->sinfo = sinfoLCA(sinfoOf(thenSeq), sinfoOf(elseSeq));
    branch->span = i->span;
    return passTo(t.value().k, branch, b->var->name, scope, out, b->span);
  }

  // The direct-style call a CPS call `X(args..., K)` stands for.
  Result<Expr> directCall(const Call& c, const Span& span, BlockCollector& out) {
    std::vector<Expr> args;
    for (size_t a = 0; a + 1 < c.args.size(); ++a) args.push_back(mapped(c.args[a]));
    if (!error_.empty()) return fail(error_, span);
    StructInfo valueSInfo = (*sinfoOf(c.args.back()).as<FuncSInfo>()->params)[0];
    if (auto g = c.op.as<GlobalVar>()) {
      auto it = directOf_.find(g->name);
      if (it == directOf_.end()) return identityCall(g, std::move(args), directSInfo(valueSInfo), span, out);
      auto call = make<Call>(it->second, std::move(args));
      call->sinfo = callSInfo(*call, valueSInfo);
      call->span = c.span;
      return Expr(call);
    }
    Expr callee = mapped(c.op);
    if (!error_.empty()) return fail(error_, span);
    auto call = make<Call>(callee, std::move(args), c.attrs);
    call->sinfo = callSInfo(*call, valueSInfo);
    call->span = c.span;
    return Expr(call);
  }

  // A direct call's struct info as the normalizer infers it (the callee's symbolic vars bound from
  // the arguments), else what the continuation it stood for received.
  static StructInfo callSInfo(const Call& call, const StructInfo& continuationValue) {
    auto inferred = inferCallSInfo(call);
    return inferred.ok() ? inferred.value() : directSInfo(continuationValue);
  }

  // A CPS function that stays: called with the identity continuation, its answer cast back.
  Result<Expr> identityCall(const GlobalVarRef& g, std::vector<Expr> args, const StructInfo& t, const Span& span, BlockCollector& out) {
    if (mentionsCallable(t)) return fail("the CPS function " + g->name + " stays, and its result is a function", span);
    auto v = make<Var>(freshName("v", names_), t);
    auto idBody = make<SeqExpr>(std::vector<BlockRef>{}, v);
    idBody->sinfo = t;
    auto id = make<Function>(std::vector<VarRef>{v}, idBody, t, true, nullptr);
    id->sinfo = make<FuncSInfo>(std::vector<StructInfo>{t}, t, true);
    auto k = make<Var>(freshName("k", names_), id->sinfo);
    out.add(make<Binding>(k, id), false);
    args.push_back(k);
    auto call = make<Call>(g, std::move(args));
    call->sinfo = objectSInfo();
    auto ans = make<Var>(freshName("ans", names_), objectSInfo());
    out.add(make<Binding>(ans, call), false);
    if (t.as<ObjectSInfo>()) return Expr(ans);
    auto r = make<Var>(freshName(g->name + "_result", names_), t);
    out.add(make<Binding>(r, ans, t), false);
    return Expr(r);
  }

  // Hands `value` to continuation k: a continuation of this scope continues the code here (its
  // parameter bound to the value); any other ends the scope.
  Result<Tail> passTo(const Var* k, const Expr& value, const std::string& nameHint, int scope, BlockCollector& out, const Span& span) {
    auto it = conts_.find(k);
    bool here = it != conts_.end() && it->second.scope == scope;
    if (!here) {
      if (isAtomExpr(value)) return Tail{k, value};
      auto var = make<Var>(nameHint, sinfoOf(value));
      auto nb = make<Binding>(var, value);
      nb->span = span;
      out.add(nb, false);
      return Tail{k, var};
    }
    if (!inlined_.insert(k).second) return fail("the continuation " + k->name + " is used twice", span);
    const Function& f = *it->second.fn;
    VarRef param = define(f.params[0]);
    auto nb = make<Binding>(param, value);
    nb->span = span;
    out.add(nb, false);
    return convertSeq(itemsOf(f.body), 0, resultOf(f.body), scope, out);
  }

};

// ---------------------------------------------------------------- the module
std::string strippedName(const std::string& name) {
  const std::string suffix = "_cps";
  if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) return name.substr(0, name.size() - suffix.size());
  return "";
}

// The GlobalVar names `e` refers to.
std::set<std::string> referencedFunctions(const Expr& e) {
  std::set<std::string> out;
  walkExpr(e, [&](const Expr& x) {
    if (auto g = x.as<GlobalVar>()) out.insert(g->name);
  });
  return out;
}

Result<IRModuleRef> unCps(const IRModuleRef& mod, const std::optional<std::string>& only) {
  std::set<std::string> targets;
  if (only) {
    auto* entry = mod->find(*only);
    if (!entry) return Error("the module has no function \"" + *only + "\"");
    auto f = entry->func.as<Function>();
    if (!f || !isCpsFunction(*f))
      return Error("\"" + *only + "\" is not in CPS: its last parameter must be a continuation R.Callable((T,), R.Object) and it must return R.Object");
    std::vector<StructInfo> sig;
    for (size_t i = 0; i + 1 < f->params.size(); ++i) sig.push_back(sinfoOf(f->params[i]));
    sig.push_back((*sinfoOf(f->params.back()).as<FuncSInfo>()->params)[0]);
    for (auto& s : sig)
      if (mentionsCallable(s))
        return Error("\"" + *only + "\" takes or returns functions, so its callers pass CPS closures: run un_cps without func to convert them together");
    targets.insert(*only);
  } else {
    for (auto& e : mod->functions)
      if (auto f = e.func.as<Function>(); f && isCpsFunction(*f)) targets.insert(e.gvar->name);
  }
  if (targets.empty()) return mod;

  // The direct-style wrapper of each target, if any: it is replaced by the direct version.
  std::map<std::string, std::string> wrapperOf;  // target -> wrapper
  for (auto& e : mod->functions)
    if (auto f = e.func.as<Function>(); f && !targets.count(e.gvar->name))
      if (auto t = cpsWrapperTarget(*mod, *f); t && targets.count(*t) && !wrapperOf.count(*t)) wrapperOf[*t] = e.gvar->name;
  std::set<std::string> wrappers;
  for (auto& [t, w] : wrapperOf) wrappers.insert(w);

  // CPS functions other functions still call in CPS stay, with the CPS functions they call.
  std::set<std::string> kept;
  for (auto& e : mod->functions) {
    if (targets.count(e.gvar->name) || wrappers.count(e.gvar->name)) continue;
    for (auto& r : referencedFunctions(e.func))
      if (targets.count(r)) kept.insert(r);
  }
  for (auto& e : mod->functions)
    if (auto f = e.func.as<Function>(); f && targets.count(e.gvar->name) && f->attrs && f->attrs->find("global_symbol")) kept.insert(e.gvar->name);
  for (std::vector<std::string> work(kept.begin(), kept.end()); !work.empty();) {
    std::string n = work.back();
    work.pop_back();
    for (auto& r : referencedFunctions(mod->lookup(n)))
      if (auto f = mod->lookup(r).as<Function>(); f && isCpsFunction(*f) && kept.insert(r).second) work.push_back(r);
  }

  // Names and GlobalVars of the direct versions.
  std::set<std::string> taken;
  for (auto& e : mod->functions) taken.insert(e.gvar->name);
  for (auto& t : targets)
    if (!kept.count(t)) taken.erase(t);
  for (auto& [t, w] : wrapperOf) taken.erase(w);
  std::map<std::string, GlobalVarRef> directOf;
  std::map<std::string, std::string> replaces;  // target -> the function whose place it takes
  for (auto& e : mod->functions) {
    const std::string& t = e.gvar->name;
    if (!targets.count(t)) continue;
    auto f = e.func.as<Function>();
    std::string name;
    if (auto w = wrapperOf.find(t); w != wrapperOf.end()) {
      name = w->second;
      taken.insert(name);
    } else {
      std::string base = strippedName(t);
      if (base.empty()) base = kept.count(t) ? t + "_direct" : t;
      name = freshName(base, taken);
    }
    auto g = make<GlobalVar>(name);
    std::vector<StructInfo> params;
    for (size_t i = 0; i + 1 < f->params.size(); ++i) params.push_back(directSInfo(sinfoOf(f->params[i])));
    StructInfo ret = directSInfo((*sinfoOf(f->params.back()).as<FuncSInfo>()->params)[0]);
    g->sinfo = make<FuncSInfo>(std::move(params), ret, f->isPure);
    directOf[t] = g;
  }

  DirectConverter converter(directOf);
  std::map<std::string, FunctionRef> direct;
  for (auto& t : targets) {
    auto h = mod->lookup(t).as<Function>();
    RLX_TRY(fn, converter.convertFunction(h, t));
    AttrsRef attrs = h->attrs;
    if (auto w = wrapperOf.find(t); w != wrapperOf.end()) attrs = mod->lookup(w->second).as<Function>()->attrs;
    else if (kept.count(t)) attrs = withoutDictAttr(attrs, "global_symbol");
    auto withAttrs = make<Function>(fn->params, fn->body, fn->retSInfo, fn->isPure, attrs);
    withAttrs->sinfo = fn->sinfo;
    withAttrs->span = fn->span;
    direct[t] = withAttrs;
  }

  auto out = make<IRModule>();
  out->attrs = mod->attrs;
  out->globalInfos = mod->globalInfos;
  std::map<std::string, std::string> targetOfWrapper;
  for (auto& [t, w] : wrapperOf) targetOfWrapper[w] = t;
  for (auto& e : mod->functions) {
    const std::string& n = e.gvar->name;
    if (auto w = targetOfWrapper.find(n); w != targetOfWrapper.end()) {
      out->functions.push_back({directOf.at(w->second), direct.at(w->second)});
      continue;
    }
    if (!targets.count(n)) {
      out->functions.push_back(e);
      continue;
    }
    if (kept.count(n)) out->functions.push_back(e);
    if (!wrapperOf.count(n)) out->functions.push_back({directOf.at(n), direct.at(n)});
  }
  return IRModuleRef(out);
}

}  // namespace

Result<Pass> createun_cpsPass(PassOptions& options) {
  std::optional<std::string> func;
  if (!options.isNone("func")) func = options.string("func");
  return Pass({"un_cps", 1, {}}, [func](const IRModuleRef& mod, const PassContext&) { return unCps(mod, func); });
}

}  // namespace rlx
