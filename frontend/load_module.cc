// loadModuleFile: text through the parser, models and Relay text through their importer (default
// options).
#include "frontend/load_module.h"

#include "frontend/onnx/onnx.h"
#include "frontend/relay/relay.h"

namespace rlx {

IRModuleRef loadModuleFile(const std::string& path, DiagnosticEngine& diag, const ParseOptions& opts) {
  if (onnx::isOnnxPath(path)) {
    auto mod = onnx::fromOnnxFile(path);
    if (!mod) {
      diag.error(mod.error());
      return nullptr;
    }
    return *mod;
  }
  if (relay::isRelayPath(path)) {
    auto mod = relay::fromRelayFile(path);
    if (!mod) {
      diag.error(mod.error());
      return nullptr;
    }
    return *mod;
  }
  return parseFile(path, diag, opts);
}

}  // namespace rlx
