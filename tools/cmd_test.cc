// `rlx test`: golden-file testing for users and for rlx's own tests. A file holds an optional
// `# RUN: opt -p PIPELINE` line, the input, a marker line, then the exact expected output.
#include <dirent.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/relay/relay.h"
#include "ir/file_util.h"
#include "parser/parser.h"
#include "passes/registry.h"
#include "printer/diff.h"
#include "repl/session.h"
#include "printer/printer.h"
#include "tools/commands.h"

namespace rlx::tools {

namespace {

const std::string kMarker = "# ---- expected output (generated; re-bless with UPDATE_GOLDEN=1) ----\n";

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> listFiles(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (auto* e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0) out.push_back(dir + "/" + n);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The failure report: a unified diff of expected vs actual output, indented under the FAIL line.
std::string describeDiff(const std::string& want, const std::string& got) {
  std::string diff = rlx::unifiedDiff(want, got, "expected", "actual", 2);
  std::string out;
  size_t start = 0;
  while (start < diff.size()) {
    size_t nl = diff.find('\n', start);
    if (nl == std::string::npos) nl = diff.size();
    out += "  " + diff.substr(start, nl - start) + "\n";
    start = nl + 1;
  }
  return out;
}

// Runs one mode on an input; the produced text is compared with the expectation.
// A shell transcript: the input lines are fed to a session; the output is everything it printed.
std::string transcript(const std::string& input) {
  std::string out;
  rlx::repl::Session session([&](const std::string& s) { out += s; });
  std::istringstream in(input);
  std::string line;
  while (std::getline(in, line)) {
    out += "rlx> " + line + "\n";
    if (!session.feed(line)) return out;
  }
  session.finish();
  return out;
}

// Runs with the test file's folder as working directory: paths inside a test (a pass's params file,
// a shell :load) are relative to the test, wherever the tests run from.
struct InDirectory {
  std::filesystem::path saved;
  explicit InDirectory(const std::string& dir) {
    std::error_code ec;
    saved = std::filesystem::current_path(ec);
    if (!dir.empty()) std::filesystem::current_path(dir, ec);
  }
  ~InDirectory() {
    std::error_code ec;
    if (!saved.empty()) std::filesystem::current_path(saved, ec);
  }
};

std::string produce(const std::string& mode, const std::string& input, const std::string& name, const std::string& dir = "") {
  InDirectory cwd(dir);
  if (mode == "repl") return transcript(input);
  rlx::DiagnosticEngine diag;
  // A .relay file is Relay text: read and imported; its RUN line is a Relay comment (`// RUN:`).
  bool relayInput = rlx::relay::isRelayPath(name);
  rlx::IRModuleRef mod;
  if (relayInput) {
    auto module = rlx::relay::readRelayText(input, name);
    auto imported = module ? rlx::relay::importRelay(*module) : rlx::Result<rlx::IRModuleRef>(module.error());
    if (imported) mod = *imported;
    else diag.error(imported.error());
  } else {
    mod = rlx::parseModule(input, name, diag);
  }
  if (mode == "errors") return mod ? "no error\n" : diag.render(false);
  if (!mod) return "parse failed:\n" + diag.render(false);
  // `# RUN: opt -p PIPELINE` on the first line runs passes before printing.
  const std::string run = relayInput ? "// RUN: opt -p " : "# RUN: opt -p ";
  if (input.compare(0, run.size(), run) == 0) {
    std::string pipeline = input.substr(run.size(), input.find('\n') - run.size());
    rlx::PassContext ctx;
    // An optional trailing `--opt-level=N` (for passes above the default level 2, e.g. FastMath).
    const std::string levelFlag = " --opt-level=";
    if (auto at = pipeline.find(levelFlag); at != std::string::npos) {
      std::string level = pipeline.substr(at + levelFlag.size());
      if (level.empty() || level.find_first_not_of("0123456789") != std::string::npos) return "bad --opt-level in the RUN line\n";
      ctx.optLevel = std::stoi(level);
      pipeline.resize(at);
    }
    auto passes = rlx::parsePipeline(pipeline);
    if (!passes.ok()) return "bad pipeline: " + passes.error().message + "\n";
    auto result = rlx::runSequential(passes.value(), mod, ctx);
    if (!result.ok()) return "pass failed: " + result.error().message + "\n";
    mod = result.value();
  }
  std::string text = rlx::printModule(mod);
  // Round trip: printing the re-parsed output gives the same bytes.
  rlx::DiagnosticEngine diag2;
  auto again = rlx::parseModule(text, name + " (reprinted)", diag2);
  if (!again) return text + "\nre-parse of the output failed:\n" + diag2.render(false);
  std::string text2 = rlx::printModule(again);
  if (text2 != text) return text + "\nnot idempotent; second print:\n" + text2;
  return text;
}

const char* kTestHelp = R"(usage: rlx test [--errors | --corpus] [--update] PATH...

Runs golden files (PATH: files or folders of .relax files, and .relay files: Relay text imported,
`// RUN:` for its RUN line). A golden file is:
  # RUN: opt -p PIPELINE        (optional; without it the input is only parsed and printed;
                                  a trailing --opt-level=N sets the context's opt level)
  <input module>
  # ---- expected output (generated; re-bless with UPDATE_GOLDEN=1) ----
  <exact expected output>
Every output is also re-parsed and re-printed to check the round trip.
  --errors   the expected output is the diagnostics of a bad input
  --corpus   each file is canonical text that must print back byte for byte
  --repl     each .rlx file holds shell commands; the expected output is the session transcript
  --update   rewrite the expected output of failing files (same as UPDATE_GOLDEN=1)
Prints one line per failure with a diff, then "N passed, N failed".)";

}  // namespace

int runTest(const std::vector<std::string>& args, bool) {
  std::string mode = "print";
  bool update = std::getenv("UPDATE_GOLDEN") != nullptr;
  std::vector<std::string> paths;
  for (auto& a : args) {
    if (a == "--help" || a == "-h") {
      std::puts(kTestHelp);
      return 0;
    }
    if (a == "--update") update = true;
    else if (a == "--errors") mode = "errors";
    else if (a == "--corpus") mode = "corpus";
    else if (a == "--repl") mode = "repl";
    else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "rlx test: unknown option '%s' (see `rlx test --help`)\n", a.c_str());
      return 2;
    } else paths.push_back(a);
  }
  if (paths.empty()) {
    std::fprintf(stderr, "rlx test: give one or more files or folders (see `rlx test --help`)\n");
    return 2;
  }
  std::vector<std::string> files;
  for (auto& p : paths) {
    auto inDir = listFiles(p, mode == "repl" ? ".rlx" : ".relax");
    if (mode != "repl" && mode != "corpus") {
      auto relayFiles = listFiles(p, ".relay");
      inDir.insert(inDir.end(), relayFiles.begin(), relayFiles.end());
      std::sort(inDir.begin(), inDir.end());
    }
    if (inDir.empty()) files.push_back(p);
    files.insert(files.end(), inDir.begin(), inDir.end());
  }
  int passed = 0, failed = 0;
  for (auto& path : files) {
    std::string dir = path.substr(0, path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/'));
    std::ifstream probe(path);
    if (!probe) {
      ++failed;
      std::printf("FAIL %s: cannot read the file\n", path.c_str());
      continue;
    }
    std::string content = readFile(path);
    std::string input, expected;
    if (mode == "corpus") {
      // Canonical files: the input is its own expected output.
      input = expected = content;
      std::string got = produce("print", input, path);
      if (got == expected) {
        ++passed;
      } else {
        ++failed;
        std::printf("FAIL %s (corpus round trip)\n%s", path.c_str(), describeDiff(expected, got).c_str());
      }
      continue;
    }
    size_t m = content.find(kMarker);
    input = m == std::string::npos ? content : content.substr(0, m);
    expected = m == std::string::npos ? "" : content.substr(m + kMarker.size());
    // Diagnostics name the file relative to the golden folder, so expectations do not depend on
    // where the checkout lives.
    std::string display = path.substr(path.find_last_of('/', path.size() - 1) + 1);
    std::string folder = dir.substr(dir.find_last_of('/') + 1);
    std::string got = produce(mode, input, folder + "/" + display, dir);
    if (got == expected) {
      ++passed;
      continue;
    }
    if (update) {
      auto st = rlx::writeFileAtomically(path, input + kMarker + got);
      std::printf("UPDATED %s\n", path.c_str());
      if (st.ok()) {
        ++passed;
        continue;
      }
    }
    ++failed;
    std::printf("FAIL %s\n%s  re-bless: rlx test%s --update %s\n", path.c_str(), describeDiff(expected, got).c_str(), mode == "print" ? "" : (" --" + mode).c_str(), path.c_str());
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 && passed > 0 ? 0 : 1;
}

}  // namespace rlx::tools
