// The CPU schedule's GEMM path (schedule_gemm.cc, rlx_sgemm): matmul kernels from LegalizeOps/FuseTIR
// and hand-written TIR take it and agree with the TIR interpreter at odd, batched and symbolic shapes.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <regex>

#include "llvm_test_util.h"
#include "runtime/llvm/sgemm.h"

using namespace rlx;

namespace {

bool usesGemm(const PrimFuncRef& f) {
  auto ir = emitLLVM(f, "gemm");
  return ir.ok() && contains(*ir, "rlx_sgemm");
}

// Whether the kernel's element-wise epilogue runs inside the GEMM (schedule_epilogue.cc).
bool fusedEpilogue(const PrimFuncRef& f) {
  auto ir = emitLLVM(f, "gemm");
  return ir.ok() && contains(*ir, "rlx_sgemm_epilogue");
}

// The GEMM fuses each multiply with its add, so sums over hundreds of terms differ by a few ulps more
// than one float32 operation.
std::string agreeSums(const PrimFuncRef& f, const std::vector<TirArg>& args) { return agree(f, args, 5e-5); }

std::string T(const std::string& shape) { return "R.Tensor(" + shape + ", \"float32\")"; }

}  // namespace

TEST_CASE("llvm gemm: matmul at odd sizes takes the GEMM path and agrees", "[llvm][gemm]") {
  for (int64_t m : {1, 7, 33})
    for (int64_t k : {1, 7, 513})
      for (int64_t n : {1, 7, 33, 513}) {
        std::string a = "(" + std::to_string(m) + ", " + std::to_string(k) + ")", b = "(" + std::to_string(k) + ", " + std::to_string(n) + ")";
        auto fs = lower("a: " + T(a) + ", b: " + T(b), "            gv = R.matmul(a, b)\n");
        REQUIRE(fs.size() == 1);
        INFO(m << "x" << k << "x" << n);
        CHECK(usesGemm(fs[0]));
        CHECK(agreeSums(fs[0], argsFor(*fs[0], 1, uint32_t(m * 7 + k * 3 + n))) == "");
      }
}

TEST_CASE("llvm gemm: large square and tall shapes (blocking edges in M, N and K)", "[llvm][gemm]") {
  struct S {
    int64_t m, k, n;
  };
  for (S s : {S{200, 300, 2100}, S{130, 257, 70}, S{97, 1100, 40}}) {
    auto fs = lower("a: " + T("(" + std::to_string(s.m) + ", " + std::to_string(s.k) + ")") + ", b: " + T("(" + std::to_string(s.k) + ", " + std::to_string(s.n) + ")"),
                    "            gv = R.matmul(a, b)\n");
    REQUIRE(fs.size() == 1);
    INFO(s.m << "x" << s.k << "x" << s.n);
    CHECK(usesGemm(fs[0]));
    CHECK(agreeSums(fs[0], argsFor(*fs[0], 1, 3)) == "");
  }
}

TEST_CASE("llvm gemm: x @ W.T with bias and relu/gelu epilogues (FuseTIR)", "[llvm][gemm]") {
  for (const char* act : {"relu", "gelu", "gelu_tanh"})
    for (int64_t m : {1, 7, 64}) {
      std::string bindings = "            wt = R.permute_dims(w)\n            mm = R.matmul(x, wt)\n            ad = R.add(mm, bias)\n            gv = R.nn." + std::string(act) + "(ad)\n";
      auto fs = lower("x: " + T("(" + std::to_string(m) + ", 33)") + ", w: " + T("(45, 33)") + ", bias: " + T("(45,)"), bindings);
      INFO(act << " m=" << m);
      bool any = false;
      for (auto& f : fs) {
        any |= usesGemm(f);
        CHECK(agreeSums(f, argsFor(*f, 1, 5)) == "");
      }
      CHECK(any);
    }
  // Residual add after the bias.
  auto fs = lower("x: " + T("(9, 40)") + ", w: " + T("(40, 40)") + ", bias: " + T("(40,)"),
                  "            wt = R.permute_dims(w)\n            mm = R.matmul(x, wt)\n            ad = R.add(mm, bias)\n            gv = R.add(ad, x)\n");
  for (auto& f : fs) CHECK(agreeSums(f, argsFor(*f, 1, 6)) == "");
}

