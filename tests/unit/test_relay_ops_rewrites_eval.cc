// The Relay ops rlx rewrites into several Relax ops (ops_space, ops_sequence, ops_locate, lrn, the
// pool gradients, adaptive max pools, resize1d / grid_sample, QNN, dyn.*), run on rlx's reference
// evaluator against values worked out by hand from TOPI's definitions.
#include <catch2/catch.hpp>

#include "tests/unit/eval_test_util.h"
#include "tests/unit/relay_eval_harness.h"

using namespace rlx;
using namespace rlx::test;
using V = std::vector<double>;
using Dims = std::vector<int64_t>;

namespace {

// op(x, extra constant args..., attrs) on one input tensor.
Evaluated one(const std::string& op, const char* dtype, Dims shape, V in, const relay::Attrs& attrs = {}, std::vector<Expr> consts = {}) {
  RelayHarness h;
  std::vector<PrimExpr> dims;
  for (auto d : shape) dims.push_back(intImm(d));
  std::vector<Expr> args = {h.input("x", dims, dtype)};
  args.insert(args.end(), consts.begin(), consts.end());
  return runTensor(h, h.convert(op, args, attrs), {TV(dtype, shape, std::move(in))});
}

}  // namespace

TEST_CASE("relay eval: depth_to_space and space_to_depth follow TOPI's channel order", "[relay]") {
  // DCR: out (c, y, x) = in channel C'*(2y + x) + c; CRD: in channel 4c + 2y + x (C' = 2).
  auto dcr = one("nn.depth_to_space", "float32", {1, 8, 1, 1}, iotaValues(8), {{"block_size", rInt(2)}});
  REQUIRE(dcr.ok);
  CHECK(dcr.shape == Dims{1, 2, 2, 2});
  CHECK(dcr.values == V{0, 2, 4, 6, 1, 3, 5, 7});
  auto crd = one("nn.depth_to_space", "float32", {1, 8, 1, 1}, iotaValues(8), {{"block_size", rInt(2)}, {"mode", rStr("CRD")}});
  CHECK(crd.values == iotaValues(8));
  // NHWC keeps channels last: out (y, x, c) = in channel 2*(2y + x) + c, i.e. the same order.
  auto nhwc = one("nn.depth_to_space", "float32", {1, 1, 1, 8}, iotaValues(8), {{"block_size", rInt(2)}, {"layout", rStr("NHWC")}});
  CHECK(nhwc.shape == Dims{1, 2, 2, 2});
  CHECK(nhwc.values == iotaValues(8));
  // in (c, y, x) = 4c + 2y + x; out channel (2oy + ox)*2 + c holds in (c, oy, ox).
  auto s2d = one("nn.space_to_depth", "float32", {1, 2, 2, 2}, iotaValues(8), {{"block_size", rInt(2)}});
  REQUIRE(s2d.ok);
  CHECK(s2d.shape == Dims{1, 8, 1, 1});
  CHECK(s2d.values == V{0, 4, 1, 5, 2, 6, 3, 7});
  // depth_to_space (DCR) undoes it.
  CHECK(one("nn.depth_to_space", "float32", {1, 8, 1, 1}, {0, 4, 1, 5, 2, 6, 3, 7}, {{"block_size", rInt(2)}}).values == iotaValues(8));
  auto s2dh = one("nn.space_to_depth", "float32", {1, 2, 2, 1}, {1, 2, 3, 4}, {{"block_size", rInt(2)}, {"layout", rStr("NHWC")}});
  CHECK(s2dh.shape == Dims{1, 1, 1, 4});
  CHECK(s2dh.values == V{1, 2, 3, 4});
}

TEST_CASE("relay eval: dilate interleaves, fifo_buffer keeps the newest window", "[relay]") {
  auto d1 = one("nn.dilate", "float32", {2, 2}, {1, 2, 3, 4}, {{"strides", rInts({1, 2})}});
  REQUIRE(d1.ok);
  CHECK(d1.shape == Dims{2, 3});
  CHECK(d1.values == V{1, 0, 2, 3, 0, 4});
  auto d2 = one("nn.dilate", "float32", {2, 2}, {1, 2, 3, 4}, {{"strides", rInts({2, 2})}, {"dilation_value", rFloat(9)}});
  CHECK(d2.shape == Dims{3, 3});
  CHECK(d2.values == V{1, 9, 2, 9, 9, 9, 3, 9, 4});
  RelayHarness h;
  auto data = h.input("data", {1, 2}), buf = h.input("buffer", {1, 4});
  auto r = runTensor(h, h.convert("nn.fifo_buffer", {data, buf}, {{"axis", rInt(1)}}), {TV("float32", {1, 2}, {7, 8}), TV("float32", {1, 4}, {1, 2, 3, 4})});
  REQUIRE(r.ok);
  CHECK(r.values == V{3, 4, 7, 8});
}

