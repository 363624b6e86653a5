// Reference evaluator: elementwise ops (hand-computed values, numpy broadcasting, integer
// division rounding, dtype handling) and the Value <-> constant-expression bridge.
#include <catch2/catch.hpp>

#include <cmath>

#include "tests/unit/eval_test_util.h"

using namespace rlx;
using namespace rlx::test;
using V = std::vector<double>;
using Dims = std::vector<int64_t>;

TEST_CASE("eval: binary arithmetic broadcasts like numpy", "[eval]") {
  auto r = ev("relax.add", {C("float32", {2, 1}, {1, 2}), C("float32", {3}, {10, 20, 30})});
  REQUIRE(r.ok);
  CHECK(r.shape == Dims{2, 3});
  CHECK(r.values == V{11, 21, 31, 12, 22, 32});
  CHECK(ev("relax.subtract", {C("int32", {2}, {5, 1}), C("int32", {}, {3})}).values == V{2, -2});
  CHECK(ev("relax.multiply", {C("float64", {2}, {1.5, -2}), C("float64", {2}, {2, 3})}).values == V{3, -6});
  CHECK(ev("relax.power", {C("int64", {3}, {2, 3, -2}), C("int64", {3}, {10, 2, 3})}).values == V{1024, 9, -8});
  CHECK(ev("relax.maximum", {C("float32", {2}, {1, 5}), C("float32", {2}, {3, 2})}).values == V{3, 5});
  CHECK(ev("relax.minimum", {C("int8", {2}, {-1, 5}), C("int8", {2}, {3, 2})}).values == V{-1, 2});
}

TEST_CASE("eval: integer division truncates, floor_* round toward -inf", "[eval]") {
  auto a = [] { return C("int32", {4}, {7, -7, 7, -7}); };
  auto b = [] { return C("int32", {4}, {2, 2, -2, -2}); };
  CHECK(ev("relax.divide", {a(), b()}).values == V{3, -3, -3, 3});
  CHECK(ev("relax.floor_divide", {a(), b()}).values == V{3, -4, -4, 3});
  CHECK(ev("relax.mod", {a(), b()}).values == V{1, -1, 1, -1});
  CHECK(ev("relax.floor_mod", {a(), b()}).values == V{1, 1, -1, -1});
  CHECK(ev("relax.floor_divide", {C("float32", {2}, {7, -7}), C("float32", {2}, {2, 2})}).values == V{3, -4});
  CHECK(ev("relax.floor_mod", {C("float32", {2}, {7, -7}), C("float32", {2}, {2, 2})}).values == V{1, 1});
  auto z = ev("relax.divide", {C("int32", {1}, {1}), C("int32", {1}, {0})});
  CHECK(z.error == "error: R.divide: integer division by zero");
  CHECK(ev("relax.divide", {C("float32", {1}, {1}), C("float32", {1}, {0})}).values == V{INFINITY});
}

TEST_CASE("eval: integer arithmetic wraps in the element type", "[eval]") {
  CHECK(ev("relax.add", {C("int8", {1}, {127}), C("int8", {1}, {1})}).values == V{-128});
  CHECK(ev("relax.multiply", {C("uint8", {1}, {16}), C("uint8", {1}, {17})}).values == V{16});
  CHECK(ev("relax.negative", {C("int32", {1}, {-2147483648.0})}).values == V{-2147483648.0});
}

TEST_CASE("eval: comparisons and logical ops produce bool", "[eval]") {
  auto r = ev("relax.less", {C("float32", {3}, {1, 2, 3}), C("float32", {}, {2})});
  CHECK(r.dtype == "bool");
  CHECK(r.values == V{1, 0, 0});
  CHECK(ev("relax.equal", {C("int64", {2}, {4, 5}), C("int64", {2}, {4, 4})}).values == V{1, 0});
  CHECK(ev("relax.logical_xor", {C("bool", {4}, {0, 0, 1, 1}), C("bool", {4}, {0, 1, 0, 1})}).values == V{0, 1, 1, 0});
  CHECK(ev("relax.logical_not", {C("bool", {2}, {0, 1})}).values == V{1, 0});
  CHECK(ev("relax.bitwise_and", {C("int32", {2}, {12, 10}), C("int32", {2}, {10, 6})}).values == V{8, 2});
  CHECK(ev("relax.right_shift", {C("int32", {2}, {-8, 8}), C("int32", {2}, {1, 2})}).values == V{-4, 2});
  CHECK(ev("relax.left_shift", {C("int32", {1}, {3}), C("int32", {1}, {4})}).values == V{48});
}

