// The narrow dtypes (float8 x5, float4_e2m1fn, (u)int4, (u)int2): names, hand-checked codes, element
// access, .npy/safetensors files, astype kernels agreeing bit for bit in the interpreter and the JIT.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>

#include "ir/minifloat.h"
#include "ir/ndarray.h"
#include "ir/safetensors.h"
#include "ir/tir_eval.h"
#include "llvm_test_util.h"
#include "runtime/inputs.h"
#include "runtime/npy.h"

using namespace rlx;

namespace {

const DataType kE4M3FN(DataType::Float8E4M3FN, 8), kE5M2(DataType::Float8E5M2, 8), kE4M3FNUZ(DataType::Float8E4M3FNUZ, 8),
    kE5M2FNUZ(DataType::Float8E5M2FNUZ, 8), kE8M0(DataType::Float8E8M0FNU, 8), kE2M1(DataType::Float4E2M1FN, 4);
const float kNaN = std::numeric_limits<float>::quiet_NaN(), kInf = std::numeric_limits<float>::infinity();

int enc(DataType t, float v, bool saturate = true) { return encodeMiniFloat(t, v, saturate); }

}  // namespace

TEST_CASE("narrow dtypes: TVM's names parse and print", "[minifloat]") {
  for (const char* name : {"float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn", "int4", "uint4",
                           "int2", "uint2", "float8_e4m3fnx4"}) {
    auto t = DataType::parse(name);
    INFO(name);
    REQUIRE(t);
    CHECK(t->str() == name);
  }
  CHECK(DataType::parse("float4_e2m1fn")->bits == 4);
  CHECK(DataType::parse("float4_e2m1fn")->bytes() == 1);  // one element a byte
  CHECK(DataType::parse("float8_e4m3fnuz")->isFloat());
  CHECK(DataType::parse("int2")->isInt());
  CHECK(!DataType::parse("float8"));
  CHECK(!DataType::parse("int3"));
}

TEST_CASE("float8_e4m3fn codes", "[minifloat]") {
  CHECK(enc(kE4M3FN, 448) == 0x7e);
  CHECK(enc(kE4M3FN, -448) == 0xfe);
  CHECK(enc(kE4M3FN, 1) == 0x38);
  CHECK(enc(kE4M3FN, 0.5f) == 0x30);
  CHECK(enc(kE4M3FN, -0.0f) == 0x80);
  CHECK(enc(kE4M3FN, 0x1p-6f) == 0x08);         // the least normal
  CHECK(enc(kE4M3FN, 0x1p-9f) == 0x01);         // the least subnormal
  CHECK(enc(kE4M3FN, 0x1p-10f) == 0x00);        // half of it: a tie, to the even 0
  CHECK(enc(kE4M3FN, 0x1.8p-10f) == 0x01);      // past the tie
  CHECK(enc(kE4M3FN, 0x1.cp-7f) == 0x07);       // 7 * 2^-9, the largest subnormal
  CHECK(enc(kE4M3FN, 0x1.f8p-7f) == 0x08);      // 7/8 of a step past it: rounds to the least normal
  CHECK(enc(kE4M3FN, 1.0625f) == 0x38);         // 1 + half an ulp: tie to even (mantissa 000)
  CHECK(enc(kE4M3FN, 1.1875f) == 0x3a);         // 1 + 3/2 ulp: tie to even (mantissa 010)
  // 464 is halfway from 448 to the (NaN) slot above: the tie goes to 448's even mantissa.
  CHECK(enc(kE4M3FN, 464) == 0x7e);
  CHECK(enc(kE4M3FN, 464, false) == 0x7e);
  CHECK(enc(kE4M3FN, 465) == 0x7e);             // saturated
  CHECK(enc(kE4M3FN, 465, false) == 0x7f);      // NaN, as ONNX's saturate=0
  CHECK(enc(kE4M3FN, -1e6f, false) == 0xff);
  CHECK(enc(kE4M3FN, kInf) == 0x7e);
  CHECK(enc(kE4M3FN, -kInf) == 0xfe);
  CHECK(enc(kE4M3FN, kInf, false) == 0x7f);
  CHECK(enc(kE4M3FN, kNaN) == 0x7f);
  CHECK(enc(kE4M3FN, -kNaN) == 0xff);
  CHECK(decodeMiniFloat(kE4M3FN, 0x7e) == 448);
  CHECK(decodeMiniFloat(kE4M3FN, 0x01) == 0x1p-9f);
  CHECK(decodeMiniFloat(kE4M3FN, 0x07) == 0x1.cp-7f);
  CHECK(std::isnan(decodeMiniFloat(kE4M3FN, 0x7f)));
  CHECK(std::isnan(decodeMiniFloat(kE4M3FN, 0xff)));
  CHECK(std::signbit(decodeMiniFloat(kE4M3FN, 0x80)));
  CHECK(decodeMiniFloat(kE4M3FN, 0x78) == 256);  // 0x78 is a number here, not inf
}

