// Writing a module as `rlx print -o` does: the TVMScript text, with tensor constants over 16 elements
// in the safetensors sidecar the parser reads back (FILE.relax -> FILE.safetensors), both atomically.
#pragma once
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/module.h"

namespace rlx {

// FILE.relax -> FILE.safetensors (any other name gets .safetensors appended).
std::string sidecarPath(const std::string& relaxPath);
// Writes `text` to `path`, after the sidecar holding `metadata` when there is any.
Status writeModuleText(const std::string& path, const std::string& text, const std::vector<NDArrayRef>& metadata);
// Prints `mod` (constants as metadata) and writes it with writeModuleText.
Status writeModuleFile(const IRModuleRef& mod, const std::string& path);

}  // namespace rlx
