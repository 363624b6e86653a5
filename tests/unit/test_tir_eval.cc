// TIR interpreter tests: PrimFuncs parsed from TVMScript run on NDArrays against hand-computed
// results (broadcast add, init reductions, symbolic shapes, TVM's integer/float rules, errors).
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include "ir/tir_eval.h"
#include "parser/parser.h"
#include "tests/unit/parse_prim.h"

using namespace rlx;
using V = std::vector<double>;

namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

NDArrayRef arr(std::vector<int64_t> shape, const V& values, DataType t = DataType::float32()) {
  auto a = make<NDArray>(t, std::move(shape));
  REQUIRE(size_t(a->numel()) == values.size());
  for (size_t i = 0; i < values.size(); ++i) a->setDouble(int64_t(i), values[i]);
  return a;
}

NDArrayRef zeros(std::vector<int64_t> shape, DataType t = DataType::float32()) { return make<NDArray>(t, std::move(shape)); }

V vals(const NDArrayRef& a) {
  V out;
  for (int64_t i = 0; i < a->numel(); ++i) out.push_back(a->getDouble(i));
  return out;
}

// Runs and returns "" on success, or the error message.
std::string run(const PrimFuncRef& f, const std::vector<TirArg>& args) {
  auto st = runPrimFunc(*f, args);
  return st.ok() ? "" : st.error().message;
}

void runOk(const PrimFuncRef& f, const std::vector<TirArg>& args) {
  std::string err = run(f, args);
  INFO(err);
  REQUIRE(err.empty());
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A deterministic pseudo-random fill in [-1, 1).
V pattern(size_t n, uint32_t seed) {
  V out;
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    out.push_back(double(seed >> 8) / double(1 << 23) - 1.0);
  }
  return out;
}

}  // namespace

TEST_CASE("tir_eval: elementwise add with broadcast", "[tir_eval]") {
  auto f = parsePrim(R"(@T.prim_func(private=True)
def add(A: T.Buffer((T.int64(2), T.int64(3)), "float32"), B: T.Buffer((T.int64(3),), "float32"), C: T.Buffer((T.int64(2), T.int64(3)), "float32")):
    T.func_attr({"tir.noalias": True})
    for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
        with T.block("T_add"):
            v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(A[v_ax0, v_ax1], B[v_ax1])
            T.writes(C[v_ax0, v_ax1])
            C[v_ax0, v_ax1] = A[v_ax0, v_ax1] + B[v_ax1]
)");
  auto a = arr({2, 3}, {1, 2, 3, 4, 5, 6}), b = arr({3}, {10, 20, 30}), c = zeros({2, 3});
  runOk(f, {a, b, c});
  CHECK(vals(c) == V{11, 22, 33, 14, 25, 36});
  CHECK(vals(a) == V{1, 2, 3, 4, 5, 6});  // inputs untouched
}

TEST_CASE("tir_eval: matmul reduction runs its init block once per output", "[tir_eval]") {
  auto f = parsePrim(R"(@T.prim_func(private=True)
def matmul(A: T.Buffer((T.int64(2), T.int64(3)), "float32"), B: T.Buffer((T.int64(3), T.int64(2)), "float32"), C: T.Buffer((T.int64(2), T.int64(2)), "float32")):
    for i0, i1, k in T.grid(T.int64(2), T.int64(2), T.int64(3)):
        with T.block("matmul"):
            v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
            with T.init():
                C[v_i0, v_i1] = T.float32(0.0)
            C[v_i0, v_i1] = C[v_i0, v_i1] + A[v_i0, v_k] * B[v_k, v_i1]
)");
  auto a = arr({2, 3}, {1, 2, 3, 4, 5, 6}), b = arr({3, 2}, {7, 8, 9, 10, 11, 12});
  auto c = arr({2, 2}, {99, 99, 99, 99});  // garbage the init must overwrite
  runOk(f, {a, b, c});
  CHECK(vals(c) == V{58, 64, 139, 154});
  runOk(f, {a, b, c});  // destination passing: a second run gives the same result
  CHECK(vals(c) == V{58, 64, 139, 154});
}

