// LegalizeOps kernels of gather/scatter, one_hot, flip, tile, repeat, stack, eye and sort/argsort/
// topk checked numerically: run by the TIR interpreter and by the LLVM JIT, against the evaluator.
#include <catch2/catch.hpp>

#include "tests/unit/legalize_jit.h"

using namespace rlx;
using namespace rlx::test::legalize;

namespace {

// Rewrites an index input in place after the evaluator has run, keeping its meaning: every other
// index i becomes i - n (n = extentOf(flat position)), which the kernel must wrap back.
struct Wrap {
  size_t input;
  std::function<int64_t(int64_t flat)> extentOf;
};

// "" when the kernel, interpreted and compiled, agrees with the evaluator (after `wrap`).
std::string compare(const Case& c, uint32_t seed, const std::optional<Wrap>& wrap) {
  return interpreterAndJitAgree(c, seed, [&](Prepared& p) {
    if (!wrap) return;
    NDArrayRef ind = p.inputs[wrap->input];  // shared with the kernel's arguments
    for (int64_t i = 1; i < ind->numel(); i += 2) ind->setInt(i, ind->getInt(i) - wrap->extentOf(i));
  });
}

void check(const Case& c, const std::optional<Wrap>& wrap = std::nullopt) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    INFO(c.params << " -> " << c.call << " (seed " << seed << (wrap ? ", negative indices" : "") << ")");
    CHECK(compare(c, seed, wrap) == "");
  }
}

// The case as given, then with every other index negative (the evaluator takes only [0, n)).
void checkWrapped(const Case& c, size_t input, std::function<int64_t(int64_t)> extentOf) {
  check(c);
  check(c, Wrap{input, std::move(extentOf)});
}

std::function<int64_t(int64_t)> extent(int64_t n) {
  return [n](int64_t) { return n; };
}


}  // namespace

TEST_CASE("legalize gather_elements: axes, index dtypes, symbolic dims, negative indices", "[legalize][gather]") {
  checkWrapped({"x: " + T("(4, 5)") + ", i: " + T("(4, 3)", "int64"), "R.gather_elements(x, i, axis=1)", {{4, 5}, {4, 3}}, 0, 4}, 1, extent(5));
  checkWrapped({"x: " + T("(3, 4, 5)") + ", i: " + T("(2, 4, 5)", "int32"), "R.gather_elements(x, i, axis=0)", {{3, 4, 5}, {2, 4, 5}}, 0, 2}, 1, extent(3));
  checkWrapped({"x: " + T("(2, 3, 7)") + ", i: " + T("(2, 2, 4)", "int64"), "R.gather_elements(x, i, axis=-1)", {{2, 3, 7}, {2, 2, 4}}, 0, 6}, 1, extent(7));
  checkWrapped({"x: " + T("(\"n\", 5)", "int32") + ", i: " + T("(\"n\", 2)", "int64"), "R.gather_elements(x, i, axis=1)", {{3, 5}, {3, 2}}, 0, 4}, 1, extent(5));
  checkWrapped({"x: " + T("(5, 1)") + ", i: " + T("(7, 1)", "int64"), "R.gather_elements(x, i, axis=0)", {{5, 1}, {7, 1}}, 0, 4}, 1, extent(5));
}

