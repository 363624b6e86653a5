// LiftTransformParams: splits each function with a "num_input" attr into the work that needs only
// its weights (the parameters after num_input), moved to a public `<name>_transform_params`, and
// the rest, which takes the transformed weights as parameters instead (TVM's pass). Why: weight
// layout changes, transposes and casts then run once, ahead of time, not at every inference.
//
// 1. A dataflow binding is liftable when every var it uses is a weight or liftable, its struct
//    info names only symbolic vars the weights define, and it is not R.builtin.stop_lift_params.
// 2. The transform function computes the liftable bindings and returns, as one tuple: a shape of
//    the symbolic vars only the weights define that the rest still needs (when any), then the
//    weights the rest still uses, then the lifted values the rest uses. Its parameters are bundled
//    into one tuple (BundleModelParams); num_input is 0.
// 3. The runtime function takes the runtime inputs, that shape, then the tuple's values; lifted
//    bindings that depend on a weight are gone (those that depend on nothing, `R.zeros(...)`, stay in
//    both: cheaper to recompute than to store), stop_lift_params calls become their argument.
// With shared_transform=True (or a list of function names) one `transform_params` serves all the
// functions: a binding is lifted only when every function computes it (equal after mapping the
// i-th weights of all functions onto the first function's).
// Running it again after a transform exists lifts nothing; a second transform would need
// composing with the first, which is refused.
// Before: `def main(x, w) (num_input=1): wt = R.permute_dims(w); y = R.matmul(x, wt)`
// After:  `def main(x, wt): y = R.matmul(x, wt)` and
//         `def main_transform_params(model_params: R.Tuple(W)): w = model_params[0]; wt = ...; return (wt,)`.
#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "ir/expr_mutator.h"
#include "ir/expr_walk.h"
#include "ir/op.h"
#include "ir/structural_equal.h"
#include "ir/struct_info.h"
#include "passes/bundle_model_params.h"
#include "passes/copy_with_new_vars.h"
#include "passes/registry.h"
#include "passes/remove_all_unused.h"
#include "passes/signature_change.h"
#include "passes/symbolic_vars.h"

namespace rlx {

namespace {

using VarSet = std::unordered_set<const Var*>;
using SymSet = std::unordered_set<const PrimVar*>;
using VarRemap = std::unordered_map<const Var*, VarRef>;

bool isStopLift(const Expr& value) {
  auto call = value.as<Call>();
  return call && call->opName() == "relax.builtin.stop_lift_params";
}

size_t numInputOf(const Function& f) {
  auto n = attrInt(f.attrs, "num_input");
  return n ? size_t(std::clamp<int64_t>(*n, 0, int64_t(f.params.size()))) : f.params.size();
}

std::vector<VarRef> weightsOf(const Function& f) { return {f.params.begin() + long(numInputOf(f)), f.params.end()}; }

// Rule 1: whether a binding can move to the transform function.
bool canLift(const Binding& b, bool inDataflow, const VarSet& liftable, const SymSet& liftableSymbols) {
  if (!inDataflow || isStopLift(b.value) || b.value->kind() == NodeKind::ExternFunc) return false;
  for (auto& v : freeVars(b.value))
    if (!liftable.count(v.get())) return false;
  std::vector<Ref<PrimVar>> symbols;
  sinfoCollectVars(sinfoOf(b.var), symbols);
  for (auto& s : symbols)
    if (!liftableSymbols.count(s.get())) return false;
  return true;
}

// What one function (or, shared, all of them) computes where.
struct CollectInfo {
  std::vector<BindingRef> computable;  // liftable bindings, in order
  VarSet needsWeight;                  // weights, and liftable vars computed from one
  VarSet requiredAtRuntime;
  SymSet symbolsAtRuntime;

  // What the transform returns after the symbolic shape: the weights the runtime function still
  // uses, then the lifted values it uses that depend on a weight.
  std::vector<VarRef> outputs(const std::vector<VarRef>& weights) const {
    std::vector<VarRef> out;
    for (auto& w : weights)
      if (requiredAtRuntime.count(w.get())) out.push_back(w);
    for (auto& b : computable)
      if (needsWeight.count(b->var.get()) && requiredAtRuntime.count(b->var.get())) out.push_back(b->var);
    return out;
  }