TEST_CASE("tir_eval: init runs when reduction vars are at their domain's min", "[tir_eval]") {
  // The reduction axis starts at 1 (T.axis.reduce with a non-zero min): init when v_k == 1.
  auto f = parsePrim(R"(@T.prim_func(private=True)
def rsum(A: T.Buffer((4,), "float32"), S: T.Buffer((1,), "float32")):
    for k in range(3):
        with T.block("sum"):
            v_k = T.axis.reduce((1, 4), k + 1)
            with T.init():
                S[0] = T.float32(100.0)
            S[0] = S[0] + A[v_k]
)");
  auto a = arr({4}, {1, 2, 3, 4}), s = arr({1}, {-5});
  runOk(f, {a, s});
  CHECK(vals(s) == V{109});
}

TEST_CASE("tir_eval: symbolic shapes bind from the arrays", "[tir_eval]") {
  auto f = parsePrim(R"(@T.prim_func(private=True)
def scale(var_A: T.handle, var_B: T.handle):
    n = T.int64()
    A = T.match_buffer(var_A, (n, T.int64(2)))
    B = T.match_buffer(var_B, (n * T.int64(2),))
    for i, j in T.grid(n, T.int64(2)):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi * T.int64(2) + vj] = A[vi, vj] * T.float32(2.0)
)");
  for (int64_t n : {1, 3, 5}) {
    V in;
    for (int64_t i = 0; i < 2 * n; ++i) in.push_back(double(i));
    auto a = arr({n, 2}, in), b = zeros({2 * n});
    runOk(f, {a, b});
    V want;
    for (double x : in) want.push_back(2 * x);
    CHECK(vals(b) == want);
  }
  // n is 3 from A, so B's dim must be 6.
  std::string err = run(f, {arr({3, 2}, V(6, 0)), zeros({5})});
  CHECK(contains(err, "buffer 'B' dim 0 is 5"));
  CHECK(contains(err, "declares 6"));
}

TEST_CASE("tir_eval: shape mismatches name the buffer and dim", "[tir_eval]") {
  auto f = parsePrim(R"(@T.prim_func(private=True)
def f(var_A: T.handle, var_B: T.handle, C: T.Buffer((T.int64(4),), "float32")):
    n = T.int64()
    A = T.match_buffer(var_A, (n,))
    B = T.match_buffer(var_B, (n,))
    for i in range(n):
        B[i] = A[i]
)");
  std::string err = run(f, {zeros({3}), zeros({4}), zeros({4})});
  CHECK(contains(err, "buffer 'B' dim 0 is 4"));
  CHECK(contains(err, "'n' is already 3 (from buffer 'A' dim 0)"));
  err = run(f, {zeros({3}), zeros({3}), zeros({5})});
  CHECK(contains(err, "buffer 'C' dim 0 is 5, but the buffer declares 4"));
  err = run(f, {zeros({3}), zeros({3}), zeros({4, 1})});
  CHECK(contains(err, "buffer 'C' has 1 dimension(s) but the array has 2"));
  err = run(f, {zeros({3}), zeros({3}), zeros({4}, DataType::float64())});
  CHECK(contains(err, "buffer 'C' has dtype float32 but the array is float64"));
  err = run(f, {zeros({3}), zeros({3})});
  CHECK(contains(err, "takes 3 argument(s) but got 2"));
  err = run(f, {zeros({3}), zeros({3}), TirArg(int64_t(4))});
  CHECK(contains(err, "argument 2 ('C_handle') must be an NDArray"));
}

TEST_CASE("tir_eval: T.Let, T.reinterpret and shifts build 2^3", "[tir_eval]") {
  auto f = parsePrim(R"(@T.prim_func(private=True)
def pow2(out: T.Buffer((T.int64(2),), "float32")):
    x = T.int32()
    out[0] = T.reinterpret("float32", T.shift_left(T.Cast("int32", T.float32(3) + T.float32(127)), 23))
    out[1] = T.Let(T.reinterpret("float32", T.shift_left(x, 23)), where={x: T.Cast("int32", T.float32(-2) + T.float32(127))})
)");
  auto out = zeros({2});
  runOk(f, {out});
  CHECK(vals(out) == V{8.0, 0.25});
}

