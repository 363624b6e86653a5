// syntax::Reader (dataflow bodies read one statement at a time while the IR is built) against the
// whole-file parse it replaces: the same syntax errors in the same order, the same IR.
#include <catch2/catch.hpp>

#include "ir/verifier.h"
#include "parser/parser.h"
#include "parser/syntax.h"
#include "printer/printer.h"

using namespace rlx;

namespace {

std::string render(const DiagnosticEngine& d) { return d.render(false); }

// Syntax errors of `text`: parsed whole (parseFile), or with every `with` body deferred and read
// (partly, `readFirst` statements of each top-level-function dataflow block) before finish().
std::string syntaxErrors(const std::string& text, bool deferred, int readFirst = 0) {
  ast::Arena arena;
  DiagnosticEngine d;
  uint32_t file = sources::add("s.relax", text);
  if (!deferred) {
    syntax::parseFile(text, file, arena, d, 200);
    return render(d);
  }
  syntax::DeferRule all{[](const ast::Stmt&) { return true; }, [](const ast::Stmt&) { return true; }};
  syntax::Reader reader(text, file, arena, 200, all);
  auto top = reader.parseTop();
  std::function<void(const std::vector<ast::Stmt*>&)> visit = [&](const std::vector<ast::Stmt*>& body) {
    for (auto* s : body) {
      if (s->deferred) {
        auto cursor = reader.read(*s, false);
        for (int i = 0; i < readFirst && cursor.next(); ++i) {
        }
      }
      visit(s->body);
    }
  };
  visit(top);
  reader.finish(d);
  return render(d);
}

const char* kBadSyntax = R"(@I.ir_module
class Module:
    @R.function
    def f(x: R.Tensor((2,), "float32")):
        with R.dataflow():
            a = R.add(x, x
            b = R.add(a, a)
                c = 1
            @R.function
            d = )
            e = R.add(b, b)
          g = 3
            R.output(e)
        h = (
        return e

    @R.function
    def g(x: R.Tensor((2,), "float32")):
        with R.dataflow():
            y = R.add(x, x) +
            @bad
        return x
    def h(:
        pass
)";

}  // namespace

TEST_CASE("syntax reader: deferred bodies report the errors of a whole parse, in order", "[parser]") {
  std::string eager = syntaxErrors(kBadSyntax, false);
  REQUIRE(!eager.empty());
  CHECK(syntaxErrors(kBadSyntax, true, 0) == eager);
  CHECK(syntaxErrors(kBadSyntax, true, 1) == eager);
  CHECK(syntaxErrors(kBadSyntax, true, 3) == eager);
  CHECK(syntaxErrors(kBadSyntax, true, 100) == eager);
}

TEST_CASE("syntax reader: parseModule puts syntax errors before the builder's", "[parser]") {
  std::string text = std::string(kBadSyntax) + "\n";
  DiagnosticEngine d;
  CHECK(!parseModule(text, "s.relax", d));
  std::string all = render(d);
  std::string syntax = syntaxErrors(text, false);
  CHECK(all.compare(0, syntax.size(), syntax) == 0);
}

namespace {
std::string printed(const std::string& text, std::string* errors = nullptr) {
  DiagnosticEngine d;
  auto mod = parseModule(text, "t.relax", d);
  if (!mod) {
    if (errors) *errors = render(d);
    return "";
  }
  CHECK(verifyModule(mod).empty());
  return printModule(mod);
}
const char* kHead = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        with R.dataflow():
)";
}  // namespace

TEST_CASE("syntax reader: a streamed dataflow block binds outputs as a whole parse does", "[parser]") {
  // gv is bound twice: only the last binding is the output (a Var); the first stays a DataflowVar,
  // so a use after the block of anything but gv is an error.
  std::string text = std::string(kHead) +
                     "            gv: R.Tensor((2,), dtype=\"float32\") = R.add(x, x)\n"
                     "            lv: R.Tensor((2,), dtype=\"float32\") = R.multiply(gv, x)\n"
                     "            gv: R.Tensor((2,), dtype=\"float32\") = R.add(lv, gv)\n"
                     "            R.output(gv)\n"
                     "        return gv\n";
  // The printer names the second binding apart (gv_1): the two are different vars.
  std::string expected = std::string(kHead) +
                         "            gv: R.Tensor((2,), dtype=\"float32\") = R.add(x, x)\n"
                         "            lv: R.Tensor((2,), dtype=\"float32\") = R.multiply(gv, x)\n"
                         "            gv_1: R.Tensor((2,), dtype=\"float32\") = R.add(lv, gv)\n"
                         "            R.output(gv_1)\n"
                         "        return gv_1\n";
  CHECK(printed(text) == expected);
  std::string errors;
  std::string leak = text;
  leak.replace(leak.rfind("return gv"), 9, "return lv");
  CHECK(printed(leak, &errors).empty());
  CHECK(errors.find("name 'lv' is not defined") != std::string::npos);
}

TEST_CASE("syntax reader: R.output errors are the same in streamed and whole blocks", "[parser]") {
  auto errorOf = [](const std::string& body) {
    std::string errors;
    CHECK(printed(std::string(kHead) + body + "        return x\n", &errors).empty());
    return errors;
  };
  CHECK(errorOf("            y = R.add(x, x)\n            R.output(z)\n").find("'z' is not bound in this dataflow block") != std::string::npos);
  CHECK(errorOf("            y = R.add(x, x)\n            R.output(y, 1)\n").find("R.output takes variable names") != std::string::npos);
  // Without R.output the block outputs nothing (TVM's reading): its names do not leak out.
  CHECK(errorOf("            y = R.add(x, x)\n        z = y\n").find("name 'y' is not defined") != std::string::npos);
  CHECK(errorOf("            R.output(y)\n            y = R.add(x, x)\n").find("R.output(...) must be the last statement") != std::string::npos);
  // `(y) = ...` binds y too (the output count looks through parentheses).
  CHECK(printed(std::string(kHead) + "            (y) = R.add(x, x)\n            R.output(y)\n        return y\n").find("y: R.Tensor") != std::string::npos);
}
