// The Relay op rewrites computed: each converted call runs on rlx's reference evaluator (ir/eval.h)
// and gives the values Relay defines, hand-checked on small inputs.
#include <catch2/catch.hpp>

#include "tests/unit/eval_test_util.h"
#include "tests/unit/relay_op_harness.h"

using namespace rlx;
using namespace rlx::test;
using V = std::vector<double>;
using Dims = std::vector<int64_t>;

namespace {

// Runs main(inputs) and returns its tensor result (shape, values); fails the test on an error.
Evaluated runTensor(RelayHarness& h, const Expr& result, const std::vector<Value>& inputs) {
  Evaluated e;
  auto r = h.run(result, inputs);
  if (!r.ok()) {
    e.error = r.error().message;
    return e;
  }
  REQUIRE(r.value().kind == Value::Tensor);
  e.ok = true;
  readTensor(e, r.value());
  return e;
}

std::vector<double> iotaValues(int64_t n, double start = 0) {
  V v;
  for (int64_t k = 0; k < n; ++k) v.push_back(start + double(k));
  return v;
}

}  // namespace

TEST_CASE("relay eval: nn.dense is x @ w^T", "[relay]") {
  RelayHarness h;
  auto x = h.input("x", {2, 3}), w = h.input("w", {4, 3});
  auto r = runTensor(h, h.convert("nn.dense", {x, w}, {{"units", rInt(4)}}),
                     {TV("float32", {2, 3}, {1, 2, 3, 4, 5, 6}), TV("float32", {4, 3}, {1, 0, 0, 0, 1, 0, 1, 1, 1, 0, 0, 2})});
  REQUIRE(r.ok);
  CHECK(r.shape == Dims{2, 4});
  // Rows of w pick x0, x1, x0+x1+x2 and 2*x2.
  CHECK(r.values == V{1, 2, 6, 6, 4, 5, 15, 12});
}

TEST_CASE("relay eval: nn.batch_matmul with transpose_b is x @ y^T per batch", "[relay]") {
  RelayHarness h;
  auto x = h.input("x", {2, 2, 2}), y = h.input("y", {2, 3, 2});
  auto r = runTensor(h, h.convert("nn.batch_matmul", {x, y}, {{"transpose_b", rBool(true)}}),
                     {TV("float32", {2, 2, 2}, {1, 2, 3, 4, 1, 0, 0, 1}), TV("float32", {2, 3, 2}, {1, 0, 0, 1, 1, 1, 2, 0, 0, 3, 1, 1})});
  REQUIRE(r.ok);
  CHECK(r.shape == Dims{2, 2, 3});
  // batch 0: [[1,2],[3,4]] @ [[1,0,1],[0,1,1]] ; batch 1: identity @ [[2,0,1],[0,3,1]].
  CHECK(r.values == V{1, 2, 3, 3, 4, 7, 2, 0, 1, 0, 3, 1});
}

TEST_CASE("relay eval: nn.bias_add adds along the channel axis", "[relay]") {
  RelayHarness h;
  auto x = h.input("x", {1, 2, 3}), b = h.input("b", {2});
  auto r = runTensor(h, h.convert("nn.bias_add", {x, b}), {TV("float32", {1, 2, 3}, iotaValues(6)), TV("float32", {2}, {10, 20})});
  REQUIRE(r.ok);
  CHECK(r.values == V{10, 11, 12, 23, 24, 25});
  RelayHarness h2;
  auto x2 = h2.input("x", {2, 2}), b2 = h2.input("b", {2});
  auto r2 = runTensor(h2, h2.convert("nn.bias_add", {x2, b2}, {{"axis", rInt(-1)}}), {TV("float32", {2, 2}, {0, 1, 2, 3}), TV("float32", {2}, {10, 20})});
  CHECK(r2.values == V{10, 21, 12, 23});
}

TEST_CASE("relay eval: nn.batch_flatten keeps the batch and row-major order", "[relay]") {
  RelayHarness h;
  auto x = h.input("x", {2, 2, 2});
  auto r = runTensor(h, h.convert("nn.batch_flatten", {x}), {TV("float32", {2, 2, 2}, iotaValues(8))});
  REQUIRE(r.ok);
  CHECK(r.shape == Dims{2, 4});
  CHECK(r.values == iotaValues(8));
}

