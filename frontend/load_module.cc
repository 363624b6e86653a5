// loadModuleFile: text through the parser, models and Relay text through their importer (default
// options).
#include "frontend/load_module.h"

#include "frontend/onnx/onnx.h"
#include "frontend/relay/relay.h"

namespace rlx {

namespace {

// An importer's result as the loaders return it: the module, or null with the error reported.
IRModuleRef reported(Result<IRModuleRef> mod, DiagnosticEngine& diag) {
  if (mod) return *mod;
  diag.error(mod.error());
  return nullptr;
}

}  // namespace

bool isModelPath(const std::string& path) { return onnx::isOnnxPath(path); }

IRModuleRef loadModuleFile(const std::string& path, DiagnosticEngine& diag, const ParseOptions& opts) {
  if (onnx::isOnnxPath(path)) return reported(onnx::fromOnnxFile(path), diag);
  if (relay::isRelayPath(path)) return reported(relay::fromRelayFile(path), diag);
  return parseFile(path, diag, opts);
}

}  // namespace rlx
