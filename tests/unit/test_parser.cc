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
  static const char garbage[] = "\x01\x02\xff@@@ class (((\n\t\tdef";
  CHECK(roundTrip(std::string(garbage, sizeof garbage - 1), &errors).empty());
  CHECK(!errors.empty());
}

TEST_CASE("parser: an empty file is an error; an empty module class is an empty module", "[parser]") {
  std::string errors;
  CHECK(roundTrip("", &errors).empty());
  CHECK(errors.find("1:1: error: no module or function found") != std::string::npos);
  CHECK(roundTrip("# only a comment\n", &errors).empty());
  std::string out = roundTrip("@I.ir_module\nclass Module:\n    pass\n", &errors);
  CHECK(out == "# from tvm.script import ir as I\n\n@I.ir_module\nclass Module:\n    pass\n");
}

TEST_CASE("parser: tabs mixed with spaces in indentation is Python's TabError", "[parser]") {
  std::string errors;
  CHECK(roundTrip("@R.function\ndef f(x: R.Tensor((2,), \"float32\")):\n    y = x\n\treturn y\n", &errors).empty());
  CHECK(errors.find("4:1: error: inconsistent use of tabs and spaces in indentation") != std::string::npos);
  // ... and, as Python's, the only error: nothing after it is parsed.
  CHECK(errors.find("error:") == errors.rfind("error:"));
}

TEST_CASE("parser: indexing a tuple literal gives the element, as Python does", "[parser]") {
  // The Inline pass can print `(A, B)[0]`; it must re-parse (parser fuzzer finding).
  std::string out = roundTrip(std::string(kHeader) + "        y = (x, x)[1]\n        return y\n");
  CHECK(out.find("y: R.Tensor((2,), dtype=\"float32\") = x") != std::string::npos);
}

