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

std::string printModuleOmittingMetadata(const IRModuleRef& mod, size_t* omitted) {
  std::vector<NDArrayRef> metadata;
  PrintOptions opts;
  opts.metadataOut = &metadata;
  std::string text = printModule(mod, opts);
  if (omitted) *omitted = metadata.size();
  // The printer ends a module with sidecar constants with a note pointing at the sidecar; there is
  // none here, so the note becomes TVM's.
  const std::string sidecarNote = "\n# Metadata constants are stored in the .safetensors file next to this one.\n";
  if (!metadata.empty() && text.size() >= sidecarNote.size() && text.compare(text.size() - sidecarNote.size(), sidecarNote.size(), sidecarNote) == 0)
    text.replace(text.size() - sidecarNote.size(), sidecarNote.size(), "\n# Metadata omitted. Use show_meta=True in script() method to show it.\n");
  return text;
}

}  // namespace rlx
