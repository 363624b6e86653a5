// The Relay reader (frontend/relay/read*.cc): Relay's lexical rules as TVM v0.19 applies them,
// scoping of lets and graph variables, the shapes of the syntax tree, and located errors.
#include <catch2/catch.hpp>

#include "frontend/relay/relay.h"

using rlx::Error;
using rlx::renderError;
using namespace rlx::relay;

namespace {

Module readOk(const std::string& text) {
  auto m = readRelayText(text, "test.relay");
  if (!m) FAIL(renderError(m.error()));
  return std::move(*m);
}

Error readBad(const std::string& text) {
  auto m = readRelayText(text, "test.relay");
  REQUIRE_FALSE(m.ok());
  return m.error();
}

// The scalar an expression file consists of.
const Expr& body(const Module& m) {
  REQUIRE(m.body);
  return *m.body;
}

}  // namespace

TEST_CASE("relay reader: number literals follow Relay's lexer", "[relay]") {
  auto scalar = [](const std::string& text) {
    Module m = readOk(text);
    REQUIRE(m.body->kind == Expr::Scalar);
    return std::make_pair(m.body->dtype, m.body->dtype.rfind("float", 0) == 0 ? m.body->f : double(m.body->i));
  };
  CHECK(scalar("42") == std::make_pair(std::string("int32"), 42.0));
  CHECK(scalar("--10") == std::make_pair(std::string("int32"), 10.0));   // an even run of '-' cancels
  CHECK(scalar("---10") == std::make_pair(std::string("int32"), -10.0));
  CHECK(scalar("2147483648") == std::make_pair(std::string("int64"), 2147483648.0));  // widened silently
  CHECK(scalar("42i16") == std::make_pair(std::string("int16"), 42.0));
  CHECK(scalar("42i64") == std::make_pair(std::string("int64"), 42.0));
  CHECK(scalar("1e-05f") == std::make_pair(std::string("float32"), double(1e-05)));
  CHECK(scalar("3f16") == std::make_pair(std::string("float16"), 3.0));
  CHECK(scalar("0.1f64") == std::make_pair(std::string("float64"), 0.1));
  CHECK(scalar("-inff").second == -std::numeric_limits<double>::infinity());
  CHECK(scalar("True") == std::make_pair(std::string("bool"), 1.0));

  Error e = readBad("#[version = \"0.0.5\"]\n2.5");
  CHECK(e.message == "invalid integer number `2.5`");
  CHECK(e.hint == "a float literal needs the `f` suffix in Relay: `2.5f`");
  CHECK(e.span.line == 2);
  CHECK(e.span.col == 1);
  CHECK(readBad("1-1").message == "invalid integer number `1-1`");
  CHECK(readBad("2147483648i32").message == "integer literal `2147483648i32` does not fit in int32");
  CHECK(readBad("65505f16").message == "floating-point literal `65505f16` is out of the range of float16");
  CHECK(readBad("3.40283e+38f32").message == "floating-point literal `3.40283e+38f32` is out of the range of float32");
}

TEST_CASE("relay reader: operators are left-associative calls by precedence", "[relay]") {
  // 1 + 2 * 3 - 4 == add... : subtract(add(1, multiply(2, 3)), 4), then equal(_, 0)
  Module m = readOk("1 + 2 * 3 - 4 == 0");
  const Expr& eq = body(m);
  REQUIRE(eq.kind == Expr::Call);
  CHECK(eq.kids[0]->name == "equal");
  const Expr& sub = *eq.kids[1];
  CHECK(sub.kids[0]->name == "subtract");
  const Expr& add = *sub.kids[1];
  CHECK(add.kids[0]->name == "add");
  CHECK(add.kids[2]->kids[0]->name == "multiply");
}

