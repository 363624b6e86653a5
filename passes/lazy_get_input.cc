// LazyGetInput: a public function stops taking its weights (the parameters after num_input, all of
// them without the attr) and instead takes a callback `fget_param(index, name) -> R.Object` that
// loads one on demand (TVM's pass). Why: the weights need not all be in memory when the function
// starts; each is loaded right before its first use, and memory planning can free it after.
// The first use of weight i becomes `w_untyped = fget_param(R.prim_value(i), R.str("w"))` and
// `w = R.match_cast(w_untyped, <w's struct info>)` (which also defines the symbolic vars the weight
// used to); later uses in the same scope (SeqExpr, or dataflow block) reuse it. A weight whose
// symbolic vars are needed before its first use, or that a struct info names, is loaded at the
// start of the function instead. num_input becomes num_input + 1 (the callback is
// a runtime input) and the return struct info forgets symbolic vars no parameter defines now.
// Bindings left unused go. A function without weights is left as it is (TVM would still add an
// unused callback, and again at every run), and so is one that other functions of the module call.
// Before: `def f(x, w) (num_input=1): y = R.add(x, w)`
// After:  `def f(x, fget_param) (num_input=2): w_untyped = fget_param(R.prim_value(0), R.str("w"));
//          w = R.match_cast(w_untyped, ...); y = R.add(x, w)`.
#include <unordered_map>

#include <functional>
#include <unordered_map>

#include "ir/block_builder.h"
#include "ir/expr_walk.h"
#include "ir/struct_info.h"
#include "passes/emitting_mutator.h"
#include "passes/registry.h"
#include "passes/remove_all_unused.h"
#include "passes/signature_change.h"
#include "passes/symbolic_vars.h"

namespace rlx {

namespace {

class InputLoader : public EmittingMutator {
 public:
  std::unordered_map<const Var*, int64_t> weights;  // weight param -> index
  VarRef getter;

  // The two bindings that load weight `v`, as dataflow vars when `dataflow`.
  std::pair<BindingRef, BindingRef> loadBindings(const Var& v, int64_t index, bool dataflow) const {
    auto i = make<PrimValue>(intImm(index));
    i->sinfo = make<PrimSInfo>(DataType::int64(), i->value);
    auto name = make<StringImm>(v.name);
    name->sinfo = objectSInfo();
    auto call = make<Call>(getter, std::vector<Expr>{i, name});
    call->sinfo = objectSInfo();
    auto untyped = make<Var>(v.name + "_untyped", objectSInfo(), dataflow);
    auto typed = make<Var>(v.name, v.sinfo, dataflow);
    return {make<Binding>(untyped, call), make<Binding>(typed, untyped, v.sinfo)};
  }

  // Loads `v` at the start of the function: for all of it, uses and struct info naming it.
  BlockRef preload(const std::vector<VarRef>& vars) {
    std::vector<BindingRef> out;
    for (auto& v : vars) {
      auto [untyped, typed] = loadBindings(*v, weights.at(v.get()), false);
      out.push_back(untyped);
      out.push_back(typed);
      preloaded_[v.get()] = typed->var;
      varMap[v.get()] = typed->var;
    }
    return make<BindingBlock>(std::move(out), false);
  }

 protected:
  Expr visitVar(const Ref<Var>& v) override {
    auto it = weights.find(v.get());
    if (it == weights.end() || preloaded_.count(v.get())) return ExprMutator::visitVar(v);
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s)
      if (auto loaded = s->find(v.get()); loaded != s->end()) return loaded->second;
    auto [untyped, typed] = loadBindings(*v, it->second, inDataflow());
    emitBinding(untyped);
    emitBinding(typed);
    scopes_.back()[v.get()] = typed->var;
    return typed->var;
  }

  // A value loaded inside a dataflow block is a dataflow var, gone after the block.
  BlockRef visitBlock(const BlockRef& b) override {
    if (!b->isDataflow()) return EmittingMutator::visitBlock(b);
    scopes_.emplace_back();
    BlockRef out = EmittingMutator::visitBlock(b);
    scopes_.pop_back();
    return out;
  }

  Expr visitSeqExpr(const Ref<SeqExpr>& s) override {
    scopes_.emplace_back();
    Expr out = EmittingMutator::visitSeqExpr(s);
    scopes_.pop_back();
    return out;
  }

