// Verifier tests: one hand-built module per invariant that breaks exactly that invariant, plus
// every corpus module (printed by TVM itself, so well formed by definition) verifying clean.
#include <catch2/catch.hpp>

#include <filesystem>

#include "ir/verifier.h"
#include "parser/parser.h"

using namespace rlx;

namespace {

StructInfo tensor(std::vector<int64_t> dims, DataType t = DataType::float32()) {
  std::vector<PrimExpr> d;
  for (auto x : dims) d.push_back(intImm(x));
  return tensorSInfo(std::move(d), t);
}
StructInfo t23() { return tensor({2, 3}); }
VarRef var(const std::string& name, StructInfo s = t23(), bool dataflow = false) { return make<Var>(name, std::move(s), dataflow); }
BindingRef bind(VarRef v, Expr value) { return make<Binding>(std::move(v), std::move(value)); }
BlockRef block(std::vector<BindingRef> b, bool dataflow = false) { return make<BindingBlock>(std::move(b), dataflow); }
Expr add(Expr a, Expr b) { return makeCall("relax.add", {std::move(a), std::move(b)}); }
Expr seq(std::vector<BlockRef> blocks, Expr body) { return make<SeqExpr>(std::move(blocks), std::move(body)); }
FunctionRef func(std::vector<VarRef> params, Expr body, StructInfo ret = t23(), bool pure = true, AttrsRef attrs = nullptr) {
  return make<Function>(std::move(params), std::move(body), std::move(ret), pure, std::move(attrs));
}
IRModuleRef moduleOf(std::vector<std::pair<std::string, Expr>> fns) {
  auto mod = make<IRModule>();
  for (auto& [name, f] : fns) mod->functions.push_back({make<GlobalVar>(name), f});
  return mod;
}

std::string joined(const std::vector<Error>& errs) {
  std::string s;
  for (auto& e : errs) s += e.message + "\n";
  return s;
}

// Exactly one error, and it names invariant `id`.
void requireOnly(const IRModuleRef& mod, const std::string& id) {
  auto errs = verifyModule(mod);
  INFO(joined(errs));
  REQUIRE(errs.size() == 1);
  CHECK(errs[0].message.rfind("[" + id + "] ", 0) == 0);
  CHECK(errs[0].message.find("(in ") != std::string::npos);
}

}  // namespace

TEST_CASE("verifier: a well-formed function is clean", "[verifier]") {
  auto x = var("x"), y = var("y");
  auto f = func({x}, seq({block({bind(y, add(x, x))})}, y));
  auto errs = verifyModule(moduleOf({{"main", f}}));
  INFO(joined(errs));
  CHECK(errs.empty());
}

TEST_CASE("verifier: [V1] use before definition", "[verifier]") {
  auto x = var("x"), a = var("a"), b = var("b");
  auto f = func({x}, seq({block({bind(a, add(x, b)), bind(b, add(x, x))})}, a));
  requireOnly(moduleOf({{"main", f}}), "V1");
  auto errs = verifyModule(moduleOf({{"main", f}}));
  CHECK(errs[0].message == "[V1] variable 'b' is used before it is defined (in function 'main')");
}

TEST_CASE("verifier: [V1] a branch's bindings are not visible after the if", "[verifier]") {
  auto c = var("c", tensor({}, DataType::boolean())), x = var("x");
  auto t = var("t"), u = var("u"), r = var("r"), y = var("y");
  auto ifExpr = make<If>(c, seq({block({bind(t, add(x, x))})}, t), seq({block({bind(u, add(x, x))})}, u));
  auto f = func({c, x}, seq({block({bind(r, ifExpr), bind(y, add(t, x))})}, y));
  requireOnly(moduleOf({{"main", f}}), "V1");
}

TEST_CASE("verifier: [V2] dataflow vars", "[verifier]") {
  auto x = var("x");
  SECTION("bound outside a dataflow block") {
    auto lv = var("lv", t23(), true), gv = var("gv");
    auto f = func({x}, seq({block({bind(lv, add(x, x)), bind(gv, add(lv, x))})}, gv));
    requireOnly(moduleOf({{"main", f}}), "V2");
  }
  SECTION("used after its block") {
    auto lv = var("lv", t23(), true), gv = var("gv");
    auto f = func({x}, seq({block({bind(lv, add(x, x))}, true), block({bind(gv, add(lv, x))})}, gv));
    requireOnly(moduleOf({{"main", f}}), "V2");
  }
  SECTION("a dataflow parameter") {
    auto p = var("p", t23(), true);
    auto f = func({p}, seq({}, p));
    requireOnly(moduleOf({{"main", f}}), "V2");
  }
}

