// Parameter files and detachParams (see state_dict.h).
#include "frontend/nn/state_dict.h"

#include "ir/safetensors.h"

namespace rlx::nn {

Status saveStateDict(const StateDict& dict, const std::string& path) {
  std::vector<safetensors::Entry> entries;
  for (auto& [name, data] : dict) {
    if (!data) return Error("cannot save parameter '" + name + "': it has no data");
    entries.push_back({name, data});
  }
  return safetensors::write(path, entries);
}

Result<StateDict> loadStateDictFile(const std::string& path) {
  RLX_TRY(entries, safetensors::read(path));
  StateDict out;
  for (auto& e : entries) out[e.name] = e.array;
  return out;
}

Status saveParams(const Module& module, const std::string& path) { return saveStateDict(module.stateDict(), path); }

Result<LoadResult> loadParams(Module& module, const std::string& path, bool strict) {
  RLX_TRY(dict, loadStateDictFile(path));
  return module.loadStateDict(dict, strict);
}

std::pair<IRModuleRef, std::map<std::string, std::vector<NDArrayRef>>> detachParams(const IRModuleRef& mod) {
  auto out = make<IRModule>();
  out->attrs = mod->attrs;
  out->globalInfos = mod->globalInfos;
  std::map<std::string, std::vector<NDArrayRef>> params;
  for (auto& e : mod->functions) {
    auto f = e.func.as<Function>();
    const Attr* p = f && f->attrs ? f->attrs->find("params") : nullptr;
    if (!p) {
      out->functions.push_back(e);
      continue;
    }
    auto& list = params[e.gvar->name];
    if (*p)
      for (auto& item : (*p)->array)
        if (item && item->expr)
          if (auto c = item->expr.as<Constant>()) list.push_back(c->data);
    auto attrs = make<Attrs>();
    attrs->typeKey = f->attrs->typeKey;
    for (auto& kv : f->attrs->fields)
      if (kv.first != "params") attrs->fields.push_back(kv);
    auto nf = make<Function>(f->params, f->body, f->retSInfo, f->isPure, attrs->fields.empty() ? AttrsRef() : AttrsRef(attrs));
    nf->sinfo = f->sinfo;
    nf->span = f->span;
    out->functions.push_back({e.gvar, nf});
  }
  return {out, params};
}

}  // namespace rlx::nn
