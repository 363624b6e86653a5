// Relay files on disk: which paths the loaders hand to the Relay reader, and reading plus importing
// one with an optional external meta table.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
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

Result<IRModuleRef> fromRelayFile(const std::string& path, const std::string& metaPath, const ImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error("cannot open '" + path + "': " + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  ReadOptions readOptions;
  MetaTable external;
  if (!metaPath.empty()) {
    auto table = readMetaFile(metaPath);
    if (!table) return table.error();
    external = std::move(*table);
    readOptions.externalMeta = &external;
  }
  auto module = readRelayText(ss.str(), path, readOptions);
  if (!module) return module.error();
  return importRelay(*module, options);
}

}  // namespace rlx::relay
