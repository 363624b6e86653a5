// runtime/llvm kernels checked against the TIR interpreter on the same inputs: every LegalizeOps
// case of legalize_cases.h, hand-written TIR, the entry checks' codes and messages, and the cache.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>

#include "runtime/jit.h"
#include "llvm_test_util.h"
#include "runtime/llvm/schedule_alloc.h"
#include "runtime/llvm/schedule_inline.h"
#include "runtime/llvm/schedule_partition.h"
#include "tests/unit/legalize_cases.h"

using namespace rlx;
using namespace rlx::test::legalize;

namespace {

// Runs the case's kernel through runPrimFunc and through the JIT; "" when they agree.
std::string jitAgrees(const Case& c, uint32_t seed) {
  Prepared p;
  if (auto e = prepare(c, seed, p); !e.empty()) return e;
  auto st = runPrimFunc(*p.kernel, p.args);
  if (!st.ok()) return "runPrimFunc: " + st.error().message;
  auto kernel = compileKernel(p.kernel, "case");
  if (!kernel.ok()) return "compileKernel: " + kernel.error().message;
  auto outs = p.freshOutputs();
  auto run = runKernel(**kernel, *p.kernel, p.argsWith(outs));
  if (!run.ok()) return "runKernel: " + run.error().message;
  return compareOutputs(c, outs, p.outputs, p.inputs, "jit", "interpreter");
}

void check(const Case& c) {
  for (uint32_t seed : {1u, 2u}) {
    INFO(c.params << " -> " << c.call << " (seed " << seed << ")");
    CHECK(jitAgrees(c, seed) == "");
  }
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The error of running `f` through the JIT ("" on success).
std::string jitError(const PrimFuncRef& f, const std::vector<TirArg>& args) {
  auto kernel = compileKernel(f, "errors");
  if (!kernel.ok()) return "compileKernel: " + kernel.error().message;
  auto run = runKernel(**kernel, *f, args);
  return run.ok() ? "" : run.error().message;
}



}  // namespace

TEST_CASE("llvm kernels: binary arithmetic with broadcasting and symbolic dims", "[llvm]") { binaryArithmeticCases(check); }
TEST_CASE("llvm kernels: division, floor division, floor_mod and power", "[llvm]") { divisionCases(check); }
TEST_CASE("llvm kernels: integer divide (truncates, as tir Div)", "[llvm]") { integerDivideCases(check); }
TEST_CASE("llvm kernels: comparisons and logical ops", "[llvm]") { comparisonCases(check); }
TEST_CASE("llvm kernels: unary math", "[llvm]") { unaryMathCases(check); }
TEST_CASE("llvm kernels: round on exact halves, predicates on NaN and infinities", "[llvm]") { roundingAndPredicateCases(check); }
TEST_CASE("llvm kernels: clip, astype, where", "[llvm]") { clipAstypeWhereCases(check); }
TEST_CASE("llvm kernels: matmul", "[llvm]") { matmulCases(check); }
TEST_CASE("llvm kernels: activations, softmax, layer_norm", "[llvm]") { activationCases(check); }
TEST_CASE("llvm kernels: reshape, permute_dims, expand_dims, squeeze", "[llvm]") { layoutCases(check); }

TEST_CASE("llvm kernels: layout_transform (splits with and without padding, fusions, permutations)", "[llvm]") { layoutTransformCases(check); }

TEST_CASE("llvm kernels: grad.* backward kernels (take, nll_loss, max/avg_pool2d)", "[llvm]") { gradCases(check); }
TEST_CASE("llvm kernels: split and concat", "[llvm]") { splitConcatCases(check); }
TEST_CASE("llvm kernels: creation and tril/triu", "[llvm]") { creationCases(check); }
TEST_CASE("llvm kernels: reductions", "[llvm]") { reductionCases(check); }

TEST_CASE("llvm kernels: odd and zero-size dims, narrow and wide dtypes", "[llvm]") {
  check({"x: " + T("(0, 5)") + ", y: " + T("(5,)"), "R.add(x, y)", {{0, 5}, {5}}});
  check({"x: " + T("(\"n\", 3)") + ", y: " + T("(1, 3)"), "R.multiply(x, y)", {{0, 3}, {1, 3}}});
  check({"x: " + T("(\"n\", 4)"), "R.sum(x, axis=[0])", {{0, 4}}});
  // Reductions of no iteration still write their init (tir_empty_reduction.h): sums of 0, a K = 0
  // matmul of zeros, constant and symbolic.
  check({"x: " + T("(4, 0)"), "R.sum(x, axis=[1])", {{4, 0}}});
  check({"a: " + T("(4, 0)") + ", b: " + T("(0, 5)"), "R.matmul(a, b)", {{4, 0}, {0, 5}}});
  check({"a: " + T("(3, \"k\")") + ", b: " + T("(\"k\", 6)"), "R.matmul(a, b)", {{3, 0}, {0, 6}}});
  check({"a: " + T("(17, 33)") + ", b: " + T("(33, 9)"), "R.matmul(a, b)", {{17, 33}, {33, 9}}});
  check({"a: " + T("(5, 7)", "float64") + ", b: " + T("(7, 3)", "float64"), "R.matmul(a, b)", {{5, 7}, {7, 3}}});
  check({"x: " + T("(13, 31)"), "R.nn.softmax(x)", {{13, 31}}, -4, 4});
  check({"x: " + T("(3, 7)", "float64"), "R.nn.softmax(x)", {{3, 7}}, -4, 4});
  for (const char* dt : {"int8", "uint8", "int64"})
    for (const char* op : {"add", "subtract", "multiply", "maximum"})
      check({"x: " + T("(3, 5)", dt) + ", y: " + T("(5,)", dt), std::string("R.") + op + "(x, y)", {{3, 5}, {5}}, 0, 120});
  for (const char* op : {"add", "multiply", "divide", "maximum"})
    check({"x: " + T("(4, 9)", "float16") + ", y: " + T("(9,)", "float16"), std::string("R.") + op + "(x, y)", {{4, 9}, {9}}, 0.5, 4});
  for (const char* op : {"exp", "sqrt", "tanh"}) check({"x: " + T("(2, 11)", "float16"), std::string("R.") + op + "(x)", {{2, 11}}, 0.1, 3});
  check({"x: " + T("(3, 7)", "float16"), "R.astype(x, \"float32\")", {{3, 7}}});
  check({"x: " + T("(3, 7)", "float64"), "R.astype(x, \"float16\")", {{3, 7}}});
  check({"x: " + T("(3, 7)"), "R.astype(x, \"int8\")", {{3, 7}}, -300, 300});
  check({"x: " + T("(3, 7)", "bool"), "R.astype(x, \"float32\")", {{3, 7}}});
  check({"x: " + T("(3, 1)", "bool") + ", y: " + T("(3, 4)", "bool"), "R.equal(x, y)", {{3, 1}, {3, 4}}});
}

TEST_CASE("llvm kernels: hand-written TIR agrees with the interpreter", "[llvm]") {
  SECTION("integer semantics: truncdiv/floordiv, wrap-around, shifts, bitwise, select") {
    auto f = parsePrim(R"(@T.prim_func(private=True)
def ints(a: T.int32, b: T.int32, out: T.Buffer((T.int64(12),), "int32")):
    out[0] = T.truncdiv(a, b)
    out[1] = T.truncmod(a, b)
    out[2] = a // b
    out[3] = a % b
    out[4] = T.min(a, b)
    out[5] = T.max(a, b)
    out[6] = T.Cast("int32", T.Cast("int8", a * 40))
    out[7] = T.shift_right(a, 1)
    out[8] = T.Cast("int32", T.shift_right(T.Cast("uint32", a), 28))
    out[9] = T.bitwise_and(a, 6) + T.bitwise_xor(b, 1)
    out[10] = a * 1073741824
    out[11] = T.Select(a < b, 1, 2) + T.if_then_else(a > b, 10, 20)
)");
    for (int a : {-7, 7, 0, -2147483647 - 1, 123456})
      for (int b : {2, -2, 3, -1, 7, -5}) {
        INFO(a << " op " << b);
        CHECK(agree(f, {TirArg(a), TirArg(b), zeros({12}, DataType::int32())}) == "");
      }
    CHECK(contains(jitError(f, {TirArg(1), TirArg(0), zeros({12}, DataType::int32())}), "integer division by zero"));
  }
  SECTION("float precision, casts and rounding") {
    auto f = parsePrim(R"(@T.prim_func(private=True)
def floats(x: T.float32, out: T.Buffer((T.int64(9),), "float64"), iout: T.Buffer((T.int64(4),), "int32")):
    out[0] = T.Cast("float64", x + T.float32(0.2))
    out[1] = T.Cast("float64", T.round(T.float32(2.5)))
    out[2] = T.Cast("float64", T.round(T.float32(3.5)))
    out[3] = T.Cast("float64", T.nearbyint(x))
    out[4] = T.Cast("float64", T.floor(x * T.float32(0.3)))
    out[5] = T.Cast("float64", T.pow(T.float32(2.0), x))
    out[6] = T.Cast("float64", T.fmod(T.float32(7.5), x))
    out[7] = T.Cast("float64", T.trunc(x * T.float32(3.0)))
    out[8] = T.Cast("float64", T.Cast("float16", x + T.float32(0.0001)))
    iout[0] = T.Cast("int32", x * T.float32(-2.7))
    iout[1] = T.Cast("int32", T.isnan(x - x)) + T.Cast("int32", T.isinf(T.float32(1.0) / x)) * 10
    iout[2] = T.Cast("int32", x * T.float32(3.0e10))
    iout[3] = T.Cast("int32", T.float32(-1.0) / T.float32(0.0) < x)
)");
    for (double x : {0.1, -0.5, 2.5, 0.0, 1.0009765625, -3.7e5})
      CHECK(agree(f, {TirArg(x), zeros({9}, DataType::float64()), zeros({4}, DataType::int32())}) == "");
  }
  SECTION("float exp and sigmoid: inline polynomials within a few ulp of libm's") {
    auto f = parsePrim(R"(@T.prim_func(private=True)
def transcendentals(x: T.float32, out: T.Buffer((T.int64(2),), "float32")):
    out[0] = T.exp(x)
    out[1] = T.sigmoid(x)
)");
    for (double x : {0.1, -0.5, 2.5, 0.0, 1.0009765625, -3.7e5, 80.0, -80.0})
      CHECK(agree(f, {TirArg(x), zeros({2})}) == "");
  }
  SECTION("T.where, if/else, lets, loops with a start, T.Assert") {
    auto f = parsePrim(R"(@T.prim_func(private=True)
def misc(A: T.Buffer((T.int64(6),), "float32"), n: T.int64):
    for i in T.serial(T.int64(1), T.int64(5)):
        with T.block("w"):
            vi = T.axis.spatial(T.int64(6), i)
            T.where(i < n)
            A[vi] = T.float32(1.0)
    for i in range(T.int64(6)):
        v: T.int64 = i * T.int64(2)
        if v >= T.int64(8):
            A[i] = A[i] + T.float32(10.0)
        else:
            A[i] = A[i] + T.Cast("float32", v)
    T.Assert(n < T.int64(4), "n must be small")
)");
    CHECK(agree(f, {zeros({6}), TirArg(3)}) == "");
    CHECK(agree(f, {zeros({6}), TirArg(0)}) == "");
    CHECK(jitError(f, {zeros({6}), TirArg(4)}) == "T.Assert failed: n must be small");
  }
  SECTION("match_buffer views, alloc_buffer scratch, strides and elem_offset") {
    auto view = parsePrim(R"(@T.prim_func(private=True)
def view(A: T.Buffer((T.int64(3), T.int64(4)), "float32"), B: T.Buffer((T.int64(3),), "float32")):
    tmp = T.alloc_buffer((T.int64(3),))
    for i in range(T.int64(3)):
        with T.block("row"):
            vi = T.axis.spatial(T.int64(3), i)
            sub = T.match_buffer(A[vi, T.int64(1):T.int64(3)], (T.int64(2),))
            tmp[vi] = sub[0] + sub[1]
            sub[0] = T.float32(0.0)
    for i in range(T.int64(3)):
        with T.block("copy"):
            vi = T.axis.spatial(T.int64(3), i)
            B[vi] = tmp[vi]
)");
    CHECK(agree(view, {filled(DataType::float32(), {3, 4}, 1), zeros({3})}) == "");
    auto padded = parsePrim(R"(@T.prim_func(private=True)
def padded(A: T.Buffer((T.int64(2), T.int64(3)), "float32"), B: T.Buffer((T.int64(2), T.int64(3)), "float32")):
    tmp = T.alloc_buffer((T.int64(2), T.int64(3)), strides=(T.int64(5), T.int64(1)), elem_offset=T.int64(2))
    for i, j in T.grid(T.int64(2), T.int64(3)):
        with T.block("t"):
            vi, vj = T.axis.remap("SS", [i, j])
            tmp[vi, vj] = A[vi, vj] * T.float32(3.0)
    for i, j in T.grid(T.int64(2), T.int64(3)):
        with T.block("b"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = tmp[vi, vj] + T.float32(1.0)
)");
    CHECK(agree(padded, {filled(DataType::float32(), {2, 3}, 2), zeros({2, 3})}) == "");
    auto fill = parsePrim(R"(@T.prim_func(private=True)
def fill(n: T.int64, var_A: T.handle, B: T.Buffer((T.int64(2), T.int64(3)), "float32", strides=(T.int64(3), T.int64(1)))):
    s0 = T.int64()
    s1 = T.int64()
    A = T.match_buffer(var_A, (n, T.int64(3)), strides=(s0, s1))
    for i, j in T.grid(n, T.int64(3)):
        A[i, j] = T.Cast("float32", i * s0 + j * s1 + n)
)");
    CHECK(agree(fill, {TirArg(2), zeros({2, 3}), zeros({2, 3})}) == "");
    CHECK(jitError(fill, {TirArg(3), zeros({2, 3}), zeros({2, 3})}) == "buffer 'A' dim 0 does not match 'n' (from parameter 'n')");
  }
  SECTION("vector stores with Ramp indices and Broadcast values; T.Let and reinterpret") {
    auto vec = parsePrim(R"(@T.prim_func(private=True)
def vec(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    B[0:4] = A[4:8] + T.Broadcast(T.float32(1.0), 4)
    B[4:8] = T.Broadcast(A[0], 4)
)");
    CHECK(agree(vec, {filled(DataType::float32(), {8}, 3), zeros({8})}) == "");
    auto pow2 = parsePrim(R"(@T.prim_func(private=True)
def pow2(out: T.Buffer((T.int64(2),), "float32")):
    x = T.int32()
    out[0] = T.reinterpret("float32", T.shift_left(T.Cast("int32", T.float32(3) + T.float32(127)), 23))
    out[1] = T.Let(T.reinterpret("float32", T.shift_left(x, 23)), where={x: T.Cast("int32", T.float32(-2) + T.float32(127))})
)");
    auto out = zeros({2});
    CHECK(agree(pow2, {out}) == "");
  }
  SECTION("element dtypes wrap and round like the interpreter") {
    auto f = parsePrim(R"(@T.prim_func(private=True)
def dt(A: T.Buffer((3,), "int8"), B: T.Buffer((3,), "uint8"), H: T.Buffer((2,), "float16"), U: T.Buffer((2,), "uint64"), F: T.Buffer((2,), "bfloat16")):
    A[0] = A[1] + A[2]
    B[0] = B[1] - B[2]
    H[0] = H[0] + H[1]
    U[0] = U[1] // T.uint64(3)
    F[0] = F[1] * T.bfloat16(3.0)
)");
    auto u = zeros({2}, DataType(DataType::UInt, 64));
    u->setInt(1, -1);
    auto bf = zeros({2}, DataType(DataType::BFloat, 16));
    bf->setDouble(1, 1.0078125);
    auto h = zeros({2}, DataType(DataType::Float, 16));
    h->setDouble(0, 2048);
    h->setDouble(1, 1);
    auto a = zeros({3}, DataType(DataType::Int, 8));
    a->setInt(1, 100);
    a->setInt(2, 100);
    auto b = zeros({3}, DataType(DataType::UInt, 8));
    b->setInt(1, 1);
    b->setInt(2, 2);
    CHECK(agree(f, {a, b, h, u, bf}) == "");
  }
  SECTION("legalized and fused kernels from the lowering corpus") {
    std::string mlp = readFile(std::string(RLX_SOURCE_DIR) + "/tests/corpus_lowering/01_mlp__01_LegalizeOps.relax");
    REQUIRE(!mlp.empty());
    CHECK(agree(parsePrim(mlp, "matmul2"), {filled(DataType::float32(), {1, 64}, 4), filled(DataType::float32(), {64, 10}, 5), zeros({1, 10})}) == "");
    CHECK(agree(parsePrim(mlp, "softmax"), {filled(DataType::float32(), {1, 10}, 6), zeros({1, 10})}) == "");
    std::string gpt = readFile(std::string(RLX_SOURCE_DIR) + "/tests/corpus_lowering/03_gpt2_block_dyn__05_FuseTIR.relax");
    REQUIRE(!gpt.empty());
    auto mask = parsePrim(gpt, "fused_matmul1_multiply_ones_triu_greater_where");
    auto minusInf = zeros({});
    minusInf->setDouble(0, -1e9);
    CHECK(agree(mask, {filled(DataType::float32(), {1, 12, 3, 64}, 7), filled(DataType::float32(), {1, 12, 64, 3}, 8), minusInf, zeros({1, 12, 3, 3})}) == "");
    auto ln = parsePrim(gpt, "layer_norm");
    CHECK(agree(ln, {filled(DataType::float32(), {1, 5, 768}, 9), filled(DataType::float32(), {768}, 10), filled(DataType::float32(), {768}, 11), zeros({1, 5, 768})}) == "");
    CHECK(jitError(ln, {zeros({1, 2, 768}), zeros({767}), zeros({768}), zeros({1, 2, 768})}) == "buffer 'ln1_w' dim 0 does not match the declared 768");
  }
}

TEST_CASE("llvm kernels: failed entry checks return their index and name the buffer and dim", "[llvm]") {
  auto f = parsePrim(R"(@T.prim_func(private=True)
def f(var_A: T.handle, var_B: T.handle, C: T.Buffer((T.int64(4),), "float32")):
    n = T.int64()
    A = T.match_buffer(var_A, (n,))
    B = T.match_buffer(var_B, (n,))
    for i in range(n):
        B[i] = A[i]
)");
  CHECK(jitError(f, {zeros({3}), zeros({4}), zeros({4})}) == "buffer 'B' dim 0 does not match 'n' (from buffer 'A' dim 0)");
  CHECK(jitError(f, {zeros({3}), zeros({3}), zeros({5})}) == "buffer 'C' dim 0 does not match the declared 4");
  CHECK(jitError(f, {zeros({3}), zeros({3}), zeros({4, 1})}) == "buffer 'C' has 1 dimension(s) but the array has a different number");
  CHECK(jitError(f, {zeros({3, 1}), zeros({3}), zeros({4})}) == "buffer 'A' has 1 dimension(s) but the array has a different number");
  CHECK(jitError(f, {zeros({3}), zeros({3}), zeros({4}, DataType::float64())}) == "buffer 'C' has dtype float32 but the array is float64");
  CHECK(jitError(f, {zeros({3}), zeros({3}), zeros({4})}) == "");

  // The raw calling convention: a non-zero code is the 1-based index of the failed check.
  auto kernel = compileKernel(f, "raw");
  REQUIRE(kernel.ok());
  const CompiledKernel& k = **kernel;
  int64_t shapeA[] = {3}, shapeB[] = {2}, shapeC[] = {4};
  float a[3] = {1, 2, 3}, b[3] = {}, c[4] = {};
  RlxTensorArg ta{a, shapeA, 1}, tb{b, shapeB, 1}, tc{c, shapeC, 1};
  RlxArg args[3];
  args[0].tensor = &ta;
  args[1].tensor = &tb;
  args[2].tensor = &tc;
  CHECK(k.messageFor(k.fn(args, 2)) == "the PrimFunc takes 3 argument(s)");
  int32_t code = k.fn(args, 3);
  CHECK(code > 0);
  CHECK(k.messageFor(code) == "buffer 'B' dim 0 does not match 'n' (from buffer 'A' dim 0)");
  shapeB[0] = 3;
  CHECK(k.fn(args, 3) == 0);
  CHECK(b[2] == 3.0f);

  auto big = parsePrim(R"(@T.prim_func(private=True)
def big(n: T.int64, A: T.Buffer((1,), "float32")):
    tmp = T.alloc_buffer((n, n))
    for i in range(1):
        with T.block("b"):
            vi = T.axis.spatial(1, i)
            tmp[0, 0] = A[vi]
)");
  CHECK(jitError(big, {TirArg(int64_t(1) << 20), zeros({1})}) == "buffer 'tmp' is too large to allocate");
  CHECK(jitError(big, {TirArg(4), zeros({1})}) == "");
}

TEST_CASE("llvm kernels: unsupported constructs are errors, not crashes", "[llvm]") {
  auto ext = parsePrim(R"(@T.prim_func(private=True)
def ext(A: T.Buffer((4,), "float32")):
    A[0] = T.call_extern("float32", "my_special_fn", A[1])
)");
  CHECK(contains(jitError(ext, {zeros({4})}), "my_special_fn"));
  auto base = parsePrim(R"(@T.prim_func(private=True)
def base(A: T.Buffer((4,), "float32")):
    A[0] = T.exp(A[1])
)");
  const BufferRef& buf = *base->bufferOf(base->params[0]);
  auto load = make<BufferLoad>(DataType::float32(), buf, std::vector<PrimExpr>{intImm(1, DataType::int32())});
  auto g = make<PrimFunc>();
  g->params = base->params;
  g->bufferMap = base->bufferMap;
  g->body = make<BufferStore>(buf, make<PrimCall>(DataType::float32(), "tir.frobnicate", std::vector<PrimExpr>{load}), std::vector<PrimExpr>{intImm(0, DataType::int32())});
  CHECK(contains(jitError(g, {zeros({4})}), "unsupported TIR intrinsic 'tir.frobnicate'"));
  auto vec = parsePrim(R"(@T.prim_func(private=True)
def v(A: T.Buffer((4,), "float32x4")):
    A[0] = T.Broadcast(T.float32(1.0), 4)
)");
  CHECK(contains(jitError(vec, {zeros({4})}), "float32x4"));
}

TEST_CASE("llvm kernels: structurally equal PrimFuncs compile once per process", "[llvm]") {
  const char* text = R"(@T.prim_func(private=True)
def scale(var_A: T.handle, var_B: T.handle):
    n = T.int64()
    A = T.match_buffer(var_A, (n,))
    B = T.match_buffer(var_B, (n,))
    for i in range(n):
        B[i] = A[i] * T.float32(3.0)
)";
  auto f1 = parsePrim(text), f2 = parsePrim(text);
  REQUIRE(f1.get() != f2.get());
  int64_t before = kernelCompileCount();
  auto k1 = compileKernel(f1, "scale");
  auto k2 = compileKernel(f2, "another_name");
  REQUIRE(k1.ok());
  REQUIRE(k2.ok());
  CHECK(*k1 == *k2);
  CHECK(kernelCompileCount() == before + 1);
  auto g = parsePrim(std::string(text).replace(std::string(text).find("3.0"), 3, "4.0"));
  auto k3 = compileKernel(g, "scale");
  REQUIRE(k3.ok());
  CHECK(*k3 != *k1);
  CHECK(kernelCompileCount() == before + 2);
}

TEST_CASE("llvm kernels: --emit=llvm and --emit=asm text", "[llvm]") {
  auto f = parsePrim(R"(@T.prim_func(private=True)
def add(A: T.Buffer((T.int64(1024),), "float32"), B: T.Buffer((T.int64(1024),), "float32"), C: T.Buffer((T.int64(1024),), "float32")):
    T.func_attr({"tir.noalias": True})
    for i in range(T.int64(1024)):
        C[i] = A[i] + B[i]
)");
  auto ir = emitLLVM(f, "add_kernel");
  REQUIRE(ir.ok());
  CHECK(contains(*ir, "@add_kernel(ptr"));
  CHECK(contains(*ir, "x float>"));  // the loop is vectorized
  auto asmText = emitAsm(f, "add_kernel");
  REQUIRE(asmText.ok());
  CHECK(contains(*asmText, "add_kernel:"));
}

TEST_CASE("llvm kernels: outer data-parallel loops run on the thread pool", "[llvm]") {
  // Large enough to be split across threads. The row sum and the division that reads it share the
  // row loop (schedule_rows.h), and the sum runs in vector lanes: the same terms in another order.
  auto f = parsePrim(R"(@T.prim_func(private=True)
def rowsum(var_A: T.handle, var_B: T.handle, var_C: T.handle):
    T.func_attr({"tir.noalias": True})
    n = T.int64()
    A = T.match_buffer(var_A, (n, T.int64(512)))
    B = T.match_buffer(var_B, (n,))
    C = T.match_buffer(var_C, (n, T.int64(512)))
    for i, k in T.grid(n, T.int64(512)):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0.0)
            B[vi] = B[vi] + A[vi, vk]
    for i, j in T.grid(n, T.int64(512)):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] / B[vi]
)");
  auto ir = emitLLVM(f, "rowsum");
  REQUIRE(ir.ok());
  CHECK(contains(*ir, "rlx_parallel_for"));
  for (int64_t n : {1, 7, 300})
    CHECK(agree(f, {filled(DataType::float32(), {n, 512}, uint32_t(n)), zeros({n}), zeros({n, 512})}, 1e-4) == "");
  // A loop whose blocks do not bind its variable stays serial (every iteration writes B[0]).
  auto g = parsePrim(R"(@T.prim_func(private=True)
def last(A: T.Buffer((T.int64(4096),), "float32"), B: T.Buffer((T.int64(1),), "float32")):
    for i in range(T.int64(4096)):
        with T.block("B"):
            vi = T.axis.spatial(T.int64(1), T.int64(0))
            B[vi] = A[i]
)");
  auto gir = emitLLVM(g, "last");
  REQUIRE(gir.ok());
  CHECK(!contains(*gir, "rlx_parallel_for"));
  CHECK(agree(g, {filled(DataType::float32(), {4096}, 5), zeros({1})}) == "");
}

