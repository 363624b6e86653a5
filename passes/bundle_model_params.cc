// BundleModelParams: a function with a "num_input" attr takes its parameters after the first
// num_input (the model weights) as one tuple parameter (TVM's pass). Why: a runtime passes the
// weights as a single object, and LiftTransformParams' transform function takes them so.
// Each use of a weight becomes a binding `<weight> = <tuple>[i]` placed right before the binding
// that uses it (in a dataflow block a dataflow var), as TVM's builder emits them; a use in a
// function's result gets its binding in a block of its own at the end.
// A function whose weights already are one tuple parameter is left as it is: bundling is meant to
// run once, and a second run would nest the tuple.
// Option: param_tuple_name (default None: "model_params").
// Before: `def main(a, b, c)` with num_input=1, `y = R.add(a, b)`
// After:  `def main(a, model_params: R.Tuple(B, C))`, `b = model_params[0]; y = R.add(a, b)`.
#include "passes/bundle_model_params.h"

#include "passes/emitting_mutator.h"
#include "passes/registry.h"
#include "passes/signature_change.h"

namespace rlx {

namespace {

class Bundler : public EmittingMutator {
 public:
  std::unordered_map<const Var*, std::pair<VarRef, int>> weights;  // old param -> (tuple, index)

 protected:
  Expr visitVar(const Ref<Var>& v) override {
    auto it = weights.find(v.get());
    if (it == weights.end()) return ExprMutator::visitVar(v);
    auto item = make<TupleGetItem>(it->second.first, it->second.second);
    item->sinfo = v->sinfo;
    return emit(item, v->name);
  }
};

}  // namespace

FunctionRef bundleModelParams(const FunctionRef& f, const std::string& tupleName) {
  auto numInput = attrInt(f->attrs, "num_input");
  if (!numInput || *numInput < 0 || size_t(*numInput) > f->params.size()) return nullptr;
  size_t n = size_t(*numInput);
  std::vector<VarRef> params(f->params.begin(), f->params.begin() + long(n));
  std::vector<StructInfo> fields;
  for (size_t i = n; i < f->params.size(); ++i) fields.push_back(sinfoOf(f->params[i]));
  auto tuple = make<Var>(tupleName, make<TupleSInfo>(std::move(fields)));
  params.push_back(tuple);
  Bundler bundler;
  for (size_t i = n; i < f->params.size(); ++i) bundler.weights[f->params[i].get()] = {tuple, int(i - n)};
  Expr body = bundler.mutate(f->body);
  return rebuildFunction(*f, std::move(params), body, f->retSInfo);
}

Result<Pass> createBundleModelParamsPass(PassOptions& options) {
  std::string name = options.string("param_tuple_name").value_or("model_params");
  return Pass({"BundleModelParams", 1, {}}, [name](const IRModuleRef& mod, const PassContext& ctx) -> Result<IRModuleRef> {
    IRModuleRef out = mod;
    for (auto& e : mod->functions) {
      auto f = e.func.as<Function>();
      if (!f || !ctx.inScope(e.gvar->name)) continue;
      auto numInput = attrInt(f->attrs, "num_input");
      if (!numInput) continue;
      if (*numInput < 0 || size_t(*numInput) > f->params.size())
        return Error("BundleModelParams: function '" + e.gvar->name + "' has num_input " + std::to_string(*numInput) + " but " + std::to_string(f->params.size()) + " parameters");
      // Already bundled: the weights are one tuple parameter.
      if (f->params.size() == size_t(*numInput) + 1 && sinfoOf(f->params.back()).is<TupleSInfo>()) continue;
      FunctionRef nf = bundleModelParams(f, name);
      auto gv = make<GlobalVar>(e.gvar->name);
      gv->sinfo = nf->sinfo;
      out = withFunction(out, gv, nf);
    }
    return out;
  });
}

}  // namespace rlx
