// TIR round-trip tests: T.prim_func snippets and every PrimFunc TVM printed in the corpus and the
// lowering reference parse (syntax::parseFile + buildPrimFunc) and print back byte for byte.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "parser/build_tir.h"
#include "parser/syntax.h"
#include "printer/print_context.h"

using namespace rlx;

namespace {

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool isPrimFuncDecorator(const ast::Expr* d, bool& isPrivate) {
  const ast::Expr* callee = d->kind == ast::Expr::Call ? d->a : d;
  if (callee->dottedName() != "T.prim_func") return false;
  isPrivate = false;
  if (d->kind == ast::Expr::Call)
    for (auto* a : d->items)
      if (a->kind == ast::Expr::Keyword && a->str == "private" && a->a->kind == ast::Expr::Bool) isPrivate = a->a->b;
  return true;
}

struct Printed {
  std::vector<std::string> texts;  // one per PrimFunc found
  std::string errors;
};

// Parses `text`, builds every @T.prim_func (top level or inside a class) and prints each one at
// the indentation it had (1 inside a class).
Printed roundTrip(const std::string& text, const std::string& name = "test.py") {
  Printed out;
  DiagnosticEngine diag;
  ast::Arena arena;
  uint32_t file = sources::add(name, text);
  auto stmts = syntax::parseFile(text, file, arena, diag, 200);
  std::function<void(const std::vector<ast::Stmt*>&, int)> walk = [&](const std::vector<ast::Stmt*>& list, int indent) {
    for (auto* s : list) {
      if (s->kind == ast::Stmt::ClassDef) walk(s->body, indent + 1);
      if (s->kind != ast::Stmt::FunctionDef) continue;
      bool priv = false, isTir = false;
      for (auto* d : s->decorators) isTir |= isPrimFuncDecorator(d, priv);
      if (!isTir) continue;
      auto f = buildPrimFunc({s, priv, s->name}, diag);
      if (!f) continue;
      PrintOptions opts;
      PrintContext ctx(opts);
      ctx.indent = indent;
      printPrimFunc(ctx, *f, s->name);
      out.texts.push_back(ctx.out);
    }
  };
  walk(stmts, 0);
  out.errors = diag.render();
  return out;
}

std::string roundTripOne(const std::string& text) {
  auto p = roundTrip(text);
  INFO(p.errors);
  REQUIRE(p.errors.empty());
  REQUIRE(p.texts.size() == 1);
  return p.texts[0];
}

// A snippet that must print back exactly as written (modulo the trailing newline).
void checkSame(const std::string& text) {
  std::string printed = roundTripOne(text);
  CHECK(printed == text);
}

std::string errorsOf(const std::string& text) {
  auto p = roundTrip(text);
  return p.errors;
}

}  // namespace

TEST_CASE("tir: buffer params, grid, remap, reads/writes", "[tir]") {
  checkSame(R"(@T.prim_func(private=True)
def add(x: T.Buffer((T.int64(2), T.int64(3)), "float32"), y: T.Buffer((T.int64(2), T.int64(3)), "float32"), T_add: T.Buffer((T.int64(2), T.int64(3)), "float32")):
    T.func_attr({"tir.noalias": True})
    # with T.block("root"):
    for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
        with T.block("T_add"):
            v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(x[v_ax0, v_ax1], y[v_ax0, v_ax1])
            T.writes(T_add[v_ax0, v_ax1])
            T_add[v_ax0, v_ax1] = x[v_ax0, v_ax1] + y[v_ax0, v_ax1]
)");
}

