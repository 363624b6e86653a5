// LazyGetInput: a public function stops taking its weights (the parameters after num_input, all of
// them without the attr) and instead takes a callback `fget_param(index, name) -> R.Object` that
// loads one on demand (TVM's pass). Why: the weights need not all be in memory when the function
// starts; each is loaded right before its first use, and memory planning can free it after.
// The first use of weight i becomes `w_untyped = fget_param(R.prim_value(i), R.str("w"))` and
// `w = R.match_cast(w_untyped, <w's struct info>)` (which also defines the symbolic vars the weight
// used to); later uses in the same scope reuse it. num_input becomes num_input + 1 (the callback is
// a runtime input) and the return struct info forgets symbolic vars no parameter defines now.
// Bindings left unused go. A function without weights is left as it is (TVM would still add an
// unused callback, and again at every run).
// Before: `def f(x, w) (num_input=1): y = R.add(x, w)`
// After:  `def f(x, fget_param) (num_input=2): w_untyped = fget_param(R.prim_value(0), R.str("w"));
//          w = R.match_cast(w_untyped, ...); y = R.add(x, w)`.
#include <unordered_map>

#include "ir/block_builder.h"
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

 protected:
  Expr visitVar(const Ref<Var>& v) override {
    auto it = weights.find(v.get());
    if (it == weights.end()) return ExprMutator::visitVar(v);
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s)
      if (auto loaded = s->find(v.get()); loaded != s->end()) return loaded->second;
    auto index = make<PrimValue>(intImm(it->second));
    index->sinfo = make<PrimSInfo>(DataType::int64(), index->value);
    auto name = make<StringImm>(v->name);
    name->sinfo = objectSInfo();
    auto call = make<Call>(getter, std::vector<Expr>{index, name});
    call->sinfo = objectSInfo();
    VarRef untyped = emit(call, v->name + "_untyped");
    VarRef typed = emit(untyped, v->name, v->sinfo);
    scopes_.back()[v.get()] = typed;
    return typed;
  }

  Expr visitSeqExpr(const Ref<SeqExpr>& s) override {
    scopes_.emplace_back();
    Expr out = EmittingMutator::visitSeqExpr(s);
    scopes_.pop_back();
    return out;
  }

 private:
  std::vector<std::unordered_map<const Var*, VarRef>> scopes_;  // weights loaded, per SeqExpr
};

}  // namespace

Result<Pass> createLazyGetInputPass(PassOptions&) {
  return makeFunctionPass({"LazyGetInput", 0, {}}, [](const Expr& func, const GlobalVarRef& gvar, const IRModuleRef&) -> Result<Expr> {
    auto f = func.as<Function>();
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
    Expr body = loader.mutate(f->body);
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