TEST_CASE("relay eval: lrn divides by (bias + alpha * window sum of squares / size)^beta", "[relay]") {
  // size 3: windows {-, 1, 4} = 5, {1, 4, 9} = 14, {4, 9, -} = 13; alpha/size = 1, bias 1, beta 1.
  auto odd = one("nn.lrn", "float32", {1, 3, 1, 1}, {1, 2, 3}, {{"size", rInt(3)}, {"bias", rFloat(1)}, {"alpha", rFloat(3)}, {"beta", rFloat(1)}});
  REQUIRE(odd.ok);
  REQUIRE(odd.values.size() == 3);
  CHECK(odd.values[0] == Approx(1.0 / 6));
  CHECK(odd.values[1] == Approx(2.0 / 15));
  CHECK(odd.values[2] == Approx(3.0 / 14));
  // size 2: the window is [c - 1, c]: 1, 5, 13; alpha/size = 1, bias 1; beta 0.5 takes square roots.
  auto even = one("nn.lrn", "float32", {1, 3, 1, 1}, {1, 2, 3}, {{"size", rInt(2)}, {"bias", rFloat(1)}, {"alpha", rFloat(2)}, {"beta", rFloat(0.5)}});
  REQUIRE(even.values.size() == 3);
  CHECK(even.values[0] == Approx(1 / std::sqrt(2.0)));
  CHECK(even.values[1] == Approx(2 / std::sqrt(6.0)));
  CHECK(even.values[2] == Approx(3 / std::sqrt(14.0)));
}

TEST_CASE("relay eval: sequence_mask and reverse_sequence", "[relay]") {
  {
    // (time, batch) = 3 x 2, lengths [1, 3]: batch 0 keeps t = 0 only.
    RelayHarness h;
    auto x = h.input("x", {3, 2}), len = h.input("len", {2}, "int32");
    auto r = runTensor(h, h.convert("sequence_mask", {x, len}, {{"mask_value", rFloat(-1)}}), {TV("float32", {3, 2}, iotaValues(6)), TV("int32", {2}, {1, 3})});
    REQUIRE(r.ok);
    CHECK(r.values == V{0, 1, -1, 3, -1, 5});
  }
  {
    // axis 1: (batch, time) = 2 x 3.
    RelayHarness h;
    auto x = h.input("x", {2, 3}), len = h.input("len", {2}, "int32");
    auto r = runTensor(h, h.convert("sequence_mask", {x, len}, {{"mask_value", rFloat(-1)}, {"axis", rInt(1)}}), {TV("float32", {2, 3}, iotaValues(6)), TV("int32", {2}, {1, 3})});
    CHECK(r.values == V{0, -1, -1, 3, 4, 5});
  }
  {
    // batch axis 0, time axis 1: length 3 reverses the first three, 9 (> 4) the whole row.
    RelayHarness h;
    auto x = h.input("x", {2, 4}), len = h.input("len", {2}, "int32");
    auto run = [&](V lens) { return runTensor(h, h.convert("reverse_sequence", {x, len}), {TV("float32", {2, 4}, iotaValues(8)), TV("int32", {2}, lens)}); };
    auto r = run({3, 9});
    REQUIRE(r.ok);
    CHECK(r.values == V{2, 1, 0, 3, 7, 6, 5, 4});
  }
  {
    RelayHarness h;
    auto x = h.input("x", {2, 4}), len = h.input("len", {2}, "int32");
    CHECK(runTensor(h, h.convert("reverse_sequence", {x, len}), {TV("float32", {2, 4}, iotaValues(8)), TV("int32", {2}, {1, 0})}).values == iotaValues(8));
  }
  {
    // time axis 0, batch axis 1: column 0 reverses 2 steps, column 1 all 3.
    RelayHarness h;
    auto x = h.input("x", {3, 2}), len = h.input("len", {2}, "int64");
    auto r = runTensor(h, h.convert("reverse_sequence", {x, len}, {{"seq_axis", rInt(0)}, {"batch_axis", rInt(1)}}), {TV("float32", {3, 2}, iotaValues(6)), TV("int64", {2}, {2, 3})});
    CHECK(r.values == V{2, 5, 0, 3, 4, 1});
  }
}

TEST_CASE("relay eval: argwhere, invert_permutation, unravel_index, sparse_to_dense", "[relay]") {
  auto aw = one("argwhere", "float32", {2, 2}, {0, 1, 1, 0});
  REQUIRE(aw.ok);
  CHECK(aw.dtype == "int32");
  CHECK(aw.shape == Dims{2, 2});
  CHECK(aw.values == V{0, 1, 1, 0});
  auto inv = one("invert_permutation", "int32", {3}, {2, 0, 1});
  REQUIRE(inv.ok);
  CHECK(inv.values == V{1, 2, 0});
  // TVM's example: unravel_index([22, 41, 37], (7, 6)) = [[3, 6, 6], [4, 5, 1]].
  auto ui = one("unravel_index", "int32", {3}, {22, 41, 37}, {}, {rConst("int64", {2}, {7, 6})});
  REQUIRE(ui.ok);
  CHECK(ui.shape == Dims{2, 3});
  CHECK(ui.values == V{3, 6, 6, 4, 5, 1});
  auto us = one("unravel_index", "int64", {}, {22}, {}, {rConst("int64", {2}, {7, 6})});
  CHECK(us.shape == Dims{2});
  CHECK(us.values == V{3, 4});
  {
    // TVM's example: indices [[0, 0], [1, 2]], values [1, 2], shape (3, 4), default 0.
    RelayHarness h;
    auto idx = h.input("idx", {2, 2}, "int32"), val = h.input("val", {2});
    auto r = runTensor(h, h.convert("sparse_to_dense", {idx, val, rConst("float32", {}, {0})}, {{"output_shape", rInts({3, 4})}}),
                       {TV("int32", {2, 2}, {0, 0, 1, 2}), TV("float32", {2}, {1, 2})});
    REQUIRE(r.ok);
    CHECK(r.shape == Dims{3, 4});
    CHECK(r.values == V{1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0});
  }
  {
    // 1-D indices into a 1-D result, one scalar value for all.
    RelayHarness h;
    auto idx = h.input("idx", {2}, "int64");
    auto r = runTensor(h, h.convert("sparse_to_dense", {idx, rConst("float32", {}, {7}), rConst("float32", {}, {-1})}, {{"output_shape", rInts({5})}}), {TV("int64", {2}, {0, 3})});
    REQUIRE(r.ok);
    CHECK(r.values == V{7, -1, -1, 7, -1});
  }
}

