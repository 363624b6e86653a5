// Reference evaluator against hand-computed values: convolutions (strides, padding, dilation, groups,
// layouts, out_dtype, transposed) and pooling (ceil_mode, count_include_pad, dilation, adaptive).
#include <catch2/catch.hpp>

#include <cfloat>
#include <chrono>

#include "tests/unit/eval_nn_test_util.h"

using namespace rlx;
using namespace rlx::test;

namespace {
PyValue ones(const char* dtype, std::vector<int64_t> shape) { return iota(dtype, std::move(shape), 1, 0); }
PyValue x3x3() { return iota("float32", {1, 1, 3, 3}, 1); }  // 1..9
}  // namespace

// ---------------------------------------------------------------- convolutions
TEST_CASE("eval: conv2d strides, padding, dilation", "[eval][nn][conv]") {
  checkNear(ev("relax.nn.conv2d", {x3x3(), ones("float32", {1, 1, 2, 2})}), {1, 1, 2, 2}, {12, 16, 24, 28});
  // 3x3 window, padding 1, stride 2: each window covers a 2x2 corner block
  checkNear(ev("relax.nn.conv2d", {x3x3(), ones("float32", {1, 1, 3, 3})}, {{"strides", I(2)}, {"padding", I(1)}}), {1, 1, 2, 2}, {12, 16, 24, 28});
  // asymmetric padding (top 1 only)
  checkNear(ev("relax.nn.conv2d", {x3x3(), ones("float32", {1, 1, 2, 2})}, {{"padding", Ints({1, 0, 0, 0})}}), {1, 1, 3, 2}, {3, 5, 12, 16, 24, 28});
  // dilation 2: the four corners
  checkNear(ev("relax.nn.conv2d", {x3x3(), ones("float32", {1, 1, 2, 2})}, {{"dilation", I(2)}}), {1, 1, 1, 1}, {20});
  // a kernel that tells positions apart
  checkNear(ev("relax.nn.conv2d", {x3x3(), C("float32", {1, 1, 2, 2}, {1, 10, 100, 1000})}, {{"strides", Ints({2, 1})}}), {1, 1, 1, 2}, {5421, 6532});
}

TEST_CASE("eval: conv2d groups and channels", "[eval][nn][conv]") {
  // depthwise: each channel has its own 1x1 kernel
  auto x = C("float32", {1, 2, 2, 2}, {1, 1, 1, 1, 2, 2, 2, 2});
  checkNear(ev("relax.nn.conv2d", {x, C("float32", {2, 1, 1, 1}, {3, 5})}, {{"groups", I(2)}}), {1, 2, 2, 2}, {3, 3, 3, 3, 10, 10, 10, 10});
  // 4 input channels in 2 groups of 2, one output channel per group
  auto x4 = C("float32", {1, 4, 1, 1}, {1, 2, 3, 4});
  checkNear(ev("relax.nn.conv2d", {x4, C("float32", {2, 2, 1, 1}, {1, 10, 100, 1000})}, {{"groups", I(2)}}), {1, 2, 1, 1}, {21, 4300});
  // mixing channels without groups, two batches
  auto xb = C("float32", {2, 2, 1, 1}, {1, 2, 3, 4});
  checkNear(ev("relax.nn.conv2d", {xb, C("float32", {3, 2, 1, 1}, {1, 0, 0, 1, 1, 1})}), {2, 3, 1, 1}, {1, 2, 3, 3, 4, 7});
}