TEST_CASE("relay eval: nn.global_avg_pool2d averages each channel's plane", "[relay]") {
  RelayHarness h;
  auto x = h.input("x", {1, 2, 2, 2});
  auto r = runTensor(h, h.convert("nn.global_avg_pool2d", {x}), {TV("float32", {1, 2, 2, 2}, iotaValues(8))});
  REQUIRE(r.ok);
  CHECK(r.shape == Dims{1, 2, 1, 1});
  CHECK(r.values == V{1.5, 5.5});
}

TEST_CASE("relay eval: nn.upsampling repeats pixels (nearest) or interpolates corners (bilinear)", "[relay]") {
  RelayHarness h;
  auto x = h.input("x", {1, 1, 2, 2});
  auto r = runTensor(h, h.convert("nn.upsampling", {x}, {{"scale_h", rFloat(2)}, {"scale_w", rFloat(2)}}), {TV("float32", {1, 1, 2, 2}, {1, 2, 3, 4})});
  REQUIRE(r.ok);
  CHECK(r.shape == Dims{1, 1, 4, 4});
  CHECK(r.values == V{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
  // 2x2 -> 3x3 with align_corners: the corners stay, the middle is the mean of its neighbours.
  RelayHarness h2;
  auto y = h2.input("y", {1, 1, 2, 2});
  auto r2 = runTensor(h2, h2.convert("nn.upsampling", {y}, {{"scale_h", rFloat(1.5)}, {"scale_w", rFloat(1.5)}, {"method", rStr("bilinear")}, {"align_corners", rBool(true)}}),
                      {TV("float32", {1, 1, 2, 2}, {1, 2, 3, 4})});
  REQUIRE(r2.ok);
  CHECK(r2.shape == Dims{1, 1, 3, 3});
  CHECK(r2.values == V{1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4});
}

TEST_CASE("relay eval: reshape codes move no data", "[relay]") {
  struct Case {
    std::vector<int64_t> newshape;
    Dims out;
  };
  for (auto& c : std::vector<Case>{{{-3, -2}, {6, 4}}, {{-4, 1, -1, -2}, {1, 2, 3, 4}}, {{0, -1}, {2, 12}}, {{-1, 0}, {8, 3}}}) {
    RelayHarness h;
    auto x = h.input("x", {2, 3, 4});
    auto r = runTensor(h, h.convert("reshape", {x}, {{"newshape", rInts(c.newshape)}}), {TV("float32", {2, 3, 4}, iotaValues(24))});
    REQUIRE(r.ok);
    CHECK(r.shape == c.out);
    CHECK(r.values == iotaValues(24));
  }
}

TEST_CASE("relay eval: strided_slice in size mode and with axes / strides", "[relay]") {
  RelayHarness h;
  auto x = h.input("x", {3, 4});
  // Rows 1..2 (size 2), columns 1..3 (size -1: to the end).
  auto r = runTensor(h, h.convert("strided_slice", {x}, {{"begin", rInts({1, 1})}, {"end", rInts({2, -1})}, {"slice_mode", rStr("size")}}), {TV("float32", {3, 4}, iotaValues(12))});
  REQUIRE(r.ok);
  CHECK(r.shape == Dims{2, 3});
  CHECK(r.values == V{5, 6, 7, 9, 10, 11});
  RelayHarness h2;
  auto y = h2.input("y", {3, 4});
  auto r2 = runTensor(h2, h2.convert("strided_slice", {y}, {{"begin", rInts({3})}, {"end", rInts({-5})}, {"strides", rInts({-2})}, {"axes", rInts({1})}}),
                      {TV("float32", {3, 4}, iotaValues(12))});
  REQUIRE(r2.ok);
  CHECK(r2.shape == Dims{3, 2});
  CHECK(r2.values == V{3, 1, 7, 5, 11, 9});
}

TEST_CASE("relay eval: mean with exclude reduces the other axes", "[relay]") {
  RelayHarness h;
  auto x = h.input("x", {2, 3});
  auto r = runTensor(h, h.convert("mean", {x}, {{"axis", rInts({1})}, {"exclude", rBool(true)}}), {TV("float32", {2, 3}, {1, 2, 3, 4, 5, 6})});
  REQUIRE(r.ok);
  CHECK(r.shape == Dims{3});
  CHECK(r.values == V{2.5, 3.5, 4.5});
  RelayHarness h2;
  auto y = h2.input("y", {2, 3});
  auto r2 = runTensor(h2, h2.convert("sum", {y}, {{"axis", rInts({0, 1})}, {"exclude", rBool(true)}}), {TV("float32", {2, 3}, {1, 2, 3, 4, 5, 6})});
  CHECK(r2.values == V{1, 2, 3, 4, 5, 6});  // nothing left to reduce
}

TEST_CASE("relay eval: split by sections and by indices gives a tuple", "[relay]") {
  RelayHarness h;
  auto x = h.input("x", {5});
  auto r = h.run(h.convert("split", {x}, {{"indices_or_sections", rInts({2})}}), {TV("float32", {5}, iotaValues(5))});
  REQUIRE(r.ok());
  REQUIRE(r.value().kind == Value::Tuple);
  REQUIRE(r.value().fields.size() == 2);
  CHECK(vals(r.value().fields[0]) == V{0, 1});
  CHECK(vals(r.value().fields[1]) == V{2, 3, 4});
  RelayHarness h2;
  auto y = h2.input("y", {2, 4});
  auto r2 = h2.run(h2.convert("split", {y}, {{"indices_or_sections", rInt(2)}, {"axis", rInt(1)}}), {TV("float32", {2, 4}, iotaValues(8))});
  REQUIRE(r2.ok());
  REQUIRE(r2.value().fields.size() == 2);
  CHECK(vals(r2.value().fields[0]) == V{0, 1, 4, 5});
  CHECK(vals(r2.value().fields[1]) == V{2, 3, 6, 7});
}

TEST_CASE("relay eval: argmax is int32, variance takes Relay's mean argument", "[relay]") {
  RelayHarness h;
  auto x = h.input("x", {2, 3});
  auto r = runTensor(h, h.convert("argmax", {x}, {{"axis", rInts({1})}}), {TV("float32", {2, 3}, {1, 9, 3, 7, 5, 6})});
  REQUIRE(r.ok);
  CHECK(r.dtype == "int32");
  CHECK(r.values == V{1, 0});
  // Var of [1, 3] and [2, 6] about their means 2 and 4: 1 and 4; unbiased doubles them.
  for (bool unbiased : {false, true}) {
    RelayHarness h2;
    auto y = h2.input("y", {2, 2}), m = h2.input("m", {2, 1});
    auto r2 = runTensor(h2, h2.convert("variance", {y, m}, {{"axis", rInts({1})}, {"unbiased", rBool(unbiased)}}),
                        {TV("float32", {2, 2}, {1, 3, 2, 6}), TV("float32", {2, 1}, {2, 4})});
    REQUIRE(r2.ok);
    CHECK(r2.values == (unbiased ? V{2, 8} : V{1, 4}));
  }
}

TEST_CASE("relay eval: layout_transform to a packed layout and gather_nd's index axis", "[relay]") {
  RelayHarness h;
  auto x = h.input("x", {1, 4, 1, 1});
  auto r = runTensor(h, h.convert("layout_transform", {x}, {{"src_layout", rStr("NCHW")}, {"dst_layout", rStr("NCHW2c")}}), {TV("float32", {1, 4, 1, 1}, {0, 1, 2, 3})});
  REQUIRE(r.ok);
  CHECK(r.shape == Dims{1, 2, 1, 1, 2});
  CHECK(r.values == V{0, 1, 2, 3});
  // Relay gather_nd: indices (M=2, Y=2) hold the index tuples as columns, (0, 0) and (1, 0).
  RelayHarness h2;
  auto d = h2.input("d", {2, 2}), idx = h2.input("i", {2, 2}, "int64");
  auto r2 = runTensor(h2, h2.convert("gather_nd", {d, idx}), {TV("float32", {2, 2}, {10, 11, 12, 13}), TV("int64", {2, 2}, {0, 1, 0, 0})});
  REQUIRE(r2.ok);
  CHECK(r2.values == V{10, 12});
}
