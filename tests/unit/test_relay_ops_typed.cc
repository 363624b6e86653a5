// Relay text using the further converted ops, each call with the `/* ty=... */` comment Relay's type
// relation gives (worked out by hand from src/relay/op/**), imported with the printed-type oracle on:
// rlx's struct info must agree with every one.
#include <catch2/catch.hpp>

#include "frontend/relay/relay.h"

using namespace rlx;

namespace {

// Imports `text` checking its printed types; returns the disagreements ("" = none) and counts.
std::string importChecked(const std::string& text, size_t& checked) {
  auto module = relay::readRelayText(text, "typed.relay");
  if (!module) return "read: " + module.error().message;
  std::vector<Error> mismatches;
  relay::ImportOptions options;
  options.printedTypeMismatches = &mismatches;
  options.printedTypesChecked = &checked;
  auto mod = relay::importRelay(*module, options);
  if (!mod) return "import: " + mod.error().message;
  std::string out;
  for (auto& m : mismatches) out += std::to_string(m.span.line) + ": " + m.message + "\n";
  return out;
}

}  // namespace

TEST_CASE("relay ops: printed Relay types of the further conversions agree with rlx's struct info", "[relay]") {
  const char* text = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 8, 2, 3), float32], %q: Tensor[(4), int8], %len: Tensor[(2), int32], %s: Tensor[(3, 2), float32], %w: Tensor[(4, 8, 1, 1), int8], %qx: Tensor[(1, 8, 2, 3), uint8], %i: Tensor[(5), int64], %d: Tensor[(2, 4), float32], %b: Tensor[(2, 6), float32], %r: Tensor[(1, 2, 4), float32]) {
  %0 = annotation.stop_fusion(%x) /* ty=Tensor[(1, 8, 2, 3), float32] */;
  %1 = nn.depth_to_space(%0, block_size=2) /* ty=Tensor[(1, 2, 4, 6), float32] */;
  %2 = nn.space_to_depth(%1, block_size=2, layout="NCHW") /* ty=Tensor[(1, 8, 2, 3), float32] */;
  %3 = nn.lrn(%2, size=3, axis=1, bias=1f, alpha=0.0001f, beta=0.75f) /* ty=Tensor[(1, 8, 2, 3), float32] */;
  %4 = nn.dilate(%3, strides=[1, 1, 2, 1], dilation_value=0f) /* ty=Tensor[(1, 8, 3, 3), float32] */;
  %5 = sequence_mask(%s, %len, mask_value=-1f, axis=0) /* ty=Tensor[(3, 2), float32] */;
  %6 = reverse_sequence(%s, %len, seq_axis=0, batch_axis=1) /* ty=Tensor[(3, 2), float32] */;
  %7 = argwhere(%s) /* ty=Tensor[(?, 2), int32] */;
  %8 = ndarray_size(%x, dtype="int64") /* ty=Tensor[(), int64] */;
  %9 = qnn.tanh(%q, 0.5f, 0, 0.25f, 1) /* ty=Tensor[(4), int8] */;
  %10 = qnn.conv2d(%qx, %w, 1, 0, 0.5f, 0.25f, padding=[0, 0, 0, 0], channels=4, kernel_size=[1, 1], out_dtype="int32") /* ty=Tensor[(1, 4, 2, 3), int32] */;
  %11 = nn.adaptive_max_pool2d(%x, output_size=[1, 1]) /* ty=Tensor[(1, 8, 1, 1), float32] */;
  %12 = contrib_reverse_reshape(%x, newshape=[-1, 0]) /* ty=Tensor[(16, 3), float32] */;
  %13 = invert_permutation(%i) /* ty=Tensor[(5), int64] */;
  %14 = nn.fifo_buffer(%d, %b, axis=1) /* ty=Tensor[(2, 6), float32] */;
  %15 = image.resize1d(%r, size=[8], roi=[0f, 0f], layout="NCW", method="linear", coordinate_transformation_mode="half_pixel", rounding_method="", cubic_alpha=-0.5f, cubic_exclude=0, extrapolation_value=0f) /* ty=Tensor[(1, 2, 8), float32] */;
  %16 = annotation.checkpoint(%15) /* ty=Tensor[(1, 2, 8), float32] */;
  (%4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %16)
}
)";
  size_t checked = 0;
  CHECK(importChecked(text, checked) == "");
  CHECK(checked == 17);
}

TEST_CASE("relay ops: printed Relay types of the QNN and rearranging conversions agree", "[relay]") {
  const char* text = R"(#[version = "0.0.5"]
def @main(%acc: Tensor[(1, 4), int32], %a: Tensor[(1, 4), int8], %b: Tensor[(1, 4), int8], %m: Tensor[(2, 3, 3), float32], %d: Tensor[(2, 3), float32], %s: Tensor[(1, 4, 4, 1), float32], %p: Tensor[(4), int32]) {
  %0 = qnn.requantize(%acc, 0.25f, 0, 0.5f, 3, axis=-1, rounding="UPWARD", compute_dtype="None", out_dtype="int8") /* ty=Tensor[(1, 4), int8] */;
  %1 = qnn.add(%0, %a, 0.5f, 3, 0.25f, 0, 0.5f, 1, lhs_axis=-1, rhs_axis=-1) /* ty=Tensor[(1, 4), int8] */;
  %2 = qnn.mul(%1, %b, 0.5f, 1, 0.25f, 0, 0.125f, 0, lhs_axis=-1, rhs_axis=-1) /* ty=Tensor[(1, 4), int8] */;
  %3 = qnn.leaky_relu(%2, 0.125f, 0, 0.125f, 0, alpha=0.1f) /* ty=Tensor[(1, 4), int8] */;
  %4 = fixed_point_multiply(%acc, multiplier=1073741824, shift=-1) /* ty=Tensor[(1, 4), int32] */;
  %5 = matrix_set_diag(%m, %d, k1=0, k2=0, super_diag_right_align=True, sub_diag_right_align=False) /* ty=Tensor[(2, 3, 3), float32] */;
  %6 = nn.space_to_batch_nd(%s, block_shape=[2, 2], paddings=[[0, 0], [0, 0]], pad_value=0f) /* ty=Tensor[(4, 2, 2, 1), float32] */;
  %7 = nn.batch_to_space_nd(%6, block_shape=[2, 2], crops=[[0, 1], [1, 0]]) /* ty=Tensor[(1, 3, 3, 1), float32] */;
  %8 = sparse_to_dense(%p, 1f, 0f, output_shape=[8]) /* ty=Tensor[(8), float32] */;
  (%3, %4, %5, %7, %8)
}
)";
  size_t checked = 0;
  CHECK(importChecked(text, checked) == "");
  CHECK(checked == 9);
}

TEST_CASE("relay ops: the printed-type oracle reports a disagreeing comment", "[relay]") {
  // depth_to_space of (1, 8, 2, 3) by 2 is (1, 2, 4, 6); a comment claiming (1, 2, 2, 3) is caught.
  const char* text = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 8, 2, 3), float32]) {
  nn.depth_to_space(%x, block_size=2) /* ty=Tensor[(1, 2, 2, 3), float32] */
}
)";
  size_t checked = 0;
  std::string out = importChecked(text, checked);
  CHECK(checked == 1);
  CHECK(out.find("rlx infers R.Tensor((1, 2, 4, 6), dtype=\"float32\") where TVM printed Tensor[(1, 2, 2, 3), float32]") != std::string::npos);
}