TEST_CASE("float8_e5m2 codes", "[minifloat]") {
  CHECK(enc(kE5M2, 57344) == 0x7b);
  CHECK(enc(kE5M2, 1) == 0x3c);
  CHECK(enc(kE5M2, 0x1p-16f) == 0x01);
  CHECK(enc(kE5M2, 0x1p-14f) == 0x04);
  // 61440 is halfway from 57344 (odd mantissa 11) to 65536: the tie overflows.
  CHECK(enc(kE5M2, 61439) == 0x7b);
  CHECK(enc(kE5M2, 61440) == 0x7b);
  CHECK(enc(kE5M2, 61440, false) == 0x7c);
  CHECK(enc(kE5M2, -1e6f, false) == 0xfc);
  CHECK(enc(kE5M2, kInf) == 0x7c);  // kept: e5m2 has inf (ONNX's saturate=1 is composed by its importer)
  CHECK(enc(kE5M2, -kInf) == 0xfc);
  CHECK(enc(kE5M2, kInf, false) == 0x7c);
  CHECK(enc(kE5M2, kNaN) == 0x7e);
  CHECK(decodeMiniFloat(kE5M2, 0x7c) == kInf);
  CHECK(decodeMiniFloat(kE5M2, 0xfc) == -kInf);
  CHECK(std::isnan(decodeMiniFloat(kE5M2, 0x7d)));
  CHECK(decodeMiniFloat(kE5M2, 0x01) == 0x1p-16f);
}

TEST_CASE("float8 fnuz codes: NaN is 0x80, no -0", "[minifloat]") {
  CHECK(enc(kE4M3FNUZ, 240) == 0x7f);
  CHECK(enc(kE4M3FNUZ, 1) == 0x40);
  CHECK(enc(kE4M3FNUZ, -0.0f) == 0x00);
  CHECK(enc(kE4M3FNUZ, -0x1p-12f) == 0x00);  // rounds to zero: +0, 0x80 being NaN
  CHECK(enc(kE4M3FNUZ, 0x1p-10f) == 0x01);
  CHECK(enc(kE4M3FNUZ, kNaN) == 0x80);
  CHECK(enc(kE4M3FNUZ, -kNaN) == 0x80);
  CHECK(enc(kE4M3FNUZ, 247) == 0x7f);
  CHECK(enc(kE4M3FNUZ, 248, false) == 0x80);  // the tie past 240 (odd mantissa) overflows
  CHECK(enc(kE4M3FNUZ, 248) == 0x7f);
  CHECK(enc(kE4M3FNUZ, -kInf) == 0xff);
  CHECK(std::isnan(decodeMiniFloat(kE4M3FNUZ, 0x80)));
  CHECK(decodeMiniFloat(kE4M3FNUZ, 0xff) == -240);
  CHECK(enc(kE5M2FNUZ, 1) == 0x40);
  CHECK(enc(kE5M2FNUZ, 57344) == 0x7f);
  CHECK(enc(kE5M2FNUZ, kInf, false) == 0x80);
  CHECK(decodeMiniFloat(kE5M2FNUZ, 0x01) == 0x1p-17f);
}

TEST_CASE("float8_e8m0fnu codes: powers of two, rounding up (ONNX's Cast default)", "[minifloat]") {
  CHECK(enc(kE8M0, 1) == 0x7f);
  CHECK(enc(kE8M0, 0.125f) == 0x7c);
  CHECK(enc(kE8M0, 0.124f) == 0x7c);
  CHECK(enc(kE8M0, 1.1f) == 0x80);
  CHECK(enc(kE8M0, 0) == 0x00);  // 2^-127, the least value (there is no zero)
  CHECK(enc(kE8M0, 0x1p-127f) == 0x00);
  CHECK(enc(kE8M0, 0x1.2p-127f) == 0x01);
  CHECK(enc(kE8M0, 0x1p-140f) == 0x00);
  CHECK(enc(kE8M0, 0x1p127f) == 0xfe);
  CHECK(enc(kE8M0, 0x1.8p127f) == 0xfe);
  CHECK(enc(kE8M0, 0x1.8p127f, false) == 0xff);
  CHECK(enc(kE8M0, kInf) == 0xff);
  CHECK(enc(kE8M0, kNaN) == 0xff);
  CHECK(decodeMiniFloat(kE8M0, 0x00) == 0x1p-127f);
  CHECK(decodeMiniFloat(kE8M0, 0xfe) == 0x1p127f);
  CHECK(std::isnan(decodeMiniFloat(kE8M0, 0xff)));
}