TEST_CASE("relay eval: adv_index, searchsorted, ndarray_size, collapse_sum_to, contrib_reverse_reshape", "[relay]") {
  {
    RelayHarness h;
    auto d = h.input("d", {3, 2}), i0 = h.input("i0", {2}, "int64"), i1 = h.input("i1", {2}, "int64");
    auto rows = runTensor(h, h.convert("adv_index", {Expr(make<Tuple>(std::vector<Expr>{d, i0}))}), {TV("float32", {3, 2}, iotaValues(6)), TV("int64", {2}, {2, 0}), TV("int64", {2}, {0, 0})});
    REQUIRE(rows.ok);
    CHECK(rows.shape == Dims{2, 2});
    CHECK(rows.values == V{4, 5, 0, 1});
  }
  {
    RelayHarness h;
    auto d = h.input("d", {3, 2}), i0 = h.input("i0", {2}, "int64"), i1 = h.input("i1", {2}, "int64");
    auto pts = runTensor(h, h.convert("adv_index", {Expr(make<Tuple>(std::vector<Expr>{d, i0, i1}))}), {TV("float32", {3, 2}, iotaValues(6)), TV("int64", {2}, {0, 2}), TV("int64", {2}, {1, 0})});
    REQUIRE(pts.ok);
    CHECK(pts.values == V{1, 4});
  }
  for (bool right : {false, true}) {
    RelayHarness h;
    auto seq = h.input("seq", {4}), v = h.input("v", {4});
    auto r = runTensor(h, h.convert("searchsorted", {seq, v}, {{"right", rBool(right)}}), {TV("float32", {4}, {1, 3, 5, 7}), TV("float32", {4}, {0, 3, 6, 8})});
    REQUIRE(r.ok);
    CHECK(r.dtype == "int32");
    // 3 sits left of the equal element (index 1) or right of it (index 2).
    CHECK(r.values == (right ? V{0, 2, 3, 4} : V{0, 1, 3, 4}));
  }
  {
    RelayHarness h;
    auto x = h.input("x", {make<PrimVar>("n", DataType::int64()), intImm(3)});
    auto r = runTensor(h, h.convert("ndarray_size", {x}, {{"dtype", rStr("int64")}}), {TV("float32", {2, 3})});
    REQUIRE(r.ok);
    CHECK(r.dtype == "int64");
    CHECK(r.shape == Dims{});
    CHECK(r.values == V{6});
  }
  CHECK(one("collapse_sum_to", "float32", {2, 3}, iotaValues(6), {}, {rConst("int64", {1}, {3})}).values == V{3, 5, 7});
  CHECK(one("collapse_sum_to", "float32", {2, 3}, iotaValues(6), {}, {rConst("int64", {2}, {2, 1})}).values == V{3, 12});
  auto rr = one("contrib_reverse_reshape", "float32", {2, 3, 4}, iotaValues(24), {{"newshape", rInts({-1, 0})}});
  REQUIRE(rr.ok);
  CHECK(rr.shape == Dims{6, 4});
  CHECK(rr.values == iotaValues(24));
}

TEST_CASE("relay eval: adaptive max pools, pool gradients, nll_loss", "[relay]") {
  auto amp = one("nn.adaptive_max_pool2d", "float32", {1, 1, 4, 4}, iotaValues(16), {{"output_size", rInts({2, 2})}});
  REQUIRE(amp.ok);
  CHECK(amp.values == V{5, 7, 13, 15});
  auto amp1 = one("nn.adaptive_max_pool1d", "float32", {1, 1, 4}, {3, 1, 2, 5}, {{"output_size", rInts({1})}});
  CHECK(amp1.values == V{5});
  {
    RelayHarness h;
    auto g = h.input("g", {1, 1, 1, 1}), x = h.input("x", {1, 1, 2, 2});
    relay::Attrs pool = {{"pool_size", rInts({2, 2})}, {"strides", rInts({2, 2})}};
    auto mx = runTensor(h, h.convert("nn.max_pool2d_grad", {g, x}, pool), {TV("float32", {1, 1, 1, 1}, {1}), TV("float32", {1, 1, 2, 2}, {1, 4, 2, 3})});
    REQUIRE(mx.ok);
    CHECK(mx.values == V{0, 1, 0, 0});
  }
  {
    RelayHarness h;
    auto g = h.input("g", {1, 1, 1, 1}), x = h.input("x", {1, 1, 2, 2});
    relay::Attrs pool = {{"pool_size", rInts({2, 2})}, {"strides", rInts({2, 2})}};
    auto av = runTensor(h, h.convert("nn.avg_pool2d_grad", {g, x}, pool), {TV("float32", {1, 1, 1, 1}, {4}), TV("float32", {1, 1, 2, 2}, {1, 4, 2, 3})});
    REQUIRE(av.ok);
    CHECK(av.values == V{1, 1, 1, 1});
  }
  for (const char* reduction : {"mean", "sum", "none"}) {
    RelayHarness h;
    auto p = h.input("p", {2, 3}), t = h.input("t", {2}, "int64"), w = h.input("w", {3});
    auto r = runTensor(h, h.convert("nn.nll_loss", {p, t, w}, {{"reduction", rStr(reduction)}}),
                       {TV("float32", {2, 3}, {-1, -2, -3, -4, -5, -6}), TV("int64", {2}, {0, 2}), TV("float32", {3}, {1, 1, 2})});
    REQUIRE(r.ok);
    // Weighted: 1 * 1 and 2 * 6; mean divides by the weights 1 + 2.
    if (std::string(reduction) == "mean") CHECK(r.values[0] == Approx(13.0 / 3));
    if (std::string(reduction) == "sum") CHECK(r.values == V{13});
    if (std::string(reduction) == "none") CHECK(r.values == V{1, 12});
  }
}

