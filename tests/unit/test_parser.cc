// Parser unit tests: the grammar has no infinite loops (pegtl::analyze), nesting limits turn deep
// input into errors instead of stack overflows, and hand-written forms normalize as TVM's parser does.
#include <catch2/catch.hpp>
#include <tao/pegtl/contrib/analyze.hpp>

#include "grammar/grammar.hpp"
#include "parser/parser.h"
#include "printer/printer.h"

using namespace rlx;

namespace {
std::string roundTrip(const std::string& text, std::string* errors = nullptr) {
  DiagnosticEngine diag;
  auto mod = parseModule(text, "t.relax", diag);
  if (!mod) {
    if (errors) *errors = diag.render(false);
    return "";
  }
  return printModule(mod);
}
const char* kHeader = "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((2,), \"float32\")):\n";
}  // namespace

TEST_CASE("grammar: no rule can loop without consuming input", "[parser]") {
  CHECK(tao::pegtl::analyze<grammar::line>(false) == 0);
}

TEST_CASE("parser: deeply nested brackets are an error, not a crash", "[parser]") {
  std::string deep = std::string(kHeader) + "        y = " + std::string(100000, '(') + "x" + std::string(100000, ')') + "\n        return y\n";
  std::string errors;
  CHECK(roundTrip(deep, &errors).empty());
  CHECK(errors.find("nested too deeply") != std::string::npos);
}

TEST_CASE("parser: long unary chains are bounded too", "[parser]") {
  std::string deep = std::string(kHeader) + "        y = " + std::string(50000, '-') + "1\n        return x\n";
  std::string errors;
  CHECK(roundTrip(deep, &errors).empty());
  CHECK(errors.find("nested too deeply") != std::string::npos);
}

TEST_CASE("parser: garbage bytes give diagnostics", "[parser]") {
  std::string errors;
  CHECK(roundTrip(std::string("\x01\x02\xff@@@ class (((\n\t\tdef", 24), &errors).empty());
  CHECK(!errors.empty());
}

TEST_CASE("parser: an empty file is an empty module", "[parser]") {
  std::string errors;
  std::string out = roundTrip("", &errors);
  CHECK(out == "# from tvm.script import ir as I\n\n@I.ir_module\nclass Module:\n");
}

TEST_CASE("parser: symbolic dims in compound signature strings define and reuse vars", "[parser]") {
  std::string text =
      "@I.ir_module\nclass Module:\n    @R.function\n"
      "    def f(x: R.Tensor((\"n * 2\",), \"float32\"), y: R.Tensor((\"n\",), \"float32\")) -> R.Tensor((\"n * 2\",), \"float32\"):\n"
      "        return x\n";
  std::string out = roundTrip(text);
  CHECK(out.find("def f(x: R.Tensor((\"n * 2\",), dtype=\"float32\"), y: R.Tensor((\"n\",), dtype=\"float32\")) -> R.Tensor((\"n * 2\",), dtype=\"float32\"):\n        n = T.int64()\n        return x") != std::string::npos);
}

TEST_CASE("parser: the return annotation cannot introduce names", "[parser]") {
  std::string errors;
  CHECK(roundTrip("@I.ir_module\nclass Module:\n    @R.function\n    def f(x: R.Tensor((2,), \"float32\")) -> R.Tensor((\"m\",), \"float32\"):\n        return x\n", &errors).empty());
  CHECK(errors.find("name 'm' is not defined") != std::string::npos);
}

TEST_CASE("parser: cls must be assigned before use", "[parser]") {
  std::string errors;
  std::string text =
      "@I.ir_module\nclass Module:\n    @R.function\n    def g(x: R.Tensor((2,), \"float32\")):\n        return x\n"
      "    @R.function\n    def main(x: R.Tensor((2,), \"float32\")):\n        y = cls.g(x)\n        return y\n";
  CHECK(roundTrip(text, &errors).empty());
  CHECK(errors.find("'cls' is used before") != std::string::npos);
}
