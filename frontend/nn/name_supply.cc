// NameSupply (see name_supply.h).
#include "frontend/nn/name_supply.h"

namespace rlx::nn {

std::string NameSupply::fresh(const std::string& hint) {
  std::string base = hint.empty() ? "v" : hint;
  for (auto& c : base)
    if (c == '.') c = '_';
  auto it = counters_.find(base);
  if (it == counters_.end()) {
    counters_[base] = 0;
    return base;
  }
  // Each base keeps its own counter; a candidate that is itself taken is skipped.
  for (;;) {
    std::string candidate = base + std::to_string(++it->second);
    if (counters_.emplace(candidate, 0).second) return candidate;
  }
}

void NameSupply::reserve(const std::string& name) { counters_.emplace(name, 0); }

}  // namespace rlx::nn