TEST_CASE("tir: reads/writes are inferred when omitted", "[tir]") {
  std::string in = R"(@T.prim_func(private=True)
def matmul(x: T.Buffer((2, 3), "float32"), w: T.Buffer((3, 4), "float32"), out: T.Buffer((2, 4), "float32")):
    for i, j, k in T.grid(2, 4, 3):
        with T.block("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                out[vi, vj] = 0
            out[vi, vj] = out[vi, vj] + x[vi, vk] * w[vk, vj]
)";
  CHECK(roundTripOne(in) == R"(@T.prim_func(private=True)
def matmul(x: T.Buffer((2, 3), "float32"), w: T.Buffer((3, 4), "float32"), out: T.Buffer((2, 4), "float32")):
    # with T.block("root"):
    for i, j, k in T.grid(2, 4, 3):
        with T.block("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(x[vi, vk], w[vk, vj])
            T.writes(out[vi, vj])
            with T.init():
                out[vi, vj] = T.float32(0.0)
            out[vi, vj] = out[vi, vj] + x[vi, vk] * w[vk, vj]
)");
}

TEST_CASE("tir: handle params, match_buffer, shape var decls", "[tir]") {
  checkSame(R"(@T.prim_func
def relu(var_x: T.handle, var_compute: T.handle):
    T.func_attr({"tir.noalias": True})
    n, m = T.int64(), T.int64()
    x = T.match_buffer(var_x, (n, m))
    compute = T.match_buffer(var_compute, (n, m), "int32", strides=(m, 1), scope="shared", offset_factor=1)
    # with T.block("root"):
    for i0, i1 in T.grid(n, m):
        with T.block("compute"):
            v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
            T.reads(x[v_i0, v_i1])
            T.writes(compute[v_i0, v_i1])
            compute[v_i0, v_i1] = T.Cast("int32", T.max(x[v_i0, v_i1], T.float32(0.0)))
)");
  // global_symbol differing from the name is shown; scalar params
  checkSame(R"(@T.prim_func
def shift(var_x: T.handle, offset: T.int64):
    T.func_attr({"global_symbol": "other"})
    n = T.int64()
    x = T.match_buffer(var_x, (n,))
    # with T.block("root"):
    for i in range(n):
        with T.block("shift"):
            vi = T.axis.spatial(n, i)
            T.reads(x[vi])
            T.writes(x[vi])
            x[vi] = x[vi] + T.Cast("float32", offset)
)");
}

TEST_CASE("tir: alloc buffers, lone axes, where, block_attr, lets", "[tir]") {
  checkSame(R"(@T.prim_func(private=True)
def f(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "int64")):
    # with T.block("root"):
    C = T.alloc_buffer((16,))
    D = T.alloc_buffer((4, 4), "bool", scope="local")
    for i in range(2, 10):
        for j in T.parallel(4):
            with T.block("b"):
                vi = T.axis.spatial(8, i - 2)
                vj, vk = T.axis.remap("RS", [j, i])
                vl = T.axis.spatial((2, 10), i + 0)
                T.where(i + j < 12)
                T.reads(A[vi:vi + 4])
                T.writes(C[vi])
                T.block_attr({"axis": 3, "name": "x"})
                t: T.float32 = A[vi] * T.float32(2.0)
                u: T.int32 = vj + 1
                C[vi] = t + T.Cast("float32", u)
    for k in T.serial(16, annotations={"pragma_unroll": 4}):
        with T.block("c"):
            vk = T.axis.spatial(16, k)
            T.reads()
            T.writes(B[vk])
            B[vk] = T.int64(3)
)");
}

TEST_CASE("tir: block-free bodies, if/else, evaluate, vector slices", "[tir]") {
  checkSame(R"(@T.prim_func
def shape_func(H: T.Buffer((T.int64(6),), "int64")):
    T.func_attr({"tir.is_host_func": True})
    H[T.int64(5)] = T.int64(4) * H[T.int64(0)] * T.int64(768)
    H[T.int64(4)] = T.int64(12288) * H[T.int64(0)]
)");
  checkSame(R"(@T.prim_func(private=True)
def g(A: T.Buffer((16,), "float32"), n: T.int32):
    for i in T.vectorized(4):
        if i < n:
            A[i] = T.float32(1.0)
        else:
            A[i] = T.Select(n == 0, T.float32(2.0), T.exp(A[i]))
    A[0:8] = A[8:16]
    A[0:8:2] = A[1:9:2]
    T.evaluate(n)
    T.call_extern("int32", "foo", n)
)");
  checkSame(R"(@T.prim_func(private=True)
def empty():
    T.evaluate(0)
)");
}

