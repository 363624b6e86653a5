// .npy reading and writing: raw-element files (numpy's 'V' dtypes, how ml_dtypes saves bfloat16
// and float8) round-trip and are taken as a parameter's declared dtype.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>

#include "runtime/inputs.h"
#include "runtime/npy.h"

using namespace rlx;

TEST_CASE("npy: a bfloat16 array is written as raw 2-byte elements and read back as the declared dtype", "[npy]") {
  auto a = make<NDArray>(DataType::parse("bfloat16").value(), std::vector<int64_t>{2});
  a->setDouble(0, 1.5);    // 0x3fc0
  a->setDouble(1, -2.25);  // 0xc010
  std::string bytes = encodeNpy(*a);
  CHECK(bytes.find("'descr': '|V2'") != std::string::npos);
  bool raw = false;
  auto back = parseNpy(bytes, "x.npy", &raw);
  REQUIRE(back.ok());
  CHECK(raw);
  CHECK((*back)->dtype == DataType(DataType::UInt, 16));
  CHECK((*back)->getInt(0) == 0x3fc0);
  CHECK((*back)->getInt(1) == 0xc010);

  std::string path = (std::filesystem::temp_directory_path() / "rlx_test_bf16.npy").string();
  REQUIRE(writeNpy(path, *a).ok());
  auto param = make<Var>("x", tensorSInfo({intImm(2)}, DataType::parse("bfloat16").value()));
  InputContext ctx;
  auto v = parseInput(path, param, ctx);
  std::remove(path.c_str());
  REQUIRE(v.ok());
  CHECK(v->array->dtype.str() == "bfloat16");
  CHECK(v->array->getDouble(0) == 1.5);
  CHECK(v->array->getDouble(1) == -2.25);
}

TEST_CASE("npy: raw elements of another width than the parameter's stay unsigned ints", "[npy]") {
  auto a = make<NDArray>(DataType(DataType::UInt, 8), std::vector<int64_t>{1});
  a->setInt(0, 7);
  std::string bytes = encodeNpy(*a);
  auto pos = bytes.find("|u1");
  REQUIRE(pos != std::string::npos);
  bytes.replace(pos, 3, "|V1");
  bool raw = false;
  auto back = parseNpy(bytes, "x.npy", &raw);
  REQUIRE(back.ok());
  CHECK(raw);
  CHECK((*back)->getInt(0) == 7);
  CHECK(!parseNpy(std::string(bytes).replace(bytes.find("|V1"), 3, "|V3"), "x.npy").ok());
}