TEST_CASE("relay reader: lets, graph bindings and sequences form one flat Let", "[relay]") {
  Module m = readOk(R"(#[version = "0.0.5"]
free_var %x: Tensor[(3), float32];
%0 = exp(%x);
let %y = %0;
%y; (%0, %y))");
  REQUIRE(m.freeVars.size() == 1);
  const Expr& let = body(m);
  REQUIRE(let.kind == Expr::Let);
  REQUIRE(let.bindings.size() == 3);
  CHECK(m.binders[size_t(let.bindings[0].first)].graph);
  CHECK(m.binders[size_t(let.bindings[1].first)].name == "y");
  CHECK(m.binders[size_t(let.bindings[2].first)].name.empty());  // `%y;`
  const Expr& tuple = *let.kids[0];
  REQUIRE(tuple.kind == Expr::Tuple);
  CHECK(tuple.kids[0]->binder == let.bindings[0].first);  // %0 resolves to its binding
  CHECK(tuple.kids[1]->binder == let.bindings[1].first);
}

TEST_CASE("relay reader: scopes of if branches and closures", "[relay]") {
  Error e = readBad("if (True) {\n  let %x = ();\n  ()\n} else {\n  %x\n}");
  CHECK(e.message == "the local variable %x has not been declared");
  CHECK(e.span.line == 5);
  // A let is visible in its own value (recursive closures).
  Module m = readOk("let %f = fn (%n: int32) -> int32 { %f(%n) }; %f");
  CHECK(m.body->kind == Expr::Let);
}

TEST_CASE("relay reader: a graph variable bound twice is refused, not aliased", "[relay]") {
  Error e = readBad("#[version = \"0.0.5\"]\ndef @f(%x: float32) { %0 = exp(%x); %0 }\ndef @g(%y: float32) { %0 = log(%y); %0 }\n");
  CHECK(e.message == "graph variable %0 is bound a second time (first at line 2)");
  CHECK(e.span.line == 3);
}

TEST_CASE("relay reader: types, attributes and printed type comments", "[relay]") {
  Module m = readOk(R"(#[version = "0.0.5"]
def @main(%d: Tensor[(?, 3), float32] /* ty=Tensor[(?, 3), float32] */, %t: (Tensor[(2), int32], bool), %f: fn (int32) -> int32) -> Tensor[(?, 3), float32] {
  nn.softmax(%d, axis=1) /* ty=Tensor[(?, 3), float32] span=string:3:3 */
}
)");
  REQUIRE(m.functions.size() == 1);
  const Function& fn = m.functions[0].fn;
  REQUIRE(fn.params.size() == 3);
  const Binder& d = m.binders[size_t(fn.params[0])];
  REQUIRE(d.type);
  CHECK(d.type->kind == Type::Tensor);
  CHECK(d.type->shape[0].kind == Dim::Any);
  CHECK(d.type->shape[1].value == 3);
  REQUIRE(d.printed);
  CHECK(d.printed->dtype == "float32");
  CHECK(m.binders[size_t(fn.params[1])].type->kind == Type::Tuple);
  CHECK(m.binders[size_t(fn.params[2])].type->kind == Type::Func);
  const Expr& call = *fn.body;
  REQUIRE(call.kind == Expr::Call);
  REQUIRE(call.attrs.size() == 1);
  CHECK(call.attrs[0].first == "axis");
  CHECK(call.attrs[0].second.i == 1);
  REQUIRE(call.printed);  // `span=` is cut off the comment
  CHECK(call.printed->shape.size() == 2);
}

TEST_CASE("relay reader: nested comments, metadata and missing meta entries", "[relay]") {
  readOk("/* outer /* inner */ still a comment */ 1");
  Error open = readBad("1 /* a /* b */\n2");
  CHECK(open.message == "unterminated comment (/* without */)");
  CHECK(open.span.col == 3);
  Error e = readBad("#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(3), float32]) {\n  add(%x, meta[relay.Constant][0])\n}\n");
  CHECK(e.message == "no meta table entry meta[relay.Constant][0]");
  CHECK(e.span.line == 3);
  CHECK(e.span.col == 11);
  // With the table supplied from outside (TVM's init_meta_table) the program reads.
  MetaTable table;
  MetaValue c;
  c.kind = MetaValue::Constant;
  c.typeKey = "relay.Constant";
  c.array = rlx::make<rlx::NDArray>(rlx::DataType::float32(), std::vector<int64_t>{3});
  table["relay.Constant"].push_back(c);
  ReadOptions options;
  options.externalMeta = &table;
  auto m = readRelayText("#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(3), float32]) {\n  add(%x, meta[relay.Constant][0])\n}\n", "t.relay", options);
  REQUIRE(m.ok());
  CHECK(m->functions[0].fn.body->kids[2]->meta->array->shape[0] == 3);
}