TEST_CASE("legalize gather_nd: index depths, batch_dims, negative indices", "[legalize][gather]") {
  // indices (2, 3, 2) into x (5, 4, 3): tuples of two indices (extents 5 and 4).
  checkWrapped({"x: " + T("(5, 4, 3)") + ", i: " + T("(2, 3, 2)", "int64"), "R.gather_nd(x, i)", {{5, 4, 3}, {2, 3, 2}}, 0, 3}, 1, [](int64_t f) { return f % 2 ? 4 : 5; });
  checkWrapped({"x: " + T("(4, 6)") + ", i: " + T("(3, 2)", "int32"), "R.gather_nd(x, i)", {{4, 6}, {3, 2}}, 0, 3}, 1, [](int64_t f) { return f % 2 ? 6 : 4; });
  checkWrapped({"x: " + T("(7,)") + ", i: " + T("(5, 1)", "int64"), "R.gather_nd(x, i)", {{7}, {5, 1}}, 0, 6}, 1, extent(7));
  // batch_dims=1: indices (2, 4, 1) pick along axis 1 (extent 5) of each batch.
  checkWrapped({"x: " + T("(2, 5, 3)") + ", i: " + T("(2, 4, 1)", "int64"), "R.gather_nd(x, i, batch_dims=1)", {{2, 5, 3}, {2, 4, 1}}, 0, 4}, 1, extent(5));
  checkWrapped({"x: " + T("(\"n\", 3)") + ", i: " + T("(\"m\", 1)", "int64"), "R.gather_nd(x, i)", {{6, 3}, {4, 1}}, 0, 5}, 1, extent(6));
}

TEST_CASE("legalize scatter_elements: every reduction, negative indices, smaller indices, symbolic", "[legalize][scatter]") {
  // The evaluator accepts [-n, n): random indices cover negatives and duplicates (order matters).
  for (const char* red : {"update", "add", "mul", "min", "max", "mean"}) {
    std::string r = std::string(", reduction=\"") + red + "\")";
    check({"x: " + T("(4, 5)") + ", i: " + T("(3, 5)", "int64") + ", u: " + T("(3, 5)"), "R.scatter_elements(x, i, u, axis=0" + r, {{4, 5}, {3, 5}, {3, 5}}, -4, 3});
    check({"x: " + T("(4, 6)") + ", i: " + T("(2, 3)", "int32") + ", u: " + T("(2, 3)"), "R.scatter_elements(x, i, u, axis=1" + r, {{4, 6}, {2, 3}, {2, 3}}, -6, 5});
    check({"x: " + T("(3, 5, 2)", "int32") + ", i: " + T("(3, 7, 2)", "int64") + ", u: " + T("(3, 7, 2)", "int32"), "R.scatter_elements(x, i, u, axis=-2" + r, {{3, 5, 2}, {3, 7, 2}, {3, 7, 2}}, -5, 4});
  }
  check({"x: " + T("(\"n\", 5)") + ", i: " + T("(\"m\", 5)", "int64") + ", u: " + T("(\"m\", 5)"), "R.scatter_elements(x, i, u)", {{6, 5}, {3, 5}, {3, 5}}, -5, 4});
  check({"x: " + T("(\"n\", 5)") + ", i: " + T("(\"m\", 5)", "int64") + ", u: " + T("(\"m\", 5)"), "R.scatter_elements(x, i, u, reduction=\"add\")", {{6, 5}, {0, 5}, {0, 5}}, -5, 4});
  check({"x: " + T("(9,)", "float64") + ", i: " + T("(4,)", "int64") + ", u: " + T("(4,)", "float64"), "R.scatter_elements(x, i, u, reduction=\"mul\")", {{9}, {4}, {4}}, -9, 8});
}

