// libFuzzer target: arbitrary bytes through the parser; whatever parses must print, re-parse and
// print to the same bytes. Any crash, hang or round-trip mismatch is a bug.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "parser/parser.h"
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
  return 0;
}