TEST_CASE("parser: a negative static dimension is an error", "[parser]") {
  std::string errors;
  CHECK(roundTrip("@R.function\ndef f(x: R.Tensor((-2,), \"float32\")):\n    return x\n", &errors).empty());
  CHECK(errors.find("2:20: error: a tensor dimension cannot be negative (-2)") != std::string::npos);
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

TEST_CASE("parser: 'did you mean' ties go to the most recent binding, innermost scope first", "[parser]") {
  // 'ad' is one edit from both 'ab' and 'ac': the later binding is suggested, whatever the hashing.
  std::string errors;
  std::string text = std::string(kHeader) + "        ab = R.add(x, x)\n        ac = R.add(ab, x)\n        y = R.add(ac, ad)\n        return y\n";
  CHECK(roundTrip(text, &errors).empty());
  CHECK(errors.find("name 'ad' is not defined") != std::string::npos);
  CHECK(errors.find("did you mean 'ac'?") != std::string::npos);
  // Names a dataflow block does not output are gone after it: only the output is suggested.
  std::string df = std::string(kHeader) +
                   "        with R.dataflow():\n            ab = R.add(x, x)\n            ac = R.add(ab, x)\n            R.output(ab)\n"
                   "        y = R.add(ab, ad)\n        return y\n";
  errors.clear();
  CHECK(roundTrip(df, &errors).empty());
  CHECK(errors.find("did you mean 'ab'?") != std::string::npos);
}

TEST_CASE("parser: cls must be assigned before use", "[parser]") {
  std::string errors;
  std::string text =
      "@I.ir_module\nclass Module:\n    @R.function\n    def g(x: R.Tensor((2,), \"float32\")):\n        return x\n"
      "    @R.function\n    def main(x: R.Tensor((2,), \"float32\")):\n        y = cls.g(x)\n        return y\n";
  CHECK(roundTrip(text, &errors).empty());
  CHECK(errors.find("'cls' is used before") != std::string::npos);
}

#include "parser/line_parser.h"

namespace {
// S-expression of a syntax tree, to check precedence and associativity.
std::string sexpr(const ast::Expr* e) {
  using K = ast::Expr::Kind;
  switch (e->kind) {
    case K::Name: return e->str;
    case K::Int: return std::to_string(e->i);
    case K::BinOp: return "(" + e->str + " " + sexpr(e->a) + " " + sexpr(e->b2) + ")";
    case K::UnaryOp: return "(" + e->str + " " + sexpr(e->a) + ")";
    case K::BoolOp:
    case K::Compare: {
      std::string s = "(" + (e->kind == K::BoolOp ? e->str : std::string("cmp"));
      for (size_t i = 0; i < e->items.size(); ++i) {
        if (e->kind == K::Compare && i) s += " " + e->ops[i - 1];
        s += " " + sexpr(e->items[i]);
      }
      return s + ")";
    }
    case K::IfExp: return "(if " + sexpr(e->b2) + " " + sexpr(e->a) + " " + sexpr(e->c) + ")";
    case K::Call: return "(call " + sexpr(e->a) + ")";
    case K::Attribute: return sexpr(e->a) + "." + e->str;
    default: return "?";
  }
}
std::string parseExprLine(const std::string& text) {
  ast::Arena arena;
  auto r = syntax::parseLine(text, 0, 0, arena, 200);
  if (!r.ok()) return "error: " + r.error().message;
  return sexpr(r.value().stmt->value);
}
}  // namespace

TEST_CASE("grammar: Python precedence and associativity", "[parser]") {
  CHECK(parseExprLine("a - b - c") == "(- (- a b) c)");
  CHECK(parseExprLine("a + b * c") == "(+ a (* b c))");
  CHECK(parseExprLine("a // b * c % d") == "(% (* (// a b) c) d)");
  CHECK(parseExprLine("-a ** 2") == "(- (** a 2))");
  CHECK(parseExprLine("a ** b ** c") == "(** a (** b c))");
  CHECK(parseExprLine("a ** -b") == "(** a (- b))");
  CHECK(parseExprLine("-a * b") == "(* (- a) b)");
  CHECK(parseExprLine("not a == b and c or d") == "(or (and (not (cmp a == b)) c) d)");
  CHECK(parseExprLine("a < b <= c") == "(cmp a < b <= c)");
  CHECK(parseExprLine("a and b and c") == "(and a b c)");
  CHECK(parseExprLine("p or q and r") == "(or p (and q r))");
  CHECK(parseExprLine("a | b ^ c & d << e + f") == "(| a (^ b (& c (<< d (+ e f)))))");
  CHECK(parseExprLine("a if c else b if d else e") == "(if c a (if d b e))");
  CHECK(parseExprLine("x not in y") == "(cmp x not in y)");
  CHECK(parseExprLine("- - - a") == "(- (- (- a)))");
  CHECK(parseExprLine("T.max(a, b).c") == "(call T.max).c");
}

TEST_CASE("parser: a float attribute given as quoted inf / -inf / nan (how the printer writes them) reads back", "[parser]") {
  // Found by the ONNX fuzzer: MaxPool's Indices pad X with -inf, printed pad_value="-inf", which
  // did not re-parse.
  std::string text = std::string(kHeader) + "        y = R.nn.pad(x, pad_width=[1, 1], pad_value=\"-inf\")\n        return y\n";
  std::string errors;
  std::string printed = roundTrip(text, &errors);
  INFO(errors);
  REQUIRE(!printed.empty());
  CHECK(printed.find("pad_value=\"-inf\"") != std::string::npos);
  CHECK(roundTrip(printed) == printed);
  CHECK(roundTrip(std::string(kHeader) + "        y = R.nn.pad(x, pad_width=[1, 1], pad_value=\"nan\")\n        return y\n") != "");
  CHECK(roundTrip(std::string(kHeader) + "        y = R.nn.pad(x, pad_width=[1, 1], pad_value=\"infinity\")\n        return y\n") == "");
}

TEST_CASE("printer: a constant with a zero-size dim before its last dim goes to the sidecar", "[printer]") {
  // Found by the ONNX fuzzer: (1, 0, 5) printed as R.const([[]]) re-parsed as shape (1, 0).
  auto data = make<NDArray>(DataType::int64(), std::vector<int64_t>{1, 0, 5});
  auto c = make<Constant>(data);
  c->sinfo = tensorSInfo({intImm(1), intImm(0), intImm(5)}, DataType::int64());
  auto f = make<Function>(std::vector<VarRef>{}, c, c->sinfo, true, AttrsRef());
  auto mod = make<IRModule>();
  mod->functions.push_back({make<GlobalVar>("main"), f});
  std::vector<NDArrayRef> metadata;
  PrintOptions opts;
  opts.metadataOut = &metadata;
  std::string text = printModule(mod, opts);
  CHECK(metadata.size() == 1);
  CHECK(text.find("metadata[\"relax.expr.Constant\"][0]") != std::string::npos);
  auto flat = make<NDArray>(DataType::int64(), std::vector<int64_t>{2, 0});
  auto c2 = make<Constant>(flat);
  c2->sinfo = tensorSInfo({intImm(2), intImm(0)}, DataType::int64());
  mod->functions[0].func = make<Function>(std::vector<VarRef>{}, c2, c2->sinfo, true, AttrsRef());
  metadata.clear();
  CHECK(printModule(mod, opts).find("metadata") == std::string::npos);  // [[], []] says (2, 0)
}