TEST_CASE("relay eval: resize1d and grid_sample", "[relay]") {
  auto lin = one("image.resize1d", "float32", {1, 1, 2}, {0, 2}, {{"size", rInts({4})}, {"coordinate_transformation_mode", rStr("align_corners")}});
  REQUIRE(lin.ok);
  CHECK(lin.shape == Dims{1, 1, 4});
  REQUIRE(lin.values.size() == 4);
  CHECK(lin.values[1] == Approx(2.0 / 3));
  CHECK(lin.values[2] == Approx(4.0 / 3));
  CHECK(lin.values[3] == Approx(2));
  // asymmetric nearest: x * 2/4 = 0, 0.5, 1, 1.5 floored.
  auto near = one("image.resize1d", "float32", {1, 2, 1}, {0, 5},
                  {{"size", rInts({4})}, {"layout", rStr("NWC")}, {"method", rStr("nearest_neighbor")}, {"coordinate_transformation_mode", rStr("asymmetric")}, {"rounding_method", rStr("floor")}});
  REQUIRE(near.ok);
  CHECK(near.shape == Dims{1, 4, 1});
  CHECK(near.values == V{0, 0, 5, 5});
  {
    // Relay's grid is (N, 2, H, W) holding x then y; align_corners (the default) puts -1 / 1 on the
    // corner pixels' centres.
    RelayHarness h;
    auto x = h.input("x", {1, 1, 2, 2}), g = h.input("g", {1, 2, 1, 2});
    auto r = runTensor(h, h.convert("image.grid_sample", {x, g}), {TV("float32", {1, 1, 2, 2}, {1, 2, 3, 4}), TV("float32", {1, 2, 1, 2}, {-1, 1, -1, 1})});
    REQUIRE(r.ok);
    CHECK(r.shape == Dims{1, 1, 1, 2});
    CHECK(r.values == V{1, 4});
  }
  {
    // (x, y) = (1, -1) is the top-right pixel, 2.
    RelayHarness h;
    auto x = h.input("x", {1, 1, 2, 2}), g = h.input("g", {1, 2, 1, 2});
    auto tr = runTensor(h, h.convert("image.grid_sample", {x, g}), {TV("float32", {1, 1, 2, 2}, {1, 2, 3, 4}), TV("float32", {1, 2, 1, 2}, {1, -1, -1, -1})});
    CHECK(tr.values == V{2, 1});
  }
  {
    // Without align_corners, (-1, -1) is the corner of pixel (0, 0): a quarter of it with zero padding.
    RelayHarness h;
    auto x = h.input("x", {1, 1, 2, 2}), g = h.input("g", {1, 2, 1, 1});
    auto r = runTensor(h, h.convert("image.grid_sample", {x, g}, {{"align_corners", rBool(false)}}), {TV("float32", {1, 1, 2, 2}, {1, 2, 3, 4}), TV("float32", {1, 2, 1, 1}, {-1, -1})});
    REQUIRE(r.ok);
    CHECK(r.values == V{0.25});
  }
}

