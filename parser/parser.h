// Public parser API: TVMScript text (a module, a lone function, or function snippets) → IRModule.
// All errors are collected into the DiagnosticEngine with spans; nothing is printed or thrown.
#pragma once
#include <string>

#include "ir/diagnostic.h"
#include "ir/module.h"
#include "ir/op.h"

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

// Parses `text`, an index map in TVMScript's lambda syntax (`lambda i, j: (i // 4, j)`, as passes
// take them in their options), into the value R.layout_transform's index_map takes:
// T.index_map([vars], [results]) with index vars of `dtype`. Errors carry a span into `text`,
// registered as source `sourceName` (line 1, the column of the bad token).
Result<PyValue> parseIndexMap(const std::string& text, const std::string& sourceName, DataType dtype = DataType::int64());

}  // namespace rlx
