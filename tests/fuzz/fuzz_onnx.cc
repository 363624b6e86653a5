// libFuzzer target for the ONNX reader and importer: arbitrary bytes as a model (first byte even; with
// bit 2 set, from a file: the signature reader, and the file import, which must agree with the import
// from memory) or as a tensor file (odd). Whatever imports must verify, print, and re-parse.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <unistd.h>

#include "frontend/onnx/onnx.h"
#include "ir/safetensors.h"
#include "ir/verifier.h"
#include "parser/parser.h"
#include "printer/printer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) {
    (void)rlx::onnx::readValue(bytes, "/nonexistent-fuzz-dir/fuzz.pb", data[0] & 2 ? "sequence" : "tensor");
    return 0;
  }
  if (data[0] & 4) {
    // From a file: the model parser leaves the initializers' raw_data in the file (for `rlx run`'s
    // signature reader and the import); the import must be the one the same bytes give from
    // memory. The folder holds only this file (external data resolves there).
    static const std::string dir = "/tmp/rlx-fuzz-file-" + std::to_string(::getpid()), path = dir + "/fuzz.onnx";
    std::filesystem::create_directories(dir);
    if (FILE* f = std::fopen(path.c_str(), "wb")) {
      std::fwrite(bytes.data(), 1, bytes.size(), f);
      std::fclose(f);
      (void)rlx::onnx::readSignature(path);
      auto fromFile = rlx::onnx::fromOnnxFile(path);
      auto fromMemory = rlx::onnx::fromOnnxBytes(bytes, path, dir);
      if (bool(fromFile) != bool(fromMemory) || (fromFile && rlx::printModule(*fromFile) != rlx::printModule(*fromMemory))) {
        std::fprintf(stderr, "the model imports differently from the file (%s) and from memory (%s)\n",
                     fromFile ? "ok" : fromFile.error().message.c_str(), fromMemory ? "ok" : fromMemory.error().message.c_str());
        std::abort();
      }
    }
    return 0;
  }
  // External data must not reach the file system from fuzz input: resolve it in an empty folder.
  auto mod = rlx::onnx::fromOnnxBytes(bytes, "fuzz.onnx", "/nonexistent-fuzz-dir");
  if (!mod) return 0;
  auto problems = rlx::verifyModule(*mod);
  if (!problems.empty()) {
    std::fprintf(stderr, "imported module is ill-formed: %s\n%s\n", problems[0].message.c_str(), rlx::printModule(*mod).c_str());
    std::abort();
  }
  // As `rlx import -o` writes it: constants the text cannot hold go to the sidecar.
  std::vector<rlx::NDArrayRef> metadata;
  rlx::PrintOptions popts;
  popts.metadataOut = &metadata;
  std::string text = rlx::printModule(*mod, popts);
  static const std::string dir = "/tmp/rlx-fuzz-onnx-" + std::to_string(::getpid());
  rlx::ParseOptions parseOpts;
  if (!metadata.empty()) {
    std::filesystem::create_directories(dir);
    if (!rlx::safetensors::writeConstants(dir + "/fuzz-import.safetensors", metadata)) std::abort();
    parseOpts.sidecarPath = dir + "/fuzz-import.safetensors";
  }
  rlx::DiagnosticEngine diag;
  if (!rlx::parseModule(text, "fuzz-import.relax", diag, parseOpts)) {
    std::fprintf(stderr, "imported module does not re-parse:\n%s\n%s\n", text.c_str(), diag.render(false).c_str());
    std::abort();
  }
  return 0;
}