TEST_CASE("relay eval: QNN ops on zero-point-shifted integers, unary ops through float", "[relay]") {
  auto i32 = [](double v) { return rConst("int32", {}, {v}); };
  auto f32 = [](double v) { return rConst("float32", {}, {v}); };
  {
    // (x - 1) @ w^T with x = [1, 2], w = [[3, 4], [5, 6]].
    RelayHarness h;
    auto x = h.input("x", {1, 2}, "int8"), w = h.input("w", {2, 2}, "int8");
    auto r = runTensor(h, h.convert("qnn.dense", {x, w, i32(1), i32(0), f32(0.5), f32(0.25)}, {{"units", rInt(2)}, {"out_dtype", rStr("int32")}}),
                       {TV("int8", {1, 2}, {1, 2}), TV("int8", {2, 2}, {3, 4, 5, 6})});
    REQUIRE(r.ok);
    CHECK(r.dtype == "int32");
    CHECK(r.values == V{4, 6});
  }
  {
    // A per-unit weight zero point [1, 2]: rows [2, 3] and [3, 4].
    RelayHarness h;
    auto x = h.input("x", {1, 2}, "int8"), w = h.input("w", {2, 2}, "int8");
    auto r = runTensor(h, h.convert("qnn.dense", {x, w, i32(1), rConst("int32", {2}, {1, 2}), f32(0.5), rConst("float32", {2}, {0.25, 0.25})}, {{"units", rInt(2)}, {"out_dtype", rStr("int32")}}),
                       {TV("int8", {1, 2}, {1, 2}), TV("int8", {2, 2}, {3, 4, 5, 6})});
    REQUIRE(r.ok);
    CHECK(r.values == V{3, 4});
  }
  {
    // 1x1 kernel 2 on x - 1, padded by one: the border is the zero point, i.e. 0 after the shift.
    RelayHarness h;
    auto x = h.input("x", {1, 1, 2, 2}, "int8"), w = h.input("w", {1, 1, 1, 1}, "int8");
    auto r = runTensor(h, h.convert("qnn.conv2d", {x, w, i32(1), i32(0), f32(1), f32(1)}, {{"padding", rInts({1, 1})}, {"out_dtype", rStr("int32")}}),
                       {TV("int8", {1, 1, 2, 2}, {1, 2, 3, 4}), TV("int8", {1, 1, 1, 1}, {2})});
    REQUIRE(r.ok);
    CHECK(r.shape == Dims{1, 1, 4, 4});
    CHECK(r.values == V{0, 0, 0, 0, 0, 0, 2, 0, 0, 4, 6, 0, 0, 0, 0, 0});
  }
  {
    RelayHarness h;
    auto x = h.input("x", {1, 1, 2}, "int8"), y = h.input("y", {1, 2, 2}, "int8");
    auto r = runTensor(h, h.convert("qnn.batch_matmul", {x, y, i32(1), i32(0), f32(1), f32(1)}, {{"out_dtype", rStr("int32")}, {"transpose_b", rBool(true)}}),
                       {TV("int8", {1, 1, 2}, {1, 2}), TV("int8", {1, 2, 2}, {1, 2, 3, 4})});
    REQUIRE(r.ok);
    CHECK(r.values == V{2, 4});
  }
  {
    RelayHarness h;
    auto x = h.input("x", {1, 1, 1, 1}, "uint8"), w = h.input("w", {1, 1, 2, 2}, "int8");
    auto r = runTensor(h, h.convert("qnn.conv2d_transpose", {x, w, i32(1), i32(0), f32(1), f32(1)}, {{"out_dtype", rStr("int32")}}),
                       {TV("uint8", {1, 1, 1, 1}, {3}), TV("int8", {1, 1, 2, 2}, {1, 2, 3, 4})});
    REQUIRE(r.ok);
    CHECK(r.shape == Dims{1, 1, 2, 2});
    CHECK(r.values == V{2, 4, 6, 8});
  }
  // abs: [-3, 4] * 0.5 = [-1.5, 2] -> [1.5, 2] -> / 0.5 = [3, 4].
  auto ab = one("qnn.abs", "int8", {2}, {-3, 4}, {}, {f32(0.5), i32(0), f32(0.5), i32(0)});
  REQUIRE(ab.ok);
  CHECK(ab.dtype == "int8");
  CHECK(ab.values == V{3, 4});
  // hardswish: [-4, 0, 1, 4] -> x * clip(x + 3, 0, 6) / 6 = [0, 0, 2/3, 4] -> / 0.5 rounded.
  auto hs = one("qnn.hardswish", "int8", {4}, {-8, 0, 2, 8}, {}, {f32(0.5), i32(0), f32(0.5), i32(0)});
  REQUIRE(hs.ok);
  CHECK(hs.values == V{0, 0, 1, 8});
  // exp with a zero point: (q - 10) * 0.1 = [0, 1]; exp = [1, e]; / 0.5 + 3 = [5, 8.44] -> [5, 8].
  auto e = one("qnn.exp", "uint8", {2}, {10, 20}, {}, {f32(0.1), i32(10), f32(0.5), i32(3)});
  REQUIRE(e.ok);
  CHECK(e.dtype == "uint8");
  CHECK(e.values == V{5, 8});
}

TEST_CASE("relay eval: dyn ops with constant and computed shape arguments", "[relay]") {
  auto i64 = [](std::vector<int64_t> shape, V v) { return rConst("int64", shape, v); };
  CHECK(one("dyn.reshape", "float32", {2, 3}, iotaValues(6), {}, {i64({2}, {3, -1})}).shape == Dims{3, 2});
  CHECK(one("dyn.tile", "float32", {2}, {1, 2}, {}, {i64({1}, {2})}).values == V{1, 2, 1, 2});
  CHECK(one("dyn.expand_dims", "float32", {2}, {1, 2}, {}, {i64({}, {0})}).shape == Dims{1, 2});
  CHECK(one("dyn.squeeze", "float32", {1, 2}, {1, 2}, {}, {i64({1}, {0})}).shape == Dims{2});
  CHECK(one("dyn.strided_slice", "float32", {4}, iotaValues(4), {}, {i64({1}, {1}), i64({1}, {3}), i64({1}, {1})}).values == V{1, 2});
  auto topk = one("dyn.topk", "float32", {4}, {3, 1, 4, 2}, {{"ret_type", rStr("values")}}, {i64({}, {2})});
  REQUIRE(topk.ok);
  CHECK(topk.values == V{4, 3});
  auto pad = one("dyn.nn.pad", "float32", {2}, {1, 2}, {}, {i64({1, 2}, {1, 2}), rConst("float32", {}, {9})});
  CHECK(pad.values == V{9, 1, 2, 9, 9});
  {
    RelayHarness h;
    auto fill = h.input("v", {});
    auto r = runTensor(h, h.convert("dyn.full", {fill, i64({1}, {3})}), {TV("float32", {}, {7})});
    CHECK(r.values == V{7, 7, 7});
  }
  {
    // A computed shape goes through R.tensor_to_shape.
    RelayHarness h;
    auto shape = h.input("s", {2}, "int64");
    auto r = runTensor(h, h.convert("dyn.ones", {shape}, {{"dtype", rStr("int32")}}), {TV("int64", {2}, {2, 1})});
    REQUIRE(r.ok);
    CHECK(r.shape == Dims{2, 1});
    CHECK(r.values == V{1, 1});
  }
  {
    // Computed bounds go through R.dynamic_strided_slice.
    RelayHarness h;
    auto x = h.input("x", {4}), b = h.input("b", {1}, "int32"), e = h.input("e", {1}, "int32"), st = h.input("st", {1}, "int32");
    auto r = runTensor(h, h.convert("dyn.strided_slice", {x, b, e, st}), {TV("float32", {4}, iotaValues(4)), TV("int32", {1}, {1}), TV("int32", {1}, {4}), TV("int32", {1}, {2})});
    REQUIRE(r.ok);
    CHECK(r.values == V{1, 3});
  }
  {
    RelayHarness h;
    auto idx = h.input("idx", {2}, "int64");
    auto r = runTensor(h, h.convert("dyn.sparse_to_dense", {idx, i64({1}, {3}), rConst("float32", {}, {5}), rConst("float32", {}, {0})}), {TV("int64", {2}, {0, 2})});
    CHECK(r.values == V{5, 0, 5});
  }
}