TEST_CASE("tir_eval: integer semantics of TVM", "[tir_eval]") {
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
  auto out = zeros({12}, DataType::int32());
  runOk(f, {TirArg(-7), TirArg(2), out});
  // -7*40 = -280 wraps to -24 in int8; -7 >> 1 = -4 (arithmetic); 0xFFFFFFF9 >> 28 = 15;
  // (-7 & 6) = 0, 2 ^ 1 = 3; -7 * 2^30 wraps to 2^30 in int32.
  CHECK(vals(out) == V{-3, -1, -4, 1, -7, 2, -24, -4, 15, 3, 1073741824, 21});
  std::string err = run(f, {TirArg(1), TirArg(0), out});
  CHECK(contains(err, "integer division by zero"));
}

TEST_CASE("tir_eval: float precision, casts and rounding", "[tir_eval]") {
  auto f = parsePrim(R"(@T.prim_func(private=True)
def floats(x: T.float32, out: T.Buffer((T.int64(9),), "float64"), iout: T.Buffer((T.int64(4),), "int32")):
    out[0] = T.Cast("float64", x + T.float32(0.2))
    out[1] = T.Cast("float64", T.round(T.float32(2.5)))
    out[2] = T.Cast("float64", T.round(T.float32(3.5)))
    out[3] = T.Cast("float64", T.nearbyint(T.float32(-0.5)))
    out[4] = T.Cast("float64", T.sigmoid(T.float32(0.0)))
    out[5] = T.Cast("float64", T.pow(T.float32(2.0), T.float32(10.0)))
    out[6] = T.Cast("float64", T.fmod(T.float32(7.5), T.float32(2.0)))
    out[7] = T.Cast("float64", T.exp(T.float32(1.0)))
    out[8] = T.Cast("float64", T.Cast("float16", T.float32(1.0009765625) + T.float32(0.0001)))
    iout[0] = T.Cast("int32", T.float32(-2.7))
    iout[1] = T.Cast("int32", T.isnan(x - x)) + T.Cast("int32", T.isinf(T.float32(1.0) / T.float32(0.0))) * 10
    iout[2] = T.Cast("int32", T.float32(3.0e10))
    iout[3] = T.Cast("int32", T.float32(-1.0) / T.float32(0.0) < x)
)");
  auto out = zeros({9}, DataType::float64()), iout = zeros({4}, DataType::int32());
  runOk(f, {TirArg(0.1), out, iout});
  auto o = vals(out);
  CHECK(o[0] == double(0.1f + 0.2f));  // rounded to float32 after the add
  CHECK(o[0] != 0.1 + 0.2);
  CHECK(o[1] == 2.0);  // half to even
  CHECK(o[2] == 4.0);
  CHECK(o[3] == 0.0);
  CHECK(o[4] == 0.5);
  CHECK(o[5] == 1024.0);
  CHECK(o[6] == 1.5);
  CHECK(o[7] == double(float(std::exp(1.0))));
  CHECK(o[8] == 1.0009765625);  // float16 has 10 mantissa bits: the tiny addend is lost
  // -2.7 truncates to -2; isinf(1/0) counts 10; 3e10 converts to int64 (saturating, like the
  // Relax reference evaluator) and then wraps to int32: 3e10 - 7 * 2^32 = -64770048.
  CHECK(vals(iout) == V{-2, 10, -64770048, 1});
}

TEST_CASE("tir_eval: T.where, if/else, lets, loops with a start, T.Assert", "[tir_eval]") {
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
  auto a = zeros({6});
  runOk(f, {a, TirArg(3)});
  // The block runs for i = 1, 2 (i < 3); then +2i for i < 4, +10 after.
  CHECK(vals(a) == V{0, 3, 5, 6, 10, 10});
  std::string err = run(f, {zeros({6}), TirArg(4)});
  CHECK(contains(err, "n must be small"));
}

