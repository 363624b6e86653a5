// Public parser API: TVMScript text (a module, a lone function, or function snippets) → IRModule.
// All errors are collected into the DiagnosticEngine with spans; nothing is printed or thrown.
#pragma once
#include <string>

#include "ir/diagnostic.h"
#include "ir/module.h"

namespace rlx {

struct ParseOptions {
  // The safetensors sidecar of metadata constants ("" = next to sourceName, its .safetensors twin).
  std::string sidecarPath;
  // Maximum nesting depth of brackets / blocks before the input is rejected (never a stack overflow).
  int maxDepth = 200;
  // Set to true when the text was a lone function (no module class): printers then print it the way
  // TVM prints `func.script()`.
  bool* loneFunction = nullptr;
};

// Parses `text` (named `sourceName` in diagnostics). Returns null and fills `diag` on error.
IRModuleRef parseModule(const std::string& text, const std::string& sourceName, DiagnosticEngine& diag, const ParseOptions& opts = {});

// Reads a file ("-" = stdin) and parses it; I/O errors become diagnostics too.
IRModuleRef parseFile(const std::string& path, DiagnosticEngine& diag, const ParseOptions& opts = {});

}  // namespace rlx
