// Reference evaluator: shape manipulation ops (reshape family, permute_dims, concat/split/stack,
// broadcast_to, tile, repeat, flip, collapse_sum_*, layout_transform) against hand-computed values.
#include <catch2/catch.hpp>

#include "ir/arith.h"
#include "tests/unit/eval_tuple_util.h"

using namespace rlx;
using namespace rlx::test;
using V = std::vector<double>;
using Dims = std::vector<int64_t>;

namespace {
bool isError(const Evaluated& e) { return !e.ok && e.error.rfind("error: ", 0) == 0; }
}  // namespace

TEST_CASE("eval: reshape, expand_dims, squeeze and flatten keep row-major data", "[eval]") {
  auto r = ev("relax.reshape", {iota("int64", {2, 3}), Ints({3, -1})});
  CHECK(r.shape == Dims{3, 2});
  CHECK(r.values == V{0, 1, 2, 3, 4, 5});
  CHECK(ev("relax.reshape", {iota("float32", {0, 3}), Ints({-1, 3})}).shape == Dims{0, 3});
  CHECK(evInts("relax.reshape", {CI("int64", {2}, {INT64_MAX, INT64_MIN}), Ints({2, 1})}) == std::vector<int64_t>{INT64_MAX, INT64_MIN});
  auto e = ev("relax.expand_dims", {iota("float32", {2}), Ints({0, -1})});
  CHECK(e.shape == Dims{1, 2, 1});
  CHECK(e.values == V{0, 1});
  CHECK(ev("relax.expand_dims", {C("int8", {}, {3}), Ints({0})}).shape == Dims{1});
  CHECK(ev("relax.squeeze", {iota("float32", {1, 2, 1})}).shape == Dims{2});
  CHECK(ev("relax.squeeze", {iota("float32", {1, 2, 1})}, {{"axis", Ints({-1})}}).shape == Dims{1, 2});
  CHECK(ev("relax.squeeze", {iota("float32", {1, 1})}).shape == Dims{});
  CHECK(ev("relax.squeeze", {iota("float32", {2, 1})}, {{"axis", Ints({0})}}).shape == Dims{2, 1});  // a non-unit axis stays
  auto f = ev("relax.flatten", {iota("float16", {2, 2})});
  CHECK(f.shape == Dims{4});
  CHECK(f.dtype == "float16");
  CHECK(f.values == V{0, 1, 2, 3});
  CHECK(ev("relax.flatten", {C("float32", {}, {7})}).shape == Dims{1});
}

TEST_CASE("eval: permute_dims reorders axes (None reverses)", "[eval]") {
  auto t = ev("relax.permute_dims", {C("int32", {2, 3}, {1, 2, 3, 4, 5, 6})});
  CHECK(t.shape == Dims{3, 2});
  CHECK(t.values == V{1, 4, 2, 5, 3, 6});
  auto p = ev("relax.permute_dims", {iota("float32", {2, 1, 3})}, {{"axes", Ints({2, 0, -2})}});
  CHECK(p.shape == Dims{3, 2, 1});
  CHECK(p.values == V{0, 3, 1, 4, 2, 5});
  CHECK(ev("relax.permute_dims", {iota("bool", {0, 2})}).shape == Dims{2, 0});
  // Three axes rotated, in 2- and 8-byte dtypes: out[a, b, c] = x[c, a, b] = 12c + 4a + b.
  for (const char* dtype : {"float16", "int64"}) {
    auto r = ev("relax.permute_dims", {iota(dtype, {2, 3, 4})}, {{"axes", Ints({1, 2, 0})}});
    CHECK(r.shape == Dims{3, 4, 2});
    V want;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 4; ++b)
        for (int c = 0; c < 2; ++c) want.push_back(12 * c + 4 * a + b);
    CHECK(r.values == want);
  }
}