TEST_CASE("eval: conv2d layouts", "[eval][nn][conv]") {
  // NCHW reference: ch0 = 1..4, ch1 = 5..8; kernel (2 out, 2 in) = [[1, 10], [2, 20]]
  auto x = C("float32", {1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  auto w = C("float32", {2, 2, 1, 1}, {1, 10, 2, 20});
  checkNear(ev("relax.nn.conv2d", {x, w}), {1, 2, 2, 2}, {51, 62, 73, 84, 102, 124, 146, 168});
  auto xh = C("float32", {1, 2, 2, 2}, {1, 5, 2, 6, 3, 7, 4, 8});  // NHWC
  auto wh = C("float32", {1, 1, 2, 2}, {1, 2, 10, 20});            // HWIO
  KwArgs nhwc = {{"data_layout", S("NHWC")}, {"kernel_layout", S("HWIO")}};
  checkNear(ev("relax.nn.conv2d", {xh, wh}, nhwc), {1, 2, 2, 2}, {51, 102, 62, 124, 73, 146, 84, 168});
  nhwc.push_back({"out_layout", S("NCHW")});
  checkNear(ev("relax.nn.conv2d", {xh, wh}, nhwc), {1, 2, 2, 2}, {51, 62, 73, 84, 102, 124, 146, 168});
  auto wo = C("float32", {2, 1, 1, 2}, {1, 10, 2, 20});  // OHWI
  checkNear(ev("relax.nn.conv2d", {x, wo}, {{"kernel_layout", S("OHWI")}}), {1, 2, 2, 2}, {51, 62, 73, 84, 102, 124, 146, 168});
}

TEST_CASE("eval: conv1d and conv3d", "[eval][nn][conv]") {
  auto x = C("float32", {1, 1, 5}, {1, 2, 3, 4, 5});
  checkNear(ev("relax.nn.conv1d", {x, C("float32", {1, 1, 3}, {1, 0, -1})}, {{"strides", I(2)}, {"padding", I(1)}}), {1, 1, 3}, {-2, -2, 4});
  checkNear(ev("relax.nn.conv1d", {iota("float32", {1, 5, 1}, 1), C("float32", {1, 1, 2}, {1, 1})}, {{"data_layout", S("NWC")}}), {1, 4, 1}, {3, 5, 7, 9});
  checkNear(ev("relax.nn.conv3d", {iota("float32", {1, 1, 2, 2, 2}, 1), ones("float32", {1, 1, 2, 2, 2})}), {1, 1, 1, 1, 1}, {36});
  // depth stride 2 with padding 1 on every side: windows over planes (-1, 0) and (1, 2)
  auto x3 = iota("float32", {1, 1, 3, 1, 1}, 1);
  checkNear(ev("relax.nn.conv3d", {x3, C("float32", {1, 1, 2, 1, 1}, {1, 10})}, {{"strides", Ints({2, 1, 1})}, {"padding", Ints({1, 0, 0})}}), {1, 1, 2, 1, 1}, {10, 32});
}

TEST_CASE("eval: conv out_dtype and integer convolution", "[eval][nn][conv]") {
  auto r = ev("relax.nn.conv2d", {C("int8", {1, 1, 1, 2}, {100, 100}), C("int8", {1, 1, 1, 2}, {1, 1})}, {{"out_dtype", S("int32")}});
  CHECK(r.dtype == "int32");
  CHECK(r.values == V{200});
  auto f = ev("relax.nn.conv2d", {C("float16", {1, 1, 1, 1}, {3}), C("float16", {1, 1, 1, 1}, {0.5})}, {{"out_dtype", S("float32")}});
  CHECK(f.dtype == "float32");
  CHECK(f.values == V{1.5});
}

TEST_CASE("eval: conv2d_transpose", "[eval][nn][conv]") {
  auto x = [] { return C("float32", {1, 1, 2, 2}, {1, 2, 3, 4}); };
  // stride 2, 2x2 ones: every input becomes a 2x2 block
  checkNear(ev("relax.nn.conv2d_transpose", {x(), ones("float32", {1, 1, 2, 2})}, {{"strides", I(2)}}), {1, 1, 4, 4},
            {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
  checkNear(ev("relax.nn.conv2d_transpose", {x(), ones("float32", {1, 1, 2, 2})}), {1, 1, 3, 3}, {1, 3, 2, 4, 10, 6, 3, 7, 4});
  // padding 1 crops the full 4x4 result to its centre
  checkNear(ev("relax.nn.conv2d_transpose", {x(), ones("float32", {1, 1, 3, 3})}, {{"padding", I(1)}}), {1, 1, 2, 2}, {10, 10, 10, 10});
  // output_padding adds a last row and column nothing writes to
  checkNear(ev("relax.nn.conv2d_transpose", {x(), ones("float32", {1, 1, 2, 2})}, {{"strides", I(2)}, {"output_padding", I(1)}}), {1, 1, 5, 5},
            {1, 1, 2, 2, 0, 1, 1, 2, 2, 0, 3, 3, 4, 4, 0, 3, 3, 4, 4, 0, 0, 0, 0, 0, 0});
  // a kernel that tells positions apart (stride 1): out[y][x] = sum x[i][j] * w[y-i][x-j]
  checkNear(ev("relax.nn.conv2d_transpose", {x(), C("float32", {1, 1, 1, 2}, {1, 10})}), {1, 1, 2, 3}, {1, 12, 20, 3, 34, 40});
  // groups: (I = 2, O/groups = 1)
  checkNear(ev("relax.nn.conv2d_transpose", {C("float32", {1, 2, 1, 1}, {1, 2}), C("float32", {2, 1, 1, 1}, {3, 5})}, {{"groups", I(2)}}), {1, 2, 1, 1}, {3, 10});
  // two output channels from one input channel
  checkNear(ev("relax.nn.conv2d_transpose", {C("float32", {1, 1, 1, 1}, {2}), C("float32", {1, 2, 1, 1}, {3, 5})}), {1, 2, 1, 1}, {6, 10});
  // dilation 2 spreads the taps
  checkNear(ev("relax.nn.conv2d_transpose", {C("float32", {1, 1, 1, 2}, {1, 2}), C("float32", {1, 1, 1, 2}, {1, 10})}, {{"dilation", I(2)}}), {1, 1, 1, 4}, {1, 2, 10, 20});
}

TEST_CASE("eval: conv1d_transpose", "[eval][nn][conv]") {
  checkNear(ev("relax.nn.conv1d_transpose", {C("float32", {1, 1, 3}, {1, 2, 3}), ones("float32", {1, 1, 2})}, {{"strides", I(2)}}), {1, 1, 6}, {1, 1, 2, 2, 3, 3});
  checkNear(ev("relax.nn.conv1d_transpose", {C("float32", {1, 1, 3}, {1, 2, 3}), C("float32", {1, 1, 3}, {1, 1, 1})}, {{"padding", I(1)}}), {1, 1, 3}, {3, 6, 5});
}

TEST_CASE("eval: conv rejects values that disagree with the call", "[eval][nn][conv]") {
  auto x = C("float32", {1, 2, 3, 3}, {}), w = C("float32", {4, 2, 1, 1}, {});
  CHECK(evalOn("relax.nn.conv2d", {x, w}, {}, {TV("float32", {1, 3, 3, 3}, {}), TV("float32", {4, 2, 1, 1}, {})}) ==
        "error: R.nn.conv2d: the weight's channels do not match the data and the result");
  CHECK(evalOn("relax.nn.conv2d", {x, C("float32", {4, 1, 1, 1}, {})}, {{"groups", I(2)}}, {TV("float32", {1, 3, 3, 3}, {}), TV("float32", {4, 1, 1, 1}, {})}) ==
        "error: R.nn.conv2d: 3 input and 4 output channels do not split into 2 groups");
  CHECK(evalOn("relax.nn.conv2d", {x, w}, {}, {TV("float32", {1, 2, 3}, {}), TV("float32", {4, 2, 1, 1}, {})}) == "error: R.nn.conv2d: expects 4-D data and weight");
}

TEST_CASE("eval: a 64-channel 56x56 conv2d is fast enough", "[eval][nn][conv]") {
  auto start = std::chrono::steady_clock::now();
  auto r = ev("relax.nn.conv2d", {ones("float32", {1, 64, 56, 56}), ones("float32", {64, 64, 3, 3})}, {{"padding", I(1)}});
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(r.ok);
  CHECK(r.shape == Dims{1, 64, 56, 56});
  CHECK(r.values[0] == 256);        // corner: 2x2 taps x 64 channels
  CHECK(r.values[57] == 576);       // interior
  CHECK(r.values[55] == 256);
  WARN("64x56x56 conv2d (3x3, 64 out channels) took " << secs << " s");
}

// ---------------------------------------------------------------- pooling
TEST_CASE("eval: max_pool2d", "[eval][nn][pool]") {
  checkNear(ev("relax.nn.max_pool2d", {x3x3()}, {{"pool_size", I(2)}}), {1, 1, 2, 2}, {5, 6, 8, 9});
  checkNear(ev("relax.nn.max_pool2d", {x3x3()}, {{"pool_size", I(3)}, {"strides", I(2)}, {"padding", I(1)}}), {1, 1, 2, 2}, {5, 6, 8, 9});
  // padding never wins against real values, even negative ones
  auto neg = iota("float32", {1, 1, 3, 3}, -1, -1);
  checkNear(ev("relax.nn.max_pool2d", {neg}, {{"pool_size", I(3)}, {"strides", I(2)}, {"padding", I(1)}}), {1, 1, 2, 2}, {-1, -2, -4, -5});
  // a window entirely in the padding gives the dtype's lowest value, like TVM's padded kernel
  auto lone = ev("relax.nn.max_pool2d", {C("float32", {1, 1, 1, 1}, {5})}, {{"padding", I(1)}});
  REQUIRE(lone.values.size() == 9);
  CHECK(lone.values[0] == -double(FLT_MAX));
  CHECK(lone.values[4] == 5);
  CHECK(ev("relax.nn.max_pool2d", {C("int8", {1, 1, 1, 1}, {5})}, {{"padding", I(1)}}).values[0] == -128);
  // dilation 2 and NHWC
  checkNear(ev("relax.nn.max_pool1d", {iota("float32", {1, 1, 5}, 1)}, {{"pool_size", I(2)}, {"dilation", I(2)}}), {1, 1, 3}, {3, 4, 5});
  checkNear(ev("relax.nn.max_pool2d", {C("float32", {1, 2, 2, 2}, {1, 8, 2, 7, 3, 6, 4, 5})}, {{"pool_size", I(2)}, {"layout", S("NHWC")}}), {1, 1, 1, 2}, {4, 8});
  checkNear(ev("relax.nn.max_pool2d", {C("float32", {1, 2, 2, 2}, {1, 8, 2, 7, 3, 6, 4, 5})}, {{"pool_size", I(2)}, {"layout", S("NHWC")}, {"out_layout", S("NCHW")}}),
            {1, 2, 1, 1}, {4, 8});
  checkNear(ev("relax.nn.max_pool3d", {iota("float32", {1, 1, 2, 2, 2})}, {{"pool_size", I(2)}}), {1, 1, 1, 1, 1}, {7});
}

TEST_CASE("eval: avg_pool2d count_include_pad and ceil_mode", "[eval][nn][pool]") {
  KwArgs k = {{"pool_size", I(3)}, {"strides", I(2)}, {"padding", I(1)}};
  checkNear(ev("relax.nn.avg_pool2d", {x3x3()}, k), {1, 1, 2, 2}, {3, 4, 6, 7});
  k.push_back({"count_include_pad", B(true)});
  checkNear(ev("relax.nn.avg_pool2d", {x3x3()}, k), {1, 1, 2, 2}, {12.0 / 9, 16.0 / 9, 24.0 / 9, 28.0 / 9});
  auto row = [] { return iota("float32", {1, 1, 1, 5}, 1); };  // 1..5
  checkNear(ev("relax.nn.avg_pool2d", {row()}, {{"pool_size", Ints({1, 2})}, {"strides", Ints({1, 2})}}), {1, 1, 1, 2}, {1.5, 3.5});
  // ceil_mode: a last window that hangs over the end averages what it covers
  KwArgs ceil = {{"pool_size", Ints({1, 2})}, {"strides", Ints({1, 2})}, {"ceil_mode", B(true)}};
  checkNear(ev("relax.nn.avg_pool2d", {row()}, ceil), {1, 1, 1, 3}, {1.5, 3.5, 5});
  ceil.push_back({"count_include_pad", B(true)});
  checkNear(ev("relax.nn.avg_pool2d", {row()}, ceil), {1, 1, 1, 3}, {1.5, 3.5, 5});  // the ceil overhang is not padding
  // with an explicit right pad of 1 the overhang tap is padding and counts
  ceil.push_back({"padding", Ints({0, 0, 0, 1})});
  checkNear(ev("relax.nn.avg_pool2d", {row()}, ceil), {1, 1, 1, 3}, {1.5, 3.5, 2.5});
  checkNear(ev("relax.nn.avg_pool1d", {iota("float32", {1, 1, 5}, 1)}, {{"pool_size", I(2)}, {"dilation", I(2)}}), {1, 1, 3}, {2, 3, 4});
  checkNear(ev("relax.nn.avg_pool3d", {iota("float32", {1, 1, 2, 2, 2})}, {{"pool_size", I(2)}}), {1, 1, 1, 1, 1}, {3.5});
  CHECK(ev("relax.nn.avg_pool1d", {C("int32", {1, 1, 2}, {1, 2})}, {{"pool_size", I(2)}}).values == V{1});  // integer average truncates
}

TEST_CASE("eval: adaptive_avg_pool", "[eval][nn][pool]") {
  // 3 → 2: windows [0, 2) and [1, 3)
  checkNear(ev("relax.nn.adaptive_avg_pool2d", {x3x3()}, {{"output_size", Ints({2, 2})}}), {1, 1, 2, 2}, {3, 4, 6, 7});
  checkNear(ev("relax.nn.adaptive_avg_pool2d", {x3x3()}, {{"output_size", Ints({1, 1})}}), {1, 1, 1, 1}, {5});
  checkNear(ev("relax.nn.adaptive_avg_pool2d", {x3x3()}), {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  checkNear(ev("relax.nn.adaptive_avg_pool1d", {iota("float32", {1, 1, 5}, 1)}, {{"output_size", Ints({2})}}), {1, 1, 2}, {2, 4});
  checkNear(ev("relax.nn.adaptive_avg_pool3d", {iota("float32", {1, 1, 2, 2, 2})}, {{"output_size", Ints({1, 1, 1})}}), {1, 1, 1, 1, 1}, {3.5});
  checkNear(ev("relax.nn.adaptive_avg_pool2d", {C("float32", {1, 2, 2, 2}, {1, 8, 2, 7, 3, 6, 4, 5})}, {{"output_size", I(1)}, {"layout", S("NHWC")}}), {1, 1, 1, 2},
            {2.5, 6.5});
  // upsampling repeats inputs: 2 → 3 uses [0, 1), [0, 2), [1, 2)
  checkNear(ev("relax.nn.adaptive_avg_pool1d", {C("float32", {1, 1, 2}, {2, 4})}, {{"output_size", Ints({3})}}), {1, 1, 3}, {2, 3, 4});
}
