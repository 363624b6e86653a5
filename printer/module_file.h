// Writing a module as `rlx print -o` does: the TVMScript text, with tensor constants over 16 elements
// in the safetensors sidecar the parser reads back (FILE.relax -> FILE.safetensors), both atomically;
// and showing one with those constants left out.
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
// Prints `mod` for reading, as TVM's script() shows a model: tensor constants over 16 elements as
// metadata references whose values are left out (a model's weights as text are hundreds of MB),
// ending with TVM's note saying so. `omitted`, when given, gets their count.
std::string printModuleOmittingMetadata(const IRModuleRef& mod, size_t* omitted = nullptr);

}  // namespace rlx