namespace {

// A kernel of stages over (4, 8) float32 buffers: params x, b (8,), y, out; `stages` is the body
// after the root block's alloc_buffers of t0..t{n-1}.
PrimFuncRef stagedKernel(int intermediates, const std::string& stages) {
  std::string text = R"(@T.prim_func(private=True)
def staged(x: T.Buffer((T.int64(4), T.int64(8)), "float32"), b: T.Buffer((T.int64(8),), "float32"), y: T.Buffer((T.int64(4), T.int64(8)), "float32"), out: T.Buffer((T.int64(4), T.int64(8)), "float32")):
    T.func_attr({"tir.noalias": True})
    # with T.block("root"):
)";
  for (int i = 0; i < intermediates; ++i) text += "    t" + std::to_string(i) + " = T.alloc_buffer((T.int64(4), T.int64(8)))\n";
  return parsePrim(text + stages);
}

// One element-wise stage `dst[vi, vj] = value` over the (4, 8) grid.
std::string stage(const std::string& name, const std::string& dst, const std::string& value) {
  return "    for i, j in T.grid(T.int64(4), T.int64(8)):\n        with T.block(\"" + name + "\"):\n            vi, vj = T.axis.remap(\"SS\", [i, j])\n            " + dst +
         "[vi, vj] = " + value + "\n";
}