 private:
  std::vector<std::unordered_map<const Var*, VarRef>> scopes_;  // weights loaded, per SeqExpr
  std::unordered_map<const Var*, VarRef> preloaded_;
};

// The weights to load before anything else: those defining a symbolic var some binding needs
// before anything defines it (a runtime input, a match_cast, or the loads placed before the first
// use of each weight), and those some struct info names (`R.Tensor(s, ...)` for a shape weight),
// which must mean one var throughout the function.
std::vector<VarRef> weightsToPreload(const Function& f, size_t numInput) {
  std::vector<BindingRef> bindings;
  if (auto seq = f.body.as<SeqExpr>())
    for (auto& block : seq->blocks) bindings.insert(bindings.end(), block->bindings.begin(), block->bindings.end());
  const size_t never = bindings.size();
  std::vector<VarRef> weights(f.params.begin() + long(numInput), f.params.end());
  std::unordered_map<const PrimVar*, size_t> firstNeeded, definedAt;
  auto define = [&](const PrimVar* v, size_t at) {
    auto it = definedAt.find(v);
    if (it == definedAt.end() || at < it->second) definedAt[v] = at;
  };
  for (size_t i = 0; i < numInput; ++i)
    for (auto& v : definableSymbols(sinfoOf(f.params[i]))) define(v.get(), 0);
  std::vector<bool> named(weights.size(), false);
  for (size_t i = 0; i < bindings.size(); ++i) {
    auto& b = bindings[i];
    auto used = usedSymbols(b->value);
    sinfoCollectVars(sinfoOf(b->var), used);
    for (auto& u : used) firstNeeded.insert({u.get(), i});
    if (b->isMatchCast())
      for (auto& v : definableSymbols(b->castSInfo)) define(v.get(), i);
    std::function<void(const StructInfo&)> names = [&](const StructInfo& x) {
      if (auto t = x.as<TensorSInfo>()) {
        for (size_t w = 0; w < weights.size(); ++w) named[w] = named[w] || t->shape.get() == weights[w].get();
      } else if (auto tu = x.as<TupleSInfo>()) {
        for (auto& field : tu->fields) names(field);
      }
    };
    names(sinfoOf(b->var));
  }
  for (auto& w : weights) {
    size_t firstUse = never;
    for (size_t i = 0; i < bindings.size() && firstUse == never; ++i)
      walkExpr(bindings[i]->value, [&](const Expr& e) {
        if (e.get() == w.get()) firstUse = i;
      });
    for (auto& v : definableSymbols(sinfoOf(w))) define(v.get(), firstUse);
  }
  std::vector<VarRef> out;
  for (size_t w = 0; w < weights.size(); ++w) {
    bool needed = named[w];
    for (auto& v : definableSymbols(sinfoOf(weights[w]))) {
      auto need = firstNeeded.find(v.get());
      needed |= need != firstNeeded.end() && need->second < definedAt[v.get()];
    }
    if (!needed) continue;
    out.push_back(weights[w]);
    // Loaded first now, it defines its vars for every binding.
    for (auto& v : definableSymbols(sinfoOf(weights[w]))) define(v.get(), 0);
  }
  return out;
}

}  // namespace

Result<Pass> createLazyGetInputPass(PassOptions&) {
  return makeFunctionPass({"LazyGetInput", 0, {}}, [](const Expr& func, const GlobalVarRef& gvar, const IRModuleRef& mod) -> Result<Expr> {
    auto f = func.as<Function>();
    // A function the module itself calls keeps its signature (its callers would break).
    if (referencedByOthers(*mod).count(gvar->name)) return func;
    if (!isPublicFunction(*f)) return func;
    auto attr = attrInt(f->attrs, "num_input");
    int64_t numInput = attr.value_or(0);
    if (numInput < 0 || size_t(numInput) > f->params.size())
      return Error("LazyGetInput: function '" + gvar->name + "' has num_input " + std::to_string(numInput) + " but " + std::to_string(f->params.size()) + " parameters");
    if (size_t(numInput) == f->params.size()) return func;
    InputLoader loader;
    loader.getter = make<Var>("fget_param", make<FuncSInfo>(std::vector<StructInfo>{make<PrimSInfo>(DataType::int64()), objectSInfo()}, objectSInfo(), true));
    std::vector<VarRef> params(f->params.begin(), f->params.begin() + numInput);
    params.push_back(loader.getter);
    for (size_t i = size_t(numInput); i < f->params.size(); ++i) loader.weights[f->params[i].get()] = int64_t(i) - numInput;
    BlockRef start = loader.preload(weightsToPreload(*f, size_t(numInput)));
    Expr body = loader.mutate(f->body);
    if (!start->bindings.empty()) {
      auto seq = body.as<SeqExpr>();
      std::vector<BlockRef> blocks{start};
      blocks.insert(blocks.end(), seq->blocks.begin(), seq->blocks.end());
      body = makeSeqExpr(blocks, seq->body);
    }
    std::vector<const PrimVar*> defined;
    for (auto& p : params)
      for (auto& v : definableSymbols(sinfoOf(p))) defined.push_back(v.get());
    StructInfo ret = eraseUndefinedVars(f->retSInfo, defined);
    FunctionRef nf = rebuildFunction(*f, std::move(params), body, ret);
    nf = make<Function>(nf->params, nf->body, nf->retSInfo, nf->isPure, withDictAttr(nf->attrs, "num_input", AttrValue::integer(numInput + 1)));
    nf->sinfo = functionSInfo(*nf);
    nf->span = f->span;
    return removeAllUnused(nf);
  });
}

}  // namespace rlx
