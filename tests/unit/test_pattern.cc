// The textual dataflow patterns of FuseOpsByPattern (passes/pattern.h): a table of good and bad
// pattern texts (bad ones with their column), and matches against one dataflow block.
#include <catch2/catch.hpp>

#include "parser/parser.h"
#include "passes/pattern.h"
#include "passes/registry.h"

using namespace rlx;

namespace {

const char* kBlock = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4, 8, 8), "float32"), w: R.Tensor((4, 4, 3, 3), "float32"), h: R.Tensor((2, "n"), "float16")):
        with R.dataflow():
            c = R.nn.conv2d(x, w, padding=(1, 1))
            r = R.nn.relu(c)
            a = R.add(r, r)
            s = R.split(a, 2, axis=1)
            b = R.add(s[0], s[1])
            k = R.add(b, R.const(1.0, "float32"))
            m = R.matmul(h, R.const([[1.0], [2.0]], "float16"))
            R.output(k, m)
        return (k, m)
)";

// Matches `pattern` at the binding of `var` in main's block; the matched vars' names, root first.
std::optional<std::vector<std::string>> matchAt(const std::string& pattern, const std::string& var) {
  static IRModuleRef mod = [] {
    DiagnosticEngine diag;
    return parseModule(kBlock, "pattern_block.relax", diag);
  }();
  REQUIRE(mod);
  auto p = parsePattern(pattern, "test");
  REQUIRE(p.ok());
  auto seq = mod->lookup("main").as<Function>()->body.as<SeqExpr>();
  std::unordered_map<const Var*, Expr> bindings;
  for (auto& b : seq->blocks[0]->bindings) {
    if (b->var->name == var) {
      auto m = matchPattern(*p.value(), *b, bindings);
      if (!m) return std::nullopt;
      std::vector<std::string> names;
      for (auto* v : m->vars) names.push_back(v->name);
      return names;
    }
    bindings[b->var.get()] = b->value;
  }
  FAIL("no binding " << var);
  return std::nullopt;
}

using Names = std::vector<std::string>;

}  // namespace

TEST_CASE("pattern: accepted texts", "[pattern]") {
  for (const char* text : {"_", "*", "const", "nn.relu(_)", "relax.nn.relu(*)", "R.nn.relu(_)", "nn.relu", "add(_, ...)", "concat(...)",
                           "nn.relu(nn.conv2d(_, _) | add(_, _))", "nn.conv2d(_, _){data_layout=\"NCHW\", strides=[1, 1]}",
                           "_:float32", "_ : [1, _, n]", "matmul(_:float16[_, 1024], const)", "x = _; add($x, $x)",
                           "s = split(_); add($s[0], $s[1]);", "(nn.relu(_))", "nn.conv2d(_, _){padding=(1, 1, 1, 1), groups=1, out_dtype='void'}"}) {
    INFO(text);
    auto p = parsePattern(text, "test");
    CHECK(p.ok());
  }
}

TEST_CASE("pattern: bad texts are located errors", "[pattern]") {
  struct Case {
    const char* text;
    uint32_t col;
    const char* message;
  };
  for (auto& c : std::vector<Case>{{"", 0, "empty pattern"},
                                   {"nn.relu(_", 10, "expected ',' or ')' after an argument, got end of pattern"},
                                   {"nn.rleu(_)", 1, "unknown op 'nn.rleu'"},
                                   {"add(_, _) extra", 11, "unexpected 'e' after the pattern"},
                                   {"add(..., _)", 8, "'...' must be the last argument"},
                                   {"_{axis=1}", 2, "attribute constraints apply to op calls only"},
                                   {"nn.conv2d(_, _){layout=1}", 17, "relax.nn.conv2d has no attribute 'layout'"},
                                   {"nn.conv2d(_, _){data_layout=NCHW}", 29, "expected a literal (string, number, True/False/None or a list), got 'NCHW'"},
                                   {"_ : float33", 5, "unknown dtype 'float33'"},
                                   {"_ :", 3, "expected a dtype or a [shape] after ':'"},
                                   {"add($y, _)", 5, "unknown sub-pattern '$y'"},
                                   {"x = _; x = _; $x", 8, "sub-pattern 'x' is defined twice"},
                                   {"x = _", 6, "expected ';' after the definition of 'x'"},
                                   {"split(_)[a]", 10, "expected a tuple field index"},
                                   {"nn.conv2d(_, _){groups=\"1}", 24, "unterminated string"}}) {
    INFO(c.text);
    auto p = parsePattern(c.text, "test");
    REQUIRE(!p.ok());
    CHECK(p.error().message == c.message);
    if (c.col) CHECK(p.error().span.col == c.col);
  }
  // Deep nesting is an error, not a stack overflow.
  std::string deep(100000, '(');
  CHECK(!parsePattern(deep, "test").ok());
}

TEST_CASE("pattern: matching through the block's bindings", "[pattern]") {
  CHECK(matchAt("nn.relu(nn.conv2d(_, _))", "r") == Names{"r", "c"});
  CHECK(matchAt("nn.relu(_)", "r") == Names{"r"});
  CHECK(!matchAt("nn.relu(nn.conv2d(_, _){data_layout=\"NHWC\"})", "r"));
  CHECK(matchAt("nn.relu(nn.conv2d(_, _){data_layout=\"NCHW\", padding=[1, 1, 1, 1]})", "r") == Names{"r", "c"});
  CHECK(matchAt("nn.conv2d(_:float32[1, 4, _, _], _)", "c") == Names{"c"});
  CHECK(!matchAt("nn.conv2d(_:float16, _)", "c"));
  CHECK(matchAt("x = _; add($x, $x)", "a") == Names{"a"});
  CHECK(!matchAt("x = _; add($x, $x)", "b"));
  CHECK(matchAt("s = split(_); add($s[0], $s[1])", "b") == Names{"b", "s", "lv4", "lv5"});  // the parser binds s[i] to lv vars
  CHECK(!matchAt("add(split(_)[1], _)", "b"));
  CHECK(matchAt("add(_, const)", "k") == Names{"k"});
  CHECK(matchAt("add(_, ...)", "k") == Names{"k"});
  CHECK(!matchAt("add(_)", "k"));
  CHECK(matchAt("add(nn.relu(_) | _, _)", "a") == Names{"a", "r"});
  CHECK(matchAt("matmul(_:float16[2, n], const)", "m") == Names{"m"});
  CHECK(!matchAt("matmul(_:[2, 3], const)", "m"));
}

TEST_CASE("pattern: FuseOpsByPattern's option errors", "[pattern][passes]") {
  auto bad = parsePipeline("FuseOpsByPattern(patterns=[(\"a.b\", \"nn.relu(_\")])");
  REQUIRE(!bad.ok());
  CHECK(bad.error().message == "pattern 'a.b', column 10: expected ',' or ')' after an argument, got end of pattern\n    nn.relu(_\n             ^");
  auto notTable = parsePipeline("FuseOpsByPattern(patterns=[\"nn.relu(_)\"])");
  REQUIRE(!notTable.ok());
  CHECK(notTable.error().message.find("a list of (\"name\", \"PATTERN\") tuples") != std::string::npos);
  auto noCodegen = parsePipeline("FuseOpsByPattern(patterns=[(\"relu\", \"nn.relu(_)\")], annotate_codegen=True)");
  REQUIRE(!noCodegen.ok());
  CHECK(noCodegen.error().message.find("must start with its codegen and a dot") != std::string::npos);
  CHECK(parsePipeline("FuseOpsByPattern,MergeComposite,MergeCompositeFunctions,PartitionGraph,MergeCompilerRegions,AnnotateTarget").ok());
}
