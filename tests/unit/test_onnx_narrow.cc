// ONNX Cast/CastLike to float8 with saturate and round_mode, and QuantizeLinear/DequantizeLinear
// with the narrow types: hand-checked codes, the same from the evaluator, interpreter and JIT.
#include <cmath>
#include <limits>

#include "onnx_model_util.h"

using namespace rlx;
using namespace rlx::test;

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN(), kInf = std::numeric_limits<float>::infinity();

// The codes of Cast(x: float32[n]) to ONNX type `to` with the given attributes.
std::vector<int> castCodes(int to, const std::vector<float>& x, std::vector<std::string> attrs) {
  attrs.push_back(intAttr("to", to));
  int64_t n = int64_t(x.size());
  auto model = singleNodeModel("Cast", attrs, {{"x", 1, {n}}}, {}, {"x"}, {{"y", to, {n}}});
  return codes(*runAllWays(model, {floats(x)}));
}

}  // namespace

TEST_CASE("onnx Cast to float8 saturates by default, inf included", "[onnx][minifloat]") {
  std::vector<float> x = {1e6f, -1e6f, kInf, -kInf, 464, 465, kNaN, 0.3f, -0.0f};
  CHECK(castCodes(17, x, {}) == std::vector<int>{0x7e, 0xfe, 0x7e, 0xfe, 0x7e, 0x7e, 0x7f, 0x2a, 0x80});
  CHECK(castCodes(17, x, {intAttr("saturate", 1)}) == castCodes(17, x, {}));
  // e5m2: R.astype keeps inf; ONNX's saturate=1 makes it the largest finite value.
  CHECK(castCodes(19, x, {}) == std::vector<int>{0x7b, 0xfb, 0x7b, 0xfb, 0x5f, 0x5f, 0x7e, 0x35, 0x80});
  CHECK(castCodes(18, x, {}) == std::vector<int>{0x7f, 0xff, 0x7f, 0xff, 0x7f, 0x7f, 0x80, 0x32, 0x00});
}

TEST_CASE("onnx Cast to float8 with saturate=0: inf or NaN past the largest value", "[onnx][minifloat]") {
  std::vector<float> x = {1e6f, -1e6f, kInf, -kInf, 464, 465, kNaN, 61439, 61440, 247, 248};
  auto nosat = intAttr("saturate", 0);
  // e4m3fn: 464 rounds to 448 (a tie to the even mantissa), 465 is past; NaN keeps the sign.
  CHECK(castCodes(17, x, {nosat}) == std::vector<int>{0x7f, 0xff, 0x7f, 0xff, 0x7e, 0x7f, 0x7f, 0x7f, 0x7f, 0x77, 0x78});
  // e5m2: 61440 is the tie past 57344 (odd mantissa): inf.
  CHECK(castCodes(19, x, {nosat}) == std::vector<int>{0x7c, 0xfc, 0x7c, 0xfc, 0x5f, 0x5f, 0x7e, 0x7b, 0x7c, 0x5c, 0x5c});
  // e4m3fnuz: one NaN, 0x80; 248 is the tie past 240.
  CHECK(castCodes(18, x, {nosat}) == std::vector<int>{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f, 0x80});
  CHECK(castCodes(20, x, {nosat}) == std::vector<int>{0x80, 0x80, 0x80, 0x80, 0x63, 0x63, 0x80, 0x7f, 0x80, 0x60, 0x60});
}

TEST_CASE("onnx Cast to float8_e8m0fnu: round_mode up, down, nearest", "[onnx][minifloat]") {
  std::vector<float> x = {1, 1.1f, 1.5f, 1.4f, 3, 0.2f, 0x1.8p127f};
  CHECK(castCodes(24, x, {}) == std::vector<int>{0x7f, 0x80, 0x80, 0x80, 0x81, 0x7d, 0xfe});
  CHECK(castCodes(24, x, {intAttr("saturate", 0)}) == std::vector<int>{0x7f, 0x80, 0x80, 0x80, 0x81, 0x7d, 0xff});
  CHECK(castCodes(24, x, {stringAttr("round_mode", "down")}) == std::vector<int>{0x7f, 0x7f, 0x7f, 0x7f, 0x80, 0x7c, 0xfe});
  CHECK(castCodes(24, x, {stringAttr("round_mode", "nearest")}) == std::vector<int>{0x7f, 0x7f, 0x80, 0x7f, 0x81, 0x7d, 0xfe});
  CHECK(castCodes(24, x, {stringAttr("round_mode", "nearest"), intAttr("saturate", 0)}) == std::vector<int>{0x7f, 0x7f, 0x80, 0x7f, 0x81, 0x7d, 0xff});
}

TEST_CASE("onnx Cast to the 4-bit and 2-bit types", "[onnx][minifloat]") {
  std::vector<float> x = {-9, -8, 7, 8, 15.5f, 2.7f, -0.5f};
  CHECK(castCodes(22, x, {}) == std::vector<int>{0x7, 0x8, 0x7, 0x8, 0xf, 0x2, 0x0});  // int4: truncate, wrap
  CHECK(castCodes(21, x, {}) == std::vector<int>{0x7, 0x8, 0x7, 0x8, 0xf, 0x2, 0x0});  // uint4
  CHECK(castCodes(26, x, {}) == std::vector<int>{0x3, 0x0, 0x3, 0x0, 0x3, 0x2, 0x0});  // int2
  CHECK(castCodes(23, x, {}) == std::vector<int>{0xf, 0xf, 0x7, 0x7, 0x7, 0x5, 0x9});  // float4_e2m1fn
}