  // The symbolic vars only the weights define that the runtime function needs and cannot get from
  // its runtime inputs or the transform's outputs.
  std::vector<Ref<PrimVar>> propagatedSymbols(const std::vector<VarRef>& allParams, const std::vector<VarRef>& runtimeInputs, const std::vector<VarRef>& outputs) const {
    SymSet fromRuntime, fromOutputs;
    for (auto& p : runtimeInputs)
      for (auto& s : definableSymbols(sinfoOf(p))) fromRuntime.insert(s.get());
    for (auto& o : outputs)
      for (auto& s : definableSymbols(sinfoOf(o))) fromOutputs.insert(s.get());
    std::vector<Ref<PrimVar>> out;
    for (auto& p : allParams)
      for (auto& s : definableSymbols(sinfoOf(p)))
        if (symbolsAtRuntime.count(s.get()) && !fromRuntime.count(s.get()) && !fromOutputs.count(s.get()) &&
            std::none_of(out.begin(), out.end(), [&](auto& x) { return x.get() == s.get(); }))
          out.push_back(s);
    return out;
  }
};

// Walks the top-level bindings of `f`. `shared` (global lifting) restricts lifting to the bindings
// every function computes.
CollectInfo collectLocal(const Function& f, const VarRemap* shared) {
  CollectInfo info;
  VarSet liftable;
  SymSet liftableSymbols;
  for (auto& w : weightsOf(f)) {
    liftable.insert(w.get());
    info.needsWeight.insert(w.get());
    for (auto& s : definableSymbols(sinfoOf(w))) liftableSymbols.insert(s.get());
  }
  auto seq = f.body.as<SeqExpr>();
  if (!seq) return info;
  auto requireAtRuntime = [&](const Expr& e) {
    for (auto& v : freeVars(e)) info.requiredAtRuntime.insert(v.get());
    for (auto& s : freeSymbols(e)) info.symbolsAtRuntime.insert(s.get());
  };
  for (auto& block : seq->blocks)
    for (auto& b : block->bindings) {
      if (canLift(*b, block->isDataflow(), liftable, liftableSymbols) && (!shared || shared->count(b->var.get()))) {
        info.computable.push_back(b);
        liftable.insert(b->var.get());
        for (auto& v : freeVars(b->value))
          if (info.needsWeight.count(v.get())) info.needsWeight.insert(b->var.get());
      } else {
        info.requiredAtRuntime.insert(b->var.get());
        requireAtRuntime(b->value);
      }
    }
  // The result is needed at run time too (TVM misses this when a function returns a weight).
  requireAtRuntime(seq->body);
  return info;
}

// The transform function: `computable` then the outputs tuple; bundled, canonical, no dead code.
FunctionRef makeTransform(const std::vector<VarRef>& weights, const std::vector<BindingRef>& computable, const std::vector<Ref<PrimVar>>& symbols, const std::vector<VarRef>& outputs) {
  std::vector<BindingRef> outBindings;
  std::vector<Expr> fields;
  if (!symbols.empty()) {
    std::vector<PrimExpr> dims(symbols.begin(), symbols.end());
    auto shape = make<ShapeExpr>(dims);
    shape->sinfo = make<ShapeSInfo>(dims, 0);
    fields.push_back(shape);
  }
  for (auto& o : outputs) {
    auto v = make<Var>(o->name + "_output", sinfoOf(o));
    outBindings.push_back(make<Binding>(v, o));
    fields.push_back(v);
  }
  Expr result = tupleOf(fields);
  // An empty result stays inline, as TVM's normalizer keeps every empty tuple.
  if (!fields.empty()) {
    auto var = make<Var>("output_tuple", sinfoOf(result));
    outBindings.push_back(make<Binding>(var, result));
    result = var;
  }
  std::vector<BlockRef> blocks;
  if (!computable.empty()) blocks.push_back(make<BindingBlock>(computable, true));
  if (!outBindings.empty()) blocks.push_back(make<BindingBlock>(std::move(outBindings), true));
  auto body = make<SeqExpr>(std::move(blocks), result);
  body->sinfo = result->sinfo;
  auto f = make<Function>(weights, body, result->sinfo, true, makeDictAttrs({{"num_input", AttrValue::integer(0)}}));
  f->sinfo = functionSInfo(*f);
  auto copy = copyWithNewVars(f).as<Function>();
  return bundleModelParams(copy, "model_params");
}

// The runtime function: runtime inputs, the symbolic shape, the transform's outputs as parameters.
FunctionRef makeRuntime(const Function& f, const CollectInfo& info, const std::vector<Ref<PrimVar>>& symbols, const std::vector<VarRef>& outputs) {
  std::vector<VarRef> params(f.params.begin(), f.params.begin() + long(numInputOf(f)));
  if (!symbols.empty()) params.push_back(make<Var>("vars_from_compile_time_params", make<ShapeSInfo>(std::vector<PrimExpr>(symbols.begin(), symbols.end()), 0)));
  struct Suppressor : ExprMutator {
    VarSet drop;
    void replace(const Var* v, const Expr& e) { varMap[v] = e; }
    BindingRef visitBinding(const BindingRef& b) override { return drop.count(b->var.get()) ? nullptr : ExprMutator::visitBinding(b); }
    Expr visitCall(const Ref<Call>& c) override { return isStopLift(c) && !c->args.empty() ? mutate(c->args[0]) : ExprMutator::visitCall(c); }
  } suppressor;
  for (auto& o : outputs) {
    auto p = make<Var>(o->name, sinfoOf(o));
    params.push_back(p);
    suppressor.replace(o.get(), p);
  }
  for (auto& b : info.computable)
    if (info.needsWeight.count(b->var.get())) suppressor.drop.insert(b->var.get());
  Expr body = suppressor.mutate(f.body);
  return rebuildFunction(f, std::move(params), body, f.retSInfo);
}

// Whether lifting would change nothing: no work moves and every weight passes through as is.
bool liftsNothing(const CollectInfo& info, const std::vector<VarRef>& weights, const std::vector<VarRef>& outputs, const std::vector<Ref<PrimVar>>& symbols) {
  if (!symbols.empty() || outputs.size() != weights.size()) return false;
  for (size_t i = 0; i < weights.size(); ++i)
    if (!outputs[i].same(weights[i])) return false;
  return std::none_of(info.computable.begin(), info.computable.end(), [&](auto& b) { return info.needsWeight.count(b->var.get()) > 0; });
}

// Shared lifting: the bindings all functions compute, with every function's vars mapped onto the
// unified (first) ones.
struct SharedPlan {
  VarRemap remap;                      // any function's weight or binding var -> unified var
  std::vector<BindingRef> computable;  // unified bindings every function computes
  CollectInfo info;                    // over unified vars
};

SharedPlan planShared(const std::vector<FunctionRef>& fns) {
  SharedPlan plan;
  std::vector<VarRef> first = weightsOf(*fns[0]);
  VarSet liftable;
  for (auto& f : fns) {
    auto w = weightsOf(*f);
    for (size_t i = 0; i < w.size() && i < first.size(); ++i) plan.remap[w[i].get()] = first[i];
    for (auto& v : w) liftable.insert(v.get());
  }
  std::unordered_map<const Var*, Expr> subst;
  for (auto& [k, v] : plan.remap) subst[k] = v;
  std::vector<std::pair<BindingRef, std::vector<BindingRef>>> unified;  // unified binding, originals
  std::vector<Expr> unifiedValues;
  SymSet noSymbols;  // as TVM: shared lifting never lifts values whose struct info is symbolic
  for (auto& f : fns) {
    auto seq = f->body.as<SeqExpr>();
    if (!seq) continue;
    for (auto& block : seq->blocks)
      for (auto& b : block->bindings) {
        if (b->isMatchCast() || !canLift(*b, block->isDataflow(), liftable, noSymbols)) continue;
        liftable.insert(b->var.get());
        Expr value = substituteVars(b->value, subst);
        size_t i = 0;
        while (i < unifiedValues.size() && !structuralEqual(unifiedValues[i], value).equal) ++i;
        if (i == unifiedValues.size()) {
          unified.push_back({b, {}});
          unifiedValues.push_back(value);
        }
        unified[i].second.push_back(b);
        subst[b->var.get()] = unified[i].second.front()->var;
      }
  }
  std::vector<VarRef> firstWeights = first;
  for (auto& [binding, originals] : unified) {
    if (originals.size() != fns.size()) continue;
    plan.computable.push_back(binding);
    for (auto& o : originals) plan.remap[o->var.get()] = binding->var;
  }
  return plan;
}

std::vector<VarRef> mapBack(const std::vector<VarRef>& unified, const std::vector<VarRef>& local, const VarRemap& remap) {
  // Each unified output as the function's own var when it has one (else the unified var, which then
  // only names the parameter).
  std::unordered_map<const Var*, VarRef> back;
  for (auto& v : local)
    if (auto it = remap.find(v.get()); it != remap.end()) back[it->second.get()] = v;
  std::vector<VarRef> out;
  for (auto& u : unified) out.push_back(back.count(u.get()) ? back[u.get()] : u);
  return out;
}

bool endsWith(const std::string& s, const std::string& suffix) { return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0; }

struct Options {
  bool shared = false;
  std::vector<std::string> names;  // shared over these functions (empty: every num_input function)
};

Result<IRModuleRef> lift(const IRModuleRef& mod, const Options& opts) {
  std::vector<std::pair<GlobalVarRef, FunctionRef>> targets;
  if (!opts.names.empty()) {
    for (auto& name : opts.names) {
      auto* e = mod->find(name);
      if (!e) return Error("LiftTransformParams: shared_transform names '" + name + "', which the module does not have");
      auto f = e->func.as<Function>();
      if (!f) return Error("LiftTransformParams: shared_transform names '" + name + "', which is not a Relax function");
      if (!attrInt(f->attrs, "num_input")) return Error("LiftTransformParams: shared_transform names '" + name + "', which has no num_input attr");
      targets.push_back({e->gvar, f});
    }
  } else {
    for (auto& e : mod->functions)
      if (auto f = e.func.as<Function>(); f && attrInt(f->attrs, "num_input") && !endsWith(e.gvar->name, "transform_params")) targets.push_back({e.gvar, f});
    std::sort(targets.begin(), targets.end(), [](auto& a, auto& b) { return a.first->name < b.first->name; });
  }
  if (targets.empty()) return mod;

  std::vector<std::pair<GlobalVarRef, FunctionRef>> runtime;
  std::vector<std::pair<std::string, FunctionRef>> transforms;
  if (!opts.shared) {
    for (auto& [gvar, f] : targets) {
      CollectInfo info = collectLocal(*f, nullptr);
      std::vector<VarRef> weights = weightsOf(*f), inputs(f->params.begin(), f->params.begin() + long(numInputOf(*f)));
      std::vector<VarRef> outputs = info.outputs(weights);
      auto symbols = info.propagatedSymbols(f->params, inputs, outputs);
      std::string name = gvar->name + "_transform_params";
      if (mod->find(name)) {
        if (liftsNothing(info, weights, outputs, symbols)) continue;
        return Error("LiftTransformParams: '" + name + "' already exists; composing a second transform with it is not supported");
      }
      runtime.push_back({gvar, makeRuntime(*f, info, symbols, outputs)});
      transforms.push_back({name, makeTransform(weights, info.computable, symbols, outputs)});
    }
  } else {
    std::vector<FunctionRef> fns;
    for (auto& [gvar, f] : targets) fns.push_back(f);
    size_t weightCount = weightsOf(*fns[0]).size();
    for (auto& [gvar, f] : targets)
      if (weightsOf(*f).size() != weightCount) return Error("LiftTransformParams: shared_transform needs the same number of weights (parameters after num_input) in every function, but '" + gvar->name + "' differs from '" + targets[0].first->name + "'");
    SharedPlan plan = planShared(fns);
    std::vector<VarRef> weights = weightsOf(*fns[0]);
    std::vector<CollectInfo> locals;
    for (auto& f : fns) {
      locals.push_back(collectLocal(*f, &plan.remap));
      auto unify = [&](const Var* v) -> const Var* {
        auto it = plan.remap.find(v);
        return it == plan.remap.end() ? v : it->second.get();
      };
      for (auto* v : locals.back().needsWeight) plan.info.needsWeight.insert(unify(v));
      for (auto* v : locals.back().requiredAtRuntime) plan.info.requiredAtRuntime.insert(unify(v));
      plan.info.symbolsAtRuntime.insert(locals.back().symbolsAtRuntime.begin(), locals.back().symbolsAtRuntime.end());
    }
    plan.info.computable = plan.computable;
    std::vector<VarRef> outputs = plan.info.outputs(weights);
    auto symbols = plan.info.propagatedSymbols(weights, {}, outputs);
    if (mod->find("transform_params")) {
      bool nothing = liftsNothing(plan.info, weights, outputs, symbols);
      if (nothing) return mod;
      return Error("LiftTransformParams: 'transform_params' already exists; composing a second transform with it is not supported");
    }
    for (size_t i = 0; i < targets.size(); ++i) {
      auto& f = fns[i];
      std::vector<VarRef> own = f->params;
      for (auto& b : locals[i].computable) own.push_back(b->var);
      runtime.push_back({targets[i].first, makeRuntime(*f, locals[i], symbols, mapBack(outputs, own, plan.remap))});
    }
    transforms.push_back({"transform_params", makeTransform(weights, plan.info.computable, symbols, outputs)});
  }
  if (runtime.empty() && transforms.empty()) return mod;

  IRModuleRef out = mod;
  std::vector<std::string> changed;
  for (auto& [gvar, f] : runtime) {
    auto gv = make<GlobalVar>(gvar->name);
    gv->sinfo = f->sinfo;
    out = withFunction(out, gv, f);
    changed.push_back(gvar->name);
  }
  for (auto& [name, f] : transforms) {
    // The transform is for the outside world to call: public under its own name.
    auto pub = make<Function>(f->params, f->body, f->retSInfo, f->isPure, withDictAttr(f->attrs, "global_symbol", AttrValue::str(name)));
    pub->sinfo = f->sinfo;
    auto gv = make<GlobalVar>(name);
    gv->sinfo = pub->sinfo;
    out = withFunction(out, gv, pub);
    changed.push_back(name);
  }
  RLX_TRY(passes, parsePipeline("CanonicalizeBindings"));
  PassContext ctx;
  ctx.scope = changed;
  RLX_TRY(canonical, runSequential(passes, out, ctx));
  out = canonical;
  for (auto& [name, f] : transforms) {
    auto* e = out->find(name);
    Expr g = removeAllUnused(e->func);
    if (!g.same(e->func)) out = withFunction(out, e->gvar, g);
  }
  // Nested functions among the lifted bindings become module functions, as in TVM's pipeline.
  RLX_TRY(lambdaLift, parsePipeline("LambdaLift"));
  return runSequential(lambdaLift, out, PassContext());
}

}  // namespace

Result<Pass> createLiftTransformParamsPass(PassOptions& options) {
  Options opts;
  // True, False or a list of function names: read by kind, as no one accessor takes both.
  if (auto value = options.raw("shared_transform")) {
    if (*value && (*value)->kind == AttrValue::Array) {
      opts.shared = true;
      opts.names = options.strings("shared_transform").value_or(std::vector<std::string>{});
    } else if (*value && (*value)->kind == AttrValue::Bool) {
      opts.shared = (*value)->b;
    } else {
      options.wrongType("shared_transform", "True, False or a list of function names");
    }
  }
  return Pass({"LiftTransformParams", 1, {}}, [opts](const IRModuleRef& mod, const PassContext&) -> Result<IRModuleRef> { return lift(mod, opts); });
}

}  // namespace rlx
