// rlx_relay_corpus: reads and imports every program of a Relay corpus (index.tsv + zoo/), checks each
// `/* ty=... */` comment TVM printed against rlx's struct info, checks that each import prints as
// Relax text that parses back, and compares every outcome with a committed expectation file: any
// difference (regression or unexpected pass) fails the run.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/relay/relay.h"
#include "ir/verifier.h"
#include "parser/parser.h"
#include "printer/printer.h"

namespace fs = std::filesystem;
using namespace rlx;

namespace {

struct Case {
  std::string file;     // relative to the corpus root
  std::string verdict;  // TVM's (index.tsv), "zoo" for the model zoo
};

std::vector<std::vector<std::string>> readTsv(const fs::path& p) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> cols;
    std::stringstream ss(line);
    std::string col;
    while (std::getline(ss, col, '\t')) cols.push_back(col);
    if (!cols.empty()) rows.push_back(cols);
  }
  return rows;
}

std::string firstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

std::string where(const Error& e) {
  return e.span.known() ? std::to_string(e.span.line) + ":" + std::to_string(e.span.col) + ": " : "";
}

// The outcome of one program, as one line of the expectation file.
std::string run(const fs::path& path, int& typesChecked, int& typesAgreed, bool verbose) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  auto module = relay::readRelayText(ss.str(), path.filename().string());
  if (!module) {
    const Error& e = module.error();
    if (e.message.rfind("no meta table entry", 0) == 0) return "needs-meta\t" + where(e) + e.message;
    return "rejected\t" + where(e) + firstLine(e.message);
  }
  std::vector<Error> mismatches;
  size_t checked = 0;
  relay::ImportOptions options;
  options.printedTypeMismatches = &mismatches;
  options.printedTypesChecked = &checked;
  auto mod = relay::importRelay(*module, options);
  typesChecked += int(checked);
  typesAgreed += int(checked - mismatches.size());
  if (verbose)
    for (auto& m : mismatches) std::printf("  %s:%s%s\n", path.filename().c_str(), where(m).c_str(), m.message.c_str());
  if (!mod) {
    const Error& e = mod.error();
    if (e.message.rfind("not expressible in Relax", 0) == 0) return "not-expressible\t" + where(e) + firstLine(e.message);
    return "import-error\t" + where(e) + firstLine(e.message);
  }
  for (auto& e : verifyModule(*mod)) return "ill-formed\t" + firstLine(e.message);
  // The Relax text of an import must parse back (a name that is a Python keyword, a var the printer
  // writes as a statement, ... would not).
  DiagnosticEngine diag;
  if (!parseModule(printModule(*mod), path.filename().string() + " (printed)", diag)) return "unprintable\t" + firstLine(diag.render(false));
  return "ok\ttypes " + std::to_string(checked - mismatches.size()) + "/" + std::to_string(checked);
}

int usage() {
  std::fputs("usage: rlx_relay_corpus --expect FILE [--update] [-v] CORPUS_DIR\n", stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string expectFile, root;
  bool update = false, verbose = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--expect" && i + 1 < argc) expectFile = argv[++i];
    else if (a == "--update") update = true;
    else if (a == "-v") verbose = true;
    else if (!a.empty() && a[0] != '-') root = a;
    else return usage();
  }
  if (root.empty() || expectFile.empty()) return usage();
  if (std::getenv("UPDATE_GOLDEN")) update = true;

  std::vector<Case> cases;
  for (auto& row : readTsv(fs::path(root) / "index.tsv"))
    if (row.size() >= 7) cases.push_back({row[0], row[6]});
  for (auto& row : readTsv(fs::path(root) / "zoo" / "index.tsv"))
    if (!row.empty()) cases.push_back({"zoo/" + row[0], "zoo"});

  std::map<std::string, std::string> expected;
  {
    std::ifstream in(expectFile);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      size_t tab = line.find('\t');
      if (tab != std::string::npos) expected[line.substr(0, tab)] = line.substr(tab + 1);
    }
  }

  // Tallies against TVM's verdicts (the goals), and the type-comment oracle.
  std::map<std::string, std::map<std::string, int>> byVerdict;
  int typesChecked = 0, typesAgreed = 0, differences = 0, unknown = 0;
  std::vector<std::pair<std::string, std::string>> results;
  for (auto& c : cases) {
    std::string outcome = run(fs::path(root) / c.file, typesChecked, typesAgreed, verbose);
    results.emplace_back(c.file, outcome);
    byVerdict[c.verdict][outcome.substr(0, outcome.find('\t'))]++;
    auto it = expected.find(c.file);
    if (it == expected.end()) {
      ++unknown;
      if (verbose) std::printf("NEW  %s\t%s\n", c.file.c_str(), outcome.c_str());
    } else if (it->second != outcome) {
      ++differences;
      if (!update) std::printf("DIFF %s\n  expected: %s\n  got:      %s\n", c.file.c_str(), it->second.c_str(), outcome.c_str());
    }
  }
  std::printf("%zu programs; printed types agreeing with rlx's struct info: %d/%d\n", cases.size(), typesAgreed, typesChecked);
  for (auto& [verdict, outcomes] : byVerdict) {
    std::printf("  TVM %-16s", verdict.c_str());
    for (auto& [o, n] : outcomes) std::printf(" %s %d", o.c_str(), n);
    std::printf("\n");
  }
  if (update) {
    std::string tmp = expectFile + ".tmp";
    std::ofstream out(tmp);
    out << "# rlx_relay_corpus: the outcome of reading and importing each corpus program (--update or UPDATE_GOLDEN=1 rewrites it).\n";
    for (auto& [file, outcome] : results) out << file << '\t' << outcome << '\n';
    out.close();
    fs::rename(tmp, expectFile);
    std::printf("wrote %s\n", expectFile.c_str());
    return 0;
  }
  if (unknown) std::printf("%d programs are not in %s (run with --update)\n", unknown, expectFile.c_str());
  if (differences) std::printf("%d programs differ from %s\n", differences, expectFile.c_str());
  return differences || unknown ? 1 : 0;
}
