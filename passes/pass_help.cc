// Pass explanations: registry facts plus the compiled-in example, whose pipeline (its RUN line) is
// run on its module each time, so the help always shows what the pass does now.
#include "passes/pass_help.h"

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <utility>

#include "parser/parser.h"
#include "passes/registry.h"
#include "printer/diff.h"
#include "printer/printer.h"

namespace rlx {

namespace {

const std::pair<const char*, const char*> kExamples[] = {
#include "pass_examples.inc"
};

const char* kExpectedMarker = "# ---- expected output";

struct Example {
  std::string pipeline = "";
  int optLevel = 2;
  std::string module;  // the input: the file without its RUN line and expected output
};

// `# RUN: opt -p PIPELINE [--opt-level=N]`, then the module up to the expected-output marker.
Example splitExample(const std::string& text) {
  Example ex;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(kExpectedMarker, 0) == 0) break;
    if (line.rfind("# RUN: opt", 0) == 0) {
      // The pipeline may hold spaces (`X(a={"n": 16})`): it runs from "-p " to " --" or the end.
      std::string args = line.substr(10);
      if (auto level = args.find(" --opt-level="); level != std::string::npos) {
        ex.optLevel = std::atoi(args.c_str() + level + 13);
        args = args.substr(0, level);
      }
      if (auto p = args.find("-p "); p != std::string::npos) ex.pipeline = args.substr(p + 3);
      continue;
    }
    ex.module += line + "\n";
  }
  return ex;
}

std::string indent(const std::string& text) {
  std::string out, line;
  std::istringstream in(text);
  while (std::getline(in, line)) out += (line.empty() ? "" : "    ") + line + "\n";
  return out;
}

// Runs the example's pipeline on its module: the input, then the diff to the output.
std::string runExample(const Example& ex, bool color) {
  DiagnosticEngine diag;
  IRModuleRef before = parseModule(ex.module, "example", diag);
  if (!before) return "  (the example does not parse: " + diag.render(false) + ")\n";
  auto passes = parsePipeline(ex.pipeline);
  if (!passes.ok()) return "  (the example's pipeline is invalid: " + passes.error().message + ")\n";
  PassContext ctx;
  ctx.optLevel = ex.optLevel;
  auto after = runSequential(passes.value(), before, ctx);
  if (!after.ok()) return "  (the example fails: " + after.error().message + ")\n";
  std::string a = printModule(before), b = printModule(after.value());
  std::string diff = unifiedDiff(a, b, "before", "after " + ex.pipeline, 3, color);
  return indent(ex.module) + "\n  after " + ex.pipeline + ":\n" + (diff.empty() ? "    (no change)\n" : indent(diff));
}

}  // namespace

const char* passExample(const std::string& name) {
  for (auto& [n, text] : kExamples)
    if (name == n) return text;
  return nullptr;
}

Result<std::string> explainPass(const std::string& name, bool color) {
  const PassEntry* entry = findPass(name);
  if (!entry) return unknownPass(name);
  std::string primary = entry->aliasOf ? entry->aliasOf : entry->name;
  const PassEntry* impl = findPass(primary);
  std::string out = std::string(entry->name) + "  (opt_level " + std::to_string(impl->optLevel) + ")\n  " + impl->summary + "\n";
  out += std::string("  options: ") + (*impl->options ? impl->options : "none") + "\n";
  if (auto others = passAliases(name); !others.empty()) {
    out += "  also registered as:";
    for (auto& o : others) out += " " + o;
    out += " (one implementation)\n";
  }
  const char* text = passExample(name);
  if (!text) text = passExample(primary);
  if (!text) {
    for (auto& alias : passAliases(name))
      if ((text = passExample(alias))) break;
  }
  if (!text) return out + "  (no worked example)\n";
  Example ex = splitExample(text);
  return out + "\n  example (-p " + ex.pipeline + "):\n" + runExample(ex, color);
}

}  // namespace rlx