TEST_CASE("eval: concat and stack", "[eval]") {
  auto c = ev("relax.concat", {Tup({C("float32", {2, 1}, {1, 2}), C("float32", {2, 2}, {3, 4, 5, 6})})}, {{"axis", I(-1)}});
  CHECK(c.shape == Dims{2, 3});
  CHECK(c.values == V{1, 3, 4, 2, 5, 6});
  auto z = ev("relax.concat", {Tup({C("int32", {1, 2}, {1, 2}), C("int32", {0, 2}, {})})}, {{"axis", I(0)}});
  CHECK(z.shape == Dims{1, 2});
  CHECK(z.values == V{1, 2});
  auto flat = ev("relax.concat", {Tup({C("int8", {2}, {1, 2}), C("int8", {1}, {3})})}, {{"axis", None()}});
  CHECK(flat.shape == Dims{3});
  CHECK(flat.values == V{1, 2, 3});
  auto s0 = ev("relax.stack", {Tup({C("float32", {2}, {1, 2}), C("float32", {2}, {3, 4})})});
  CHECK(s0.shape == Dims{2, 2});
  CHECK(s0.values == V{1, 2, 3, 4});
  auto s1 = ev("relax.stack", {Tup({C("float32", {2}, {1, 2}), C("float32", {2}, {3, 4})})}, {{"axis", I(-1)}});
  CHECK(s1.values == V{1, 3, 2, 4});
  CHECK(ev("relax.stack", {Tup({C("int64", {}, {5}), C("int64", {}, {6})})}).values == V{5, 6});
}

TEST_CASE("eval: split by sections and by indices", "[eval]") {
  auto s = evTuple("relax.split", {iota("int32", {2, 4}), I(2)}, {{"axis", I(1)}});
  REQUIRE(s.size() == 2);
  CHECK(s[0].shape == Dims{2, 2});
  CHECK(s[0].values == V{0, 1, 4, 5});
  CHECK(s[1].values == V{2, 3, 6, 7});
  auto p = evTuple("relax.split", {iota("int32", {2, 4}), Ints({1, 3})}, {{"axis", I(-1)}});
  REQUIRE(p.size() == 3);
  CHECK(p[0].values == V{0, 4});
  CHECK(p[1].shape == Dims{2, 2});
  CHECK(p[1].values == V{1, 2, 5, 6});
  CHECK(p[2].values == V{3, 7});
  // Decreasing split points give an empty piece, as numpy.
  auto d = evTuple("relax.split", {iota("int32", {2, 4}), Ints({3, 1})}, {{"axis", I(1)}});
  REQUIRE(d.size() == 3);
  CHECK(d[0].shape == Dims{2, 3});
  CHECK(d[1].shape == Dims{2, 0});
  CHECK(d[2].shape == Dims{2, 3});
  CHECK(d[2].values == V{1, 2, 3, 5, 6, 7});
  auto one = evTuple("relax.split", {iota("float32", {3}), I(1)});
  REQUIRE(one.size() == 1);
  CHECK(one[0].values == V{0, 1, 2});
}

