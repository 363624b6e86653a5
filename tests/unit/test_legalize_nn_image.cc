// LegalizeOps kernels of conv1d/2d_transpose, resize2d, grid_sample, pixel_shuffle, prelu,
// instance_norm, the bit ops, mod, sign, log_add_exp, logical_xor, quantize, dequantize, einsum, pad:
// each run by the TIR interpreter and by the LLVM JIT, and compared with the reference evaluator.
#include <catch2/catch.hpp>

#include "tests/unit/legalize_jit.h"

using namespace rlx;
using namespace rlx::test::legalize;

namespace {

std::string compare(const Case& c, uint32_t seed) { return interpreterAndJitAgree(c, seed); }

void check(const Case& c) {
  for (uint32_t seed : {1u, 2u}) {
    INFO(c.params << " -> " << c.call << " (seed " << seed << ")");
    CHECK(compare(c, seed) == "");
  }
}

std::string xw(const std::string& x, const std::string& w, const std::string& dtype = "float32") { return "x: " + T(x, dtype) + ", w: " + T(w, dtype); }

}  // namespace

TEST_CASE("legalize nn/image: conv2d_transpose", "[legalize][conv_transpose]") {
  check({xw("(1, 2, 4, 5)", "(2, 3, 3, 3)"), "R.nn.conv2d_transpose(x, w)", {{1, 2, 4, 5}, {2, 3, 3, 3}}});
  // TVM's test: strides, padding, output_padding and groups together.
  check({xw("(2, 4, 5, 4)", "(4, 3, 3, 3)"), "R.nn.conv2d_transpose(x, w, strides=[2, 3], padding=[1, 1, 1, 1], output_padding=[1, 2], groups=2)",
         {{2, 4, 5, 4}, {4, 3, 3, 3}}});
  check({xw("(1, 3, 4, 4)", "(3, 2, 2, 3)"), "R.nn.conv2d_transpose(x, w, padding=[0, 1, 2, 0], dilation=[2, 1])", {{1, 3, 4, 4}, {3, 2, 2, 3}}});
  check({xw("(1, 2, 3, 5)", "(2, 1, 3, 2)"), "R.nn.conv2d_transpose(x, w, strides=[3, 2], dilation=[2, 3], output_padding=[2, 1])", {{1, 2, 3, 5}, {2, 1, 3, 2}}});
  // Padding beyond the dilated kernel's extent crops the dilated data.
  check({xw("(1, 2, 5, 5)", "(2, 2, 3, 3)"), "R.nn.conv2d_transpose(x, w, strides=[2, 2], padding=[3, 3, 2, 3])", {{1, 2, 5, 5}, {2, 2, 3, 3}}});
  // Depthwise: one input channel per group.
  check({xw("(1, 3, 4, 3)", "(3, 1, 2, 2)"), "R.nn.conv2d_transpose(x, w, strides=[2, 2], groups=3)", {{1, 3, 4, 3}, {3, 1, 2, 2}}});
  check({xw("(\"n\", 2, 3, 3)", "(2, 2, 3, 3)"), "R.nn.conv2d_transpose(x, w, strides=[2, 2], padding=[1, 1, 1, 1])", {{3, 2, 3, 3}, {2, 2, 3, 3}}});
  check({xw("(1, 2, 3, 3)", "(2, 2, 2, 2)", "int32"), "R.nn.conv2d_transpose(x, w, strides=[2, 1])", {{1, 2, 3, 3}, {2, 2, 2, 2}}, -5, 5});
  check({xw("(1, 2, 3, 4)", "(2, 2, 3, 3)", "float16"), "R.nn.conv2d_transpose(x, w, out_dtype=\"float32\")", {{1, 2, 3, 4}, {2, 2, 3, 3}}});
}