TEST_CASE("tir: inferred regions relax inner loops and map matched buffers to their source", "[tir]") {
  std::string in = R"(@T.prim_func(private=True)
def h(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("outer"):
            vi = T.axis.spatial(16, i)
            for k in range(4):
                B[vi] = B[vi] + A[vi, k * 4] + A[vi, k * 4 + 1]
    for i in range(4):
        with T.block("m"):
            vi = T.axis.spatial(4, i)
            sub = T.match_buffer(A[vi * 4:vi * 4 + 4, 0:16], (4, 16))
            sub[0, 0] = T.float32(1.0)
)";
  CHECK(roundTripOne(in) == R"(@T.prim_func(private=True)
def h(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
    # with T.block("root"):
    for i in range(16):
        with T.block("outer"):
            vi = T.axis.spatial(16, i)
            T.reads(B[vi], A[vi, 0:14])
            T.writes(B[vi])
            for k in range(4):
                B[vi] = B[vi] + A[vi, k * 4] + A[vi, k * 4 + 1]
    for i in range(4):
        with T.block("m"):
            vi = T.axis.spatial(4, i)
            T.reads()
            T.writes(A[vi * 4, 0])
            sub = T.match_buffer(A[vi * 4:vi * 4 + 4, 0:16], (4, 16))
            sub[0, 0] = T.float32(1.0)
)");
}

TEST_CASE("tir: loop kinds, scoped lets, buffer kwargs", "[tir]") {
  checkSame(R"(@T.prim_func(private=True)
def g(var_A: T.handle, n: T.int32):
    m = T.int32()
    A = T.match_buffer(var_A, (m, m * 2), align=32)
    for i in T.unroll(n):
        with T.LetStmt(i + 1) as v:
            A[v, 0] = T.float32(1.0)
        if i < 3:
            A[i, 0] = T.if_then_else(i == 0, T.float32(2.0), A[i, 0])
        A[i, 0] = T.float32(0.0)
    for j in T.thread_binding(4, thread="threadIdx.x"):
        A[0, j] = T.float32(3.0)
)");
}

TEST_CASE("tir: T.Let declares its variable before the statement", "[tir]") {
  checkSame(R"(@T.prim_func(private=True)
def h(A: T.Buffer((4,), "int32")):
    for i in range(4):
        v = T.int32()
        A[i] = T.Let(v + 1, where={v: i * 2})
)");
}

TEST_CASE("tir: parser normalizations", "[tir]") {
  std::string in = R"(@T.prim_func(private=True)
def n(A: T.Buffer((4,), "float32")):
    T.evaluate(0)
    A[0] = 1
    x = A[1] + 2.0
    A[2] = x
)";
  CHECK(roundTripOne(in) == R"(@T.prim_func(private=True)
def n(A: T.Buffer((4,), "float32")):
    A[0] = T.float32(1.0)
    x: T.float32 = A[1] + T.float32(2.0)
    A[2] = x
)");
}

TEST_CASE("tir: errors have messages and spans", "[tir]") {
  auto e = errorsOf(R"(@T.prim_func(private=True)
def bad(A: T.Buffer((4,), "float32")):
    A[0] = B[1]
    A[1, 2] = 1
    for i in T.grid(4):
        with T.block("x"):
            vi = T.axis.spatial(4, i)
            T.where(vi < 2)
            A[vi] = 0
)");
  CHECK(e.find("name 'B' is not defined") != std::string::npos);
  CHECK(e.find("has 1 dimension(s) but is indexed with 2") != std::string::npos);
  CHECK(e.find("T.where takes loop variables") != std::string::npos);
  CHECK(e.find("test.py:3:") != std::string::npos);
  auto e2 = errorsOf(R"(@T.prim_func(private=True)
def bad2(A: T.Buffer((4,), "float32"), x):
    T.reads(A[0])
    y = T.alloc_buffer((4,))
    A[0:4:0] = A[0:4]
    for i in range(4):
        vi = T.axis.spatial(4, i)
        j = T.axis.remap("S", [i + 1])
    A[1] = undefined_name + 1
    A[2] = y
)");
  CHECK(e2.find("parameter 'x' needs a type annotation") != std::string::npos);
  CHECK(e2.find("T.reads(...) is only allowed directly inside a T.block") != std::string::npos);
  CHECK(e2.find("constant positive step") != std::string::npos);
  CHECK(e2.find("T.axis.spatial(...) is only allowed directly inside a T.block") != std::string::npos);
  CHECK(e2.find("name 'undefined_name' is not defined") != std::string::npos);
}

// Every PrimFunc TVM printed in the corpus and the lowering reference must print back unchanged.
TEST_CASE("tir: corpus and lowering-reference PrimFuncs round-trip", "[tir][corpus]") {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (auto* dir : {"/work/shared/corpus", "/work/shared/lowering-reference/01_mlp", "/work/shared/lowering-reference/03_gpt2_block_dyn"}) {
    if (!fs::exists(dir)) continue;
    for (auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".relax") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  size_t total = 0;
  for (auto& path : files) {
    std::string text = readText(path);
    auto p = roundTrip(text, path);
    INFO(path << "\n" << p.errors);
    CHECK(p.errors.empty());
    for (auto& t : p.texts) {
      ++total;
      INFO(t);
      CHECK(text.find(t) != std::string::npos);
    }
  }
  WARN("round-tripped " << total << " PrimFuncs from " << files.size() << " files");
}