TEST_CASE("verifier: [V3] a var bound twice", "[verifier]") {
  auto x = var("x"), a = var("a");
  auto f = func({x}, seq({block({bind(a, add(x, x)), bind(a, add(x, x))})}, a));
  requireOnly(moduleOf({{"main", f}}), "V3");
}

TEST_CASE("verifier: [V4] annotation stronger than inference", "[verifier]") {
  auto x = var("x"), a = var("a", tensor({2, 4}));
  auto f = func({x}, seq({block({bind(a, add(x, x))})}, x));
  requireOnly(moduleOf({{"main", f}}), "V4");
  // A refinement of the inferred info is what TVM accepts as a runtime-checked annotation; only
  // strict mode rejects it.
  auto x2 = var("x2", make<TensorSInfo>(nullptr, DataType::float32(), 2)), c = var("c");
  auto h = func({x2}, seq({block({bind(c, add(x2, x2))})}, c));
  CHECK(verifyModule(moduleOf({{"main", h}})).empty());
  VerifyOptions strict;
  strict.strictAnnotations = true;
  auto errs = verifyModule(moduleOf({{"main", h}}), strict);
  REQUIRE(errs.size() == 1);
  CHECK(errs[0].message.rfind("[V4] ", 0) == 0);
  // Weaker annotations are fine: R.Object forgets everything.
  auto b = var("b", objectSInfo());
  auto g = func({x}, seq({block({bind(b, add(x, x))})}, x));
  CHECK(verifyModule(moduleOf({{"main", g}})).empty());
}

TEST_CASE("verifier: [V5] symbolic vars", "[verifier]") {
  auto n = make<PrimVar>("n", DataType::int64());
  SECTION("undefined") {
    auto x = var("x"), s = var("s", make<ShapeSInfo>(std::vector<PrimExpr>{n}, 1));
    auto f = func({x}, seq({block({bind(s, make<ShapeExpr>(std::vector<PrimExpr>{n}))})}, x));
    requireOnly(moduleOf({{"main", f}}), "V5");
  }
  SECTION("defined by match_cast") {
    auto x = var("x", make<TensorSInfo>(nullptr, DataType::float32(), 1));
    auto target = tensorSInfo({n}, DataType::float32());
    auto y = var("y", target), s = var("s", make<ShapeSInfo>(std::vector<PrimExpr>{n}, 1));
    auto f = func({x}, seq({block({make<Binding>(y, x, target), bind(s, make<ShapeExpr>(std::vector<PrimExpr>{n}))})}, y), target);
    auto errs = verifyModule(moduleOf({{"main", f}}));
    INFO(joined(errs));
    CHECK(errs.empty());
  }
}

TEST_CASE("verifier: [V6] unknown global", "[verifier]") {
  auto x = var("x"), a = var("a");
  auto call = make<Call>(make<GlobalVar>("missing"), std::vector<Expr>{x}, nullptr, std::vector<StructInfo>{t23()});
  auto f = func({x}, seq({block({bind(a, call)})}, a));
  requireOnly(moduleOf({{"main", f}}), "V6");
}

TEST_CASE("verifier: [V7] function level", "[verifier]") {
  auto x = var("x");
  SECTION("body is not a SeqExpr") { requireOnly(moduleOf({{"main", func({x}, x)}}), "V7"); }
  SECTION("a return struct info that does not describe the body is accepted, as by TVM") {
    auto p = var("p", tensor({2, 4}));
    CHECK(verifyModule(moduleOf({{"main", func({p}, seq({}, p))}})).empty());
  }
  SECTION("force_pure on an impure function") {
    auto attrs = makeDictAttrs({{"relax.force_pure", AttrValue::boolean(true)}});
    requireOnly(moduleOf({{"main", func({x}, seq({}, x), t23(), false, attrs)}}), "V7");
  }
}