TEST_CASE("float4_e2m1fn codes: saturating, no NaN", "[minifloat]") {
  const float values[] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  for (int c = 0; c < 8; ++c) {
    CHECK(decodeMiniFloat(kE2M1, uint8_t(c)) == values[c]);
    CHECK(decodeMiniFloat(kE2M1, uint8_t(c | 8)) == -values[c]);
    CHECK(enc(kE2M1, values[c]) == c);
  }
  CHECK(enc(kE2M1, 5) == 0x6);       // tie between 4 and 6: to 4's even mantissa
  CHECK(enc(kE2M1, -3.5f) == 0xe);   // tie between 3 and 4: -4
  CHECK(enc(kE2M1, 0.25f) == 0x0);
  CHECK(enc(kE2M1, 0.75f) == 0x2);
  CHECK(enc(kE2M1, 1e6f, false) == 0x7);
  CHECK(enc(kE2M1, -kInf) == 0xf);
  CHECK(enc(kE2M1, kNaN) == 0x0);
  CHECK(decodeMiniFloat(kE2M1, 0xf3) == 1.5f);  // bits above the nibble are ignored
}

TEST_CASE("every code decodes and encodes back", "[minifloat]") {
  for (DataType t : {kE4M3FN, kE5M2, kE4M3FNUZ, kE5M2FNUZ, kE8M0, kE2M1}) {
    int codes = t.bits == 4 ? 16 : 256;
    for (int c = 0; c < codes; ++c) {
      float v = decodeMiniFloat(t, uint8_t(c));
      INFO(t.str() << " code " << c);
      if (std::isnan(v)) {
        CHECK(std::isnan(decodeMiniFloat(t, uint8_t(enc(t, v)))));
        continue;
      }
      CHECK(enc(t, v) == c);
      CHECK(enc(t, v, false) == c);
    }
  }
}

TEST_CASE("NDArray element access of the narrow dtypes", "[minifloat]") {
  auto f8 = make<NDArray>(kE4M3FN, std::vector<int64_t>{4});
  f8->setDouble(0, 448);
  f8->setDouble(1, 1e9);  // saturates, as R.astype does
  f8->setInt(2, -3);
  f8->setDouble(3, 0.3);
  CHECK(f8->as<uint8_t>()[0] == 0x7e);
  CHECK(f8->as<uint8_t>()[1] == 0x7e);
  CHECK(f8->getDouble(2) == -3);
  CHECK(f8->getInt(2) == -3);  // used to recurse between getInt and getDouble
  CHECK(f8->getDouble(3) == 0.3125);

  auto i4 = make<NDArray>(DataType(DataType::Int, 4), std::vector<int64_t>{4});
  i4->setInt(0, -1);
  i4->setInt(1, 8);  // wraps to -8, as wider ints wrap
  i4->setDouble(2, 7.9);
  i4->setInt(3, -9);
  CHECK(i4->as<uint8_t>()[0] == 0x0f);  // the bits in the low nibble, zeros above
  CHECK(i4->getInt(0) == -1);
  CHECK(i4->getInt(1) == -8);
  CHECK(i4->getInt(2) == 7);
  CHECK(i4->getInt(3) == 7);
  CHECK(i4->getDouble(0) == -1);

  auto u4 = make<NDArray>(DataType(DataType::UInt, 4), std::vector<int64_t>{2});
  u4->setInt(0, 17);
  u4->setInt(1, -1);
  CHECK(u4->getInt(0) == 1);
  CHECK(u4->getInt(1) == 15);

  auto i2 = make<NDArray>(DataType(DataType::Int, 2), std::vector<int64_t>{3});
  i2->setInt(0, -2);
  i2->setInt(1, 2);
  i2->setInt(2, 1);
  CHECK(i2->as<uint8_t>()[0] == 0x02);
  CHECK(i2->getInt(0) == -2);
  CHECK(i2->getInt(1) == -2);
  CHECK(i2->getInt(2) == 1);

  auto f4 = make<NDArray>(kE2M1, std::vector<int64_t>{1});
  f4->setDouble(0, -6);
  CHECK(f4->as<uint8_t>()[0] == 0x0f);
  CHECK(f4->nbytes() == 1);
}