TEST_CASE("llvm gemm: batched and broadcast matmuls, vector operands", "[llvm][gemm]") {
  struct S {
    const char *a, *b;
  };
  // Batch dims go into the GEMM call: few batch elements (each split among the threads), many (one
  // thread each: attention's heads), two batch dims, batched vector-matrix products, K = 0, an empty batch.
  for (S s : {S{"(2, 3, 35)", "(35, 40)"}, S{"(2, 1, 17, 35)", "(4, 35, 33)"}, S{"(3, 9, 64)", "(3, 64, 9)"}, S{"(35,)", "(2, 35, 33)"}, S{"(2, 33, 35)", "(35,)"},
              S{"(12, 20, 16)", "(12, 16, 70)"}, S{"(2, 3, 13, 8)", "(2, 3, 8, 37)"}, S{"(5, 1, 35)", "(5, 35, 200)"}, S{"(6, 4, 0)", "(6, 0, 5)"},
              S{"(0, 4, 5)", "(0, 5, 6)"}}) {
    auto fs = lower(std::string("a: ") + T(s.a) + ", b: " + T(s.b), "            gv = R.matmul(a, b)\n");
    REQUIRE(fs.size() == 1);
    INFO(s.a << " @ " << s.b);
    CHECK(usesGemm(fs[0]));
    CHECK(agreeSums(fs[0], argsFor(*fs[0], 1, 7)) == "");
  }
  // Batched with the second operand transposed (q @ k^T), and with the epilogue a batched GEMM does
  // not take (scale, mask) left to its own loops.
  auto fs = lower("q: " + T("(12, 20, 16)") + ", k: " + T("(12, 40, 16)") + ", mask: " + T("(20, 40)"),
                  "            kt = R.permute_dims(k, axes=[0, 2, 1])\n            s = R.matmul(q, kt)\n            sc = R.multiply(s, R.const(0.25, \"float32\"))\n"
                  "            gv = R.add(sc, mask)\n");
  for (auto& f : fs) CHECK(agreeSums(f, argsFor(*f, 1, 8)) == "");
}

// Implicit-GEMM convolutions: the gathered input becomes the A operand read in place (C transposed,
// output channels along the vectors), the weights the packed B, shared by the threads' row units.
// Few and many output channels (in place and packed A), strides, padding, an odd image, a batch; and
// 3x3 stride-1 ones with 16+ channels each way, which rlx_sgemm computes by Winograd's F(4x4, 3x3)
// (test_winograd.cc checks its rounding against the sums of |products|; here relative to the result).
TEST_CASE("llvm gemm: conv2d with bias and relu at odd sizes and strides", "[llvm][gemm]") {
  struct S {
    int64_t n, ci, hw, co, kernel, stride, pad;
  };
  for (S s : {S{1, 5, 13, 7, 3, 1, 1}, S{1, 16, 30, 40, 3, 2, 1}, S{2, 3, 17, 300, 3, 1, 0}, S{1, 8, 9, 33, 1, 1, 0}, S{1, 6, 20, 17, 5, 3, 2},
              S{1, 16, 13, 20, 3, 1, 1}, S{2, 17, 18, 37, 3, 1, 0},
              // Stride 2 over rows of 35 and 21 outputs: B's columns packed as runs two apart.
              S{1, 8, 70, 24, 3, 2, 1}, S{1, 12, 41, 20, 1, 2, 0},
              // Transposed (625 pixels over 264 channels), A packed: panels of pixels two apart
              // loaded whole, panels across an image row's end gathered.
              S{1, 4, 50, 264, 3, 2, 1}}) {
    bool winograd = s.kernel == 3 && s.stride == 1 && s.ci >= 16 && s.co >= 16;
    std::string x = "(" + std::to_string(s.n) + ", " + std::to_string(s.ci) + ", " + std::to_string(s.hw) + ", " + std::to_string(s.hw) + ")";
    std::string w = "(" + std::to_string(s.co) + ", " + std::to_string(s.ci) + ", " + std::to_string(s.kernel) + ", " + std::to_string(s.kernel) + ")";
    std::string st = std::to_string(s.stride), pd = std::to_string(s.pad);
    std::string bindings = "            cv = R.nn.conv2d(x, w, strides=[" + st + ", " + st + "], padding=[" + pd + ", " + pd + ", " + pd + ", " + pd +
                           "])\n            bb = R.reshape(bias, R.shape([1, " + std::to_string(s.co) + ", 1, 1]))\n            ad = R.add(cv, bb)\n            gv = R.nn.relu(ad)\n";
    auto fs = lower("x: " + T(x) + ", w: " + T(w) + ", bias: " + T("(" + std::to_string(s.co) + ",)"), bindings);
    INFO(x << " * " << w << " stride " << s.stride << " pad " << s.pad);
    bool any = false;
    for (auto& f : fs) {
      any |= usesGemm(f);
      CHECK(agree(f, argsFor(*f, 1, 11), winograd ? 1e-3 : 5e-5) == "");
    }
    CHECK(any);
  }
}