TEST_CASE("relay eval: space_to_batch_nd / batch_to_space_nd (TF's layout) and affine_grid", "[relay]") {
  // x (1, 4, 1): positions 0..3 padded by one on the left -> [9, 0, 1, 2, 3, 9] with block 2:
  // batch 0 takes the even positions [9, 1, 3], batch 1 the odd ones [0, 2, 9].
  auto s2b = one("nn.space_to_batch_nd", "float32", {1, 4, 1}, iotaValues(4), {{"block_shape", rInts({2})}, {"paddings", rArr({rInts({1, 1})})}, {"pad_value", rFloat(9)}});
  REQUIRE(s2b.ok);
  CHECK(s2b.shape == Dims{2, 3, 1});
  CHECK(s2b.values == V{9, 1, 3, 0, 2, 9});
  // batch_to_space_nd interleaves them back and crops the padding.
  auto b2s = one("nn.batch_to_space_nd", "float32", {2, 3, 1}, {9, 1, 3, 0, 2, 9}, {{"block_shape", rInts({2})}, {"crops", rArr({rInts({1, 1})})}});
  REQUIRE(b2s.ok);
  CHECK(b2s.shape == Dims{1, 4, 1});
  CHECK(b2s.values == iotaValues(4));
  // 2-D blocks: a 2x2 image of 2x2 blocks; batch (oy*2 + ox) gets pixel (oy, ox) of every block.
  auto s2b2 = one("nn.space_to_batch_nd", "float32", {1, 2, 2, 1}, {1, 2, 3, 4}, {{"block_shape", rInts({2, 2})}, {"paddings", rArr({rInts({0, 0}), rInts({0, 0})})}});
  REQUIRE(s2b2.ok);
  CHECK(s2b2.shape == Dims{4, 1, 1, 1});
  CHECK(s2b2.values == V{1, 2, 3, 4});
  // The identity transform gives the base grid: x runs over W in [-1, 1], y over H.
  auto ag = one("image.affine_grid", "float32", {1, 2, 3}, {1, 0, 0, 0, 1, 0}, {{"target_shape", rInts({2, 3})}});
  REQUIRE(ag.ok);
  CHECK(ag.shape == Dims{1, 2, 2, 3});
  CHECK(ag.values == V{-1, 0, 1, -1, 0, 1, -1, -1, -1, 1, 1, 1});
  // theta = [[0, 2, 1], [3, 0, -1]]: x' = 2y + 1, y' = 3x - 1.
  auto ag2 = one("image.affine_grid", "float32", {1, 2, 3}, {0, 2, 1, 3, 0, -1}, {{"target_shape", rInts({2, 2})}});
  REQUIRE(ag2.ok);
  CHECK(ag2.values == V{-1, -1, 3, 3, -4, 2, -4, 2});
}

