// The CPU schedule's transpose path (schedule_transpose.cc, rlx_transpose32): R.permute_dims kernels
// whose innermost output dim is not the input's take it and copy exactly what the TIR interpreter does.
#include <catch2/catch.hpp>

#include "llvm_test_util.h"

using namespace rlx;

namespace {

bool usesTranspose(const PrimFuncRef& f) {
  auto ir = emitLLVM(f, "transpose");
  return ir.ok() && contains(*ir, "rlx_transpose32");
}

std::string tensor(const std::string& shape, const std::string& dtype = "float32") { return "R.Tensor(" + shape + ", \"" + dtype + "\")"; }

std::string shapeText(const std::vector<int64_t>& s) {
  std::string t = "(";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + (s.size() == 1 ? ",)" : ")");
}

}  // namespace

TEST_CASE("llvm transpose: matrices at odd sizes take the transpose path and copy exactly", "[llvm][transpose]") {
  // Tiles are 8 x 16: sizes below, at and across both, and a 768 x 768 weight (nn.Linear's W.T).
  for (int64_t m : {2, 7, 8, 9, 16, 17, 33, 768})
    for (int64_t n : {2, 5, 16, 31, 100}) {
      auto fs = lower("w: " + tensor(shapeText({m, n})), "            gv = R.permute_dims(w)\n");
      REQUIRE(fs.size() == 1);
      INFO(m << "x" << n);
      CHECK(usesTranspose(fs[0]));
      CHECK(agree(fs[0], argsFor(*fs[0], 1, uint32_t(m * 31 + n)), 0) == "");
    }
}

TEST_CASE("llvm transpose: permutations of more dims, int32, and symbolic extents", "[llvm][transpose]") {
  struct Case {
    std::string shape, axes, dtype;
    bool transposes;  // the innermost output dim is not the input's
  };
  for (const Case& c : {Case{"(2, 3, 17, 19)", "[0, 3, 1, 2]", "float32", true}, Case{"(2, 3, 17, 19)", "[3, 2, 1, 0]", "float32", true},
                        Case{"(4, 9, 20)", "[2, 0, 1]", "int32", true}, Case{"(4, 9, 20)", "[1, 2, 0]", "float32", true},
                        Case{"(5, 1, 18)", "[2, 1, 0]", "float32", true},
                        // The innermost dim stays innermost: rows are copied by the vectorized loop.
                        Case{"(2, 3, 17, 19)", "[1, 0, 2, 3]", "float32", false}, Case{"(6, 7)", "[0, 1]", "float32", false}}) {
    auto fs = lower("x: " + tensor(c.shape, c.dtype), "            gv = R.permute_dims(x, axes=" + c.axes + ")\n");
    INFO(c.shape << " " << c.axes << " " << c.dtype);
    if (fs.empty()) {
      CHECK(!c.transposes);  // an identity permutation legalizes to no kernel at all
      continue;
    }
    REQUIRE(fs.size() == 1);
    CHECK(usesTranspose(fs[0]) == c.transposes);
    CHECK(agree(fs[0], argsFor(*fs[0], 1, 7), 0) == "");
  }
  // A symbolic row count: the call takes it as a number, for n = 0 too (nothing to copy).
  auto fs = lower("x: " + tensor("(\"n\", 37)"), "            gv = R.permute_dims(x)\n");
  REQUIRE(fs.size() == 1);
  CHECK(usesTranspose(fs[0]));
  for (int64_t n : {0, 1, 5, 40}) {
    INFO("n = " << n);
    CHECK(agree(fs[0], argsFor(*fs[0], n, uint32_t(n)), 0) == "");
  }
}

TEST_CASE("llvm transpose: two to four channels going last are interleaved whole vectors at a time", "[llvm][transpose]") {
  // An image's NCHW -> NHWC copy (3 channels), 2 and 4 of them, a tail of b's short of 16, two images,
  // int32 elements, and a 5-wide a that takes the 8 x 16 tiles instead.
  for (auto [shape, dtype] : {std::pair{"(1, 3, 17, 19)", "float32"}, std::pair{"(2, 4, 5, 33)", "float32"}, std::pair{"(1, 2, 3, 7)", "float32"},
                              std::pair{"(1, 3, 8, 8)", "int32"}, std::pair{"(1, 5, 6, 9)", "float32"}}) {
    auto fs = lower("x: " + tensor(shape, dtype), "            gv = R.permute_dims(x, axes=[0, 2, 3, 1])\n");
    INFO(shape << " " << dtype);
    REQUIRE(fs.size() == 1);
    CHECK(usesTranspose(fs[0]));
    CHECK(agree(fs[0], argsFor(*fs[0], 1, 11), 0) == "");
  }
}

TEST_CASE("llvm transpose: other element sizes stay on the loop path", "[llvm][transpose]") {
  for (const char* dtype : {"float16", "float64", "int8"}) {
    auto fs = lower("x: " + tensor("(19, 23)", dtype), "            gv = R.permute_dims(x)\n");
    REQUIRE(fs.size() == 1);
    INFO(dtype);
    CHECK(!usesTranspose(fs[0]));
    CHECK(agree(fs[0], argsFor(*fs[0], 1, 3), 0) == "");
  }
}