// The element-wise nest after a GEMM runs per finished block inside it: operands shaped like the
// output read at the same element, a bias over the rows or the columns, an operand over several row
// or column dims (indices recovered from the flattened ones by division), a transcendental.
TEST_CASE("llvm gemm: element-wise epilogues fused into the GEMM agree", "[llvm][gemm]") {
  struct S {
    std::string params, bindings;
    bool fused;
  };
  std::vector<S> cases = {
      {"x: " + T("(37, 70)") + ", w: " + T("(70, 45)") + ", b: " + T("(45,)") + ", r: " + T("(37, 45)"),
       "            mm = R.matmul(x, w)\n            ad = R.add(mm, b)\n            gl = R.nn.gelu(ad)\n            gv = R.add(gl, r)\n", true},
      {"x: " + T("(1, 70)") + ", w: " + T("(70, 300)") + ", b: " + T("(300,)"), "            mm = R.matmul(x, w)\n            ad = R.add(mm, b)\n            gv = R.nn.relu(ad)\n", true},
      {"x: " + T("(2, 3, 35)") + ", w: " + T("(35, 40)") + ", b: " + T("(3, 40)"), "            mm = R.matmul(x, w)\n            gv = R.multiply(mm, b)\n", true},
      {"x: " + T("(1, 8, 12, 10)") + ", w: " + T("(16, 8, 3, 3)") + ", p: " + T("(1, 1, 10, 8)"),
       "            cv = R.nn.conv2d(x, w)\n            gv = R.add(cv, p)\n", true},
      {"x: " + T("(4, 9, 33)") + ", w: " + T("(4, 33, 20)") + ", b: " + T("(20,)"), "            mm = R.matmul(x, w)\n            gv = R.add(mm, b)\n", false},
  };
  for (auto& c : cases) {
    auto fs = lower(c.params, c.bindings);
    INFO(c.params << "\n" << c.bindings);
    bool fused = false;
    for (auto& f : fs) {
      fused |= fusedEpilogue(f);
      CHECK(agreeSums(f, argsFor(*f, 1, 13)) == "");
    }
    CHECK(fused == c.fused);
  }
  // An epilogue reading an operand along its columns (the residual r) requests the next sliver's
  // lines of it; one reading operands along its rows only (the bias) requests none.
  for (bool residual : {true, false}) {
    auto fs = lower("x: " + T("(37, 70)") + ", w: " + T("(70, 45)") + ", b: " + T("(45,)") + ", r: " + T("(37, 45)"),
                    std::string("            mm = R.matmul(x, w)\n            ad = R.add(mm, b)\n") +
                        (residual ? "            gv = R.add(ad, r)\n" : "            gv = R.nn.relu(ad)\n"));
    for (auto& f : fs) {
      if (!fusedEpilogue(f)) continue;
      auto ir = emitLLVM(f, "gemm");
      REQUIRE(ir.ok());
      CHECK(contains(*ir, "@llvm.prefetch") == residual);
      // Blocks of the micro-kernel's sliver width take a copy of the loops with that width constant.
      CHECK(std::regex_search(*ir, std::regex("icmp eq i64 %[0-9]+, " + std::to_string(RLX_SGEMM_SLIVER_COLUMNS) + "\\b")));
    }
  }
  // Symbolic rows: the flattened extents and the bias's indices are expressions over the shape vars.
  auto fs = lower("x: " + T("(\"n\", 33)") + ", w: " + T("(33, \"m\")") + ", b: " + T("(\"m\",)"), "            mm = R.matmul(x, w)\n            ad = R.add(mm, b)\n            gv = R.nn.relu(ad)\n");
  bool fused = false;
  for (auto& f : fs) {
    fused |= fusedEpilogue(f);
    for (int64_t v : {1, 6, 37}) CHECK(agreeSums(f, argsFor(*f, v, uint32_t(v))) == "");
  }
  CHECK(fused);
}

// With C an intermediate of the kernel alone, the GEMM computes into the epilogue's output and the
// epilogue runs in place; a convolution without padding reads its input in place (its pad_temp is a
// plain copy, inlined): neither kernel takes a workspace.
TEST_CASE("llvm gemm: a fused GEMM writes the epilogue's output itself, without a C buffer", "[llvm][gemm]") {
  std::vector<std::pair<std::string, std::string>> cases = {
      {"x: " + T("(37, 70)") + ", w: " + T("(70, 45)") + ", b: " + T("(45,)"), "            mm = R.matmul(x, w)\n            ad = R.add(mm, b)\n            gv = R.nn.relu(ad)\n"},
      {"x: " + T("(1, 24, 9, 11)") + ", w: " + T("(40, 24, 1, 1)") + ", b: " + T("(1, 40, 1, 1)"),
       "            cv = R.nn.conv2d(x, w)\n            ad = R.add(cv, b)\n            gv = R.nn.relu(ad)\n"},
  };
  for (auto& [params, bindings] : cases) {
    INFO(params << "\n" << bindings);
    auto fs = lower(params, bindings);
    REQUIRE(fs.size() == 1);
    CHECK(fusedEpilogue(fs[0]));
    auto ir = emitLLVM(fs[0], "gemm");
    REQUIRE(ir.ok());
    CHECK_FALSE(contains(*ir, "rlx_workspace_take"));
    CHECK(agreeSums(fs[0], argsFor(*fs[0], 1, 29)) == "");
  }
}