TEST_CASE("verifier: [V8] if condition", "[verifier]") {
  auto x = var("x"), r = var("r");
  auto ifExpr = make<If>(x, seq({}, x), seq({}, x));
  auto f = func({x}, seq({block({bind(r, ifExpr)})}, r));
  requireOnly(moduleOf({{"main", f}}), "V8");
}

TEST_CASE("verifier: [V9] TIR scoping and block bindings", "[verifier]") {
  auto handle = make<PrimVar>("A_handle", DataType::handle());
  auto buf = make<Buffer>();
  buf->name = "A";
  buf->shape = {intImm(4)};
  buf->data = make<PrimVar>("A_data", DataType::handle());
  auto i = make<PrimVar>("i", DataType::int64());
  auto loopOver = [&](Stmt body) {
    auto loop = make<For>();
    loop->loopVar = i;
    loop->min = intImm(0);
    loop->extent = intImm(4);
    loop->body = std::move(body);
    return loop;
  };
  auto primFunc = [&](Stmt body) {
    auto pf = make<PrimFunc>();
    pf->params = {handle};
    pf->bufferMap = {{handle, buf}};
    pf->body = std::move(body);
    return pf;
  };
  SECTION("clean") {
    auto pf = primFunc(loopOver(make<BufferStore>(buf, floatImm(0), std::vector<PrimExpr>{i})));
    CHECK(verifyModule(moduleOf({{"k", pf}})).empty());
  }
  SECTION("undefined variable") {
    auto j = make<PrimVar>("j", DataType::int64());
    requireOnly(moduleOf({{"k", primFunc(loopOver(make<BufferStore>(buf, floatImm(0), std::vector<PrimExpr>{j})))}}), "V9");
  }
  SECTION("loop var used after its loop") {
    auto body = make<SeqStmt>(std::vector<Stmt>{loopOver(make<Evaluate>(intImm(0))), make<BufferStore>(buf, floatImm(0), std::vector<PrimExpr>{i})});
    requireOnly(moduleOf({{"k", primFunc(body)}}), "V9");
  }
  SECTION("undefined buffer") {
    auto other = make<Buffer>();
    other->name = "B";
    other->shape = {intImm(4)};
    requireOnly(moduleOf({{"k", primFunc(loopOver(make<BufferStore>(other, floatImm(0), std::vector<PrimExpr>{i})))}}), "V9");
  }
  SECTION("iter var count mismatch") {
    auto blk = make<TirBlock>();
    blk->name = "b";
    auto vi = make<PrimVar>("vi", DataType::int64());
    blk->iterVars = {IterVar{vi, Range{intImm(0), intImm(4)}}};
    blk->body = make<BufferStore>(buf, floatImm(0), std::vector<PrimExpr>{vi});
    auto realize = make<BlockRealize>();
    realize->predicate = boolImm(true);
    realize->block = blk;
    requireOnly(moduleOf({{"k", primFunc(loopOver(realize))}}), "V9");
  }
}

TEST_CASE("verifier: every corpus module verifies clean", "[verifier]") {
  std::string dir = std::string(RLX_SOURCE_DIR) + "/tests/corpus";
  std::vector<std::string> files;
  for (auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".relax") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  REQUIRE(!files.empty());
  for (auto& path : files) {
    DiagnosticEngine diag;
    auto mod = parseFile(path, diag);
    INFO(path << "\n" << diag.render());
    REQUIRE(mod);
    auto errs = verifyModule(mod);
    INFO(joined(errs));
    CHECK(errs.empty());
  }
}

TEST_CASE("verifier: [V9] buffer_map shapes bind together (a composite dim before its vars' buffer)", "[verifier]") {
  // The kernel LegalizeOps makes for reshaping a flat (n * m,) tensor back to (n, m).
  DiagnosticEngine diag;
  auto mod = parseModule(R"(@I.ir_module
class Module:
    @T.prim_func(private=True)
    def reshape(var_flat: T.handle, var_out: T.handle):
        n = T.int64()
        m = T.int64()
        flat = T.match_buffer(var_flat, (n * m,))
        out = T.match_buffer(var_out, (n, m))
        for i, j in T.grid(n, m):
            with T.block("out"):
                vi, vj = T.axis.remap("SS", [i, j])
                out[vi, vj] = flat[vi * m + vj]
)", "k.relax", diag);
  REQUIRE(mod);
  auto errs = verifyModule(mod);
  INFO(joined(errs));
  CHECK(errs.empty());
}