namespace {

// Every value worth converting: each code's value of every narrow float type, the midpoints
// between neighbours and a float either side, zeros, infinities, NaN and out-of-range values.
NDArrayRef probeValues() {
  std::vector<float> xs = {0.0f, -0.0f, kNaN, -kNaN, kInf, -kInf, 1e9f, -1e9f, 464, 465, 61440, 248, 0x1p-10f, -0x1p-12f, 7.9f, -8.5f, 15.5f, 300};
  for (DataType t : {kE4M3FN, kE5M2, kE4M3FNUZ, kE5M2FNUZ, kE8M0, kE2M1})
    for (int c = 0; c + 1 < (t.bits == 4 ? 16 : 256); ++c) {
      float v = decodeMiniFloat(t, uint8_t(c)), w = decodeMiniFloat(t, uint8_t(c + 1));
      if (std::isnan(v) || std::isnan(w)) continue;
      float mid = (v + w) / 2;
      xs.insert(xs.end(), {v, mid, std::nextafter(mid, kInf), std::nextafter(mid, -kInf)});
    }
  auto a = make<NDArray>(DataType::float32(), std::vector<int64_t>{int64_t(xs.size())});
  std::memcpy(a->data(), xs.data(), xs.size() * 4);
  return a;
}

// Runs `f` on `args` in the interpreter and the JIT; "" when every output byte is the same.
std::string sameBits(const PrimFuncRef& f, std::vector<TirArg> args) {
  std::vector<TirArg> mine;
  for (auto& a : args) {
    auto c = make<NDArray>(a.array->dtype, a.array->shape);
    std::memcpy(c->data(), a.array->data(), a.array->nbytes());
    mine.push_back(c);
  }
  auto st = runPrimFunc(*f, args);
  if (!st.ok()) return "runPrimFunc: " + st.error().message;
  auto kernel = compileKernel(f, "narrow");
  if (!kernel.ok()) return "compileKernel: " + kernel.error().message;
  auto run = runKernel(**kernel, *f, mine);
  if (!run.ok()) return "runKernel: " + run.error().message;
  for (size_t i = 0; i < args.size(); ++i) {
    const NDArray &want = *args[i].array, &got = *mine[i].array;
    for (size_t k = 0; k < want.nbytes(); ++k)
      if (static_cast<const uint8_t*>(got.data())[k] != static_cast<const uint8_t*>(want.data())[k])
        return "argument " + std::to_string(i) + " byte " + std::to_string(k) + ": jit " + std::to_string(static_cast<const uint8_t*>(got.data())[k]) +
               ", interpreter " + std::to_string(static_cast<const uint8_t*>(want.data())[k]);
  }
  return "";
}

}  // namespace

TEST_CASE("astype to and from the narrow dtypes: interpreter and JIT agree bit for bit", "[minifloat][llvm]") {
  NDArrayRef probe = probeValues();
  int64_t n = probe->numel();
  std::string shape = "R.Tensor((" + std::to_string(n) + ",), ";
  for (const char* name : {"float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn", "int4", "uint4", "int2", "uint2"}) {
    INFO(name);
    DataType t = *DataType::parse(name);
    // float32 -> t: the kernel's codes are those encodeMiniFloat / setDouble give.
    auto to = lower("x: " + shape + "\"float32\")", std::string("            gv = R.astype(x, \"") + name + "\")\n");
    REQUIRE(to.size() == 1);
    auto out = make<NDArray>(t, std::vector<int64_t>{n});
    CHECK(sameBits(to[0], {probe, out}) == "");
    REQUIRE(runPrimFunc(*to[0], {probe, out}).ok());
    for (int64_t k = 0; k < n; ++k) {
      auto one = make<NDArray>(t, std::vector<int64_t>{1});
      double v = probe->getDouble(k);
      if (t.isFloat()) one->setDouble(0, v);
      else one->setInt(0, saturatingInt(v));
      INFO("element " << k << " = " << v);
      CHECK(out->as<uint8_t>()[k] == one->as<uint8_t>()[0]);
    }
    // t -> float32 and t -> float16, from every code of t.
    for (const char* back : {"float32", "float16"}) {
      auto from = lower("x: R.Tensor((256,), \"" + std::string(name) + "\")", std::string("            gv = R.astype(x, \"") + back + "\")\n");
      REQUIRE(from.size() == 1);
      auto in = make<NDArray>(t, std::vector<int64_t>{256});
      for (int c = 0; c < 256; ++c) in->as<uint8_t>()[c] = uint8_t(t.bits < 8 ? c & ((1 << t.bits) - 1) : c);
      CHECK(sameBits(from[0], {in, make<NDArray>(*DataType::parse(back), std::vector<int64_t>{256})}) == "");
    }
  }
}

