// isRelayPath: which files the loaders hand to the Relay reader.
#include <string>

#include "frontend/relay/relay.h"

namespace rlx::relay {

bool isRelayPath(const std::string& path) {
  auto endsWith = [&](const char* ext) {
    std::string e(ext);
    return path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0;
  };
  return endsWith(".relay") || endsWith(".rly");
}

}  // namespace rlx::relay