TEST_CASE("eval: unary math", "[eval]") {
  auto r = ev("relax.exp", {C("float32", {2}, {0, 1})});
  CHECK(r.values[0] == 1);
  CHECK(r.values[1] == Approx(2.7182817));
  CHECK(ev("relax.sqrt", {C("float64", {2}, {4, 2})}).values == V{2, std::sqrt(2.0)});
  CHECK(ev("relax.round", {C("float32", {4}, {0.5, 1.5, 2.5, -0.5})}).values == V{0, 2, 2, -0});
  CHECK(ev("relax.sign", {C("int32", {3}, {-4, 0, 9})}).values == V{-1, 0, 1});
  CHECK(ev("relax.abs", {C("int32", {2}, {-4, 3})}).values == V{4, 3});
  CHECK(ev("relax.sigmoid", {C("float32", {1}, {0})}).values == V{0.5});
  CHECK(ev("relax.isnan", {C("float32", {2}, {NAN, 1})}).values == V{1, 0});
  CHECK(ev("relax.rsqrt", {C("float32", {1}, {4})}).values == V{0.5});
  CHECK(ev("relax.floor", {C("int32", {1}, {-3})}).values == V{-3});
  CHECK(ev("relax.bitwise_not", {C("int8", {1}, {0})}).values == V{-1});
}

TEST_CASE("eval: clip, astype, where, ewise_fma", "[eval]") {
  CHECK(ev("relax.clip", {C("float32", {4}, {-2, 0.5, 3, 7}), I(0), I(4)}).values == V{0, 0.5, 3, 4});
  auto cast = ev("relax.astype", {C("float32", {4}, {1.7, -1.7, 300, NAN})}, {{"dtype", S("int8")}});
  CHECK(cast.dtype == "int8");
  CHECK(cast.values == V{1, -1, 44, 0});  // 300 wraps like a C cast of the int64 value; NaN → 0
  CHECK(ev("relax.astype", {C("int32", {2}, {0, 5})}, {{"dtype", S("bool")}}).values == V{0, 1});
  auto w = ev("relax.where", {C("bool", {2, 1}, {1, 0}), C("float32", {2}, {1, 2}), C("float32", {}, {9})});
  CHECK(w.shape == Dims{2, 2});
  CHECK(w.values == V{1, 2, 9, 9});
  CHECK(ev("relax.ewise_fma", {C("float32", {2}, {1, 2}), C("float32", {2}, {3, 4}), C("float32", {2}, {5, 6})}).values == V{8, 14});
}

TEST_CASE("eval: Value <-> constant expressions", "[eval]") {
  auto t = Value::ofTuple({Value::ofShape({2, 3}), Value::ofInt(4), Value::ofFloat(0.5, DataType::float32()), Value::ofStr("s"), Value::ofDType(DataType::int32())});
  Expr e = valueToExpr(t);
  auto back = constantValue(e);
  REQUIRE(back);
  REQUIRE(back->fields.size() == 5);
  CHECK(back->fields[0].shape == Dims{2, 3});
  CHECK(back->fields[1].i == 4);
  CHECK(back->fields[2].f == 0.5);
  CHECK(back->fields[3].str == "s");
  CHECK(back->fields[4].dtype == DataType::int32());
  CHECK_FALSE(constantValue(make<ShapeExpr>(std::vector<PrimExpr>{make<PrimVar>("n", DataType::int64())})));
  Call print(Expr(opRef("relax.print")), {});
  CHECK(evaluateCall(print, {}).error().message == "R.print has no reference evaluator");
}
