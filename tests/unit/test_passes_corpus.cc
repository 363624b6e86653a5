// Every registered pass on every corpus module (hand-written, TVM lowering states, nn exports):
// no pass fails or breaks the verifier, every output round-trips through the printer/parser, and a
// second application changes nothing (same object).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/verifier.h"
#include "parser/parser.h"
#include "passes/registry.h"
#include "printer/printer.h"

using namespace rlx;

namespace {

std::vector<std::string> corpusFiles() {
  std::vector<std::string> out;
  for (const char* dir : {"/tests/corpus", "/tests/corpus_lowering", "/tests/corpus_nn"})
    for (auto& e : std::filesystem::directory_iterator(std::string(RLX_SOURCE_DIR) + dir))
      if (e.path().extension() == ".relax") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// The pipeline text that runs pass `name` on its own (options a pass cannot do without).
std::string pipelineFor(const std::string& name) {
  if (name == "EtaExpand") return "EtaExpand(expand_global_var=True)";
  return name;
}

}  // namespace

TEST_CASE("passes: every pass on every corpus module verifies and round-trips", "[passes][corpus]") {
  PassContext ctx;
  ctx.optLevel = 4;  // FastMath included
  for (auto& file : corpusFiles()) {
    DiagnosticEngine diag;
    IRModuleRef mod = parseFile(file, diag);
    REQUIRE(mod);
    for (auto& entry : passRegistry()) {
      std::string name = entry.name;
      if (name == "BindParams" || name == "PrintIR") continue;  // needs a params file / prints to stdout
      INFO(file << " | " << name);
      auto passes = parsePipeline(pipelineFor(name));
      REQUIRE(passes.ok());
      auto out = runSequential(passes.value(), mod, ctx);
      REQUIRE(out.ok());
      auto problems = verifyModule(out.value());
      CHECK(problems.empty());
      if (!problems.empty()) INFO(problems[0].message);
      std::string text = printModule(out.value());
      DiagnosticEngine diag2;
      IRModuleRef again = parseModule(text, file + " after " + name, diag2);
      if (!again) FAIL(diag2.render(false));
      CHECK(printModule(again) == text);
      // Applied again, the pass finds nothing to do and returns the very same module object.
      auto twice = runSequential(passes.value(), out.value(), ctx);
      REQUIRE(twice.ok());
      CHECK(twice.value().same(out.value()));
    }
  }
}
