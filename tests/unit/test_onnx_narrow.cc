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

namespace {

NDArrayRef ints(DataType t, const std::vector<int64_t>& v, std::vector<int64_t> shape) {
  auto a = make<NDArray>(t, std::move(shape));
  for (size_t k = 0; k < v.size(); ++k) a->setInt(int64_t(k), v[k]);
  return a;
}

std::vector<double> values(const NDArray& a) {
  std::vector<double> out;
  for (int64_t i = 0; i < a.numel(); ++i) out.push_back(a.getDouble(i));
  return out;
}

}  // namespace

TEST_CASE("onnx QuantizeLinear to float8, saturating or not", "[onnx][minifloat]") {
  DataType e4m3 = *DataType::parse("float8_e4m3fn");
  std::vector<float> x = {0, 1, 2, 1e5f, 200, -1e6f, 930};
  auto scale = floats({2}, {1});
  auto zp = make<NDArray>(e4m3, std::vector<int64_t>{1});
  for (bool saturate : {true, false}) {
    auto model = singleNodeModel("QuantizeLinear", {intAttr("saturate", saturate)}, {{"x", 1, {7}}}, {{"scale", scale}, {"zp", zp}}, {"x", "scale", "zp"},
                                 {{"y", 17, {7}}});
    // x / 2 = 0, 0.5, 1, 5e4, 100 (a tie between 96 and 104: to 96's even mantissa), -5e5, 465
    std::vector<int> want = {0x00, 0x30, 0x38, 0x7e, 0x6c, 0xfe, 0x7e};
    if (!saturate) want = {0x00, 0x30, 0x38, 0x7f, 0x6c, 0xff, 0x7f};
    INFO("saturate " << saturate);
    CHECK(codes(*runAllWays(model, {floats(x)})) == want);
  }
}

TEST_CASE("onnx blocked QuantizeLinear / DequantizeLinear with int4", "[onnx][minifloat]") {
  DataType i4 = *DataType::parse("int4");
  // Blocks of 2 along axis 1 over 5 columns: the third block has one column.
  auto scale = floats({1, 2, 0.5f, 2, 1, 4}, {2, 3});
  auto zp = ints(i4, {0, 1, -1, 0, -2, 3}, {2, 3});
  std::vector<float> x = {1, 2, 5, 4, 5, -6, -7, 8, 9, 30};
  auto q = singleNodeModel("QuantizeLinear", {intAttr("axis", 1), intAttr("block_size", 2)}, {{"x", 1, {2, 5}}}, {{"scale", scale}, {"zp", zp}},
                           {"x", "scale", "zp"}, {{"y", 22, {2, 5}}});
  // rint(x / scale) + zp clamped to [-8, 7]: 2.5 rounds to 2 (half to even); 10 - 1 and 7.5 + 3 clamp.
  auto y = runAllWays(q, {floats(x, {2, 5})});
  CHECK(values(*y) == std::vector<double>{1, 2, 3, 3, 7, -3, -4, 6, 7, 7});
  auto dq = singleNodeModel("DequantizeLinear", {intAttr("axis", 1), intAttr("block_size", 2)}, {{"x", 22, {2, 5}}}, {{"scale", scale}, {"zp", zp}},
                            {"x", "scale", "zp"}, {{"y", 1, {2, 5}}});
  CHECK(values(*runAllWays(dq, {y})) == std::vector<double>{1, 2, 4, 4, 4, -6, -8, 8, 9, 16});
}

TEST_CASE("onnx DequantizeLinear from float8 and float4", "[onnx][minifloat]") {
  DataType e5m2 = *DataType::parse("float8_e5m2"), f4 = *DataType::parse("float4_e2m1fn");
  auto x = make<NDArray>(e5m2, std::vector<int64_t>{4});
  for (int k = 0; k < 4; ++k) x->as<uint8_t>()[k] = uint8_t(std::vector<int>{0x3c, 0x7b, 0x7c, 0xfe}[size_t(k)]);
  auto model = singleNodeModel("DequantizeLinear", {}, {{"x", 19, {4}}}, {{"scale", floats({0.5f}, {1})}}, {"x", "scale"}, {{"y", 1, {4}}});
  auto y = values(*runAllWays(model, {x}));
  CHECK(y[0] == 0.5);
  CHECK(y[1] == 28672);
  CHECK(y[2] == std::numeric_limits<double>::infinity());
  CHECK(std::isnan(y[3]));
  auto w = make<NDArray>(f4, std::vector<int64_t>{3});
  for (int k = 0; k < 3; ++k) w->as<uint8_t>()[k] = uint8_t(std::vector<int>{0x7, 0x9, 0x3}[size_t(k)]);  // 6, -0.5, 1.5
  auto m4 = singleNodeModel("DequantizeLinear", {}, {{"x", 23, {3}}}, {{"scale", floats({4}, {1})}}, {"x", "scale"}, {{"y", 1, {3}}});
  CHECK(values(*runAllWays(m4, {w})) == std::vector<double>{24, -2, 6});
}
