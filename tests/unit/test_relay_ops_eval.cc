// The Relay op rewrites computed: each converted call runs on rlx's reference evaluator (ir/eval.h)
// and gives the values Relay defines, hand-checked on small inputs.
#include <catch2/catch.hpp>

#include "tests/unit/eval_test_util.h"
#include "tests/unit/relay_eval_harness.h"

using namespace rlx;
using namespace rlx::test;
using V = std::vector<double>;
using Dims = std::vector<int64_t>;

namespace {

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

namespace {
// A 0-d constant argument (Relay's scalar literals arrive as Relax constants).
Expr scalarConst(double v, const char* dtype) {
  auto a = make<NDArray>(*DataType::parse(dtype), std::vector<int64_t>{});
  a->setDouble(0, v);
  auto k = make<Constant>(a);
  k->sinfo = tensorSInfo({}, a->dtype);
  return k;
}
}  // namespace

TEST_CASE("relay eval: the further elementwise, creation and indexing ops", "[relay]") {
  auto one = [](const std::string& op, std::vector<int64_t> shape, V in, const relay::Attrs& attrs, const char* dtype = "float32") {
    RelayHarness h;
    std::vector<PrimExpr> dims;
    for (auto d : shape) dims.push_back(intImm(d));
    auto x = h.input("x", dims, dtype);
    return runTensor(h, h.convert(op, {x}, attrs), {TV(dtype, shape, std::move(in))});
  };
  CHECK(one("clip", {4}, {-2, 0.5, 3, 9}, {{"a_min", rFloat(0)}, {"a_max", rFloat(6)}}).values == V{0, 0.5, 3, 6});
  CHECK(one("clip", {3}, {-7, 2, 9}, {{"a_min", rFloat(-1)}, {"a_max", rFloat(5)}}, "int32").values == V{-1, 2, 5});
  CHECK(one("log2", {3}, {1, 8, 0.5}, {}).values == V{0, 3, -1});
  CHECK(one("tile", {2}, {1, 2}, {{"reps", rInts({2, 2})}}).values == V{1, 2, 1, 2, 1, 2, 1, 2});
  CHECK(one("repeat", {2}, {1, 2}, {{"repeats", rInt(2)}, {"axis", rInt(0)}}).values == V{1, 1, 2, 2});
  CHECK(one("reverse", {3}, {1, 2, 3}, {{"axis", rInt(0)}}).values == V{3, 2, 1});
  CHECK(one("cumsum", {4}, {1, 2, 3, 4}, {{"axis", rInt(0)}, {"exclusive", rBool(true)}}).values == V{0, 1, 3, 6});
  CHECK(one("sort", {3}, {3, 1, 2}, {{"is_ascend", rBool(false)}}).values == V{3, 2, 1});
  auto a = one("argsort", {3}, {3, 1, 2}, {});
  CHECK(a.dtype == "int32");
  CHECK(a.values == V{1, 2, 0});
  auto l2 = one("nn.l2_normalize", {2}, {3, 4}, {{"eps", rFloat(1e-12)}});
  REQUIRE(l2.values.size() == 2);
  CHECK(l2.values[0] == Approx(0.6));
  CHECK(l2.values[1] == Approx(0.8));
  CHECK(one("nn.mirror_pad", {3}, {1, 2, 3}, {{"pad_width", rArr({rInts({2, 1})})}, {"mode", rStr("REFLECT")}}).values == V{3, 2, 1, 2, 3, 2});
  auto any = one("any", {2, 2}, {0, 0, 0, 1}, {{"axis", rInts({1})}}, "bool");
  CHECK(any.dtype == "bool");
  CHECK(any.values == V{0, 1});
  {
    RelayHarness h;
    auto x = h.input("x", {3});
    auto r = h.run(h.convert("topk", {x}, {{"k", rInt(2)}}), {TV("float32", {3}, {1, 3, 2})});
    REQUIRE(r.ok());
    CHECK(vals(r.value().fields[0]) == V{3, 2});
    CHECK(dtypeOf(r.value().fields[1]) == "int32");
    CHECK(vals(r.value().fields[1]) == V{1, 2});
  }
  {
    RelayHarness h;
    auto r = runTensor(h, h.convert("full", {scalarConst(7, "float32")}, {{"shape", rInts({2})}}), {});
    CHECK(r.values == V{7, 7});
    RelayHarness h2;
    auto r2 = runTensor(h2, h2.convert("arange", {scalarConst(1, "int32"), scalarConst(7, "int32"), scalarConst(2, "int32")}, {{"dtype", rStr("int32")}}), {});
    CHECK(r2.dtype == "int32");
    CHECK(r2.values == V{1, 3, 5});
    RelayHarness h3;
    auto x = h3.input("x", {2, 2});
    auto r3 = runTensor(h3, h3.convert("trilu", {x, scalarConst(0, "int32")}, {{"upper", rBool(false)}}), {TV("float32", {2, 2}, {1, 2, 3, 4})});
    CHECK(r3.values == V{1, 0, 3, 4});
  }
  {
    RelayHarness h;
    auto idx = h.input("i", {3}, "int32");
    auto r = runTensor(h, h.convert("one_hot", {idx, scalarConst(1, "float32"), scalarConst(0, "float32")}, {{"depth", rInt(3)}, {"dtype", rStr("float32")}}),
                       {TV("int32", {3}, {2, 0, 1})});
    CHECK(r.dtype == "float32");
    CHECK(r.values == V{0, 0, 1, 1, 0, 0, 0, 1, 0});
  }
  {
    // where with a numeric condition: non-zero is true.
    RelayHarness h;
    auto c = h.input("c", {3}, "int32"), x = h.input("x", {3}), y = h.input("y", {3});
    auto r = runTensor(h, h.convert("where", {c, x, y}), {TV("int32", {3}, {0, 2, -1}), TV("float32", {3}, {1, 2, 3}), TV("float32", {3}, {7, 8, 9})});
    CHECK(r.values == V{7, 2, 3});
  }
  {
    RelayHarness h;
    auto d = h.input("d", {2, 3}), idx = h.input("i", {2, 2}, "int64");
    auto r = runTensor(h, h.convert("gather", {d, idx}, {{"axis", rInt(1)}}), {TV("float32", {2, 3}, {1, 2, 3, 4, 5, 6}), TV("int64", {2, 2}, {2, 0, 1, 1})});
    CHECK(r.values == V{3, 1, 5, 5});
  }
  {
    // Relay scatter_nd: indices (M=1, Y=2) put updates at rows 2 and 0.
    RelayHarness h;
    auto d = h.input("d", {3}), idx = h.input("i", {1, 2}, "int64"), u = h.input("u", {2});
    auto r = runTensor(h, h.convert("scatter_nd", {d, idx, u}), {TV("float32", {3}, {0, 0, 0}), TV("int64", {1, 2}, {2, 0}), TV("float32", {2}, {5, 6})});
    CHECK(r.values == V{6, 0, 5});
  }
  {
    RelayHarness h;
    auto x = h.input("x", {2, 2}), y = h.input("y", {2, 2});
    auto r = runTensor(h, h.convert("einsum", {tupleOf({x, y})}, {{"equation", rStr("ij,jk->ik")}}), {TV("float32", {2, 2}, {1, 2, 3, 4}), TV("float32", {2, 2}, {1, 0, 0, 1})});
    CHECK(r.values == V{1, 2, 3, 4});
  }
  {
    RelayHarness h;
    auto x = h.input("x", {3});
    auto r = runTensor(h, h.convert("qnn.quantize", {x, scalarConst(0.5, "float32"), scalarConst(1, "int32")}, {{"out_dtype", rStr("int8")}}),
                       {TV("float32", {3}, {0, 1, -1})});
    CHECK(r.dtype == "int8");
    CHECK(r.values == V{1, 3, -1});
  }
  {
    // image.resize2d with Relay's defaults (linear, half_pixel): 2 -> 4 along W.
    RelayHarness h;
    auto x = h.input("x", {1, 1, 1, 2});
    auto r = runTensor(h, h.convert("image.resize2d", {x}, {{"size", rInts({1, 4})}}), {TV("float32", {1, 1, 1, 2}, {0, 4})});
    CHECK(r.values == V{0, 1, 3, 4});
  }
  {
    // instance_norm normalizes each (batch, channel) plane.
    RelayHarness h;
    auto x = h.input("x", {1, 1, 2}), g = h.input("g", {1}), b = h.input("b", {1});
    auto r = runTensor(h, h.convert("nn.instance_norm", {x, g, b}, {{"epsilon", rFloat(0)}}), {TV("float32", {1, 1, 2}, {1, 3}), TV("float32", {1}, {2}), TV("float32", {1}, {1})});
    CHECK(r.values == V{-1, 3});
  }
}
