// Depthwise convolutions and max pooling over channels-last (NHWC) tensors: the schedule folds their padding stage
// into one rlx_window_channels_last call (window_channels_last.h), and the JIT agrees with the TIR
// interpreter at odd channel counts, strides, dilations, paddings and image counts.
#include <catch2/catch.hpp>

#include "llvm_test_util.h"

using namespace rlx;

namespace {

std::string T(const std::string& shape) { return "R.Tensor(" + shape + ", \"float32\")"; }

struct Case {
  const char *x, *w, *attrs;
};

// The channel count of an NHWC shape "(n, h, w, c)".
std::string channelsOf(const std::string& shape) { return shape.substr(shape.rfind(',') + 2, shape.size() - shape.rfind(',') - 3); }

// `fs` is one kernel; it calls the runtime entry `entry` exactly when `calls` holds, and agrees with
// the TIR interpreter on random arguments.
void checkKernel(const std::vector<PrimFuncRef>& fs, const std::string& entry, bool calls, uint32_t seed) {
  REQUIRE(fs.size() == 1);
  auto ir = emitLLVM(fs[0], "window");
  REQUIRE(ir.ok());
  CHECK(contains(*ir, entry) == calls);
  CHECK(agree(fs[0], argsFor(*fs[0], 1, seed), 5e-5) == "");
}

}  // namespace

TEST_CASE("llvm window channels-last: NHWC depthwise convolutions run on the channel-vector kernel and agree", "[llvm][gemm]") {
  const bool avx512 = __builtin_cpu_supports("avx512f") != 0;
  // Channels in whole vectors and not (a partial last group: 20, 33, 8, 2); 3x3, 5x5 and 7x7 rows
  // of shared loads at strides 1 and 2; the tap-by-tap kernel for stride 3, dilation and 1x7 / 3x2
  // windows; asymmetric and no padding; two images; rows of 1 to 21 output pixels (tails of 1-7).
  for (Case s : {Case{"(1, 14, 14, 32)", "(32, 3, 3, 1)", "strides=[1, 1], padding=[1, 1, 1, 1]"},
                 Case{"(1, 13, 11, 20)", "(20, 3, 3, 1)", "strides=[2, 2], padding=[1, 1, 1, 1]"},
                 Case{"(2, 9, 10, 33)", "(33, 5, 5, 1)", "strides=[1, 1], padding=[2, 2, 2, 2]"},
                 Case{"(1, 15, 17, 16)", "(16, 5, 5, 1)", "strides=[2, 2], padding=[2, 1, 2, 3]"},
                 Case{"(1, 10, 21, 48)", "(48, 7, 7, 1)", "strides=[1, 1], padding=[3, 3, 3, 3]"},
                 Case{"(1, 16, 23, 16)", "(16, 7, 7, 1)", "strides=[2, 2], padding=[3, 3, 3, 3]"},
                 Case{"(1, 12, 12, 24)", "(24, 3, 3, 1)", "strides=[3, 3], padding=[1, 1, 1, 1]"},
                 Case{"(1, 12, 16, 8)", "(8, 3, 3, 1)", "strides=[1, 1], padding=[2, 2, 2, 2], dilation=[2, 2]"},
                 Case{"(1, 6, 16, 17)", "(17, 1, 7, 1)", "strides=[1, 1], padding=[0, 3, 0, 3]"},
                 Case{"(1, 9, 10, 16)", "(16, 3, 2, 1)", "strides=[1, 2], padding=[0, 1, 1, 0]"},
                 Case{"(2, 7, 7, 40)", "(40, 3, 3, 1)", "strides=[1, 1], padding=[1, 1, 1, 1]"},
                 Case{"(1, 5, 1, 2)", "(2, 3, 3, 1)", "strides=[1, 1], padding=[1, 1, 1, 1]"}}) {
    std::string c = channelsOf(s.x);
    auto fs = lower(std::string("x: ") + T(s.x) + ", w: " + T(s.w),
                    std::string("            gv = R.nn.conv2d(x, w, ") + s.attrs + ", groups=" + c + ", data_layout=\"NHWC\", kernel_layout=\"OHWI\")\n");
    INFO(s.x << " * " << s.w << " " << s.attrs);
    checkKernel(fs, "rlx_window_channels_last", avx512, 21);
  }
  // With a bias and a clip after it (MobileNet's depthwise block), and a SiLU (EfficientNet's): the
  // element-wise nest runs on each finished output row inside the call, two images included.
  // (A 7 x 7 image of 64 channels is also split into chunks of channel groups between threads.)
  for (const char* x : {"(1, 15, 13, 24)", "(2, 14, 14, 144)", "(1, 7, 7, 64)"})
    for (const char* act : {"clip", "silu"}) {
      std::string c = channelsOf(x);
      std::string activation = std::string(act) == "clip" ? "R.clip(ad, R.prim_value(T.float32(0)), R.prim_value(T.float32(6)))" : "R.nn.silu(ad)";
      auto fs = lower("x: " + T(x) + ", w: " + T("(" + c + ", 3, 3, 1)") + ", b: " + T("(1, 1, 1, " + c + ")"),
                      "            cv = R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1], groups=" + c +
                          ", data_layout=\"NHWC\", kernel_layout=\"OHWI\")\n            ad = R.add(cv, b)\n            gv = " + activation + "\n");
      INFO(x << " " << act);
      checkKernel(fs, "rlx_window_channels_last_epilogue", avx512, 22);
    }
  // Weights in another layout (HWOI: a tap's channels adjacent) are gathered, not transposed.
  checkKernel(lower("x: " + T("(1, 9, 11, 20)") + ", w: " + T("(5, 5, 20, 1)"),
                    "            gv = R.nn.conv2d(x, w, padding=[2, 2, 2, 2], groups=20, data_layout=\"NHWC\", kernel_layout=\"HWOI\")\n"),
              "rlx_window_channels_last", avx512, 24);
  // Not depthwise (a grouped convolution of two channels a group) stays with the loops, and agrees.
  checkKernel(lower("x: " + T("(1, 8, 8, 8)") + ", w: " + T("(8, 3, 3, 2)"),
                    "            gv = R.nn.conv2d(x, w, padding=[1, 1, 1, 1], groups=4, data_layout=\"NHWC\", kernel_layout=\"OHWI\")\n"),
              "rlx_window_channels_last", false, 23);
}

