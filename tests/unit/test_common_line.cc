// The common-line fast path (parseCommonLine) against the PEGTL line grammar: wherever the fast
// path accepts a line, the grammar builds the same tree, node for node and span for span.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "parser/line_parser.h"

using namespace rlx;
using ast::Expr;

namespace {

std::string spanText(const Span& s) {
  return std::to_string(s.file) + ":" + std::to_string(s.line) + ":" + std::to_string(s.col) + "+" + std::to_string(s.len);
}

// The first difference between two trees as "path: what", or "" when they are the same.
std::string diffExpr(const Expr* x, const Expr* y, const std::string& path) {
  if (!x || !y) return (x == y) ? "" : path + ": one side is null";
  if (x->kind != y->kind) return path + ": kind " + std::to_string(x->kind) + " vs " + std::to_string(y->kind);
  if (std::memcmp(&x->span, &y->span, sizeof(Span)) != 0) return path + ": span " + spanText(x->span) + " vs " + spanText(y->span);
  if (x->str != y->str) return path + ": str '" + x->str + "' vs '" + y->str + "'";
  if (x->i != y->i || std::memcmp(&x->d, &y->d, sizeof(double)) != 0 || x->b != y->b) return path + ": value";
  if (x->ops != y->ops) return path + ": ops";
  if (x->items.size() != y->items.size()) return path + ": " + std::to_string(x->items.size()) + " vs " + std::to_string(y->items.size()) + " items";
  for (size_t k = 0; k < x->items.size(); ++k)
    if (auto d = diffExpr(x->items[k], y->items[k], path + ".items[" + std::to_string(k) + "]"); !d.empty()) return d;
  for (auto [f, name] : {std::pair{&Expr::a, ".a"}, {&Expr::b2, ".b2"}, {&Expr::c, ".c"}})
    if (auto d = diffExpr(x->*f, y->*f, path + name); !d.empty()) return d;
  return "";
}

std::string diffStmt(const ast::Stmt* x, const ast::Stmt* y) {
  if (x->kind != y->kind) return "stmt kind";
  if (std::memcmp(&x->span, &y->span, sizeof(Span)) != 0) return "stmt span " + spanText(x->span) + " vs " + spanText(y->span);
  if (auto d = diffExpr(x->target, y->target, "target"); !d.empty()) return d;
  if (auto d = diffExpr(x->annotation, y->annotation, "annotation"); !d.empty()) return d;
  return diffExpr(x->value, y->value, "value");
}

struct Outcome {
  bool accepted = false;
  std::string diff;  // "" when accepted and the grammar agrees
};

// The fast path on one logical line, checked against the grammar when it accepts.
Outcome check(std::string_view line, uint32_t file, uint32_t offset) {
  ast::Arena fastArena, grammarArena;
  auto fast = syntax::parseCommonLine(line, file, offset, fastArena, 200);
  if (!fast) return {};
  auto slow = syntax::parseLineWithGrammar(line, file, offset, grammarArena, 200);
  if (!slow.ok()) return {true, "the grammar rejects it: " + slow.error().message};
  if (slow.value().kind != fast->kind) return {true, "line kind"};
  return {true, diffStmt(fast->stmt, slow.value().stmt)};
}

// Every logical line of `text`; returns how many the fast path accepted.
size_t checkSource(const std::string& name, const std::string& text) {
  uint32_t file = sources::add(name, text);
  DiagnosticEngine diag;
  size_t accepted = 0;
  for (const auto& l : syntax::splitLines(text, file, diag, 200)) {
    if (l.length == 0) continue;
    std::string_view line = std::string_view(text).substr(l.offset, l.length);
    Outcome o = check(line, file, l.offset);
    INFO(name << ": " << line);
    CHECK(o.diff == "");
    accepted += o.accepted;
  }
  return accepted;
}

std::string readFile(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("common line: the same tree as the grammar on every corpus and golden line", "[syntax][common_line]") {
  size_t accepted = 0, files = 0;
  for (const char* dir : {"/tests/corpus", "/tests/corpus_lowering", "/tests/corpus_nn", "/tests/golden/parse", "/tests/golden/errors"}) {
    for (auto& e : std::filesystem::directory_iterator(std::string(RLX_SOURCE_DIR) + dir)) {
      if (e.path().extension() != ".relax") continue;
      accepted += checkSource(e.path().string(), readFile(e.path()));
      ++files;
    }
  }
  CHECK(files > 50);
  CHECK(accepted > 1000);  // the fast path does take most binding lines
}

TEST_CASE("common line: accepted shapes match the grammar, the rest is left to it", "[syntax][common_line]") {
  // Lines the fast path must take (each also compared with the grammar).
  const char* taken[] = {
      "lv: R.Tensor((1, n, 768), dtype=\"float32\") = R.nn.layer_norm(x, w, b, axes=[-1], epsilon=1.0000000000000001e-05, center=True, scale=True)",
      "q = parts[0]",
      "x = y",
      "R.output(gv)",
      "x: R.Tensor",
      "c = R.const(-1000000000.0, \"float32\")",
      "t = (a, b,)",
      "t = (a,)",
      "t = ()",
      "t = (a)",
      "l = [1, 2.5, .5, 1., 1e3, 'str', None, False]",
      "s = x[0, 1,]",
      "f = g(a,)(b)[c].d",
      "v = R.call_tir(cls.add, (x, y), out_sinfo=R.Tensor((2, 3), dtype=\"float32\"))",
      "y = f(a, # comment\n      b)",
      "y = f(a, \\\n b)",
      "y = f (a) . b [ 0 ]",
      "y = - 1",
      "y = f(k = 2)",
      "None",
  };
  uint32_t file = sources::add("common_line.relax", "");
  for (const char* line : taken) {
    INFO(line);
    Outcome o = check(line, file, 0);
    CHECK(o.accepted);
    CHECK(o.diff == "");
  }
  // Lines it must leave to the grammar (other statement forms, operators, escapes, slices, errors).
  const char* left[] = {
      "return x", "with R.dataflow():", "def f(x):", "@R.function", "if c:", "a, b = t", "x = a, b", "x = a + b",
      "x = a == b", "x = -a ** 2", "x = --a", "x = f(*a)", "x = y[1:2]", "x = {'a': 1}", "x = \"a\\n\"", "x = 'a' 'b'",
      "x = \"\"\"doc\"\"\"", "x = lambda a: a", "x = a if c else b", "x = not a", "x = 1abc", "x = 1e", "x = 99999999999999999999",
      "x = y = z", "x == y", "x = f(", "x = f(a b)", "x = y.", "x = y.if", "x = []]", "x: T: U", " x = y", "x = f(a)(", "x = y[]",
      "x = f(if=1)",
  };
  for (const char* line : left) {
    INFO(line);
    CHECK_FALSE(check(line, file, 0).accepted);
  }
}

TEST_CASE("common line: nesting beyond the depth limit is left to the grammar", "[syntax][common_line]") {
  std::string deep = "x = " + std::string(300, '[') + std::string(300, ']');
  ast::Arena arena;
  uint32_t file = sources::add("deep.relax", deep);
  CHECK_FALSE(syntax::parseCommonLine(deep, file, 0, arena, 200));
  std::string ok = "x = " + std::string(50, '[') + std::string(50, ']');
  CHECK(check(ok, file, 0).accepted);
}

TEST_CASE("ast: dottedName joins a name chain and is empty for anything else", "[syntax][common_line]") {
  ast::Arena arena;
  uint32_t file = sources::add("dotted.relax", "");
  auto callee = [&](const char* line) { return syntax::parseLineWithGrammar(line, file, 0, arena, 200).value().stmt->value->a; };
  CHECK(callee("R.nn.layer_norm(x)")->dottedName() == "R.nn.layer_norm");
  CHECK(callee("f(x)")->dottedName() == "f");
  CHECK(callee("a.b.c.d.e(x)")->dottedName() == "a.b.c.d.e");
  CHECK(callee("g(x).y(z)")->dottedName() == "");
  CHECK(callee("x[0].y(z)")->dottedName() == "");
}

TEST_CASE("common line: mutated corpus lines, wherever the fast path accepts one, match the grammar", "[syntax][common_line]") {
  // Single-byte edits of real lines reach the corners (a quote, bracket or operator appearing or
  // disappearing mid-line); deterministic, so a failure reproduces.
  std::vector<std::string> lines;
  for (const char* dir : {"/tests/corpus", "/tests/golden/parse"}) {
    for (auto& e : std::filesystem::directory_iterator(std::string(RLX_SOURCE_DIR) + dir)) {
      if (e.path().extension() != ".relax") continue;
      std::string text = readFile(e.path());
      DiagnosticEngine diag;
      uint32_t file = sources::add(e.path().string(), text);
      for (const auto& l : syntax::splitLines(text, file, diag, 200))
        if (l.length) lines.emplace_back(text.substr(l.offset, l.length));
    }
  }
  REQUIRE(!lines.empty());
  const std::string alphabet = "()[]{},:=.-+*/\\\"'#\n\t 0123456789eExnRT_;@!<>%&|~";
  std::mt19937 rng(12345);
  uint32_t file = sources::add("mutated.relax", "");
  size_t accepted = 0;
  for (int k = 0; k < 20000; ++k) {
    std::string line = lines[rng() % lines.size()];
    int edits = 1 + int(rng() % 3);
    for (int j = 0; j < edits && !line.empty(); ++j) {
      size_t at = rng() % line.size();
      char c = alphabet[rng() % alphabet.size()];
      switch (rng() % 3) {
        case 0: line[at] = c; break;
        case 1: line.insert(line.begin() + long(at), c); break;
        default: line.erase(at, 1);
      }
    }
    Outcome o = check(line, file, 0);
    INFO(line);
    CHECK(o.diff == "");
    accepted += o.accepted;
  }
  CHECK(accepted > 1000);
}