TEST_CASE("relay eval: qnn.requantize reproduces TVM's fixed-point lowering", "[relay]") {
  auto i32 = [](double v) { return rConst("int32", {}, {v}); };
  auto f32 = [](double v) { return rConst("float32", {}, {v}); };
  auto requant = [&](V in, const char* rounding, const char* compute) {
    RelayHarness h;
    auto x = h.input("x", {6}, "int32");
    relay::Attrs attrs = {{"rounding", rStr(rounding)}, {"compute_dtype", rStr(compute)}, {"out_dtype", rStr("int8")}};
    return runTensor(h, h.convert("qnn.requantize", {x, f32(0.25), i32(0), f32(1), i32(3)}, attrs), {TV("int32", {6}, std::move(in))});
  };
  // ratio 1/4 = 2^30 * 2^(-1-31): x/4 rounded, + 3, clipped to int8. UPWARD sends -1.5 to -1,
  // TONEAREST to -2; float32 UPWARD is floor(x/4 + 3 + 0.5), the same integers.
  auto up = requant({2, -2, 6, -6, 100, 1000}, "UPWARD", "int64");
  REQUIRE(up.ok);
  CHECK(up.dtype == "int8");
  CHECK(up.values == V{4, 3, 5, 2, 28, 127});
  CHECK(requant({2, -2, 6, -6, 100, 1000}, "None", "None").values == V{4, 3, 5, 2, 28, 127});
  CHECK(requant({2, -2, 6, -6, 100, 1000}, "TONEAREST", "int64").values == V{4, 2, 5, 1, 28, 127});
  CHECK(requant({2, -2, 6, -6, 100, 1000}, "UPWARD", "float32").values == V{4, 3, 5, 2, 28, 127});
  {
    // ratio 0.5 / 0.75: m = round(2/3 * 2^31) = 1431655765, shift 0; (q - 10) = 3, 12, -3 -> 2, 8, -2.
    RelayHarness h;
    auto x = h.input("x", {3}, "int8");
    auto r = runTensor(h, h.convert("qnn.requantize", {x, f32(0.5), i32(10), f32(0.75), i32(0)}, {{"out_dtype", rStr("int8")}}), {TV("int8", {3}, {13, 22, 7})});
    REQUIRE(r.ok);
    CHECK(r.values == V{2, 8, -2});
  }
  {
    // Per-channel input scales along axis 0: row 0 halves, row 1 quarters; int32 out is not clipped.
    RelayHarness h;
    auto x = h.input("x", {2, 2}, "int32");
    auto r = runTensor(h, h.convert("qnn.requantize", {x, rConst("float32", {2}, {0.5, 0.25}), rConst("int32", {2}, {0, 0}), f32(1), i32(0)}, {{"axis", rInt(0)}, {"out_dtype", rStr("int32")}}),
                       {TV("int32", {2, 2}, {4, 8, 4, 8})});
    REQUIRE(r.ok);
    CHECK(r.values == V{2, 4, 1, 2});
  }
  {
    RelayHarness h;
    auto x = h.input("x", {6}, "int32");
    CHECK(relayError(h, "qnn.requantize", {x, f32(0.25), i32(0), f32(1), i32(3)}, {{"rounding", rStr("TONEAREST")}, {"compute_dtype", rStr("float32")}, {"out_dtype", rStr("int8")}}) ==
          "qnn.requantize: TONEAREST in floating point rounds by the target (round() with SSE4.1, else half away from zero), so it has no single Relax form");
  }
}

TEST_CASE("relay eval: qnn.add / subtract / mul follow their canonicalizations", "[relay]") {
  auto i32 = [](double v) { return rConst("int32", {}, {v}); };
  auto f32 = [](double v) { return rConst("float32", {}, {v}); };
  auto binary = [&](const char* op, double rzp) {
    RelayHarness h;
    auto a = h.input("a", {2}, "int8"), b2 = h.input("b", {2}, "int8");
    return runTensor(h, h.convert(op, {a, b2, f32(0.5), i32(0), f32(0.25), i32(rzp), f32(0.5), i32(op == std::string("qnn.mul") ? 1 : 2)}),
                     {TV("int8", {2}, {10, 20}), TV("int8", {2}, {4, 6})});
  };
  // Reals: a = [5, 10], b = [1, 1.5]; out scale 0.5, zero point 2.
  auto add = binary("qnn.add", 0);
  REQUIRE(add.ok);
  CHECK(add.dtype == "int8");
  CHECK(add.values == V{14, 25});
  CHECK(binary("qnn.subtract", 0).values == V{10, 19});
  // b's zero point 2: reals b = [0.5, 1]; a * b = [2.5, 10] at scale 0.5, zero point 1.
  CHECK(binary("qnn.mul", 2).values == V{6, 21});
}

TEST_CASE("relay eval: qnn.concatenate requantizes the inputs with other parameters", "[relay]") {
  auto i32 = [](double v) { return rConst("int32", {}, {v}); };
  auto f32 = [](double v) { return rConst("float32", {}, {v}); };
  RelayHarness h;
  auto a = h.input("a", {2}, "int8"), b2 = h.input("b", {1}, "int8");
  Expr data = make<Tuple>(std::vector<Expr>{a, b2});
  Expr scales = make<Tuple>(std::vector<Expr>{f32(0.5), f32(0.25)}), zps = make<Tuple>(std::vector<Expr>{i32(0), i32(0)});
  // b's 6 at scale 0.25 is 1.5, i.e. 3 at the output's scale 0.5; a passes through.
  auto r = runTensor(h, h.convert("qnn.concatenate", {data, scales, zps, f32(0.5), i32(0)}, {{"axis", rInt(0)}}), {TV("int8", {2}, {10, 20}), TV("int8", {1}, {6})});
  REQUIRE(r.ok);
  CHECK(r.dtype == "int8");
  CHECK(r.values == V{10, 20, 3});
}

TEST_CASE("relay eval: fixed_point_multiply is q_multiply_shift (round half up)", "[relay]") {
  // multiplier 2^30 with shift -1 is 1/4: (x * 2^30 + 2^31) >> 32 = floor(x / 4 + 1/2).
  auto r = one("fixed_point_multiply", "int32", {5}, {2, -2, 6, -6, 101}, {{"multiplier", rInt(int64_t(1) << 30)}, {"shift", rInt(-1)}});
  REQUIRE(r.ok);
  CHECK(r.dtype == "int32");
  CHECK(r.values == V{1, 0, 2, -1, 25});
  // shift +2 with multiplier 3 * 2^29 (0.75): x * 3 exactly.
  CHECK(one("fixed_point_multiply", "int32", {3}, {1, -5, 7}, {{"multiplier", rInt(3LL << 29)}, {"shift", rInt(2)}}).values == V{3, -15, 21});
  {
    // Per channel along axis 1: 1/2 (2^30, right shift 0) and x3 (3 * 2^29, left shift 2).
    RelayHarness h;
    auto x = h.input("x", {2, 2}, "int32");
    auto r2 = runTensor(h, h.convert("fixed_point_multiply_per_axis", {x, rConst("int32", {2}, {double(1 << 30), double(3 << 29)}), rConst("int32", {2}, {0, 2}), rConst("int32", {2}, {0, 0})},
                                     {{"is_lshift_required", rBool(true)}, {"is_rshift_required", rBool(false)}, {"axes", rInts({1})}}),
                        {TV("int32", {2, 2}, {5, 5, -5, -5})});
    REQUIRE(r2.ok);
    // 5/2 = 2.5 -> 3, -5/2 = -2.5 -> -2 (half up); 5*3, -5*3.
    CHECK(r2.values == V{3, 15, -2, -15});
  }
}

