// Reduction nests on the JIT: row sums along k in vector lanes, column sums along j in k's order,
// global average pools over a contiguous plane as one loop, checked against the TIR interpreter.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>

#include "llvm_test_util.h"
#include "runtime/jit.h"

using namespace rlx;

TEST_CASE("llvm schedule: row reductions vectorize along k, column reductions along j", "[llvm]") {
  // Softmax's first half over rows of 64: the loads run along k, so k stays innermost, the init
  // moves before it and the max and the sum run in vector lanes (no gathers of a column).
  auto rows = parsePrim(R"(@T.prim_func(private=True)
def rows(x: T.Buffer((T.int64(4), T.int64(8), T.int64(64)), "float32"), mx: T.Buffer((T.int64(4), T.int64(8)), "float32"), sm: T.Buffer((T.int64(4), T.int64(8)), "float32")):
    for b, i, k in T.grid(T.int64(4), T.int64(8), T.int64(64)):
        with T.block("max"):
            vb, vi, vk = T.axis.remap("SSR", [b, i, k])
            with T.init():
                mx[vb, vi] = T.float32(-3.4028234663852886e+38)
            mx[vb, vi] = T.max(mx[vb, vi], x[vb, vi, vk])
    for b, i, k in T.grid(T.int64(4), T.int64(8), T.int64(64)):
        with T.block("sum"):
            vb, vi, vk = T.axis.remap("SSR", [b, i, k])
            with T.init():
                sm[vb, vi] = T.float32(0.0)
            sm[vb, vi] = sm[vb, vi] + T.exp(x[vb, vi, vk] - mx[vb, vi])
)");
  auto ir = emitLLVM(rows, "rows");
  REQUIRE(ir.ok());
  CHECK(matches(*ir, R"(@llvm\.vector\.reduce\.fmaximum\.v(8|16)f32)"));
  CHECK(matches(*ir, "fadd reassoc nsz <(8|16) x float>"));
  CHECK(!contains(*ir, "gather"));
  CHECK(agree(rows, {filled(DataType::float32(), {4, 8, 64}, 3), zeros({4, 8}), zeros({4, 8})}) == "");

  // A mean kept as [.., 1] (keepdims): the spatial loop right above k runs once, so k stays inside.
  auto keep = parsePrim(R"(@T.prim_func(private=True)
def keep(x: T.Buffer((T.int64(8), T.int64(64)), "float32"), s: T.Buffer((T.int64(8), T.int64(1)), "float32")):
    for i, u, k in T.grid(T.int64(8), T.int64(1), T.int64(64)):
        with T.block("sum"):
            vi, vu, vk = T.axis.remap("SSR", [i, u, k])
            with T.init():
                s[vi, vu] = T.float32(0.0)
            s[vi, vu] = s[vi, vu] + x[vi, vk]
)");
  ir = emitLLVM(keep, "keep");
  REQUIRE(ir.ok());
  CHECK(matches(*ir, "fadd reassoc nsz <(8|16) x float>"));
  CHECK(agree(keep, {filled(DataType::float32(), {8, 64}, 6), zeros({8, 1})}) == "");

  // A global average pool's sum: two reduction loops (rows, columns of each plane) under the
  // channel loop and two of extent 1. The plane is contiguous, so the two loops become one over it
  // (the init before it), summed in vector lanes; at 480 channels (EfficientNet's), a 7- or 14-long
  // row loop had been vectorized across the rows with gathers. Read transposed, the plane keeps its
  // two loops.
  for (const char* size : {"28", "14", "7"})
    for (const char* read : {"x[vn, vc, vy, vx]", "x[vn, vc, vx, vy]"}) {
      std::string text = std::string(R"(@T.prim_func(private=True)
def pool(x: T.Buffer((T.int64(1), T.int64(480), T.int64(S), T.int64(S)), "float32"), s: T.Buffer((T.int64(1), T.int64(480), T.int64(1), T.int64(1)), "float32")):
    T.func_attr({"tir.noalias": True})
    for n, c, u, v, ky, kx in T.grid(T.int64(1), T.int64(480), T.int64(1), T.int64(1), T.int64(S), T.int64(S)):
        with T.block("sum"):
            vn, vc, vu, vv, vy, vx = T.axis.remap("SSSSRR", [n, c, u, v, ky, kx])
            with T.init():
                s[vn, vc, vu, vv] = T.float32(0.0)
            s[vn, vc, vu, vv] = s[vn, vc, vu, vv] + READ
)");
      for (size_t at; (at = text.find("S)")) != std::string::npos;) text.replace(at, 1, size);
      text.replace(text.find("READ"), 4, read);
      INFO(size << " x " << size << ", " << read);
      auto pool = parsePrim(text);
      ir = emitLLVM(pool, "pool");
      REQUIRE(ir.ok());
      bool plane = read[std::strlen(read) - 2] == 'x';  // the last index the plane's column
      if (plane) CHECK(matches(*ir, "fadd reassoc nsz <(8|16) x float>"));
      auto assembly = emitAsm(pool, "pool");
      REQUIRE(assembly.ok());
      if (plane) CHECK(!contains(*assembly, "gather"));
      int64_t n = std::atoll(size);
      // Up to 784 terms summed in another order than the interpreter's: float rounding differs.
      CHECK(agree(pool, {filled(DataType::float32(), {1, 480, n, n}, 8), zeros({1, 480, 1, 1})}, 1e-4) == "");
    }

  // A sum over three axes (ONNX's ReduceSum over all of them): the plane's two loops merge inside the
  // channel's, the init before all three (it had been put inside the channel loop: only the last
  // channel's plane was summed).
  auto all = parsePrim(R"(@T.prim_func(private=True)
def all(x: T.Buffer((T.int64(2), T.int64(3), T.int64(5), T.int64(7)), "float32"), s: T.Buffer((T.int64(2), T.int64(1), T.int64(1), T.int64(1)), "float32")):
    T.func_attr({"tir.noalias": True})
    for n, u, v, w, kc, ky, kx in T.grid(T.int64(2), T.int64(1), T.int64(1), T.int64(1), T.int64(3), T.int64(5), T.int64(7)):
        with T.block("sum"):
            vn, vu, vv, vw, vc, vy, vx = T.axis.remap("SSSSRRR", [n, u, v, w, kc, ky, kx])
            with T.init():
                s[vn, vu, vv, vw] = T.float32(0.0)
            s[vn, vu, vv, vw] = s[vn, vu, vv, vw] + x[vn, vc, vy, vx]
)");
  CHECK(agree(all, {filled(DataType::float32(), {2, 3, 5, 7}, 4), zeros({2, 1, 1, 1})}, 1e-5) == "");

  // A column sum: the load runs along j, so k moves outside j and each sum keeps k's order exactly.
  auto cols = parsePrim(R"(@T.prim_func(private=True)
def cols(x: T.Buffer((T.int64(4), T.int64(64), T.int64(32)), "float32"), s: T.Buffer((T.int64(4), T.int64(32)), "float32")):
    for b, j, k in T.grid(T.int64(4), T.int64(32), T.int64(64)):
        with T.block("sum"):
            vb, vj, vk = T.axis.remap("SSR", [b, j, k])
            with T.init():
                s[vb, vj] = T.float32(0.0)
            s[vb, vj] = s[vb, vj] + x[vb, vk, vj]
)");
  ir = emitLLVM(cols, "cols");
  REQUIRE(ir.ok());
  CHECK(matches(*ir, "fadd <(8|16) x float>"));
  CHECK(!contains(*ir, "reassoc"));
  std::vector<TirArg> args = {filled(DataType::float32(), {4, 64, 32}, 5), zeros({4, 32})};
  std::vector<TirArg> mine = {copyOf(args[0].array), zeros({4, 32})};
  REQUIRE(runPrimFunc(*cols, args).ok());
  auto kernel = compileKernel(cols, "cols");
  REQUIRE(kernel.ok());
  REQUIRE(runKernel(**kernel, *cols, mine).ok());
  CHECK(std::memcmp(args[1].array->data(), mine[1].array->data(), args[1].array->nbytes()) == 0);
}