TEST_CASE("legalize nn/image: conv1d_transpose", "[legalize][conv_transpose]") {
  check({xw("(2, 3, 7)", "(3, 2, 3)"), "R.nn.conv1d_transpose(x, w)", {{2, 3, 7}, {3, 2, 3}}});
  check({xw("(2, 4, 7)", "(4, 3, 3)"), "R.nn.conv1d_transpose(x, w, strides=[2], padding=[1, 0], output_padding=[1], dilation=[2], groups=2)", {{2, 4, 7}, {4, 3, 3}}});
  check({xw("(1, 3, 5)", "(3, 1, 2)"), "R.nn.conv1d_transpose(x, w, strides=[3], groups=3)", {{1, 3, 5}, {3, 1, 2}}});
  check({xw("(1, 2, 6)", "(2, 2, 3)"), "R.nn.conv1d_transpose(x, w, strides=[2], padding=[4, 3])", {{1, 2, 6}, {2, 2, 3}}});
  check({xw("(\"n\", 2, 5)", "(2, 3, 2)"), "R.nn.conv1d_transpose(x, w, strides=[2], output_padding=[1])", {{2, 2, 5}, {2, 3, 2}}});
}

namespace {

std::string resizeCall(const std::string& size, const std::string& method, const std::string& mode, const std::string& extra = "") {
  return "R.image.resize2d(x, R.shape(" + size + "), method=\"" + method + "\", coordinate_transformation_mode=\"" + mode + "\"" + extra + ")";
}

// Input and output sizes for a mode under which no nearest-neighbour coordinate falls exactly on a
// half (where float32 and double could round apart): half-pixel modes on odd inputs, asymmetric to
// odd outputs, align_corners and tf_half_pixel_for_nn to even outputs.
struct ResizeShapes {
  std::vector<int64_t> in;
  std::string out;
};
ResizeShapes shapesFor(const std::string& mode) {
  if (mode == "half_pixel" || mode == "pytorch_half_pixel") return {{1, 2, 5, 3}, "[7, 2]"};
  if (mode == "asymmetric") return {{1, 2, 4, 6}, "[7, 3]"};
  if (mode == "tf_crop_and_resize") return {{1, 2, 5, 4}, "[6, 3]"};
  return {{1, 2, 5, 3}, "[8, 2]"};  // align_corners, tf_half_pixel_for_nn
}

std::string shapeText(const std::vector<int64_t>& s) {
  std::string r = "(";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + ")";
}

}  // namespace

