// BindParams: replaces parameters of one function by constants read from a safetensors file (names
// = parameter names) and drops them from the signature, so FoldConstant and friends can see weights.
// Example: `BindParams(func_name="main", params="weights.safetensors")`. Shape/dtype must match.
#include "ir/block_builder.h"
#include "ir/expr_mutator.h"
#include "ir/safetensors.h"
#include "ir/struct_info.h"
#include "passes/registry.h"

namespace rlx {

namespace {

// Whether `data` fits the parameter's struct info (a static tensor of the same shape and dtype).
Status checkFits(const Var& param, const NDArray& data) {
  auto t = sinfoOf(Expr(const_cast<Var*>(&param))).as<TensorSInfo>();
  if (!t) return Error("parameter '" + param.name + "' is not a tensor");
  if (!t->dtype.isVoid() && t->dtype != data.dtype) return Error("parameter '" + param.name + "' is " + t->dtype.str() + " but the file holds " + data.dtype.str());
  if (auto* dims = t->dims()) {
    if (dims->size() != data.shape.size()) return Error("parameter '" + param.name + "' has rank " + std::to_string(dims->size()) + " but the file's tensor has rank " + std::to_string(data.shape.size()));
    for (size_t i = 0; i < dims->size(); ++i) {
      auto* d = asIntImm((*dims)[i]);
      if (d && d->value != data.shape[i]) return Error("parameter '" + param.name + "' dimension " + std::to_string(i) + " is " + std::to_string(d->value) + " but the file's is " + std::to_string(data.shape[i]));
    }
  } else if (t->ndim >= 0 && size_t(t->ndim) != data.shape.size()) {
    return Error("parameter '" + param.name + "' has rank " + std::to_string(t->ndim) + " but the file's tensor has rank " + std::to_string(data.shape.size()));
  }
  return okStatus();
}

}  // namespace

Result<Pass> createBindParamsPass(PassOptions& options) {
  std::string funcName = options.string("func_name").value_or("main");
  auto file = options.string("params");
  if (!file) return Error("BindParams needs params=\"FILE.safetensors\" (tensors named after the parameters)");
  std::string path = *file;
  return Pass({"BindParams", 0, {}}, [funcName, path](const IRModuleRef& mod, const PassContext&) -> Result<IRModuleRef> {
    auto* entry = mod->find(funcName);
    if (!entry) return Error("BindParams: the module has no function '" + funcName + "'");
    auto f = entry->func.as<Function>();
    if (!f) return Error("BindParams: '" + funcName + "' is not a Relax function");
    RLX_TRY(tensors, safetensors::read(path));
    std::unordered_map<const Var*, Expr> bound;
    std::vector<VarRef> kept;
    for (auto& p : f->params) {
      const safetensors::Entry* match = nullptr;
      for (auto& t : tensors)
        if (t.name == p->name) match = &t;
      if (!match) {
        kept.push_back(p);
        continue;
      }
      RLX_TRY_STATUS(checkFits(*p, *match->array));
      Expr c = make<Constant>(match->array);
      BlockBuilder bb;
      RLX_TRY(n, bb.normalize(c));
      bound[p.get()] = n;
    }
    if (bound.empty()) return mod;
    Expr body = substituteVars(f->body, bound);
    auto nf = make<Function>(kept, body, f->retSInfo, f->isPure, f->attrs);
    std::vector<StructInfo> ps;
    for (auto& p : kept) ps.push_back(sinfoOf(p));
    nf->sinfo = make<FuncSInfo>(std::move(ps), f->retSInfo, f->isPure);
    nf->span = f->span;
    return withFunction(mod, entry->gvar, nf);
  });
}

}  // namespace rlx