TEST_CASE("relay reader: definitions need the version header (a headerless file is one expression)", "[relay]") {
  // tvm.parser.parse requires the header; parse_expr (no header needed) has no definitions.
  Error e = readBad("\n  def @id(%x: int32) -> int32 { %x }\n");
  CHECK(e.message == "definitions need the `#[version = \"0.0.5\"]` header first");
  CHECK(e.span.line == 2);
  CHECK(e.span.col == 3);
  Error t = readBad("type Ayy { Lmao }\n");
  CHECK(t.span.line == 1);
  CHECK(t.span.col == 1);
  Module m = readOk("#[version = \"0.0.5\"]\ndef @id(%x: int32) -> int32 { %x }\n");
  CHECK(m.functions.size() == 1);
  CHECK(body(readOk("let %x = 1; %x")).kind == Expr::Let);
}

TEST_CASE("relay reader: a meta[...] dimension names its metadata entry", "[relay]") {
  const char* prog = "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(meta[tir.SizeVar][0], 3), float32]) {\n  %x\n}\n";
  Error e = readBad(prog);
  CHECK(e.message == "no meta table entry meta[tir.SizeVar][0]");
  CHECK(e.span.line == 2);
  CHECK(e.span.col == 23);
  MetaTable table;
  MetaValue n;
  n.kind = MetaValue::SymVar;
  n.typeKey = "tir.SizeVar";
  n.name = "n";
  n.dtype = "int32";
  table["tir.SizeVar"].push_back(n);
  ReadOptions options;
  options.externalMeta = &table;
  auto m = readRelayText(prog, "t.relay", options);
  REQUIRE(m.ok());
  const Type& t = *m->binders[size_t(m->functions[0].fn.params[0])].type;
  REQUIRE(t.shape.size() == 2);
  CHECK(t.shape[0].kind == Dim::Meta);
  REQUIRE(t.shape[0].meta);
  CHECK(t.shape[0].meta->name == "n");
  CHECK(t.shape[1].kind == Dim::Int);
  CHECK(t.shape[1].value == 3);
}

TEST_CASE("relay reader: ADTs and match are read (the importer refuses them)", "[relay]") {
  Module m = readOk(R"(#[version = "0.0.5"]
type List[A] {
  Cons(A, List[A]),
  Nil,
}

def @len[A](%xs: List[A]) -> int32 {
  let %m: int32 = match (%xs) {
    Cons(_, %rest: List[A]) => {
      1
    },
    Nil => {
      0
    },
  };
  %m
}
)");
  REQUIRE(m.types.size() == 1);
  CHECK(m.types[0].ctors.size() == 2);
  const Expr& let = *m.functions[0].fn.body;
  REQUIRE(let.kind == Expr::Let);
  CHECK(let.bindings[0].second->kind == Expr::Match);  // TVM's own parser cannot read this
  CHECK(let.bindings[0].second->arms.size() == 2);
}

TEST_CASE("relay reader: bad input is located, never a crash", "[relay]") {
  CHECK(readBad("#[version = \"0.0.5\"]\ndef @main(%x: float32 {\n  %x\n}\n").message == "expected ')'");
  CHECK(readBad("").message == "the file has no definition and no expression");
  CHECK(readBad("nn.pad(1, pad_mode=\"constant)").message == "unterminated string");
  CHECK(readBad("(1\r2)").message == "a carriage return must be followed by a newline");
  CHECK(readBad(std::string(1000, '(')).message == "brackets nested more than 400 deep");
  CHECK(readBad("#[version = \"0.0.4\"]\n1").message == "unsupported Relay version \"0.0.4\"");
}
