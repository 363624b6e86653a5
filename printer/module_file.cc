// writeModuleFile (see module_file.h): the sidecar first, so a .relax file on disk always finds
// the constants it references.
#include "printer/module_file.h"

#include "ir/file_util.h"
#include "ir/safetensors.h"
#include "printer/printer.h"

namespace rlx {

std::string sidecarPath(const std::string& relaxPath) {
  std::string base = relaxPath;
  if (base.size() > 6 && base.compare(base.size() - 6, 6, ".relax") == 0) base.resize(base.size() - 6);
  return base + ".safetensors";
}

Status writeModuleText(const std::string& path, const std::string& text, const std::vector<NDArrayRef>& metadata) {
  if (!metadata.empty()) RLX_TRY_STATUS(safetensors::writeConstants(sidecarPath(path), metadata));
  return writeFileAtomically(path, text);
}

Status writeModuleFile(const IRModuleRef& mod, const std::string& path) {
  std::vector<NDArrayRef> metadata;
  PrintOptions opts;
  opts.metadataOut = &metadata;
  std::string text = printModule(mod, opts);
  return writeModuleText(path, text, metadata);
}

}  // namespace rlx
