// detachParams (see detach_params.h): it drops module attrs and global infos and rejects non-tensor
// entries, as TVM's frontend helper does; rlx::nn::detachParams is this function too.
#include "frontend/detach_params.h"

namespace rlx {

Result<DetachedParams> detachParams(const IRModuleRef& mod) {
  auto out = make<IRModule>();
  std::map<std::string, std::vector<NDArrayRef>> params;
  for (auto& e : mod->functions) {
    auto f = e.func.as<Function>();
    const Attr* p = f && f->attrs ? f->attrs->find("params") : nullptr;
    if (!p) {
      out->functions.push_back(e);
      continue;
    }
    std::vector<NDArrayRef> arrays;
    if (*p)
      for (auto& item : (*p)->array) {
        auto c = item && item->expr ? item->expr.as<Constant>() : Ref<Constant>();
        if (!c || !c->data) return Error("function '" + e.gvar->name + "': the value of its \"params\" attribute is expected to be a list of tensors");
        arrays.push_back(c->data);
      }
    params[e.gvar->name] = std::move(arrays);
    std::vector<std::pair<std::string, Attr>> kept;
    for (auto& kv : f->attrs->fields)
      if (kv.first != "params") kept.push_back(kv);
    auto nf = make<Function>(f->params, f->body, f->retSInfo, f->isPure, kept.empty() ? AttrsRef() : makeDictAttrs(std::move(kept)));
    nf->sinfo = f->sinfo;
    nf->span = f->span;
    out->functions.push_back({e.gvar, nf});
  }
  return DetachedParams{IRModuleRef(out), std::move(params)};
}

}  // namespace rlx