TEST_CASE("legalize scatter_nd: every reduction, depths, negative indices", "[legalize][scatter]") {
  for (const char* red : {"update", "add", "mul", "min", "max"}) {
    std::string r = std::string(", reduction=\"") + red + "\")";
    checkWrapped({"x: " + T("(4, 5)") + ", i: " + T("(3, 1)", "int64") + ", u: " + T("(3, 5)"), "R.scatter_nd(x, i, u" + r, {{4, 5}, {3, 1}, {3, 5}}, 0, 3}, 1, extent(4));
    checkWrapped({"x: " + T("(4, 5, 2)", "int32") + ", i: " + T("(2, 3, 2)", "int32") + ", u: " + T("(2, 3, 2)", "int32"), "R.scatter_nd(x, i, u" + r, {{4, 5, 2}, {2, 3, 2}, {2, 3, 2}}, 0, 3},
                 1, [](int64_t f) { return f % 2 ? 5 : 4; });
  }
  checkWrapped({"x: " + T("(6,)") + ", i: " + T("(5, 1)", "int64") + ", u: " + T("(5,)"), "R.scatter_nd(x, i, u, reduction=\"add\")", {{6}, {5, 1}, {5}}, 0, 5}, 1, extent(6));
  // One index tuple addressing one element: no positions to walk.
  checkWrapped({"x: " + T("(3, 4)") + ", i: " + T("(2,)", "int64") + ", u: " + T("()"), "R.scatter_nd(x, i, u)", {{3, 4}, {2}, {}}, 0, 2}, 1, [](int64_t f) { return f % 2 ? 4 : 3; });
  checkWrapped({"x: " + T("(\"n\", 3)") + ", i: " + T("(\"m\", 1)", "int64") + ", u: " + T("(\"m\", 3)"), "R.scatter_nd(x, i, u)", {{5, 3}, {4, 1}, {4, 3}}, 0, 4}, 1, extent(5));
}

TEST_CASE("legalize one_hot: axes, dtypes, out-of-range indices", "[legalize][gather]") {
  check({"i: " + T("(3, 4)", "int32"), "R.one_hot(i, R.prim_value(T.float32(2.5)), R.prim_value(T.float32(-1.0)), depth=5, axis=-1)", {{3, 4}}, -1, 5});
  check({"i: " + T("(3, 4)", "int64"), "R.one_hot(i, R.prim_value(1), R.prim_value(0), depth=4, axis=0)", {{3, 4}}, -1, 4});
  check({"i: " + T("(5,)", "int64"), "R.one_hot(i, R.prim_value(1), R.prim_value(0), depth=3, axis=1)", {{5}}, 0, 2});
  check({"i: " + T("(\"n\", 2)", "int32"), "R.one_hot(i, R.prim_value(T.float32(1.0)), R.prim_value(T.float32(0.0)), depth=6, axis=1)", {{3, 2}}, 0, 5});
}

TEST_CASE("legalize flip, tile, repeat, stack", "[legalize][manipulate]") {
  check({"x: " + T("(3, 4, 5)"), "R.flip(x, axis=1)", {{3, 4, 5}}});
  check({"x: " + T("(3, 4, 5)"), "R.flip(x, axis=-1)", {{3, 4, 5}}});
  check({"x: " + T("(\"n\", 3)", "int32"), "R.flip(x, axis=0)", {{7, 3}}, -9, 9});
  check({"x: " + T("(2, 3)"), "R.tile(x, repeats=[2, 1])", {{2, 3}}});
  check({"x: " + T("(2, 3)"), "R.tile(x, repeats=[3])", {{2, 3}}});
  check({"x: " + T("(2, 3)", "int32"), "R.tile(x, repeats=[2, 1, 3])", {{2, 3}}, -9, 9});
  check({"x: " + T("(1, 3)"), "R.tile(x, repeats=[4, 2])", {{1, 3}}});
  check({"x: " + T("(\"n\", 2)"), "R.tile(x, repeats=[2, 2])", {{3, 2}}});
  check({"x: " + T("(3, 2, 3)"), "R.repeat(x, 2, 0)", {{3, 2, 3}}});
  check({"x: " + T("(3, 2, 3)"), "R.repeat(x, 3, axis=-1)", {{3, 2, 3}}});
  check({"x: " + T("(3, 2)", "int32"), "R.repeat(x, 2)", {{3, 2}}, -9, 9});
  check({"x: " + T("(\"a\", \"b\", 3)"), "R.repeat(x, 2, 0)", {{2, 3, 3}}});
  std::string three = "x: " + T("(2, 3)") + ", y: " + T("(2, 3)") + ", z: " + T("(2, 3)");
  check({three, "R.stack((x, y, z), axis=0)", {{2, 3}, {2, 3}, {2, 3}}});
  check({three, "R.stack((x, y, z), axis=1)", {{2, 3}, {2, 3}, {2, 3}}});
  check({three, "R.stack((x, y, z), axis=-1)", {{2, 3}, {2, 3}, {2, 3}}});
  check({"x: " + T("(\"n\",)", "int32") + ", y: " + T("(\"n\",)", "int32"), "R.stack((x, y), axis=1)", {{5}, {5}}, -9, 9});
}