TEST_CASE("arithmetic in a float8 dtype rounds each result", "[minifloat][llvm]") {
  auto fs = lower("x: R.Tensor((256,), \"float8_e4m3fn\"), y: R.Tensor((256,), \"float8_e4m3fn\")", "            gv = R.multiply(R.add(x, y), x)\n");
  REQUIRE(fs.size() == 1);  // add and multiply fused into one kernel
  auto x = make<NDArray>(kE4M3FN, std::vector<int64_t>{256}), y = make<NDArray>(kE4M3FN, std::vector<int64_t>{256});
  for (int c = 0; c < 256; ++c) {
    x->as<uint8_t>()[c] = uint8_t(c);
    y->as<uint8_t>()[c] = uint8_t(c * 37 + 11);
  }
  auto out = make<NDArray>(kE4M3FN, std::vector<int64_t>{256});
  CHECK(sameBits(fs[0], {x, y, out}) == "");
  REQUIRE(runPrimFunc(*fs[0], {x, y, out}).ok());
  for (int c = 0; c < 256; ++c) {
    double sum = roundToMiniFloat(kE4M3FN, x->getDouble(c) + y->getDouble(c));
    double want = roundToMiniFloat(kE4M3FN, sum * x->getDouble(c));
    INFO("code " << c);
    if (std::isnan(want)) CHECK(std::isnan(out->getDouble(c)));
    else CHECK(out->getDouble(c) == want);
  }
}

TEST_CASE("narrow dtypes in .npy and safetensors files", "[minifloat]") {
  // float4: written as ml_dtypes saves it (a void byte, its code), taken as a float4 parameter.
  auto f4 = make<NDArray>(kE2M1, std::vector<int64_t>{3});
  for (int k = 0; k < 3; ++k) f4->as<uint8_t>()[k] = uint8_t(0x7 + k);  // 6, -0, -0.5
  std::string bytes = encodeNpy(*f4);
  CHECK(bytes.find("'descr': '|V1'") != std::string::npos);
  std::string dir = std::filesystem::temp_directory_path().string();
  std::string path = dir + "/rlx_minifloat_test_f4.npy";
  REQUIRE(writeNpy(path, *f4).ok());
  InputContext ctx;
  auto v = parseInput(path, make<Var>("x", tensorSInfo({intImm(3)}, kE2M1)), ctx);
  std::remove(path.c_str());
  REQUIRE(v.ok());
  CHECK(v->array->dtype == kE2M1);
  CHECK(v->array->sameData(*f4));
  // int4: int8 values on disk (sign-extended), in range when read for an int4 parameter.
  auto f8 = make<NDArray>(kE5M2, std::vector<int64_t>{3});
  for (int k = 0; k < 3; ++k) f8->as<uint8_t>()[k] = uint8_t(0x3c + k);
  auto i4 = make<NDArray>(*DataType::parse("int4"), std::vector<int64_t>{3});
  i4->setInt(0, -8);
  i4->setInt(1, 7);
  i4->setInt(2, -1);
  bytes = encodeNpy(*i4);
  CHECK(bytes.find("'descr': '|i1'") != std::string::npos);
  CHECK(bytes.substr(bytes.size() - 3) == std::string{'\xf8', '\x07', '\xff'});
  auto i8 = parseNpy(bytes, "i4.npy");
  REQUIRE(i8);
  CHECK((*i8)->dtype == DataType(DataType::Int, 8));
  auto i4back = narrowIntegers(*i8, i4->dtype);
  REQUIRE(i4back);
  CHECK((*i4back)->sameData(*i4));
  (*i8)->setInt(1, 8);
  auto outside = narrowIntegers(*i8, i4->dtype);
  REQUIRE(!outside);
  CHECK(outside.error().message == "element 1 is 8, outside int4's range [-8, 7]");
  // safetensors names three float8 types.
  path = dir + "/rlx_minifloat_test.safetensors";
  auto e4 = make<NDArray>(kE4M3FN, std::vector<int64_t>{2});
  e4->setDouble(0, 448);
  e4->setDouble(1, -0.5);
  REQUIRE(safetensors::write(path, {{"a", e4}, {"b", f8}}).ok());
  auto read = safetensors::read(path);
  REQUIRE(read);
  REQUIRE(read->size() == 2);
  CHECK((*read)[0].array->dtype == kE4M3FN);
  CHECK((*read)[0].array->sameData(*e4));
  CHECK((*read)[1].array->sameData(*f8));
  std::remove(path.c_str());
}
