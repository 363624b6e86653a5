// Atomic file writing: write a temporary next to the target, then rename over it, so an error or a
// crash never leaves a truncated file behind.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "ir/diagnostic.h"

namespace rlx {

Status writeFileAtomically(const std::string& path, const std::string& contents);
// The concatenation of `parts`, written without first joining them (large weight files).
Status writeFileAtomically(const std::string& path, const std::vector<std::string_view>& parts);

}  // namespace rlx