TEST_CASE("legalize eye and eye_like", "[legalize][create]") {
  check({"x: " + T("(1,)"), "R.eye(3, 4, 1)", {{1}}});
  check({"x: " + T("(1,)"), "R.eye(5, 3, -2, dtype=\"int32\")", {{1}}});
  check({"x: " + T("(1,)"), "R.eye(4)", {{1}}});
  check({"x: " + T("(3, 5)"), "R.eye_like(x, R.prim_value(2))", {{3, 5}}});
  check({"x: " + T("(4, 4)", "int32"), "R.eye_like(x, R.prim_value(0), dtype=\"float32\")", {{4, 4}}});
  check({"x: " + T("(\"n\", 4)"), "R.eye_like(x, R.prim_value(-1))", {{6, 4}}});
}

TEST_CASE("legalize sort and argsort: stable, NaN last, both directions", "[legalize][sort]") {
  for (const char* op : {"sort", "argsort"}) {
    std::string r = std::string("R.") + op;
    for (const char* desc : {"False", "True"}) {
      std::string d = std::string(", descending=") + desc + ")";
      check({"x: " + T("(4, 7)"), r + "(x, axis=-1" + d, {{4, 7}}});
      check({"x: " + T("(5, 3, 2)"), r + "(x, axis=0" + d, {{5, 3, 2}}});
      check({"x: " + T("(3, 9)", "int32"), r + "(x, axis=1" + d, {{3, 9}}, -2, 2});  // ties
      check({"x: " + T("(2, 6)"), r + "(x, axis=1" + d, {{2, 6}}, 0, 0, false, {NAN, 1.0, -0.0, NAN, 0.0, 1.0, 2.0, NAN, -INFINITY, 1.0, INFINITY, NAN}});
      check({"x: " + T("(\"n\", 5)", "float64"), r + "(x, axis=0" + d, {{11, 5}}});
      check({"x: " + T("(1,)"), r + "(x, axis=0" + d, {{1}}});
    }
  }
  check({"x: " + T("(4, 5)"), "R.argsort(x, axis=1, descending=False, dtype=\"int64\")", {{4, 5}}});
}

TEST_CASE("legalize topk: largest and smallest, return types, ties, NaN", "[legalize][sort]") {
  for (const char* largest : {"True", "False"}) {
    std::string l = std::string(", largest=") + largest;
    check({"x: " + T("(4, 7)"), "R.topk(x, k=3, axis=-1, ret_type=\"both\"" + l + ", dtype=\"int32\")", {{4, 7}}});
    check({"x: " + T("(6, 3)"), "R.topk(x, k=2, axis=0, ret_type=\"values\"" + l + ")", {{6, 3}}});
    check({"x: " + T("(6, 3)"), "R.topk(x, k=6, axis=0, ret_type=\"indices\"" + l + ", dtype=\"int64\")", {{6, 3}}});
    check({"x: " + T("(3, 8)", "int32"), "R.topk(x, k=4, axis=1, ret_type=\"both\"" + l + ", dtype=\"int64\")", {{3, 8}}, -2, 2});
    check({"x: " + T("(2, 6)"), "R.topk(x, k=3, axis=1, ret_type=\"both\"" + l + ")", {{2, 6}}, 0, 0, false, {NAN, 1.0, 2.0, NAN, -1.0, 2.0, 0.5, NAN, -INFINITY, 1.0, INFINITY, NAN}});
    check({"x: " + T("(\"n\", 5)"), "R.topk(x, k=1, axis=-1, ret_type=\"both\"" + l + ")", {{4, 5}}});
  }
}
