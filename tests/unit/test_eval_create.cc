// Reference evaluator: creation ops (full/zeros/ones and *_like, arange, eye, eye_like,
// hamming_window, tril/triu) against hand-computed values, including zero-size and odd dtypes.
#include <catch2/catch.hpp>

#include "tests/unit/eval_tuple_util.h"

using namespace rlx;
using namespace rlx::test;
using V = std::vector<double>;
using Dims = std::vector<int64_t>;

TEST_CASE("eval: full converts the fill value into the dtype", "[eval]") {
  auto r = ev("relax.full", {Ints({2, 3}), F(1.5)}, {{"dtype", S("float32")}});
  REQUIRE(r.ok);
  CHECK(r.shape == Dims{2, 3});
  CHECK(r.dtype == "float32");
  CHECK(r.values == V{1.5, 1.5, 1.5, 1.5, 1.5, 1.5});
  auto t = ev("relax.full", {Ints({2}), C("float32", {}, {-2.7})}, {{"dtype", S("int32")}});
  CHECK(t.dtype == "int32");
  CHECK(t.values == V{-2, -2});  // truncates toward zero, like astype
  auto inherit = ev("relax.full", {Ints({1}), C("int8", {}, {7})});
  CHECK(inherit.dtype == "int8");
  CHECK(inherit.values == V{7});
  auto empty = ev("relax.full", {Ints({0, 3}), F(1.0)}, {{"dtype", S("float32")}});
  CHECK(empty.ok);
  CHECK(empty.shape == Dims{0, 3});
  CHECK(empty.values.empty());
  CHECK(ev("relax.full", {Ints({}), F(4.0)}, {{"dtype", S("float64")}}).values == V{4});
}

TEST_CASE("eval: zeros, ones and the *_like forms", "[eval]") {
  CHECK(ev("relax.zeros", {Ints({2})}, {{"dtype", S("int32")}}).values == V{0, 0});
  auto b = ev("relax.ones", {Ints({3})}, {{"dtype", S("bool")}});
  CHECK(b.dtype == "bool");
  CHECK(b.values == V{1, 1, 1});
  CHECK(ev("relax.ones", {Ints({1, 2})}, {{"dtype", S("float16")}}).values == V{1, 1});
  auto zl = ev("relax.zeros_like", {C("float32", {2, 2}, {1, 2, 3, 4})});
  CHECK(zl.shape == Dims{2, 2});
  CHECK(zl.dtype == "float32");
  CHECK(zl.values == V{0, 0, 0, 0});
  auto ol = ev("relax.ones_like", {C("int8", {3}, {5, 6, 7})}, {{"dtype", S("float64")}});
  CHECK(ol.dtype == "float64");
  CHECK(ol.values == V{1, 1, 1});
  auto fl = ev("relax.full_like", {C("int32", {2}, {0, 0}), C("float32", {}, {3.9})});
  CHECK(fl.dtype == "int32");
  CHECK(fl.values == V{3, 3});
  CHECK(ev("relax.ones_like", {C("float32", {0}, {})}).shape == Dims{0});
}

TEST_CASE("eval: arange counts like numpy, integers exactly", "[eval]") {
  auto r = ev("relax.arange", {I(5)});
  CHECK(r.dtype == "int64");
  CHECK(r.values == V{0, 1, 2, 3, 4});
  CHECK(ev("relax.arange", {I(1), I(10), I(3)}).values == V{1, 4, 7});
  CHECK(ev("relax.arange", {I(10), I(0), I(-3)}).values == V{10, 7, 4, 1});
  auto f = ev("relax.arange", {F(0.0), F(1.0), F(0.25)});
  CHECK(f.dtype == "float32");
  CHECK(f.values == V{0, 0.25, 0.5, 0.75});
  CHECK(ev("relax.arange", {I(0), I(3), I(1)}, {{"dtype", S("float32")}}).values == V{0, 1, 2});
  auto e = ev("relax.arange", {I(5), I(5), I(1)});
  CHECK(e.ok);
  CHECK(e.shape == Dims{0});
  // Integers beyond double precision stay exact.
  CHECK(evInts("relax.arange", {I(4611686018427387904LL), I(4611686018427387906LL), I(1)}) == std::vector<int64_t>{4611686018427387904LL, 4611686018427387905LL});
}