TEST_CASE("eval: broadcast_to, tile and repeat follow numpy", "[eval]") {
  CHECK(ev("relax.broadcast_to", {C("float32", {2, 1}, {1, 2}), Ints({2, 3})}).values == V{1, 1, 1, 2, 2, 2});
  CHECK(ev("relax.broadcast_to", {C("int32", {3}, {1, 2, 3}), Ints({2, 3})}).values == V{1, 2, 3, 1, 2, 3});
  CHECK(ev("relax.broadcast_to", {C("int32", {}, {4}), Ints({2})}).values == V{4, 4});
  CHECK(ev("relax.broadcast_to", {C("int32", {2, 1, 2}, {1, 2, 3, 4}), Ints({2, 2, 3, 2})}).values ==
        V{1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4, 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4});
  CHECK(ev("relax.broadcast_to", {C("int32", {1}, {4}), Ints({0})}).shape == Dims{0});
  CHECK(isError(ev("relax.broadcast_to", {C("int32", {2}, {1, 2}), Ints({3})})));
  CHECK(ev("relax.tile", {C("int32", {2}, {1, 2})}, {{"repeats", Ints({2})}}).values == V{1, 2, 1, 2});
  auto t2 = ev("relax.tile", {C("int32", {2}, {1, 2})}, {{"repeats", Ints({2, 1})}});
  CHECK(t2.shape == Dims{2, 2});
  CHECK(t2.values == V{1, 2, 1, 2});
  auto t3 = ev("relax.tile", {C("int32", {2, 2}, {1, 2, 3, 4})}, {{"repeats", Ints({2})}});
  CHECK(t3.shape == Dims{2, 4});
  CHECK(t3.values == V{1, 2, 1, 2, 3, 4, 3, 4});
  CHECK(ev("relax.tile", {C("int32", {2}, {1, 2})}, {{"repeats", Ints({0})}}).shape == Dims{0});
  auto x = [] { return C("float32", {2, 2}, {1, 2, 3, 4}); };
  CHECK(ev("relax.repeat", {x()}, {{"repeats", I(2)}}).values == V{1, 1, 2, 2, 3, 3, 4, 4});
  auto r1 = ev("relax.repeat", {x()}, {{"repeats", I(2)}, {"axis", I(-1)}});
  CHECK(r1.shape == Dims{2, 4});
  CHECK(r1.values == V{1, 1, 2, 2, 3, 3, 4, 4});
  auto r0 = ev("relax.repeat", {x()}, {{"repeats", I(2)}, {"axis", I(0)}});
  CHECK(r0.shape == Dims{4, 2});
  CHECK(r0.values == V{1, 2, 1, 2, 3, 4, 3, 4});
}

TEST_CASE("eval: flip reverses one axis", "[eval]") {
  auto x = [] { return C("int64", {2, 3}, {1, 2, 3, 4, 5, 6}); };
  CHECK(ev("relax.flip", {x()}, {{"axis", I(1)}}).values == V{3, 2, 1, 6, 5, 4});
  CHECK(ev("relax.flip", {x()}, {{"axis", I(-2)}}).values == V{4, 5, 6, 1, 2, 3});
  CHECK(ev("relax.flip", {C("float32", {0}, {})}, {{"axis", I(0)}}).shape == Dims{0});
}

TEST_CASE("eval: collapse_sum_to / collapse_sum_like reverse broadcasting", "[eval]") {
  auto x = [] { return C("float32", {2, 3}, {1, 2, 3, 4, 5, 6}); };
  CHECK(ev("relax.collapse_sum_to", {x(), Ints({3})}).values == V{5, 7, 9});
  auto rows = ev("relax.collapse_sum_to", {x(), Ints({2, 1})});
  CHECK(rows.shape == Dims{2, 1});
  CHECK(rows.values == V{6, 15});
  CHECK(ev("relax.collapse_sum_to", {x(), Ints({})}).values == V{21});
  CHECK(ev("relax.collapse_sum_to", {C("int8", {2}, {100, 100}), Ints({})}).values == V{-56});  // wraps in int8
  CHECK(ev("relax.collapse_sum_like", {x(), C("float32", {1, 3}, {0, 0, 0})}).values == V{5, 7, 9});
  CHECK(ev("relax.collapse_sum_to", {C("float32", {0, 2}, {}), Ints({2})}).values == V{0, 0});
}

