// Golden-file test runner: each file holds an input, a marker line, then the exact expected output
// (canonical print, or diagnostics for tests/golden/errors). UPDATE_GOLDEN=1 rewrites expectations.
#include <dirent.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ir/file_util.h"
#include "parser/parser.h"
#include "passes/registry.h"
#include "printer/printer.h"

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

// A minimal line diff: the first differing line with context, enough to see what changed.
std::string describeDiff(const std::string& want, const std::string& got) {
  std::istringstream a(want), b(got);
  std::string la, lb, out;
  int line = 1;
  while (true) {
    bool ha = bool(std::getline(a, la)), hb = bool(std::getline(b, lb));
    if (!ha && !hb) break;
    if (!ha || !hb || la != lb) {
      out += "  first difference at output line " + std::to_string(line) + ":\n";
      out += "  - expected: " + (ha ? la : "<end of output>") + "\n";
      out += "  + actual:   " + (hb ? lb : "<end of output>") + "\n";
      break;
    }
    ++line;
  }
  return out;
}

// Runs one mode on an input; the produced text is compared with the expectation.
std::string produce(const std::string& mode, const std::string& input, const std::string& name) {
  rlx::DiagnosticEngine diag;
  auto mod = rlx::parseModule(input, name, diag);
  if (mode == "errors") return mod ? "no error\n" : diag.render(false);
  if (!mod) return "parse failed:\n" + diag.render(false);
  // `# RUN: opt -p PIPELINE` on the first line runs passes before printing.
  const std::string run = "# RUN: opt -p ";
  if (input.compare(0, run.size(), run) == 0) {
    std::string pipeline = input.substr(run.size(), input.find('\n') - run.size());
    auto passes = rlx::parsePipeline(pipeline);
    if (!passes.ok()) return "bad pipeline: " + passes.error().message + "\n";
    auto result = rlx::runSequential(passes.value(), mod, rlx::PassContext());
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

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: rlx_golden MODE DIR   (MODE: print | errors | corpus)\n");
    return 2;
  }
  std::string mode = argv[1], dir = argv[2];
  bool update = std::getenv("UPDATE_GOLDEN") != nullptr;
  int passed = 0, failed = 0;
  for (auto& path : listFiles(dir, ".relax")) {
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
    std::string got = produce(mode, input, folder + "/" + display);
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
    std::printf("FAIL %s\n%s  re-bless: UPDATE_GOLDEN=1 %s %s %s\n", path.c_str(), describeDiff(expected, got).c_str(), argv[0], argv[1], argv[2]);
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 && passed > 0 ? 0 : 1;
}
