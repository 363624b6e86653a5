// Parameter files and detachParams (see state_dict.h).
#include "frontend/nn/state_dict.h"

#include "frontend/detach_params.h"
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
  // The modules rlx::nn exports hold only tensors in "params", so TVM's check cannot fail here.
  auto detached = rlx::detachParams(mod);
  RLX_CHECK(detached.ok());
  return *detached;
}

}  // namespace rlx::nn
