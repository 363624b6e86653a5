// libFuzzer target: arbitrary bytes through the parser; whatever parses must print, re-parse and
// print to the same bytes, and every pass must run on it without crashing and print re-parsable IR.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "parser/parser.h"
#include "passes/registry.h"
#include "printer/printer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  rlx::DiagnosticEngine diag;
  auto mod = rlx::parseModule(text, "fuzz.relax", diag);
  if (!mod) {
    (void)diag.render(false);  // rendering diagnostics must not crash either
    return 0;
  }
  std::string once = rlx::printModule(mod);
  rlx::DiagnosticEngine diag2;
  auto again = rlx::parseModule(once, "fuzz-reprint.relax", diag2);
  if (!again) {
    std::fprintf(stderr, "printed output does not re-parse:\n%s\n%s\n", once.c_str(), diag2.render(false).c_str());
    std::abort();
  }
  std::string twice = rlx::printModule(again);
  if (twice != once) {
    std::fprintf(stderr, "print is not idempotent:\n--- first\n%s\n--- second\n%s\n", once.c_str(), twice.c_str());
    std::abort();
  }
  // Each pass alone (PrintIR excluded: it writes to stdout) must keep the module printable.
  for (auto& entry : rlx::passRegistry()) {
    if (std::string(entry.name) == "PrintIR") continue;
    rlx::PassOptions options;
    auto pass = entry.create(options);
    if (!pass.ok()) continue;
    auto out = rlx::runSequential({pass.value()}, mod, rlx::PassContext());
    if (!out.ok()) continue;  // a pass may refuse a module with a clear error
    std::string text = rlx::printModule(out.value());
    rlx::DiagnosticEngine d3;
    if (!rlx::parseModule(text, "fuzz-pass.relax", d3)) {
      std::fprintf(stderr, "output of %s does not re-parse:\n%s\n%s\n", entry.name, text.c_str(), d3.render(false).c_str());
      std::abort();
    }
  }
  return 0;
}