TEST_CASE("eval: layout_transform moves elements by the index map", "[eval]") {
  auto i = make<PrimVar>("i", DataType::int64()), j = make<PrimVar>("j", DataType::int64());
  auto t = ev("relax.layout_transform", {C("float32", {2, 3}, {1, 2, 3, 4, 5, 6})}, {{"index_map", L({L({P(i), P(j)}), L({P(j), P(i)})})}});
  CHECK(t.shape == Dims{3, 2});
  CHECK(t.values == V{1, 4, 2, 5, 3, 6});
  auto split = ev("relax.layout_transform", {C("int32", {4}, {1, 2, 3, 4})}, {{"index_map", L({L({P(i)}), L({P(floordiv(i, intImm(2))), P(floormod(i, intImm(2)))})})}});
  CHECK(split.shape == Dims{2, 2});
  CHECK(split.values == V{1, 2, 3, 4});
  // Output elements no input reaches are padding: pad_value, or 0 when it is None.
  auto shifted = [&] { return L({L({P(i)}), L({P(add(i, intImm(1)))})}); };
  CHECK(ev("relax.layout_transform", {C("float32", {3}, {1, 2, 3})}, {{"index_map", shifted()}}).values == V{0, 1, 2, 3});
  CHECK(ev("relax.layout_transform", {C("float32", {3}, {1, 2, 3})}, {{"index_map", shifted()}, {"pad_value", F(9)}}).values == V{9, 1, 2, 3});
}

TEST_CASE("eval: values that contradict the call are errors, not crashes", "[eval]") {
  auto x23 = [] { return iota("float32", {2, 3}); };
  CHECK(evalOn("relax.reshape", {x23(), Ints({3, 2})}, {}, {TV("float32", {4}), Value::ofShape({3, 2})}) ==
        "error: R.reshape: cannot reshape 4 elements to (3, 2) (6 elements)");
  CHECK(evalOn("relax.permute_dims", {x23()}, {{"axes", Ints({1, 0})}}, {TV("float32", {4})}) == "error: R.permute_dims: expects 1 axes, got 2");
  CHECK(evalOn("relax.concat", {Tup({x23(), x23()})}, {{"axis", I(1)}}, {Value::ofTuple({TV("float32", {2, 3}), TV("float32", {3, 3})})}) ==
        "error: R.concat: tensors must agree on every dimension but axis 1, got (2, 3) and (3, 3)");
  CHECK(evalOn("relax.split", {iota("int32", {4}), I(2)}, {}, {TV("int32", {5})}) == "error: R.split: cannot split axis 0 of extent 5 into 2 equal sections");
  CHECK(evalOn("relax.collapse_sum_to", {x23(), Ints({3})}, {}, {TV("float32", {2, 4}), Value::ofShape({3})}) == "error: R.collapse_sum_to: cannot collapse (2, 4) to (3,)");
  CHECK(evalOn("relax.take", {x23(), C("int64", {1}, {0})}, {{"axis", I(0)}}, {TV("float32", {2, 3}), TV("float32", {1})}) ==
        "error: R.take: expects indices to have an integer dtype, got float32");
  CHECK(evalOn("relax.flip", {x23()}, {{"axis", I(1)}}, {TV("float32", {3})}) ==
        "error: R.flip: axis 1 is out of range for a tensor of 1 dimension (expected -1 <= axis < 1)");
  auto i = make<PrimVar>("i", DataType::int64()), j = make<PrimVar>("j", DataType::int64());
  CHECK(evalOn("relax.layout_transform", {x23()}, {{"index_map", L({L({P(i), P(j)}), L({P(j), P(i)})})}}, {TV("float32", {6})}) ==
        "error: R.layout_transform: the index map takes 2 indices but the input has 1 dimensions");
}

TEST_CASE("eval: strided_slice with assume_inbound rejects bounds outside the tensor", "[eval]") {
  auto r = ev("relax.strided_slice", {iota("float32", {4}), Ints({0}), Ints({2}), Ints({10})}, {{"assume_inbound", B(true)}});
  CHECK(r.error == "error: R.strided_slice: the slice has shape (2,) but its inferred shape is (8,) (bounds outside the tensor with assume_inbound?)");
  CHECK(ev("relax.strided_slice", {iota("float32", {4}), Ints({0}), Ints({1}), Ints({3})}, {{"assume_inbound", B(true)}}).values == V{1, 2});
}