// B in column panels ([N / 32][K][32], as PackMatmulWeights stores constant weights): read in place
// by the micro-kernel and the GEMV, over several k blocks (K > 800) and row tails.
TEST_CASE("llvm gemm: a weight in column panels is read in place", "[llvm][gemm]") {
  // Widths 32 does not divide: the last panel padded (its padding here random, as the GEMM must
  // never let it reach C), the descriptor's valid column count cutting the columns short. With
  // K <= M and rows enough, threads split rows (a channels-last 1x1 convolution's pixels): 203 x 40
  // x 288 has 9 slivers, which they split by columns before.
  for (auto [m, k, n] : {std::tuple{37, 900, 96}, std::tuple{1, 70, 160}, std::tuple{8, 33, 32}, std::tuple{37, 900, 100}, std::tuple{1, 70, 177}, std::tuple{9, 33, 45},
                         std::tuple{203, 40, 288}, std::tuple{200, 70, 100}}) {
    auto M = "T.int64(" + std::to_string(m) + ")", K = "T.int64(" + std::to_string(k) + ")", N = "T.int64(" + std::to_string(n) + ")";
    std::string text = R"(@I.ir_module
class Module:
    @T.prim_func(private=True)
    def mm(A: T.Buffer(()" + M + ", " + K + R"(), "float32"), W: T.Buffer((T.int64()" + std::to_string((n + 31) / 32) + "), " + K + R"(, T.int64(32)), "float32"), C: T.Buffer(()" + M + ", " + N + R"(), "float32")):
        T.func_attr({"tir.noalias": True})
        for i, j, k in T.grid()" + M + ", " + N + ", " + K + R"():
            with T.block("matmul"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * W[vj // T.int64(32), vk, vj % T.int64(32)]
)";
    INFO(m << "x" << k << "x" << n);
    PrimFuncRef f = firstPrimFunc(text);
    REQUIRE(f);
    CHECK(usesGemm(f));
    CHECK(agreeSums(f, argsFor(*f, 1, 31)) == "");
  }
}

// Reading C at another element than the one written (here its mirror image) keeps the epilogue a
// pass of its own: the element might belong to a block not computed yet.
TEST_CASE("llvm gemm: an epilogue reading the GEMM output elsewhere stays unfused", "[llvm][gemm]") {
  std::string text = R"(@I.ir_module
class Module:
    @T.prim_func(private=True)
    def mm(A: T.Buffer((T.int64(20), T.int64(30)), "float32"), B: T.Buffer((T.int64(30), T.int64(40)), "float32"), D: T.Buffer((T.int64(20), T.int64(40)), "float32")):
        T.func_attr({"tir.noalias": True})
        C = T.alloc_buffer((T.int64(20), T.int64(40)))
        for i, j, k in T.grid(T.int64(20), T.int64(40), T.int64(30)):
            with T.block("matmul"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(T.int64(20), T.int64(40)):
            with T.block("mirror"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = C[vi, vj] - C[vi, T.int64(39) - vj]
)";
  PrimFuncRef f = firstPrimFunc(text);
  REQUIRE(f);
  CHECK(usesGemm(f));
  CHECK_FALSE(fusedEpilogue(f));
  CHECK(agreeSums(f, argsFor(*f, 1, 17)) == "");
}

TEST_CASE("llvm gemm: symbolic dims", "[llvm][gemm]") {
  auto fs = lower("x: " + T("(\"n\", 70)") + ", w: " + T("(70, \"m\")"), "            gv = R.matmul(x, w)\n");
  REQUIRE(fs.size() == 1);
  CHECK(usesGemm(fs[0]));
  for (int64_t v : {1, 6, 37}) CHECK(agreeSums(fs[0], argsFor(*fs[0], v, uint32_t(v))) == "");
}

TEST_CASE("llvm gemm: hand-written TIR with transposed operands; non-float32 stays on the loop path", "[llvm][gemm]") {
  // C = A.T @ B.T, both operands read across their rows.
  std::string text = R"(@I.ir_module
class Module:
    @T.prim_func(private=True)
    def mm(var_A: T.handle, B: T.Buffer((T.int64(37), T.int64(19)), "float32"), var_C: T.handle):
        T.func_attr({"tir.noalias": True})
        m = T.int64()
        A = T.match_buffer(var_A, (T.int64(19), m))
        C = T.match_buffer(var_C, (m, T.int64(37)))
        for i, j, k in T.grid(m, T.int64(37), T.int64(19)):
            with T.block("matmul"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vk, vi] * B[vj, vk]
)";
  PrimFuncRef f = firstPrimFunc(text);
  REQUIRE(f);
  CHECK(usesGemm(f));
  for (int64_t v : {1, 13, 40}) CHECK(agreeSums(f, argsFor(*f, v, uint32_t(v))) == "");
  auto g = lower("a: R.Tensor((5, 7), \"float64\"), b: R.Tensor((7, 3), \"float64\")", "            gv = R.matmul(a, b)\n");
  REQUIRE(g.size() == 1);
  CHECK(!usesGemm(g[0]));
  CHECK(agree(g[0], argsFor(*g[0], 1, 2), 1e-12) == "");
}

TEST_CASE("llvm gemm: depthwise convolutions run on the window kernel, pooling windows as vector loops", "[llvm][gemm]") {
  // A window of 2+ reduction dims over one output row per channel reaches rlx_sgemm as a batched GEMM
  // of one row, which computes it with window_conv.cc (unit, stride-2 and gathered columns: the
  // dilated window); its padding stage is folded into the call (rlx_sgemm_padded pads a small plane
  // at a time and reads a large one in place, masking in the border's zeros: the planes from 90 x 90
  // on, schedule_window.h; a plane read at column stride 2 is copied with its even and odd columns
  // apart, odd and even left paddings and widths short of 32 here). Same sums, in the same order.
  struct S {
    const char *x, *w, *attrs;
  };
  for (S s : {S{"(1, 8, 13, 13)", "(8, 1, 3, 3)", "strides=[1, 1], padding=[1, 1, 1, 1], groups=8"},
              S{"(1, 8, 14, 14)", "(8, 1, 3, 3)", "strides=[2, 2], padding=[1, 1, 1, 1], groups=8"},
              S{"(1, 8, 35, 37)", "(8, 1, 5, 5)", "strides=[2, 2], padding=[2, 2, 2, 2], groups=8"},
              S{"(1, 4, 12, 40)", "(4, 1, 3, 3)", "strides=[1, 1], padding=[2, 2, 2, 2], dilation=[2, 2], groups=4"},
              S{"(1, 4, 12, 20)", "(4, 1, 3, 3)", "strides=[3, 3], padding=[1, 1, 1, 1], groups=4"},
              S{"(2, 6, 11, 9)", "(6, 1, 7, 7)", "strides=[1, 1], padding=[3, 3, 3, 3], groups=6"},
              S{"(1, 3, 96, 100)", "(3, 1, 3, 3)", "strides=[1, 1], padding=[1, 1, 1, 1], groups=3"},
              S{"(1, 2, 95, 99)", "(2, 1, 3, 3)", "strides=[1, 1], padding=[2, 0, 1, 2], groups=2"},
              S{"(1, 2, 2100, 2)", "(2, 1, 3, 3)", "strides=[1, 1], padding=[1, 1, 1, 1], groups=2"},
              S{"(1, 2, 97, 101)", "(2, 1, 5, 5)", "strides=[2, 2], padding=[2, 2, 2, 2], groups=2"},
              S{"(1, 2, 90, 95)", "(2, 1, 3, 3)", "strides=[3, 3], padding=[1, 1, 1, 1], groups=2"},
              S{"(1, 2, 92, 96)", "(2, 1, 3, 3)", "strides=[1, 1], padding=[2, 2, 2, 2], dilation=[2, 2], groups=2"},
              S{"(2, 2, 100, 90)", "(2, 1, 3, 3)", "strides=[1, 2], padding=[0, 2, 1, 0], groups=2"}}) {
    auto fs = lower(std::string("x: ") + T(s.x) + ", w: " + T(s.w), std::string("            gv = R.nn.conv2d(x, w, ") + s.attrs + ")\n");
    INFO(s.x << " * " << s.w << " " << s.attrs);
    for (auto& f : fs) {
      CHECK(usesGemm(f));
      auto ir = emitLLVM(f, "gemm");
      REQUIRE(ir.ok());
      CHECK(contains(*ir, "rlx_sgemm_padded") == (__builtin_cpu_supports("avx512f") != 0));
      CHECK(agreeSums(f, argsFor(*f, 1, 9)) == "");
    }
  }
  // With a bias and a clip after it (MobileNet's depthwise block): the element-wise nest runs on each
  // channel plane inside the padded window call.
  for (const char* stride : {"[1, 1]", "[2, 2]"}) {
    auto fs = lower("x: " + T("(1, 6, 15, 13)") + ", w: " + T("(6, 1, 3, 3)") + ", b: " + T("(1, 6, 1, 1)"),
                    std::string("            cv = R.nn.conv2d(x, w, strides=") + stride + ", padding=[1, 1, 1, 1], groups=6)\n            ad = R.add(cv, b)\n" +
                        "            gv = R.clip(ad, R.prim_value(T.float32(0)), R.prim_value(T.float32(6)))\n");
    INFO("strides " << stride);
    REQUIRE(fs.size() == 1);
    auto ir = emitLLVM(fs[0], "gemm");
    REQUIRE(ir.ok());
    CHECK(contains(*ir, "rlx_sgemm_padded_epilogue") == (__builtin_cpu_supports("avx512f") != 0));
    CHECK(agreeSums(fs[0], argsFor(*fs[0], 1, 12)) == "");
  }
  // Eight channels or more over small planes run 16 channels to a vector (window_channels.h): a
  // partial last group, two images, strides 1-3, 5x5 and dilated windows, asymmetric padding, a
  // plane in row bands (with two threads), and the bias-clip epilogue on blocks of channels.
  for (S s : {S{"(1, 20, 7, 7)", "(20, 1, 3, 3)", "strides=[1, 1], padding=[1, 1, 1, 1], groups=20"},
              S{"(2, 24, 14, 14)", "(24, 1, 3, 3)", "strides=[2, 2], padding=[1, 1, 1, 1], groups=24"},
              S{"(1, 8, 13, 11)", "(8, 1, 5, 5)", "strides=[1, 1], padding=[2, 2, 2, 2], groups=8"},
              S{"(1, 16, 12, 12)", "(16, 1, 3, 3)", "strides=[3, 3], padding=[1, 1, 1, 1], groups=16"},
              S{"(1, 33, 10, 9)", "(33, 1, 3, 3)", "strides=[1, 1], padding=[2, 2, 2, 2], dilation=[2, 2], groups=33"},
              S{"(1, 17, 9, 10)", "(17, 1, 3, 3)", "strides=[1, 2], padding=[0, 2, 1, 0], groups=17"},
              S{"(1, 9, 1, 5)", "(9, 1, 3, 3)", "strides=[1, 1], padding=[1, 1, 1, 1], groups=9"},
              S{"(1, 12, 56, 60)", "(12, 1, 3, 3)", "strides=[1, 1], padding=[1, 1, 1, 1], groups=12"},
              // Rows of 7, 5 and 7 adjacent taps at stride 1 share their loads (ConvNeXt's 7x7);
              // rows 13 and 21 wide leave tails of 5 pixels.
              S{"(1, 18, 14, 13)", "(18, 1, 7, 7)", "strides=[1, 1], padding=[3, 3, 3, 3], groups=18"},
              S{"(1, 16, 9, 21)", "(16, 1, 3, 5)", "strides=[1, 1], padding=[1, 2, 1, 2], groups=16"},
              S{"(1, 10, 6, 16)", "(10, 1, 1, 7)", "strides=[1, 1], padding=[0, 3, 0, 3], groups=10"}}) {
    auto fs = lower(std::string("x: ") + T(s.x) + ", w: " + T(s.w) + ", b: " + T("(1, " + std::string(s.w).substr(1, std::string(s.w).find(',') - 1) + ", 1, 1)"),
                    std::string("            cv = R.nn.conv2d(x, w, ") + s.attrs + ")\n            ad = R.add(cv, b)\n" +
                        "            gv = R.clip(ad, R.prim_value(T.float32(0)), R.prim_value(T.float32(6)))\n");
    INFO(s.x << " * " << s.w << " " << s.attrs);
    REQUIRE(fs.size() == 1);
    auto ir = emitLLVM(fs[0], "gemm");
    REQUIRE(ir.ok());
    // (Two images keep the epilogue a nest of its own.)
    CHECK(contains(*ir, s.x[1] == '1' ? "rlx_sgemm_padded_epilogue" : "rlx_sgemm_padded") == (__builtin_cpu_supports("avx512f") != 0));
    CHECK(agreeSums(fs[0], argsFor(*fs[0], 1, 13)) == "");
  }
  auto fs = lower("x: " + T("(1, 5, 12, 12)"), "            gv = R.nn.avg_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])\n");
  for (auto& f : fs) CHECK(agreeSums(f, argsFor(*f, 1, 10)) == "");
}

TEST_CASE("llvm gemm: padded max pooling runs on the window kernel and agrees", "[llvm][gemm]") {
  // The padding stage (the lowest float outside the input) and the max nest become one
  // rlx_pool_padded call: small planes copied into a border of that value, large ones read in place
  // with it masked in, stride-2 ones copied split by column parity; unit, stride-2 and gathered
  // (dilated, stride-3) columns; two images.
  // Inputs span negative values, so a border of zeros instead would show in the edge outputs.
  struct S {
    const char *x, *attrs;
  };
  for (S s : {S{"(1, 5, 12, 12)", "pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1]"},
              S{"(1, 3, 100, 100)", "pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1]"},
              S{"(2, 4, 13, 17)", "pool_size=[3, 3], strides=[1, 1], padding=[1, 1, 1, 1]"},
              S{"(1, 3, 40, 40)", "pool_size=[3, 3], strides=[3, 3], padding=[2, 2, 2, 2], dilation=[2, 2]"},
              S{"(1, 2, 95, 97)", "pool_size=[5, 5], strides=[2, 2], padding=[2, 1, 2, 1]"},
              S{"(1, 4, 9, 9)", "pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0]"}}) {
    auto fs = lower(std::string("x: ") + T(s.x), std::string("            gv = R.nn.max_pool2d(x, ") + s.attrs + ")\n");
    INFO(s.x << " " << s.attrs);
    REQUIRE(fs.size() == 1);
    auto ir = emitLLVM(fs[0], "pool");
    REQUIRE(ir.ok());
    bool padded = std::string(s.attrs).find("padding=[0, 0, 0, 0]") == std::string::npos;
    CHECK(contains(*ir, "rlx_pool_padded") == (padded && __builtin_cpu_supports("avx512f") != 0));
    CHECK(agree(fs[0], argsFor(*fs[0], 1, 17), 0) == "");
  }
}

TEST_CASE("llvm gemm: 1x1 convolutions over small images with their weights in panels run transposed and agree", "[llvm][gemm]") {
  // PackMatmulWeights stores a constant 1x1 weight [O, I, 1, 1] as [O / 32][I][1][1][32] when the
  // image has under 256 pixels; rlx_sgemm then runs the GEMM transposed (vectors along the output
  // channels, the tile's pixels stored through a register transpose). A squeeze-excitation's one
  // pixel is a GEMV over the panels; two images make the pixels non-consecutive at the seam.
  auto weight = [](int64_t o, int64_t i) {
    std::string s = "R.const([";
    for (int64_t a = 0; a < o; ++a) {
      s += a ? ", [" : "[";
      for (int64_t b = 0; b < i; ++b) s += (b ? ", [[" : "[[") + std::to_string(double((a * 7 + b * 3) % 11) / 8 - 0.6) + "]]";
      s += "]";
    }
    return s + "], \"float32\")";
  };
  struct S {
    int64_t n, o, i, h;
  };
  // 40 and 50 channels: the last panel padded with zeros, the transposed GEMM's columns cut short.
  // 64 and 80 channels over 49 and 25 pixels: more weights than inputs, so that two or three threads
  // split the tiles sliver by sliver (splitTiles), 810 input channels making two k blocks.
  for (S s : {S{1, 64, 24, 7}, S{1, 96, 40, 1}, S{2, 32, 17, 5}, S{1, 64, 8, 14}, S{1, 40, 24, 7}, S{1, 50, 16, 1}, S{1, 80, 810, 5}}) {
    std::string x = "(" + std::to_string(s.n) + ", " + std::to_string(s.i) + ", " + std::to_string(s.h) + ", " + std::to_string(s.h) + ")";
    std::string bias = "(1, " + std::to_string(s.o) + ", 1, 1)";
    auto fs = lower("x: " + T(x) + ", b: " + T(bias),
                    "            cv = R.nn.conv2d(x, " + weight(s.o, s.i) + ")\n            ad = R.add(cv, b)\n            gv = R.nn.relu(ad)\n",
                    "LegalizeOps,AnnotateTIROpPattern,FoldConstant,FuseOps,FuseTIR,PackMatmulWeights");
    INFO(x << " -> " << s.o);
    REQUIRE(fs.size() == 1);
    bool packed = false;
    for (auto& [param, buf] : fs[0]->bufferMap) packed |= buf->shape.size() == 5;
    CHECK(packed);
    CHECK(usesGemm(fs[0]));
    CHECK(agreeSums(fs[0], argsFor(*fs[0], 1, uint32_t(s.o + s.h))) == "");
  }
}

TEST_CASE("llvm gemm: strided 3x3 convolutions take panel weights; stride 1 keeps its layout", "[llvm][gemm]") {
  // A strided window has no Winograd form: its constant weight goes into panels like a 1x1 one's
  // (implicit GEMM, the input gathered as the transposed GEMM's A). A stride-1 3x3 weight stays as
  // it is, for Winograd.
  auto weight = [](int64_t o, int64_t i) {
    std::string s = "R.const([";
    for (int64_t a = 0; a < o; ++a) {
      s += a ? ", [" : "[";
      for (int64_t b = 0; b < i; ++b) {
        s += b ? ", [" : "[";
        for (int64_t y = 0; y < 3; ++y) {
          s += y ? ", [" : "[";
          for (int64_t x = 0; x < 3; ++x) s += (x ? ", " : "") + std::to_string(double((a * 5 + b * 3 + y * 2 + x) % 13) / 10 - 0.6);
          s += "]";
        }
        s += "]";
      }
      s += "]";
    }
    return s + "], \"float32\")";
  };
  // Over larger outputs too (20 x 20 = 400 pixels, more than the 64 channels): the GEMM runs transposed
  // there anyway, and panels spare it packing the weight on every call. With 288 output channels (more
  // slivers than A is read in place for) A is packed: at 7 x 7 an 8-pixel panel spans two output rows,
  // two runs of stride-2 input columns (packA's two loads and a permute per k step).
  struct S {
    int stride, size, out;
  };
  for (S c : {S{2, 14, 64}, S{1, 14, 64}, S{2, 40, 64}, S{2, 14, 288}}) {
    auto [stride, size, out] = c;
    auto fs = lower("x: " + T("(1, 6, " + std::to_string(size) + ", " + std::to_string(size) + ")"),
                    "            gv = R.nn.conv2d(x, " + weight(out, 6) + ", strides=[" + std::to_string(stride) + ", " + std::to_string(stride) + "], padding=[1, 1, 1, 1])\n",
                    "LegalizeOps,AnnotateTIROpPattern,FoldConstant,FuseOps,FuseTIR,PackMatmulWeights");
    INFO("stride " << stride << ", " << size << " x " << size << ", " << out << " channels");
    REQUIRE(fs.size() == 1);
    bool packed = false;
    for (auto& [param, buf] : fs[0]->bufferMap) packed |= buf->shape.size() == 5;
    CHECK(packed == (stride == 2));
    CHECK(usesGemm(fs[0]));
    CHECK(agreeSums(fs[0], argsFor(*fs[0], 1, uint32_t(stride))) == "");
  }
}

TEST_CASE("llvm gemm: grouped convolutions run as one GEMM per group and agree", "[llvm][gemm]") {
  // The input's channel is v // d * d + c for output channel v (d its group's output channels): v
  // splits into the groups (batch dims) and the channels within one (rows). 4 groups of 8 -> 8,
  // 2 groups of 3 -> 5 (odd sizes), 32 groups of 2 -> 2 (ResNeXt's narrow groups), a depth
  // multiplier (1 input channel -> 3 outputs a group), strided, two images; with a bias and relu
  // after it (not fused into a batched call, and still right).
  struct S {
    const char *x, *w;
    int groups;
    const char* attrs;
  };
  for (S s : {S{"(1, 32, 9, 9)", "(32, 8, 3, 3)", 4, "padding=[1, 1, 1, 1]"},
              S{"(2, 6, 7, 8)", "(10, 3, 3, 3)", 2, "padding=[1, 1, 1, 1]"},
              S{"(1, 64, 6, 6)", "(64, 2, 3, 3)", 32, "padding=[1, 1, 1, 1]"},
              S{"(1, 4, 8, 8)", "(12, 1, 3, 3)", 4, "padding=[1, 1, 1, 1]"},
              S{"(1, 16, 11, 11)", "(16, 4, 3, 3)", 4, "strides=[2, 2], padding=[1, 1, 1, 1]"}}) {
    auto fs = lower("x: " + T(s.x) + ", w: " + T(s.w),
                    std::string("            gv = R.nn.conv2d(x, w, groups=") + std::to_string(s.groups) + ", " + s.attrs + ")\n");
    INFO(s.x << " * " << s.w << " groups " << s.groups);
    REQUIRE(fs.size() == 1);
    CHECK(usesGemm(fs[0]));
    CHECK(agreeSums(fs[0], argsFor(*fs[0], 1, uint32_t(s.groups))) == "");
  }
  auto fs = lower("x: " + T("(1, 32, 9, 9)") + ", w: " + T("(32, 8, 3, 3)") + ", b: " + T("(1, 32, 1, 1)"),
                  "            cv = R.nn.conv2d(x, w, groups=4, padding=[1, 1, 1, 1])\n            ad = R.add(cv, b)\n            gv = R.nn.relu(ad)\n",
                  "LegalizeOps,AnnotateTIROpPattern,FoldConstant,FuseOps,FuseTIR");
  REQUIRE(fs.size() == 1);
  CHECK(usesGemm(fs[0]));
  CHECK(agreeSums(fs[0], argsFor(*fs[0], 1, 9)) == "");
}
