// One entry for every command that reads a module: TVMScript text, or a model file or Relay text
// that an importer brings in first (`.onnx`, `.relay`), chosen by the file's extension.
#pragma once
#include <string>

#include "parser/parser.h"

namespace rlx {

// Whether `path` is a model file an importer reads (.onnx), whose constants are its weights.
bool isModelPath(const std::string& path);
// Parses or imports `path` ("-" = stdin text); every problem becomes a diagnostic.
IRModuleRef loadModuleFile(const std::string& path, DiagnosticEngine& diag, const ParseOptions& opts = {});

}  // namespace rlx
