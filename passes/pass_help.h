// What `:help PASS` and `rlx opt --explain PASS` print: the pass's summary, options and other
// names, then its worked example (passes/examples/NAME.relax) run live and shown as a diff.
#pragma once
#include <string>

#include "ir/diagnostic.h"

namespace rlx {

// The example text compiled in for pass `name` (the golden-file format: RUN line, module,
// expected output), or null when the pass has none.
const char* passExample(const std::string& name);

// The whole explanation, or an error for an unknown pass (with a suggestion).
Result<std::string> explainPass(const std::string& name, bool color);

}  // namespace rlx
