// libFuzzer target for the ONNX reader and importer: arbitrary bytes as a model (first byte even; with
// bit 2 set, through the signature reader) or as a tensor file (odd). Whatever imports must verify,
// print, and re-parse from its own print.
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
    // `rlx run`'s signature reader walks the wire format from a file (readSignature).
    static const std::string path = "/tmp/rlx-fuzz-signature-" + std::to_string(::getpid()) + ".onnx";
    if (FILE* f = std::fopen(path.c_str(), "wb")) {
      std::fwrite(bytes.data(), 1, bytes.size(), f);
      std::fclose(f);
      (void)rlx::onnx::readSignature(path);
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