TEST_CASE("relay eval: qnn.leaky_relu mixes the requantized input with its fixed-point alpha multiple", "[relay]") {
  auto i32 = [](double v) { return rConst("int32", {}, {v}); };
  auto f32 = [](double v) { return rConst("float32", {}, {v}); };
  auto run = [&](double outZp) {
    RelayHarness h;
    auto x = h.input("x", {3}, "int8");
    return runTensor(h, h.convert("qnn.leaky_relu", {x, f32(0.5), i32(0), f32(0.5), i32(outZp)}, {{"alpha", rFloat(0.25)}}), {TV("int8", {3}, {-10, 0, 10})});
  };
  // Same parameters: -10 * 0.25 = -2.5 rounds half up to -2.
  auto same = run(0);
  REQUIRE(same.ok);
  CHECK(same.dtype == "int8");
  CHECK(same.values == V{-2, 0, 10});
  // Output zero point 4: x' = x + 4 = [-6, 4, 14]; the negative one is FPM(-6, 1/4) + FPM(4, 3/4)
  // = -1 + 3 (floor(-1.5 + 0.5) and floor(3 + 0.5)).
  CHECK(run(4).values == V{2, 4, 14});
}

TEST_CASE("relay eval: matrix_set_diag follows TOPI's diagonal index map and alignment", "[relay]") {
  auto run = [](Dims xs, Dims ds, V diag, const relay::Attrs& attrs) {
    RelayHarness h;
    std::vector<PrimExpr> xd, dd;
    for (auto d : xs) xd.push_back(intImm(d));
    for (auto d : ds) dd.push_back(intImm(d));
    auto x = h.input("x", xd), d = h.input("d", dd);
    int64_t n = 1;
    for (auto e : xs) n *= e;
    return runTensor(h, h.convert("matrix_set_diag", {x, d}, attrs), {TV("float32", xs, iotaValues(n)), TV("float32", ds, std::move(diag))});
  };
  auto main = run({3, 3}, {3}, {10, 20, 30}, {});
  REQUIRE(main.ok);
  CHECK(main.values == V{10, 1, 2, 3, 20, 5, 6, 7, 30});
  // k = 1 fills (0, 1), (1, 2) by row; k = -1 fills (1, 0), (2, 1) by column.
  CHECK(run({2, 3}, {2}, {10, 20}, {{"k1", rInt(1)}, {"k2", rInt(1)}}).values == V{0, 10, 2, 3, 4, 20});
  CHECK(run({3, 2}, {2}, {10, 20}, {{"k1", rInt(-1)}, {"k2", rInt(-1)}}).values == V{0, 1, 10, 3, 4, 20});
  // Bands -1..1 of a 2x3: diagonal rows hold d = 1, 0, -1 (length 2, 2, 1; L = 2). The short
  // sub-diagonal is left-aligned by default (its 5 at column 0), right-aligned on request (the 9).
  relay::Attrs band = {{"k1", rInt(-1)}, {"k2", rInt(1)}};
  CHECK(run({2, 3}, {3, 2}, {1, 2, 3, 4, 5, 9}, band).values == V{3, 1, 2, 5, 4, 2});
  band.push_back({"sub_diag_right_align", rBool(true)});
  CHECK(run({2, 3}, {3, 2}, {1, 2, 3, 4, 5, 9}, band).values == V{3, 1, 2, 9, 4, 2});
}

TEST_CASE("relay eval: sliding_window gathers every window", "[relay]") {
  // 1-D: windows of 3 every 2 over 0..6 start at 0, 2, 4.
  auto w1 = one("sliding_window", "float32", {7}, iotaValues(7), {{"axis", rInt(0)}, {"window_shape", rInts({3})}, {"strides", rInts({2})}});
  REQUIRE(w1.ok);
  CHECK(w1.shape == Dims{3, 3});
  CHECK(w1.values == V{0, 1, 2, 2, 3, 4, 4, 5, 6});
  // Axis 1 of (2, 3, 3): 2x2 windows, stride 1 -> (2, 2, 2, 2, 2); batch 1's last window is 13 14 / 16 17.
  auto w2 = one("sliding_window", "float32", {2, 3, 3}, iotaValues(18), {{"axis", rInt(1)}, {"window_shape", rInts({2, 2})}, {"strides", rInts({1, 1})}});
  REQUIRE(w2.ok);
  CHECK(w2.shape == Dims{2, 2, 2, 2, 2});
  REQUIRE(w2.values.size() == 32);
  CHECK(V(w2.values.begin(), w2.values.begin() + 4) == V{0, 1, 3, 4});
  CHECK(V(w2.values.end() - 4, w2.values.end()) == V{13, 14, 16, 17});
}
