// ONNX model files whose initializers' raw_data the parser leaves in the file (read once, into the
// arrays): values, protobuf's merge rules (a repeated raw_data, a graph in two pieces), bad lengths.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "frontend/onnx/onnx.h"
#include "ir/eval_function.h"
#include "onnx_model_util.h"

using namespace rlx;
using namespace rlx::test;

namespace {

// A TensorProto named `name` of `dims` and element type `elemType` (TensorProto.DataType), then
// `data`: its data fields, already tagged.
std::string tensor(const std::string& name, std::vector<int64_t> dims, int elemType, const std::string& data) {
  std::string t;
  for (int64_t d : dims) t += intField(1, d);
  return t + intField(2, elemType) + bytesField(8, name) + data;
}

std::string floatBytes(std::vector<float> values) { return std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4); }

// A model computing y = Cast<float>(w) of initializer `w` (a TensorProto given on the wire): the
// graph's fields, with `initializerGraph` a second graph field holding the initializer when given
// (protobuf merges the two).
std::string castModel(const std::string& w, int64_t n, bool initializerInSecondGraph = false) {
  std::string node = bytesField(1, "w") + bytesField(2, "y") + bytesField(4, "Cast") + bytesField(5, intAttr("to", 1));
  std::string graph = bytesField(1, node) + bytesField(2, "g") + bytesField(12, valueInfo({"y", 1, {n}}));
  std::string model = intField(1, 10) + bytesField(8, intField(2, 21));
  if (initializerInSecondGraph) return model + bytesField(7, graph) + bytesField(7, bytesField(5, w));
  return model + bytesField(7, graph + bytesField(5, w));
}

std::string writeFile(const std::string& bytes) {
  char path[] = "/tmp/rlx_model_file_XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

Result<IRModuleRef> importFile(const std::string& bytes) {
  std::string path = writeFile(bytes);
  auto mod = onnx::fromOnnxFile(path);
  std::remove(path.c_str());
  return mod;
}

std::vector<double> run(const IRModuleRef& mod) {
  auto out = evaluateFunction(*mod, "main", {});
  INFO((out ? "" : out.error().message));
  REQUIRE(out);
  REQUIRE(out->kind == Value::Tensor);
  std::vector<double> v;
  for (int64_t i = 0; i < out->tensor->numel(); ++i) v.push_back(out->tensor->getDouble(i));
  return v;
}

}  // namespace

TEST_CASE("onnx model file: raw_data initializers read from the file match the in-memory import") {
  std::string model = castModel(tensor("w", {3}, 1, bytesField(9, floatBytes({1.5f, -2.0f, 0.25f}))), 3);
  auto fromFile = importFile(model);
  INFO((fromFile ? "" : fromFile.error().message));
  REQUIRE(fromFile);
  CHECK(run(*fromFile) == std::vector<double>{1.5, -2.0, 0.25});
  auto fromBytes = onnx::fromOnnxBytes(model, "test.onnx", ".");
  REQUIRE(fromBytes);
  CHECK(run(*fromBytes) == run(*fromFile));
}

TEST_CASE("onnx model file: int4 raw_data, two a byte, unpacked from the file") {
  // INT4 (22): 3, -1, 7, -8 packed low nibble first: 0xf3, 0x87.
  std::string model = castModel(tensor("w", {4}, 22, bytesField(9, std::string{'\xf3', '\x87'})), 4);
  auto mod = importFile(model);
  INFO((mod ? "" : mod.error().message));
  REQUIRE(mod);
  CHECK(run(*mod) == std::vector<double>{3, -1, 7, -8});
}

TEST_CASE("onnx model file: protobuf's merge rules hold (the last raw_data wins; a graph in two fields)") {
  std::string twice = bytesField(9, floatBytes({9, 9})) + bytesField(9, floatBytes({4, 5}));
  auto mod = importFile(castModel(tensor("w", {2}, 1, twice), 2));
  INFO((mod ? "" : mod.error().message));
  REQUIRE(mod);
  CHECK(run(*mod) == std::vector<double>{4, 5});
  auto split = importFile(castModel(tensor("w", {2}, 1, bytesField(9, floatBytes({6, 7}))), 2, /*initializerInSecondGraph=*/true));
  INFO((split ? "" : split.error().message));
  REQUIRE(split);
  CHECK(run(*split) == std::vector<double>{6, 7});
}

TEST_CASE("onnx model file: raw_data of the wrong length and a file cut inside it are located errors") {
  auto shortData = importFile(castModel(tensor("w", {3}, 1, bytesField(9, floatBytes({1, 2}))), 3));
  REQUIRE_FALSE(shortData);
  CHECK_THAT(shortData.error().message, Catch::Contains("tensor 'w': raw_data holds 8 bytes but the shape and type need 12"));
  std::string model = castModel(tensor("w", {3}, 1, bytesField(9, floatBytes({1, 2, 3}))), 3);
  auto cut = importFile(model.substr(0, model.size() - 5));
  REQUIRE_FALSE(cut);
  CHECK_THAT(cut.error().message, Catch::Contains("not a valid ONNX model (the encoding breaks at byte"));
}