TEST_CASE("legalize nn/image: resize2d, every method and coordinate mode", "[legalize][resize]") {
  const char* modes[] = {"half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  std::string roi = ", roi=[0.1, -0.2, 0.9, 1.3], extrapolation_value=0.5";
  for (const char* mode : modes) {
    ResizeShapes s = shapesFor(mode);
    std::string extra = std::string(mode) == "tf_crop_and_resize" ? roi : "";
    for (const char* method : {"nearest_neighbor", "linear", "cubic"})
      check({"x: " + T(shapeText(s.in)), resizeCall(s.out, method, mode, extra), {s.in}});
  }
}

TEST_CASE("legalize nn/image: resize2d rounding, cubic options, layouts, dtypes", "[legalize][resize]") {
  for (const char* rounding : {"round", "floor", "ceil", "round_prefer_floor", "round_prefer_ceil", ""}) {
    std::string r = std::string(", rounding_method=\"") + rounding + "\"";
    for (const char* mode : {"half_pixel", "asymmetric", "align_corners", "tf_half_pixel_for_nn"}) {
      ResizeShapes s = shapesFor(mode);
      check({"x: " + T(shapeText(s.in)), resizeCall(s.out, "nearest_neighbor", mode, r), {s.in}});
    }
  }
  // Downscaling, and the exact integer-factor path of nearest + asymmetric (x // 2, x // 3).
  check({"x: " + T("(2, 1, 7, 9)"), resizeCall("[3, 4]", "nearest_neighbor", "half_pixel"), {{2, 1, 7, 9}}});
  check({"x: " + T("(1, 2, 3, 4)"), resizeCall("[6, 12]", "nearest_neighbor", "asymmetric", ", rounding_method=\"round\""), {{1, 2, 3, 4}}});
  check({"x: " + T("(1, 2, 7, 9)"), resizeCall("[4, 5]", "linear", "half_pixel"), {{1, 2, 7, 9}}});
  check({"x: " + T("(1, 2, 7, 9)"), resizeCall("[3, 4]", "cubic", "align_corners"), {{1, 2, 7, 9}}});
  // cubic_alpha and cubic_exclude (taps outside the image weigh 0, the rest renormalized).
  check({"x: " + T("(1, 2, 5, 3)"), resizeCall("[7, 8]", "cubic", "half_pixel", ", cubic_alpha=-0.5, cubic_exclude=1"), {{1, 2, 5, 3}}});
  check({"x: " + T("(1, 1, 4, 6)"), resizeCall("[9, 5]", "cubic", "asymmetric", ", cubic_exclude=1"), {{1, 1, 4, 6}}});
  // One output row or column.
  for (const char* mode : {"align_corners", "pytorch_half_pixel", "tf_crop_and_resize"})
    check({"x: " + T("(1, 2, 5, 3)"), resizeCall("[1, 4]", "linear", mode, ", roi=[0.2, 0.1, 0.6, 0.9]"), {{1, 2, 5, 3}}});
  // NHWC, float64, an integer image, a symbolic batch.
  check({"x: " + T("(1, 5, 3, 2)"), "R.image.resize2d(x, R.shape([7, 4]), layout=\"NHWC\", method=\"linear\")", {{1, 5, 3, 2}}});
  check({"x: " + T("(1, 5, 3, 2)"), "R.image.resize2d(x, R.shape([7, 2]), layout=\"NHWC\", method=\"nearest_neighbor\")", {{1, 5, 3, 2}}});
  check({"x: " + T("(1, 2, 5, 3)", "float64"), resizeCall("[7, 4]", "cubic", "half_pixel"), {{1, 2, 5, 3}}});
  check({"x: " + T("(1, 2, 5, 3)", "int32"), resizeCall("[7, 2]", "nearest_neighbor", "half_pixel"), {{1, 2, 5, 3}}, -50, 50});
  check({"x: " + T("(\"n\", 2, 5, 3)"), resizeCall("[7, 6]", "linear", "align_corners"), {{3, 2, 5, 3}}});
}

TEST_CASE("legalize nn/image: grid_sample, every method, padding mode and align_corners", "[legalize][grid_sample]") {
  for (const char* method : {"bilinear", "nearest", "bicubic"})
    for (const char* padding : {"zeros", "border", "reflection"})
      for (const char* align : {"False", "True"}) {
        std::string call = std::string("R.image.grid_sample(x, g, method=\"") + method + "\", padding_mode=\"" + padding + "\", align_corners=" + align + ")";
        // Grid values up to 1.6 in magnitude: a good share of the samples fall outside the image.
        check({"x: " + T("(2, 3, 4, 5)") + ", g: " + T("(2, 3, 4, 2)"), call, {{2, 3, 4, 5}, {2, 3, 4, 2}}, -1.6, 1.6});
        // Far outside (several reflections), in float64: bicubic's float32 weights cancel enough
        // to drift past float32's tolerance from the double evaluator on such values.
        check({"x: " + T("(1, 1, 3, 2)", "float64") + ", g: " + T("(1, 5, 2, 2)", "float64"), call, {{1, 1, 3, 2}, {1, 5, 2, 2}}, -3.5, 3.5});
      }
}

TEST_CASE("legalize nn/image: volumetric grid_sample (NCDHW), trilinear and nearest", "[legalize][grid_sample]") {
  for (const char* method : {"bilinear", "nearest"})
    for (const char* padding : {"zeros", "border", "reflection"})
      for (const char* align : {"False", "True"}) {
        std::string call = std::string("R.image.grid_sample(x, g, method=\"") + method + "\", layout=\"NCDHW\", padding_mode=\"" + padding + "\", align_corners=" + align + ")";
        check({"x: " + T("(2, 3, 4, 5, 3)") + ", g: " + T("(2, 2, 3, 4, 3)"), call, {{2, 3, 4, 5, 3}, {2, 2, 3, 4, 3}}, -1.6, 1.6});
      }
}

TEST_CASE("legalize nn/image: pixel_shuffle", "[legalize][pixel_shuffle]") {
  check({"x: " + T("(1, 8, 3, 2)"), "R.nn.pixel_shuffle(x, upscale_factor=2)", {{1, 8, 3, 2}}});
  check({"x: " + T("(2, 9, 2, 3)"), "R.nn.pixel_shuffle(x, upscale_factor=3)", {{2, 9, 2, 3}}});
  check({"x: " + T("(4, 2, 3)"), "R.nn.pixel_shuffle(x, upscale_factor=2)", {{4, 2, 3}}});
  check({"x: " + T("(2, 1, 4, 2, 2)", "int32"), "R.nn.pixel_shuffle(x, upscale_factor=2)", {{2, 1, 4, 2, 2}}, -9, 9});
  check({"x: " + T("(\"n\", 4, 3, 3)"), "R.nn.pixel_shuffle(x, upscale_factor=1)", {{2, 4, 3, 3}}});
}

TEST_CASE("legalize nn/image: prelu and instance_norm", "[legalize][norm]") {
  check({"x: " + T("(2, 3, 4)") + ", a: " + T("(3,)"), "R.nn.prelu(x, a)", {{2, 3, 4}, {3}}});
  check({"x: " + T("(2, 3, 4)") + ", a: " + T("(1,)"), "R.nn.prelu(x, a)", {{2, 3, 4}, {1}}});
  check({"x: " + T("(2, 3, 4)") + ", a: " + T("(4,)"), "R.nn.prelu(x, a, axis=-1)", {{2, 3, 4}, {4}}});
  check({"x: " + T("(\"n\", 5)", "float64") + ", a: " + T("(5,)", "float64"), "R.nn.prelu(x, a)", {{3, 5}, {5}}});
  std::string g3 = ", g: " + T("(3,)") + ", b: " + T("(3,)");
  check({"x: " + T("(2, 3, 4, 5)") + g3, "R.nn.instance_norm(x, g, b, channel_axis=1, axes=[2, 3])", {{2, 3, 4, 5}, {3}, {3}}});
  check({"x: " + T("(2, 5, 3)") + g3, "R.nn.instance_norm(x, g, b, channel_axis=-1, axes=[1], epsilon=0.01)", {{2, 5, 3}, {3}, {3}}});
  check({"x: " + T("(\"n\", 3, 7)") + g3, "R.nn.instance_norm(x, g, b, channel_axis=1, axes=[2])", {{2, 3, 7}, {3}, {3}}});
  check({"x: " + T("(2, 3, 4, 5)") + g3, "R.nn.instance_norm(x, g, b, channel_axis=1, axes=[2, 3], center=False, scale=False)", {{2, 3, 4, 5}, {3}, {3}}});
}

TEST_CASE("legalize nn/image: bitwise ops and shifts", "[legalize][bitwise]") {
  for (const char* op : {"bitwise_and", "bitwise_or", "bitwise_xor"}) {
    std::string call = std::string("R.") + op + "(x, y)";
    check({"x: " + T("(3, 1, 5)", "int32") + ", y: " + T("(4, 5)", "int32"), call, {{3, 1, 5}, {4, 5}}, -50, 50});
    check({"x: " + T("(7,)", "uint8") + ", y: " + T("(7,)", "uint8"), call, {{7}, {7}}, 0, 255});
    check({"x: " + T("(\"n\", 3)", "int8") + ", y: " + T("(1, 3)", "int8"), call, {{4, 3}, {1, 3}}, -128, 127});
    check({"x: " + T("(2, 3)", "bool") + ", y: " + T("(2, 3)", "bool"), call, {{2, 3}, {2, 3}}});
  }
  check({"x: " + T("(4, 5)", "int32"), "R.bitwise_and(x, R.const(6, \"int32\"))", {{4, 5}}, -50, 50});
  for (const char* op : {"left_shift", "right_shift"}) {
    std::string call = std::string("R.") + op + "(x, y)";
    check({"x: " + T("(3, 5)", "int32") + ", y: " + T("(5,)", "int32"), call, {{3, 5}, {5}}, 0, 7});
    check({"x: " + T("(3, 5)", "int32") + ", y: " + T("(3, 5)", "int32"), call, {{3, 5}, {3, 5}}, -40, 40});  // negative and wide shifts too
    check({"x: " + T("(9,)", "uint8") + ", y: " + T("(9,)", "uint8"), call, {{9}, {9}}, 0, 9});
    check({"x: " + T("(9,)", "int64") + ", y: " + T("(9,)", "int64"), call, {{9}, {9}}, -70, 70});
  }
  for (auto [dtype, lo, hi] : {std::tuple{"int32", -99, 99}, std::tuple{"uint8", 0, 255}, std::tuple{"int8", -128, 127}})
    check({"x: " + T("(4, 3)", dtype), "R.bitwise_not(x)", {{4, 3}}, double(lo), double(hi)});
}

TEST_CASE("legalize nn/image: mod, sign, log_add_exp, logical_xor", "[legalize][elementwise]") {
  check({"x: " + T("(3, 1, 5)") + ", y: " + T("(4, 5)"), "R.mod(x, y)", {{3, 1, 5}, {4, 5}}, -4, 4, true});
  check({"x: " + T("(\"n\", 5)", "float64") + ", y: " + T("(5,)", "float64"), "R.mod(x, y)", {{4, 5}, {5}}, -9, 9, true});
  check({"x: " + T("(4, 5)", "int32") + ", y: " + T("(5,)", "int32"), "R.mod(x, y)", {{4, 5}, {5}}, -9, 9, true});
  check({"x: " + T("(4, 5)", "int32"), "R.mod(x, R.const(3, \"int32\"))", {{4, 5}}, -9, 9});
  check({"x: " + T("(4, 5)"), "R.mod(R.const(5.5, \"float32\"), x)", {{4, 5}}, -4, 4, true});
  check({"x: " + T("(2, 4)"), "R.sign(x)", {{2, 4}}, 0, 0, false, {NAN, 0.0, -0.0, 1.5, -2.0, INFINITY, -INFINITY, 1e-30}});
  check({"x: " + T("(\"n\", 3)", "float64"), "R.sign(x)", {{5, 3}}, -3, 3});
  check({"x: " + T("(3, 4)", "int32"), "R.sign(x)", {{3, 4}}, -3, 3});
  check({"x: " + T("(3, 1, 5)") + ", y: " + T("(4, 5)"), "R.log_add_exp(x, y)", {{3, 1, 5}, {4, 5}}, -30, 30});
  check({"x: " + T("(\"n\", 5)", "float64") + ", y: " + T("(5,)", "float64"), "R.log_add_exp(x, y)", {{4, 5}, {5}}, -5, 5});
  check({"x: " + T("(2, 4)") + ", y: " + T("(2, 4)"), "R.log_add_exp(x, y)", {{2, 4}, {2, 4}}, -3, 3, false, {-INFINITY, INFINITY, 100.0, -100.0, 0.0, 88.0, -1e30, 3.0}});
  check({"x: " + T("(3, 1, 5)", "bool") + ", y: " + T("(4, 5)", "bool"), "R.logical_xor(x, y)", {{3, 1, 5}, {4, 5}}});
}

TEST_CASE("legalize nn/image: quantize and dequantize", "[legalize][quantize]") {
  // Scalar constant parameters fold into the kernel; a tiny scale drives values into the clamp.
  check({"x: " + T("(3, 4)"), "R.quantize(x, R.const(0.01, \"float32\"), R.const(3, \"int8\"), out_dtype=\"int8\")", {{3, 4}}});
  check({"x: " + T("(3, 4)"), "R.quantize(x, R.const(0.05, \"float32\"), R.const(100, \"uint8\"), out_dtype=\"uint8\")", {{3, 4}}});
  // Exact halves round to even.
  check({"x: " + T("(2, 5)"), "R.quantize(x, R.const(1.0, \"float32\"), R.const(0, \"int8\"), out_dtype=\"int8\")", {{2, 5}}, 0, 0, false,
         {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 126.5, 127.5, -128.5, 300.0}});
  // Per-axis parameters, the axis negative too; singleton tensors.
  std::string sz = ", s: " + T("(3,)") + ", z: " + T("(3,)", "int8");
  check({"x: " + T("(2, 3, 4)") + sz, "R.quantize(x, s, z, axis=1, out_dtype=\"int8\")", {{2, 3, 4}, {3}, {3}}, -2, 2, true});
  check({"x: " + T("(2, 4, 3)") + sz, "R.quantize(x, s, z, axis=-1, out_dtype=\"int8\")", {{2, 4, 3}, {3}, {3}}, -2, 2, true});
  check({"x: " + T("(2, 3)") + ", s: " + T("(1,)") + ", z: " + T("(1,)", "int8"), "R.quantize(x, s, z, axis=0, out_dtype=\"int8\")", {{2, 3}, {1}, {1}}, -2, 2, true});
  check({"x: " + T("(2, 3)", "float16") + ", s: " + T("(2,)", "float16") + ", z: " + T("(2,)", "int8"), "R.quantize(x, s, z, axis=0, out_dtype=\"uint8\")",
         {{2, 3}, {2}, {2}}, -2, 2, true});
  check({"x: " + T("(2, 4)", "int8"), "R.dequantize(x, R.const(2.0, \"float32\"), R.const(1, \"int8\"), axis=0, out_dtype=\"float32\")", {{2, 4}}, -128, 127});
  check({"x: " + T("(2, 3, 4)", "int8") + sz, "R.dequantize(x, s, z, axis=1)", {{2, 3, 4}, {3}, {3}}, -100, 100, true});
  check({"x: " + T("(4, 3)", "uint8") + ", s: " + T("(3,)") + ", z: " + T("(3,)", "uint8"), "R.dequantize(x, s, z, axis=-1)", {{4, 3}, {3}, {3}}, 1, 200});
  check({"x: " + T("(2, 3)", "int8") + ", s: " + T("(1,)") + ", z: " + T("(1,)", "int8"), "R.dequantize(x, s, z, out_dtype=\"float16\")", {{2, 3}, {1}, {1}}, -100, 100, true});
  check({"x: " + T("(2, 3)"), "R.dequantize(x, R.const(0.5, \"float32\"), R.const(2, \"int8\"))", {{2, 3}}});
}

TEST_CASE("legalize nn/image: einsum", "[legalize][einsum]") {
  auto two = [](const std::string& a, const std::string& b, const std::string& dtype = "float32") { return "x: " + T(a, dtype) + ", y: " + T(b, dtype); };
  check({two("(2, 3)", "(3, 4)"), "R.einsum((x, y), subscripts=\"ij,jk->ik\")", {{2, 3}, {3, 4}}});
  check({two("(2, 3)", "(3, 4)"), "R.einsum((x, y), subscripts=\"ij,jk\")", {{2, 3}, {3, 4}}});
  check({two("(3,)", "(4,)"), "R.einsum((x, y), subscripts=\"i,j->ij\")", {{3}, {4}}});
  check({two("(2, 3, 5)", "(2, 5, 4)"), "R.einsum((x, y), subscripts=\"bij,bjk->bik\")", {{2, 3, 5}, {2, 5, 4}}});
  check({two("(\"n\", 3, 5)", "(\"n\", 5, 2)"), "R.einsum((x, y), subscripts=\"bij,bjk->bki\")", {{3, 3, 5}, {3, 5, 2}}});
  check({two("(2, 1, 3, 4)", "(5, 4, 2)"), "R.einsum((x, y), subscripts=\"...ij,...jk->...ik\")", {{2, 1, 3, 4}, {5, 4, 2}}});
  check({two("(2, 3, 4)", "(4,)"), "R.einsum((x, y), subscripts=\"...j,j\")", {{2, 3, 4}, {4}}});
  check({two("(3, 4)", "(4, 3)", "int32"), "R.einsum((x, y), subscripts=\"ij,ji->\")", {{3, 4}, {4, 3}}, -5, 5});
  check({two("(2, 3)", "(3, 2)"), "R.einsum((x, y), subscripts=\"aB,Ba->B\")", {{2, 3}, {3, 2}}});
  check({"x: " + T("(3, 3)"), "R.einsum((x,), subscripts=\"ii->i\")", {{3, 3}}});
  check({"x: " + T("(4, 4)"), "R.einsum((x,), subscripts=\"ii\")", {{4, 4}}});
  check({"x: " + T("(2, 3, 4)"), "R.einsum((x,), subscripts=\"ijk->kji\")", {{2, 3, 4}}});
  check({"x: " + T("(2, 3, 4)"), "R.einsum((x,), subscripts=\"ijk->\")", {{2, 3, 4}}});
  check({"x: " + T("(2, 3, 4)"), "R.einsum((x,), subscripts=\"i...->...\")", {{2, 3, 4}}});
  check({"a: " + T("(2, 3, 4)") + ", b: " + T("(4, 5)") + ", c: " + T("(5, 2)"), "R.einsum((a, b, c), subscripts=\"abc,cd,de->abe\")", {{2, 3, 4}, {4, 5}, {5, 2}}});
}

namespace {

// The pad kernel on x = 1, 2, 3, ... must give `want` (worked out by hand) on the interpreter and
// the JIT; the evaluator is held to the same values.
void checkPadByHand(const std::string& shape, const std::vector<int64_t>& dims, const std::string& widths, const std::string& mode, const std::vector<double>& want) {
  int64_t n = 1;
  for (auto d : dims) n *= d;
  std::vector<double> ramp;
  for (int64_t k = 1; k <= n; ++k) ramp.push_back(double(k));
  std::string call = "R.nn.pad(x, pad_width=" + widths + ", pad_value=9.0, pad_mode=\"" + mode + "\")";
  Case c{"x: " + T(shape), call, {dims}, 0, 0, false, ramp};
  INFO(call);
  Prepared p;
  REQUIRE(prepare(c, 1, p) == "");
  auto wantArray = make<NDArray>(DataType::float32(), p.expected[0]->shape);
  REQUIRE(wantArray->numel() == int64_t(want.size()));
  for (size_t k = 0; k < want.size(); ++k) wantArray->setDouble(int64_t(k), want[k]);
  CHECK(compareOutputs(c, p.expected, {wantArray}, p.inputs, "evaluator", "hand") == "");
  REQUIRE(runPrimFunc(*p.kernel, p.args).ok());
  CHECK(compareOutputs(c, p.outputs, {wantArray}, p.inputs, "interpreter", "hand") == "");
  auto kernel = compileKernel(p.kernel, "pad");
  REQUIRE(kernel.ok());
  auto outs = p.freshOutputs();
  REQUIRE(runKernel(**kernel, *p.kernel, p.argsWith(outs)).ok());
  CHECK(compareOutputs(c, outs, {wantArray}, p.inputs, "jit", "hand") == "");
}

}  // namespace

TEST_CASE("legalize nn/image: pad, every mode", "[legalize][pad]") {
  // x = [[1, 2, 3], [4, 5, 6]] padded by (1, 1) rows and (2, 1) columns.
  std::string w = "[1, 1, 2, 1]";
  checkPadByHand("(2, 3)", {2, 3}, w, "constant", {9, 9, 9, 9, 9, 9, 9, 9, 1, 2, 3, 9, 9, 9, 4, 5, 6, 9, 9, 9, 9, 9, 9, 9});
  // reflect (numpy's, the edge not repeated): rows 1 0 1 0, columns 2 1 0 1 2 1.
  checkPadByHand("(2, 3)", {2, 3}, w, "reflect", {6, 5, 4, 5, 6, 5, 3, 2, 1, 2, 3, 2, 6, 5, 4, 5, 6, 5, 3, 2, 1, 2, 3, 2});
  // replicate (numpy's edge): rows 0 0 1 1, columns 0 0 0 1 2 2; "edge" is the same.
  std::vector<double> edge = {1, 1, 1, 2, 3, 3, 1, 1, 1, 2, 3, 3, 4, 4, 4, 5, 6, 6, 4, 4, 4, 5, 6, 6};
  checkPadByHand("(2, 3)", {2, 3}, w, "replicate", edge);
  checkPadByHand("(2, 3)", {2, 3}, w, "edge", edge);
  // circular (numpy's wrap): rows 1 0 1 0, columns 1 2 0 1 2 0.
  checkPadByHand("(2, 3)", {2, 3}, w, "circular", {5, 6, 4, 5, 6, 4, 2, 3, 1, 2, 3, 1, 5, 6, 4, 5, 6, 4, 2, 3, 1, 2, 3, 1});
  // Wrapping more than once around a dim of 3.
  checkPadByHand("(3,)", {3}, "[4, 5]", "circular", {3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2});

  for (const char* mode : {"reflect", "replicate", "circular"}) {
    std::string m = std::string(", pad_mode=\"") + mode + "\")";
    check({"x: " + T("(2, 3, 4)"), "R.nn.pad(x, pad_width=[0, 0, 1, 2, 3, 1]" + m, {{2, 3, 4}}});
    check({"x: " + T("(1, 2, 5, 4)"), "R.nn.pad(x, pad_width=[0, 0, 0, 0, 2, 2, 1, 3]" + m, {{1, 2, 5, 4}}});
    check({"x: " + T("(\"n\", 4)"), "R.nn.pad(x, pad_width=[1, 2, 0, 3]" + m, {{5, 4}}});
    check({"x: " + T("(3, 4)", "int32"), "R.nn.pad(x, pad_width=[2, 0, 0, 1]" + m, {{3, 4}}, -50, 50});
    check({"x: " + T("(4, 3)", "float64"), "R.nn.pad(x, pad_width=[1, 1, 1, 1]" + m, {{4, 3}}});
  }
}
