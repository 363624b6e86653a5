// ONNX tensor files with the narrow dtypes: hand-encoded TensorProtos (packed 4-bit and 2-bit
// raw_data and int32_data, float8 codes) read back exactly, and serializeTensor round trips.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "frontend/onnx/onnx.h"

using namespace rlx;

namespace {

// A TensorProto on the wire: dims (field 1), data_type (2), then `payload` (already tagged).
std::string proto(std::initializer_list<uint8_t> dims, uint8_t dataType, const std::string& payload) {
  std::string s;
  for (uint8_t d : dims) s += std::string{'\x08', char(d)};
  s += std::string{'\x10', char(dataType)};
  return s + payload;
}

std::string rawData(std::initializer_list<uint8_t> bytes) {
  std::string s{'\x4a', char(bytes.size())};
  for (uint8_t b : bytes) s += char(b);
  return s;
}

// int32_data, packed (field 5, wire type 2); each value below 128 is one varint byte.
std::string int32Data(std::initializer_list<uint8_t> values) {
  std::string s{'\x2a', char(values.size())};
  for (uint8_t v : values) s += char(v);
  return s;
}

NDArrayRef read(const std::string& bytes) {
  auto v = onnx::readValue(bytes, "test.pb");
  INFO((v ? "" : v.error().message));
  REQUIRE(v);
  REQUIRE(v->kind == Value::Tensor);
  return v->tensor;
}

std::vector<int64_t> ints(const NDArray& a) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < a.numel(); ++i) out.push_back(a.getInt(i));
  return out;
}

std::vector<double> doubles(const NDArray& a) {
  std::vector<double> out;
  for (int64_t i = 0; i < a.numel(); ++i) out.push_back(a.getDouble(i));
  return out;
}

}  // namespace

TEST_CASE("onnx tensors: int4 and uint4 raw_data, two a byte, low nibble first", "[onnx]") {
  // [-1, 2, 7]: nibbles f, 2 | 7, (padding 0)
  auto a = read(proto({3}, 22, rawData({0x2f, 0x07})));
  CHECK(a->dtype.str() == "int4");
  CHECK(ints(*a) == std::vector<int64_t>{-1, 2, 7});
  CHECK(a->as<uint8_t>()[0] == 0x0f);  // in memory: one a byte
  auto u = read(proto({2, 2}, 21, rawData({0xf0, 0x93})));
  CHECK(u->dtype.str() == "uint4");
  CHECK(u->shape == std::vector<int64_t>{2, 2});
  CHECK(ints(*u) == std::vector<int64_t>{0, 15, 3, 9});
  // A raw_data whose length is not the packed size is refused.
  CHECK(!onnx::readValue(proto({3}, 22, rawData({0x2f, 0x07, 0x00})), "test.pb"));
  CHECK(!onnx::readValue(proto({3}, 22, rawData({0x2f})), "test.pb"));
}

TEST_CASE("onnx tensors: int2 and uint2, four a byte, from raw_data and int32_data", "[onnx]") {
  // [1, -2, -1, 0, 1]: 01 | 10 << 2 | 11 << 4 | 00 << 6 = 0x39, then 01
  auto a = read(proto({5}, 26, int32Data({0x39, 0x01})));
  CHECK(a->dtype.str() == "int2");
  CHECK(ints(*a) == std::vector<int64_t>{1, -2, -1, 0, 1});
  auto u = read(proto({5}, 25, rawData({0x39, 0x01})));
  CHECK(u->dtype.str() == "uint2");
  CHECK(ints(*u) == std::vector<int64_t>{1, 2, 3, 0, 1});
  CHECK(!onnx::readValue(proto({5}, 26, int32Data({0x39, 0x01, 0x00})), "test.pb"));
}

TEST_CASE("onnx tensors: float8 and float4 codes", "[onnx]") {
  auto e4m3 = read(proto({3}, 17, rawData({0x7e, 0x38, 0xff})));
  CHECK(e4m3->dtype.str() == "float8_e4m3fn");
  CHECK(e4m3->getDouble(0) == 448);
  CHECK(e4m3->getDouble(1) == 1);
  CHECK(std::isnan(e4m3->getDouble(2)));
  auto fnuz = read(proto({2}, 18, int32Data({0x40, 0x7f})));
  CHECK(fnuz->dtype.str() == "float8_e4m3fnuz");
  CHECK(doubles(*fnuz) == std::vector<double>{1, 240});
  CHECK(read(proto({1}, 20, rawData({0x40})))->getDouble(0) == 1);  // float8_e5m2fnuz
  auto e8m0 = read(proto({2}, 24, rawData({0x7f, 0x80})));
  CHECK(e8m0->dtype.str() == "float8_e8m0fnu");
  CHECK(doubles(*e8m0) == std::vector<double>{1, 2});
  // float4_e2m1fn [6, -0.5, 1.5]: nibbles 7, 9 | 3
  auto f4 = read(proto({3}, 23, rawData({0x97, 0x03})));
  CHECK(f4->dtype.str() == "float4_e2m1fn");
  CHECK(doubles(*f4) == std::vector<double>{6, -0.5, 1.5});
}

TEST_CASE("onnx tensors: serializeTensor round trips every narrow dtype, raw and typed", "[onnx]") {
  for (const char* name : {"int4", "uint4", "int2", "uint2", "float4_e2m1fn", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
                           "float8_e8m0fnu", "float16", "bfloat16", "int8", "bool", "float32", "int64", "uint32"}) {
    DataType t = *DataType::parse(name);
    for (int64_t n : {0, 1, 5, 8, 13}) {
      auto a = make<NDArray>(t, std::vector<int64_t>{n});
      for (int64_t i = 0; i < n; ++i) {
        if (t.isMiniFloat() || t.isBool() || t.bits < 8) a->as<uint8_t>()[i] = uint8_t((i * 7 + 3) & ((1 << std::min<int>(t.bits, 8)) - 1));
        else a->setDouble(i, double(i) - 3.5);
      }
      for (bool raw : {true, false}) {
        INFO(name << " n=" << n << (raw ? " raw_data" : " typed"));
        auto bytes = onnx::serializeTensor(*a, "x", raw);
        REQUIRE(bytes);
        auto back = read(*bytes);
        CHECK(back->dtype == t);
        CHECK(back->shape == a->shape);
        CHECK(back->sameData(*a));
      }
    }
  }
  // Packed: 5 int4 elements take 3 bytes of raw_data.
  auto a = make<NDArray>(*DataType::parse("int4"), std::vector<int64_t>{5});
  for (int64_t i = 0; i < 5; ++i) a->setInt(i, -int64_t(i));
  auto bytes = onnx::serializeTensor(*a, "x");
  REQUIRE(bytes);
  CHECK(bytes->find(std::string{'\x4a', '\x03', '\xf0', '\xde', '\x0c'}) != std::string::npos);
}
