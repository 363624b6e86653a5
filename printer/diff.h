// Unified line diffs (Myers' O(ND) algorithm) of printed IR, with `---`/`+++` headers and
// `@@ -a,b +c,d @@` hunks; coloured on request. Used by print-changed instruments and the shell.
#pragma once
#include <string>

namespace rlx {

// Empty when the texts are identical.
std::string unifiedDiff(const std::string& before, const std::string& after, const std::string& nameBefore, const std::string& nameAfter, int context = 3, bool color = false);

}  // namespace rlx
