// Parameter files: a module's state dict saved to and loaded from safetensors, and detachParams,
// which moves the "params" attribute of functions (bound weights) out of an IRModule.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "frontend/nn/module.h"

namespace rlx::nn {

// Writes every entry (all must have data) to a safetensors file.
Status saveStateDict(const StateDict& dict, const std::string& path);
Result<StateDict> loadStateDictFile(const std::string& path);

// Convenience: module.stateDict() to a file / a file into module.loadStateDict(.., strict).
Status saveParams(const Module& module, const std::string& path);
Result<LoadResult> loadParams(Module& module, const std::string& path, bool strict = true);

// A copy of `mod` whose functions no longer carry a "params" attr, and those params per function.
std::pair<IRModuleRef, std::map<std::string, std::vector<NDArrayRef>>> detachParams(const IRModuleRef& mod);

}  // namespace rlx::nn