TEST_CASE("tir_eval: block match_buffer views a region and alloc_buffer is scratch", "[tir_eval]") {
  auto f = parsePrim(R"(@T.prim_func(private=True)
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
  auto a = arr({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}), b = zeros({3});
  runOk(f, {a, b});
  CHECK(vals(b) == V{3, 11, 19});
  CHECK(vals(a) == V{0, 0, 2, 3, 4, 0, 6, 7, 8, 0, 10, 11});
}

TEST_CASE("tir_eval: vector stores with Ramp indices and Broadcast values", "[tir_eval]") {
  auto f = parsePrim(R"(@T.prim_func(private=True)
def vec(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    B[0:4] = A[4:8] + T.Broadcast(T.float32(1.0), 4)
    B[4:8] = T.Broadcast(A[0], 4)
)");
  auto a = arr({8}, {1, 2, 3, 4, 5, 6, 7, 8}), b = zeros({8});
  runOk(f, {a, b});
  CHECK(vals(b) == V{6, 7, 8, 9, 1, 1, 1, 1});
}

TEST_CASE("tir_eval: errors for bad accesses and unknown intrinsics", "[tir_eval]") {
  auto oob = parsePrim(R"(@T.prim_func(private=True)
def oob(A: T.Buffer((4,), "float32")):
    for i in range(5):
        A[i] = T.float32(1.0)
)");
  std::string err = run(oob, {zeros({4})});
  CHECK(contains(err, "index 4 is out of bounds for dim 0 of buffer 'A' (extent 4)"));

  auto ext = parsePrim(R"(@T.prim_func(private=True)
def ext(A: T.Buffer((4,), "float32")):
    A[0] = T.call_extern("float32", "my_special_fn", A[1])
)");
  err = run(ext, {zeros({4})});
  CHECK(contains(err, "my_special_fn"));

  // An intrinsic the parser accepts but the interpreter does not know, built directly.
  auto base = parsePrim(R"(@T.prim_func(private=True)
def base(A: T.Buffer((4,), "float32")):
    A[0] = T.exp(A[1])
)");
  const BufferRef& buf = *base->bufferOf(base->params[0]);
  auto load = make<BufferLoad>(DataType::float32(), buf, std::vector<PrimExpr>{intImm(1, DataType::int32())});
  auto call = make<PrimCall>(DataType::float32(), "tir.frobnicate", std::vector<PrimExpr>{load});
  auto g = make<PrimFunc>();
  g->params = base->params;
  g->bufferMap = base->bufferMap;
  g->body = make<BufferStore>(buf, call, std::vector<PrimExpr>{intImm(0, DataType::int32())});
  err = run(g, {zeros({4})});
  CHECK(contains(err, "unsupported TIR intrinsic 'tir.frobnicate'"));
}

TEST_CASE("tir_eval: legalized MLP kernels from the lowering corpus", "[tir_eval]") {
  std::string text = readFile(std::string(RLX_SOURCE_DIR) + "/tests/corpus_lowering/01_mlp__01_LegalizeOps.relax");
  REQUIRE(!text.empty());
  auto matmul = parsePrim(text, "matmul2"), add = parsePrim(text, "add2"), relu = parsePrim(text, "relu1"), softmax = parsePrim(text, "softmax");

  // matmul2: (1, 64) x (64, 10).
  V x = pattern(64, 1), w = pattern(640, 2);
  auto mm = zeros({1, 10});
  runOk(matmul, {arr({1, 64}, x), arr({64, 10}, w), mm});
  for (int j = 0; j < 10; ++j) {
    float acc = 0;
    for (int k = 0; k < 64; ++k) acc = acc + float(x[k]) * float(w[k * 10 + j]);
    CHECK(vals(mm)[j] == Approx(acc).epsilon(1e-6));
  }

  // add2 broadcasts the bias over the row.
  V bias = pattern(10, 3);
  auto sum = zeros({1, 10});
  runOk(add, {mm, arr({10}, bias), sum});
  for (int j = 0; j < 10; ++j) CHECK(vals(sum)[j] == float(float(vals(mm)[j]) + float(bias[j])));

  // relu1 on (1, 64).
  auto r = zeros({1, 64});
  runOk(relu, {arr({1, 64}, x), r});
  for (int j = 0; j < 64; ++j) CHECK(vals(r)[j] == std::max(double(float(x[j])), 0.0));

  // softmax over the 10 logits (alloc_buffers, T.exp, two reductions with init).
  auto sm = zeros({1, 10});
  runOk(softmax, {sum, sm});
  auto s = vals(sum);
  double mx = *std::max_element(s.begin(), s.end()), total = 0;
  for (double v : s) total += std::exp(v - mx);
  double check = 0;
  for (int j = 0; j < 10; ++j) {
    CHECK(vals(sm)[j] == Approx(std::exp(s[j] - mx) / total).epsilon(1e-5));
    check += vals(sm)[j];
  }
  CHECK(check == Approx(1.0).epsilon(1e-5));
}

TEST_CASE("tir_eval: scalar params, strides and elem_offset", "[tir_eval]") {
  auto f = parsePrim(R"(@T.prim_func(private=True)
def fill(n: T.int64, var_A: T.handle, B: T.Buffer((T.int64(2), T.int64(3)), "float32", strides=(T.int64(3), T.int64(1)))):
    s0 = T.int64()
    s1 = T.int64()
    A = T.match_buffer(var_A, (n, T.int64(3)), strides=(s0, s1))
    for i, j in T.grid(n, T.int64(3)):
        A[i, j] = T.Cast("float32", i * s0 + j * s1 + n)
)");
  auto a = zeros({2, 3});
  runOk(f, {TirArg(2), a, zeros({2, 3})});
  CHECK(vals(a) == V{2, 3, 4, 5, 6, 7});  // strides bound to the compact (3, 1)
  std::string err = run(f, {TirArg(3), zeros({2, 3}), zeros({2, 3})});
  CHECK(contains(err, "buffer 'A' dim 0 is 2, but 'n' is already 3 (from parameter 'n')"));

  // Arrays are compact: declared strides (4, 1) for a (2, 3) parameter cannot match (as in TVM).
  auto h = parsePrim(R"(@T.prim_func(private=True)
def strided(B: T.Buffer((T.int64(2), T.int64(3)), "float32", strides=(T.int64(4), T.int64(1)))):
    B[0, 0] = T.float32(1.0)
)");
  err = run(h, {zeros({2, 3})});
  CHECK(contains(err, "buffer 'B' stride 0 is 3, but the buffer declares 4"));

  auto g = parsePrim(R"(@T.prim_func(private=True)
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
  auto b = zeros({2, 3});
  runOk(g, {arr({2, 3}, {1, 2, 3, 4, 5, 6}), b});
  CHECK(vals(b) == V{4, 7, 10, 13, 16, 19});
}

TEST_CASE("tir_eval: fused symbolic-shape kernels from the GPT-2 lowering corpus", "[tir_eval]") {
  std::string text = readFile(std::string(RLX_SOURCE_DIR) + "/tests/corpus_lowering/03_gpt2_block_dyn__05_FuseTIR.relax");
  REQUIRE(!text.empty());

  SECTION("causal mask: matmul, scale, triu, greater, where") {
    auto f = parsePrim(text, "fused_matmul1_multiply_ones_triu_greater_where");
    const int64_t n = 3, H = 12, D = 64;
    V q = pattern(size_t(H * n * D), 11), k = pattern(size_t(H * D * n), 12);
    auto out = zeros({1, H, n, n});
    runOk(f, {arr({1, H, n, D}, q), arr({1, H, D, n}, k), arr({}, {-1e9}), out});
    auto o = vals(out);
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          float acc = 0;
          for (int64_t d = 0; d < D; ++d) acc = acc + float(q[size_t((h * n + i) * D + d)]) * float(k[size_t((h * D + d) * n + j)]);
          double want = j > i ? double(float(-1e9)) : double(acc * 0.125f);
          CHECK(o[size_t((h * n + i) * n + j)] == Approx(want).epsilon(1e-6));
        }
  }

  SECTION("layer_norm over 768 features for n = 2") {
    auto f = parsePrim(text, "layer_norm");
    const int64_t n = 2, C = 768;
    V x = pattern(size_t(n * C), 21), w = pattern(size_t(C), 22), b = pattern(size_t(C), 23);
    auto out = zeros({1, n, C});
    runOk(f, {arr({1, n, C}, x), arr({C}, w), arr({C}, b), out});
    auto o = vals(out);
    for (int64_t r = 0; r < n; ++r) {
      double mean = 0, sq = 0;
      for (int64_t c = 0; c < C; ++c) mean += float(x[size_t(r * C + c)]);
      mean /= double(C);
      for (int64_t c = 0; c < C; ++c) sq += std::pow(float(x[size_t(r * C + c)]) - mean, 2);
      double inv = 1.0 / std::sqrt(sq / double(C) + 1e-5);
      for (int64_t c = 0; c < C; ++c) {
        double want = (float(x[size_t(r * C + c)]) - mean) * inv * float(w[size_t(c)]) + float(b[size_t(c)]);
        CHECK(o[size_t(r * C + c)] == Approx(want).margin(1e-4));
      }
    }
    // A mismatched feature dim is caught before anything runs.
    std::string err = run(f, {arr({1, n, C}, x), zeros({C - 1}), arr({C}, b), out});
    CHECK(contains(err, "buffer 'ln1_w' dim 0 is 767, but the buffer declares 768"));
  }
}

TEST_CASE("tir_eval: element dtypes wrap and round like the hardware", "[tir_eval]") {
  auto f = parsePrim(R"(@T.prim_func(private=True)
def dt(A: T.Buffer((3,), "int8"), B: T.Buffer((3,), "uint8"), H: T.Buffer((2,), "float16"), U: T.Buffer((2,), "uint64"), F: T.Buffer((2,), "bfloat16")):
    A[0] = A[1] + A[2]
    B[0] = B[1] - B[2]
    H[0] = H[0] + H[1]
    U[0] = U[1] // T.uint64(3)
    F[0] = F[1] * T.bfloat16(3.0)
)");
  auto a = arr({3}, {0, 100, 100}, DataType(DataType::Int, 8));
  auto b = arr({3}, {0, 1, 2}, DataType(DataType::UInt, 8));
  auto h = arr({2}, {2048, 1}, DataType(DataType::Float, 16));
  auto u = zeros({2}, DataType(DataType::UInt, 64));
  u->setInt(1, -1);  // 2^64 - 1
  auto bf = arr({2}, {0, 1.0078125}, DataType(DataType::BFloat, 16));
  runOk(f, {a, b, h, u, bf});
  CHECK(a->getInt(0) == -56);   // 200 wraps in int8
  CHECK(b->getInt(0) == 255);   // 1 - 2 wraps in uint8
  CHECK(h->getDouble(0) == 2048);  // 2049 is not a float16
  CHECK(u->getInt(0) == int64_t(6148914691236517205));  // unsigned division of 2^64 - 1
  CHECK(bf->getDouble(0) == 3.03125);  // 3.0234375 is a tie in bfloat16 (steps of 1/64): to even
}

TEST_CASE("tir_eval: unsupported buffer dtypes are errors", "[tir_eval]") {
  auto f = parsePrim(R"(@T.prim_func(private=True)
def v(A: T.Buffer((4,), "float32x4")):
    A[0] = T.Broadcast(T.float32(1.0), 4)
)");
  std::string err = run(f, {zeros({4})});
  CHECK(contains(err, "float32x4"));
}

TEST_CASE("tir_eval: oversized scratch buffers are refused, not allocated", "[tir_eval]") {
  auto f = parsePrim(R"(@T.prim_func(private=True)
def big(n: T.int64, A: T.Buffer((1,), "float32")):
    tmp = T.alloc_buffer((n, n))
    for i in range(1):
        with T.block("b"):
            vi = T.axis.spatial(1, i)
            tmp[0, 0] = A[vi]
)");
  std::string err = run(f, {TirArg(int64_t(1) << 20), zeros({1})});
  CHECK(contains(err, "buffer 'tmp' is too large to allocate"));
  runOk(f, {TirArg(4), zeros({1})});
}