TEST_CASE("eval: eye and eye_like put ones on the k-th diagonal", "[eval]") {
  auto r = ev("relax.eye", {I(2), I(3), I(1)}, {{"dtype", S("int32")}});
  CHECK(r.shape == Dims{2, 3});
  CHECK(r.values == V{0, 1, 0, 0, 0, 1});
  auto id = ev("relax.eye", {I(3)});
  CHECK(id.dtype == "float32");
  CHECK(id.values == V{1, 0, 0, 0, 1, 0, 0, 0, 1});
  CHECK(ev("relax.eye", {I(3), I(2), I(-1)}).values == V{0, 0, 1, 0, 0, 1});
  CHECK(ev("relax.eye", {I(2), I(2), I(5)}).values == V{0, 0, 0, 0});
  CHECK(ev("relax.eye_like", {C("float32", {2, 2}, {9, 9, 9, 9})}).values == V{1, 0, 0, 1});
  auto like = ev("relax.eye_like", {C("float32", {2, 3}, {}), I(-1)}, {{"dtype", S("int8")}});
  CHECK(like.dtype == "int8");
  CHECK(like.values == V{0, 0, 0, 1, 0, 0});
}

TEST_CASE("eval: hamming_window follows PyTorch (periodic divides by N)", "[eval]") {
  auto p = ev("relax.hamming_window", {I(4), B(true), F(0.54), F(0.46)}, {{"dtype", S("float32")}});
  REQUIRE(p.values.size() == 4);
  CHECK(p.values[0] == Approx(0.08));
  CHECK(p.values[1] == Approx(0.54));
  CHECK(p.values[2] == Approx(1.0));
  CHECK(p.values[3] == Approx(0.54));
  auto s = ev("relax.hamming_window", {I(4), B(false), F(0.54), F(0.46)}, {{"dtype", S("float64")}});
  REQUIRE(s.values.size() == 4);
  CHECK(s.values[0] == Approx(0.08));
  CHECK(s.values[1] == Approx(0.77));
  CHECK(s.values[2] == Approx(0.77));
  CHECK(s.values[3] == Approx(0.08));
  CHECK(ev("relax.hamming_window", {I(1), B(false), F(0.54), F(0.46)}, {{"dtype", S("float32")}}).values == V{1});
}

TEST_CASE("eval: tril and triu keep a band of every trailing matrix", "[eval]") {
  auto x = [] { return C("int32", {2, 3}, {1, 2, 3, 4, 5, 6}); };
  CHECK(ev("relax.tril", {x(), I(0)}).values == V{1, 0, 0, 4, 5, 0});
  CHECK(ev("relax.triu", {x(), I(0)}).values == V{1, 2, 3, 0, 5, 6});
  CHECK(ev("relax.tril", {x(), I(-1)}).values == V{0, 0, 0, 4, 0, 0});
  CHECK(ev("relax.triu", {x(), I(1)}).values == V{0, 2, 3, 0, 0, 6});
  CHECK(ev("relax.tril", {x()}).values == V{1, 0, 0, 4, 5, 0});  // k defaults to 0
  auto batched = ev("relax.tril", {C("float32", {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), I(0)});
  CHECK(batched.shape == Dims{2, 2, 2});
  CHECK(batched.values == V{1, 0, 3, 4, 5, 0, 7, 8});
  CHECK(ev("relax.triu", {C("float32", {0, 3}, {}), I(0)}).shape == Dims{0, 3});
}

TEST_CASE("eval: creation from bad or huge shapes is an error, not a crash", "[eval]") {
  CHECK(ev("relax.zeros", {Ints({-1})}, {{"dtype", S("float32")}}).error == "error: R.zeros: the result shape has a negative dimension (-1)");
  CHECK(ev("relax.ones", {Ints({100000, 100000})}, {{"dtype", S("float32")}}).error == "error: R.ones: the result is too large to evaluate");
  CHECK(ev("relax.eye", {I(-2)}).error == "error: R.eye: the result shape has a negative dimension (-2)");
  CHECK(ev("relax.arange", {F(0), F(1), F(0)}).error == "error: R.arange: step must not be zero");
}