// The root block's intermediate buffers and top-level loop nests.
std::pair<size_t, size_t> allocsAndNests(const PrimFuncRef& f) {
  auto& root = *static_cast<const BlockRealize&>(*f->body).block;
  size_t nests = root.body->kind() == NodeKind::SeqStmt ? static_cast<const SeqStmt&>(*root.body).seq.size() : 1;
  return {root.allocBuffers.size(), nests};
}

std::vector<TirArg> stagedArgs() {
  return {filled(DataType::float32(), {4, 8}, 1), filled(DataType::float32(), {8}, 2), filled(DataType::float32(), {4, 8}, 3), zeros({4, 8})};
}

}  // namespace

TEST_CASE("llvm schedule: element-wise stages fold into their readers", "[llvm]") {
  SECTION("a chain with a broadcast operand and a transcendental becomes one nest") {
    auto f = stagedKernel(3, stage("add", "t0", "x[vi, vj] + b[vj]") + stage("mul", "t1", "t0[vi, vj] * t0[vi, vj] * T.float32(0.5)") +
                                 stage("tanh", "t2", "T.tanh(t1[vi, vj])") + stage("out", "out", "t2[vi, vj] + t0[vi, vj]"));
    CHECK(allocsAndNests(f) == std::pair<size_t, size_t>{3, 4});
    CHECK(allocsAndNests(inlineElementwiseStages(f)) == std::pair<size_t, size_t>{0, 1});
    CHECK(agree(f, stagedArgs()) == "");
  }
  SECTION("a stage nobody reads is dropped") {
    auto f = stagedKernel(1, stage("dead", "t0", "x[vi, vj] * T.float32(2.0)") + stage("out", "out", "x[vi, vj] + y[vi, vj]"));
    CHECK(allocsAndNests(inlineElementwiseStages(f)) == std::pair<size_t, size_t>{0, 1});
  }
  SECTION("a transcendental read twice stays one stage") {
    auto f = stagedKernel(1, stage("exp", "t0", "T.exp(x[vi, vj])") + stage("out", "out", "t0[vi, vj] + t0[vi, T.int64(7) - vj]"));
    CHECK(allocsAndNests(inlineElementwiseStages(f)) == std::pair<size_t, size_t>{1, 2});
    CHECK(agree(f, stagedArgs()) == "");
  }
  SECTION("a transcendental read by a broadcast stays one stage") {
    auto f = stagedKernel(1, stage("exp", "t0", "T.exp(x[vi, vj])") + stage("out", "out", "t0[vi, T.int64(0)] * y[vi, vj]"));
    CHECK(allocsAndNests(inlineElementwiseStages(f)) == std::pair<size_t, size_t>{1, 2});
  }
  SECTION("a stage whose input is overwritten before the reader runs stays") {
    auto f = stagedKernel(1, stage("copy", "t0", "y[vi, vj]") + stage("clobber", "y", "x[vi, vj]") + stage("out", "out", "t0[vi, vj] + y[vi, vj]"));
    CHECK(allocsAndNests(inlineElementwiseStages(f)) == std::pair<size_t, size_t>{1, 3});
    CHECK(agree(f, stagedArgs()) == "");
  }
  SECTION("a plain copy a reduction reads is inlined (the GEMM reads its source in place)") {
    auto f = stagedKernel(1, stage("copy", "t0", "x[vi, vj]") + R"(    for i, j, k in T.grid(T.int64(4), T.int64(8), T.int64(8)):
        with T.block("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                out[vi, vj] = T.float32(0.0)
            out[vi, vj] = out[vi, vj] + t0[vi, vk] * y[vi, vk]
)");
    CHECK(allocsAndNests(inlineElementwiseStages(f)) == std::pair<size_t, size_t>{0, 1});
    CHECK(agree(f, stagedArgs()) == "");
  }
  SECTION("a stage a reduction reads stays (a GEMM nest keeps its plain loads)") {
    auto f = stagedKernel(1, stage("scale", "t0", "x[vi, vj] * T.float32(2.0)") + R"(    for i, j, k in T.grid(T.int64(4), T.int64(8), T.int64(8)):
        with T.block("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                out[vi, vj] = T.float32(0.0)
            out[vi, vj] = out[vi, vj] + t0[vi, vk] * y[vi, vk]
)");
    CHECK(allocsAndNests(inlineElementwiseStages(f)) == std::pair<size_t, size_t>{1, 2});
    CHECK(agree(f, stagedArgs()) == "");
  }
}

// The block realizes under `s`, each with whether its stored value still selects (T.if_then_else or
// Select at the top).
void leaves(const Stmt& s, std::vector<bool>& selecting) {
  if (!s) return;
  switch (s->kind()) {
    case NodeKind::SeqStmt:
      for (auto& x : static_cast<const SeqStmt&>(*s).seq) leaves(x, selecting);
      return;
    case NodeKind::For: return leaves(static_cast<const For&>(*s).body, selecting);
    case NodeKind::BlockRealize: {
      auto& st = static_cast<const BufferStore&>(*static_cast<const BlockRealize&>(*s).block->body);
      selecting.push_back(st.value->kind() == NodeKind::Select || st.value->kind() == NodeKind::PrimCall);
      return;
    }
    default: return;
  }
}

TEST_CASE("llvm schedule: a padding's bound checks split its loops", "[llvm]") {
  auto nestOf = [](const PrimFuncRef& f) { return static_cast<const BlockRealize&>(*f->body).block->body; };
  SECTION("1 <= i < 3 and 2 <= j <= 6: rows cut at 1 and 3, columns at 2 and 7, every part decided") {
    auto f = stagedKernel(0, stage("pad", "out", "T.if_then_else(T.int64(1) <= vi and vi < T.int64(3) and T.int64(2) <= vj and vj <= T.int64(6), x[vi, vj], T.float32(-1.0))"));
    Stmt parts = partitionBoundChecks(nestOf(f));
    REQUIRE(parts);
    std::vector<bool> selecting;
    leaves(parts, selecting);
    CHECK(selecting == std::vector<bool>(9, false));
    CHECK(agree(f, stagedArgs()) == "");
  }
  SECTION("a bound past the loop cuts nothing; a condition on a load is kept in each part") {
    auto f = stagedKernel(0, stage("pad", "out", "T.Select(T.int64(-1) < vi and vj > T.int64(3) and y[vi, vj] > T.float32(0.0), x[vi, vj], T.float32(0.0))"));
    Stmt parts = partitionBoundChecks(nestOf(f));
    REQUIRE(parts);
    std::vector<bool> selecting;
    leaves(parts, selecting);
    CHECK(selecting == std::vector<bool>{false, true});  // j < 4: the else value; j >= 4: y decides
    CHECK(agree(f, stagedArgs()) == "");
  }
  SECTION("no comparison with a constant: nothing to split") {
    auto f = stagedKernel(0, stage("pad", "out", "T.if_then_else(vi < vj, x[vi, vj], T.float32(0.0))"));
    CHECK_FALSE(partitionBoundChecks(nestOf(f)));
  }
}

// The root block's alloc_buffers (by position) that markWrittenFirst lists as needing no zeroing.
std::vector<int64_t> writtenFirst(const PrimFuncRef& f) {
  PrimFuncRef marked = markWrittenFirst(f);
  return attrInts(static_cast<const BlockRealize&>(*marked->body).block->annotations, kWrittenFirstAnnotation);
}

TEST_CASE("llvm schedule: intermediates overwritten before any read are not zeroed", "[llvm]") {
  const std::string matmulInto0 = R"(    for i, j, k in T.grid(T.int64(4), T.int64(8), T.int64(8)):
        with T.block("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                t0[vi, vj] = T.float32(0.0)
            t0[vi, vj] = t0[vi, vj] + x[vi, vk] * y[vi, vk]
)";
  SECTION("an element-wise stage and a reduction's init write their whole buffers first") {
    auto f = stagedKernel(2, matmulInto0 + stage("scale", "t1", "t0[vi, vj] * T.float32(2.0)") + stage("out", "out", "t1[vi, vj] + t0[vi, vj]"));
    CHECK(writtenFirst(f) == std::vector<int64_t>{0, 1});
    CHECK(agree(f, stagedArgs()) == "");
  }
  SECTION("read before written, written in part, or written from itself: zeroed") {
    auto readFirst = stagedKernel(1, stage("out", "out", "t0[vi, vj] + x[vi, vj]") + stage("fill", "t0", "x[vi, vj]"));
    CHECK(writtenFirst(readFirst).empty());
    CHECK(agree(readFirst, stagedArgs()) == "");
    auto part = stagedKernel(1, R"(    for i, j in T.grid(T.int64(4), T.int64(5)):
        with T.block("part"):
            vi, vj = T.axis.remap("SS", [i, j])
            t0[vi, vj] = x[vi, vj]
)" + stage("out", "out", "t0[vi, vj] + y[vi, vj]"));
    CHECK(writtenFirst(part).empty());
    CHECK(agree(part, stagedArgs()) == "");
    auto fromItself = stagedKernel(1, stage("self", "t0", "t0[vi, T.int64(7) - vj] + x[vi, vj]") + stage("out", "out", "t0[vi, vj]"));
    CHECK(writtenFirst(fromItself).empty());
    CHECK(agree(fromItself, stagedArgs()) == "");
  }
}

TEST_CASE("llvm schedule: a batch-of-one outer loop runs its inner loop in parallel", "[llvm]") {
  auto f = parsePrim(R"(@T.prim_func(private=True)
def batch1(x: T.Buffer((T.int64(1), T.int64(512), T.int64(256)), "float32"), y: T.Buffer((T.int64(1), T.int64(512), T.int64(256)), "float32")):
    for b, i, j in T.grid(T.int64(1), T.int64(512), T.int64(256)):
        with T.block("scale"):
            vb, vi, vj = T.axis.remap("SSS", [b, i, j])
            y[vb, vi, vj] = x[vb, vi, vj] * T.float32(3.0)
)");
  auto ir = emitLLVM(f, "batch1");
  REQUIRE(ir.ok());
  // The chunk function's work is the inner loops: 512 pieces, not the unit batch loop's one piece.
  CHECK(contains(*ir, "_chunk, ptr nonnull %parallel_ctx"));
  CHECK(contains(*ir, ", i64 512, i64 256)"));
  // Static shapes and strides stay constants in the chunk: the context carries only the two buffer
  // pointers and the unit loop's index (it had every dim and stride of both buffers).
  auto at = ir->find("%parallel_ctx");
  REQUIRE(at != std::string::npos);
  auto slots = ir->find("alloca [", at);
  REQUIRE(slots != std::string::npos);
  CHECK(std::stoi(ir->substr(slots + 8)) <= 3);
  CHECK(agree(f, {filled(DataType::float32(), {1, 512, 256}, 7), zeros({1, 512, 256})}) == "");
}

TEST_CASE("llvm kernels: exp and sigmoid far outside the normal range (a softmax mask's -1e9)", "[llvm]") {
  auto f = parsePrim(R"(@T.prim_func(private=True)
def expf(x: T.Buffer((T.int64(32),), "float32"), e: T.Buffer((T.int64(32),), "float32"), s: T.Buffer((T.int64(32),), "float32")):
    for i in range(T.int64(32)):
        with T.block("exp"):
            vi = T.axis.spatial(T.int64(32), i)
            e[vi] = T.exp(x[vi])
            s[vi] = T.sigmoid(x[vi])
)");
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> in = {-1e9f, -1e4f, -104.0f, -90.0f, -87.0f, -1.0f, 0.0f, 1.0f, 88.0f, 89.0f, 1e4f, 1e9f, -inf, inf, nan};
  in.resize(32, 0.5f);
  auto x = zeros({32});
  std::memcpy(x->data(), in.data(), 32 * sizeof(float));
  std::vector<TirArg> args = {x, zeros({32}), zeros({32})};
  auto kernel = compileKernel(f, "expf");
  REQUIRE(kernel.ok());
  REQUIRE(runKernel(**kernel, *f, args).ok());
  auto e = static_cast<const float*>(args[1].array->data()), s = static_cast<const float*>(args[2].array->data());
  for (int i = 0; i < 4; ++i) CHECK(e[i] == 0.0f);  // -90: a denormal (8.2e-40) flushed to zero
  // In range: libmvec's vector exp, within a few ulps of libm's.
  CHECK(e[4] == Approx(std::exp(-87.0f)).epsilon(1e-6));
  CHECK(e[5] == Approx(std::exp(-1.0f)).epsilon(1e-6));
  CHECK(e[6] == 1.0f);
  CHECK(e[8] == Approx(std::exp(88.0f)).epsilon(1e-6));
  for (int i : {9, 10, 11, 13}) CHECK(e[i] == inf);
  CHECK(e[12] == 0.0f);
  CHECK(std::isnan(e[14]));
  for (int i : {0, 1, 2, 12}) CHECK(s[i] == 0.0f);
  for (int i : {9, 10, 11, 13}) CHECK(s[i] == 1.0f);
  CHECK(s[6] == 0.5f);
  CHECK(std::isnan(s[14]));
}

TEST_CASE("llvm kernels: float erf and tanh inline, within 4e-7 of libm's over the line, NaN kept", "[llvm]") {
  auto f = parsePrim(R"(@T.prim_func(private=True)
def et(x: T.Buffer((T.int64(4096),), "float32"), e: T.Buffer((T.int64(4096),), "float32"), t: T.Buffer((T.int64(4096),), "float32")):
    for i in range(T.int64(4096)):
        with T.block("et"):
            vi = T.axis.spatial(T.int64(4096), i)
            e[vi] = T.erf(x[vi])
            t[vi] = T.tanh(x[vi])
)");
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> in(4096);
  for (int i = 0; i < 4000; ++i) in[size_t(i)] = -12.0f + 24.0f * float(i) / 4000.0f;  // both saturate well inside
  std::vector<float> special = {0.0f, -0.0f, 1e-30f, -1e-7f, 3.999f, 4.0f, 4.5f, 8.999f, 9.5f, 1e9f, -1e9f, inf, -inf, nan};
  std::copy(special.begin(), special.end(), in.begin() + 4000);
  auto x = zeros({4096});
  std::memcpy(x->data(), in.data(), in.size() * sizeof(float));
  std::vector<TirArg> args = {x, zeros({4096}), zeros({4096})};
  auto kernel = compileKernel(f, "et");
  REQUIRE(kernel.ok());
  REQUIRE(runKernel(**kernel, *f, args).ok());
  auto e = static_cast<const float*>(args[1].array->data()), t = static_cast<const float*>(args[2].array->data());
  double erfErr = 0, tanhErr = 0;
  for (size_t i = 0; i + 1 < 4000 + special.size(); ++i) {
    erfErr = std::max(erfErr, std::fabs(e[i] - std::erf(double(in[i]))));
    tanhErr = std::max(tanhErr, std::fabs(t[i] - std::tanh(double(in[i]))));
  }
  CHECK(erfErr < 4e-7);
  CHECK(tanhErr < 4e-7);
  // Near zero the error is relative: erf(x) ~ 2x / sqrt(pi), tanh(x) ~ x.
  CHECK(e[4002] == Approx(1.1283791670955126e-30).epsilon(1e-6));
  CHECK(t[4003] == Approx(-1e-7).epsilon(1e-6));
  CHECK(e[4000] == 0.0f);
  CHECK(std::isnan(e[4013]));
  CHECK(std::isnan(t[4013]));
}

TEST_CASE("llvm schedule: index divisions the loop bounds make constant are folded", "[llvm]") {
  // A reshape inlined into a transpose leaves (h * 64 + d) // 768 and % 768, constant over the loops.
  auto heads = parsePrim(R"(@T.prim_func(private=True)
def heads(x: T.Buffer((T.int64(1), T.int64(16), T.int64(768)), "float32"), y: T.Buffer((T.int64(1), T.int64(12), T.int64(16), T.int64(64)), "float32")):
    for a, h, s, d in T.grid(T.int64(1), T.int64(12), T.int64(16), T.int64(64)):
        with T.block("T_transpose"):
            va, vh, vs, vd = T.axis.remap("SSSS", [a, h, s, d])
            y[va, vh, vs, vd] = x[T.int64(0), ((vh * T.int64(64) + vd) // T.int64(768) + vs) % T.int64(16), (vh * T.int64(64) + vd) % T.int64(768)]
)");
  auto ir = emitLLVM(heads, "heads");
  REQUIRE(ir.ok());
  for (const char* op : {"div ", "rem "}) CHECK(!contains(*ir, op));
  CHECK(agree(heads, {filled(DataType::float32(), {1, 16, 768}, 9), zeros({1, 12, 16, 64})}) == "");

  // Here h * 64 + d crosses 768 (h < 24): the division stays and the values still agree.
  auto wide = parsePrim(R"(@T.prim_func(private=True)
def wide(x: T.Buffer((T.int64(2), T.int64(768)), "float32"), y: T.Buffer((T.int64(24), T.int64(64)), "float32")):
    for h, d in T.grid(T.int64(24), T.int64(64)):
        with T.block("T_reshape"):
            vh, vd = T.axis.remap("SS", [h, d])
            y[vh, vd] = x[(vh * T.int64(64) + vd) // T.int64(768), (vh * T.int64(64) + vd) % T.int64(768)]
)");
  ir = emitLLVM(wide, "wide");
  REQUIRE(ir.ok());
  CHECK(agree(wide, {filled(DataType::float32(), {2, 768}, 4), zeros({24, 64})}) == "");
}

TEST_CASE("llvm kernels: nests that pass data row by row run fused under their shared loops", "[llvm]") {
  // Softmax's three nests (row max, row sum of exps, normalization) share (i, j): one parallel loop.
  auto softmax = parsePrim(R"(@T.prim_func(private=True)
def softmax(A: T.Buffer((T.int64(6), T.int64(100), T.int64(300)), "float32"), C: T.Buffer((T.int64(6), T.int64(100), T.int64(300)), "float32")):
    T.func_attr({"tir.noalias": True})
    M = T.alloc_buffer((T.int64(6), T.int64(100)))
    S = T.alloc_buffer((T.int64(6), T.int64(100)))
    for i, j, k in T.grid(T.int64(6), T.int64(100), T.int64(300)):
        with T.block("max"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                M[vi, vj] = T.float32(-3.4e38)
            M[vi, vj] = T.max(M[vi, vj], A[vi, vj, vk])
    for i, j, k in T.grid(T.int64(6), T.int64(100), T.int64(300)):
        with T.block("sum"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                S[vi, vj] = T.float32(0.0)
            S[vi, vj] = S[vi, vj] + T.exp(A[vi, vj, vk] - M[vi, vj])
    for i, j, k in T.grid(T.int64(6), T.int64(100), T.int64(300)):
        with T.block("norm"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            C[vi, vj, vk] = T.exp(A[vi, vj, vk] - M[vi, vj]) / S[vi, vj]
)");
  auto ir = emitLLVM(softmax, "softmax");
  REQUIRE(ir.ok());
  auto count = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  CHECK(count(*ir, "call i32 @rlx_parallel_for(") == 1);
  CHECK(agree(softmax, {filled(DataType::float32(), {6, 100, 300}, 5), zeros({6, 100, 300})}, 1e-5) == "");
  // The second nest reads the first one's row i + 1: rows depend on each other, nothing fuses.
  auto shifted = parsePrim(R"(@T.prim_func(private=True)
def shifted(A: T.Buffer((T.int64(64), T.int64(64)), "float32"), C: T.Buffer((T.int64(63), T.int64(64)), "float32")):
    T.func_attr({"tir.noalias": True})
    B = T.alloc_buffer((T.int64(64), T.int64(64)))
    for i, j in T.grid(T.int64(64), T.int64(64)):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2.0)
    for i, j in T.grid(T.int64(63), T.int64(64)):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi + T.int64(1), vj] + T.float32(1.0)
)");
  auto ir2 = emitLLVM(shifted, "shifted");
  REQUIRE(ir2.ok());
  CHECK(agree(shifted, {filled(DataType::float32(), {64, 64}, 6), zeros({63, 64})}) == "");
}

TEST_CASE("llvm kernels: x ** 2 and x ** 3 are products, also for negative x", "[llvm]") {
  // GPT-2's GELU cubes its input; libmvec's vector powf falls back to scalar code per negative lane.
  auto f = parsePrim(R"(@T.prim_func(private=True)
def cube(A: T.Buffer((T.int64(64),), "float32"), B: T.Buffer((T.int64(64),), "float32"), C: T.Buffer((T.int64(64),), "float32")):
    T.func_attr({"tir.noalias": True})
    for i in range(T.int64(64)):
        with T.block("B"):
            vi = T.axis.spatial(T.int64(64), i)
            B[vi] = T.pow(A[vi], T.float32(3.0))
            C[vi] = T.pow(A[vi], T.float32(2.0))
)");
  auto ir = emitLLVM(f, "cube");
  REQUIRE(ir.ok());
  CHECK(!contains(*ir, "powf"));
  CHECK(agree(f, {filled(DataType::float32(), {64}, 3), zeros({64}), zeros({64})}, 1e-6) == "");
}