TEST_CASE("llvm window channels-last: NHWC max pooling runs on the channel-vector kernel and agrees", "[llvm][gemm]") {
  const bool avx512 = __builtin_cpu_supports("avx512f") != 0;
  // ResNet's 3x3 stride-2 pool, a partial channel group, asymmetric padding, a 2x2 window padded
  // after the image only, dilation (tap by tap), two images; then a relu after it fused as the
  // epilogue. A pool without padding has no padding stage to fold: it stays with the loops.
  struct Pool {
    const char *x, *attrs;
  };
  for (Pool s : {Pool{"(1, 16, 16, 64)", "pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1]"},
                 Pool{"(1, 13, 11, 20)", "pool_size=[3, 3], strides=[1, 1], padding=[1, 0, 1, 2]"},
                 Pool{"(2, 8, 9, 33)", "pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 1, 1]"},
                 Pool{"(1, 12, 12, 16)", "pool_size=[3, 3], strides=[1, 1], padding=[2, 2, 2, 2], dilation=[2, 2]"}}) {
    INFO(s.x << " " << s.attrs);
    checkKernel(lower(std::string("x: ") + T(s.x), std::string("            gv = R.nn.max_pool2d(x, ") + s.attrs + ", layout=\"NHWC\")\n"), "rlx_window_channels_last", avx512, 25);
  }
  checkKernel(lower("x: " + T("(1, 8, 8, 16)"), "            gv = R.nn.max_pool2d(x, pool_size=[2, 2], strides=[2, 2], layout=\"NHWC\")\n"), "rlx_window_channels_last", false, 27);
  checkKernel(lower("x: " + T("(1, 10, 10, 24)"), "            mp = R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1], layout=\"NHWC\")\n            gv = R.nn.relu(mp)\n"),
              "rlx_window_channels_last_epilogue", avx512, 26);
}
