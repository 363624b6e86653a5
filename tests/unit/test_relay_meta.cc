// The Relay `#[metadata]` reader (readMetaJson/readMetaFile): TVM's printed tables (the spec's two
// constants, the LSTM zoo file's BoxInts, VirtualDevices) decoded to hand-checked values, and every
// kind of bad input refused with an error that names its JSON path and points at its line.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/relay/base64_ndarray.h"
#include "frontend/relay/json_path.h"
#include "frontend/relay/relay.h"

using namespace rlx;
using namespace rlx::relay;

namespace {

// A node graph laid out one node per line, as TVM prints it (so each node has its own line).
std::string graph(const std::vector<std::string>& nodes, const std::vector<std::string>& arrays = {}, int root = 1) {
  std::string s = "{\n  \"root\": " + std::to_string(root) + ",\n  \"nodes\": [\n";
  for (size_t i = 0; i < nodes.size(); ++i) s += "    " + nodes[i] + (i + 1 < nodes.size() ? ",\n" : "\n");
  s += "  ],\n  \"b64ndarrays\": [\n";
  for (size_t i = 0; i < arrays.size(); ++i) s += "    \"" + arrays[i] + (i + 1 < arrays.size() ? "\",\n" : "\"\n");
  return s + "  ],\n  \"attrs\": {\"tvm_version\": \"0.19.0\"}\n}";
}

// The two b64ndarrays of spec §1.5 example 6, decoded by hand (all little-endian):
//   3FA1B496F0405EDD magic | 0 reserved | 01000000 00000000 cpu:0 | 01000000 ndim 1
//   02 20 0100 float, 32 bits, 1 lane | 03.. shape [3] | 0C.. nbytes 12
//   0000803F 00000040 00004040 = 1.0f 2.0f 3.0f
const char* kFloat123 = "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQADAAAAAAAAAAwAAAAAAAAAAACAPwAAAEAAAEBA";
//   ... | 00000000 ndim 0 | 00 08 0100 int8 | nbytes 1 | 05
const char* kInt8Five = "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAAAAAAAIAQABAAAAAAAAAAU=";

// The rest of example 6's graph: two relay.Constants with their types and virtual devices.
std::vector<std::string> example6Nodes() {
  return {
      R"({"type_key": ""})",
      R"({"type_key": "Map", "keys": ["relay.Constant"], "data": [2]})",
      R"({"type_key": "Array", "data": [3, 9]})",
      R"({"type_key": "relay.Constant", "attrs": {"_checked_type_": "6", "data": "0", "span": "0", "virtual_device_": "4"}})",
      R"({"type_key": "VirtualDevice", "attrs": {"device_type_int": "-1", "memory_scope": "5", "target": "null", "virtual_device_id": "-1"}})",
      R"({"type_key": "runtime.String"})",
      R"({"type_key": "relay.TensorType", "attrs": {"dtype": "float32", "shape": "7", "span": "0"}})",
      R"({"type_key": "Array", "data": [8]})",
      R"({"type_key": "IntImm", "attrs": {"dtype": "int32", "span": "0", "value": "3"}})",
      R"({"type_key": "relay.Constant", "attrs": {"_checked_type_": "10", "data": "1", "span": "0", "virtual_device_": "4"}})",
      R"({"type_key": "relay.TensorType", "attrs": {"dtype": "int8", "shape": "11", "span": "0"}})",
      R"({"type_key": "Array"})",
  };
}

std::string base64(const std::string& bytes) {
  static const char* abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = uint32_t(uint8_t(bytes[i])) << 16;
    if (i + 1 < bytes.size()) v |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size()) v |= uint8_t(bytes[i + 2]);
    out += abc[v >> 18 & 63];
    out += abc[v >> 12 & 63];
    out += i + 1 < bytes.size() ? abc[v >> 6 & 63] : '=';
    out += i + 2 < bytes.size() ? abc[v & 63] : '=';
  }
  return out;
}

void put(std::string& s, uint64_t v, int width) {
  for (int i = 0; i < width; ++i) s += char(v >> (8 * i));
}

// A saved TVM NDArray with the given header fields; `data` follows as given.
std::string tvmArray(std::vector<int64_t> shape, uint8_t code, uint8_t bits, int64_t nbytes, const std::string& data,
                     uint64_t magic = 0xDD5E40F096B4A13FULL, std::optional<int32_t> ndim = {}) {
  std::string s;
  put(s, magic, 8);
  put(s, 0, 8);
  put(s, 1, 4);
  put(s, 0, 4);
  put(s, uint32_t(ndim ? *ndim : int32_t(shape.size())), 4);
  put(s, code, 1);
  put(s, bits, 1);
  put(s, 1, 2);
  for (auto d : shape) put(s, uint64_t(d), 8);
  put(s, uint64_t(nbytes), 8);
  return s + data;
}

// One relay.Constant table whose only array is `b64`.
std::string constantTable(const std::string& b64) {
  return graph({R"({"type_key": ""})", R"({"type_key": "Map", "keys": ["relay.Constant"], "data": [2]})",
                R"({"type_key": "Array", "data": [3]})", R"({"type_key": "relay.Constant", "attrs": {"data": "0"}})"},
               {b64});
}

uint32_t lineOf(const std::string& text, const std::string& marker) {
  size_t p = text.find(marker);
  REQUIRE(p != std::string::npos);
  return uint32_t(std::count(text.begin(), text.begin() + long(p), '\n')) + 1;
}
uint32_t colOf(const std::string& text, const std::string& marker) {
  size_t p = text.find(marker);
  REQUIRE(p != std::string::npos);
  size_t lineStart = text.rfind('\n', p);
  return uint32_t(p - (lineStart == std::string::npos ? 0 : lineStart + 1)) + 1;
}

// Reads `json` as the metadata section of a registered file and returns the error it must give,
// checking it is located (a span inside the file).
Error metaError(const std::string& json) {
  std::string text = "#[metadata]\n" + json;
  uint32_t file = sources::add("bad.relay", text);
  auto t = readMetaJson(std::string_view(sources::text(file)).substr(12), file, 12);
  REQUIRE_FALSE(t.ok());
  INFO(t.error().message);
  CHECK(t.error().message.rfind("metadata: ", 0) == 0);
  CHECK(t.error().span.file == file);
  CHECK(t.error().span.line >= 1);
  return t.error();
}

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("relay meta: base64", "[relay]") {
  CHECK(*decodeBase64("TWFu") == "Man");
  CHECK(*decodeBase64("TWE=") == "Ma");
  CHECK(*decodeBase64("TQ==") == "M");
  CHECK(*decodeBase64("TQ") == "M");  // padding is optional
  CHECK(*decodeBase64("TW\nFu") == "Man");
  CHECK(*decodeBase64("") == "");
  CHECK(decodeBase64("T").error().message == "base64 text ends in the middle of a byte");
  CHECK(decodeBase64("TW!u").error().message == "invalid base64 character at position 2");
  CHECK(decodeBase64("TQ==TWFu").error().message == "base64 data after '=' padding at position 4");
  CHECK(decodeBase64("TWE==").error().message == "wrong base64 '=' padding");
}

TEST_CASE("relay meta: the spec's two constants (float32 [1, 2, 3], int8 5)", "[relay]") {
  std::string json = graph(example6Nodes(), {kFloat123, kInt8Five});
  auto t = readMetaJson(json);
  INFO((t ? "" : t.error().message));
  REQUIRE(t);
  REQUIRE(t->size() == 1);
  auto& cs = t->at("relay.Constant");
  REQUIRE(cs.size() == 2);
  CHECK(cs[0].kind == MetaValue::Constant);
  CHECK(cs[0].typeKey == "relay.Constant");
  auto& a = *cs[0].array;
  CHECK(a.dtype == DataType::float32());
  CHECK(a.shape == std::vector<int64_t>{3});
  CHECK(a.as<float>()[0] == 1.0f);
  CHECK(a.as<float>()[1] == 2.0f);
  CHECK(a.as<float>()[2] == 3.0f);
  auto& b = *cs[1].array;
  CHECK(b.dtype == DataType(DataType::Int, 8));
  CHECK(b.shape.empty());
  CHECK(b.as<int8_t>()[0] == 5);
}

TEST_CASE("relay meta: two constants sharing one array share the NDArray", "[relay]") {
  auto nodes = example6Nodes();
  nodes[9] = R"({"type_key": "relay.Constant", "attrs": {"data": "0"}})";
  auto t = readMetaJson(graph(nodes, {kFloat123, kInt8Five}));
  REQUIRE(t);
  auto& cs = t->at("relay.Constant");
  CHECK(cs[0].array.get() == cs[1].array.get());
}

TEST_CASE("relay meta: the LSTM zoo file's BoxInt table", "[relay]") {
  // Verbatim from relay-corpus/zoo/lstm_i2_h8.relay (TVM v0.19.0's printer).
  const char* json = R"({
  "root": 1, 
  "nodes": [
    {
      "type_key": ""
    }, 
    {
      "type_key": "Map", 
      "keys": [
        "runtime.BoxInt"
      ], 
      "data": [2]
    }, 
    {
      "type_key": "Array", 
      "data": [3, 4]
    }, 
    {
      "type_key": "runtime.BoxInt", 
      "repr_str": "4"
    }, 
    {
      "type_key": "runtime.BoxInt", 
      "repr_str": "4"
    }
  ], 
  "b64ndarrays": [], 
  "attrs": {"tvm_version": "0.19.0"}
})";
  auto t = readMetaJson(json);
  REQUIRE(t);
  auto& v = t->at("runtime.BoxInt");
  REQUIRE(v.size() == 2);
  for (auto& e : v) {
    CHECK(e.kind == MetaValue::Int);
    CHECK(e.value == 4);
    CHECK(e.dtype.empty());
  }

  // The file itself, when the corpus is around: the section read in place, from its offset.
  std::string path = "/work/shared/relay-corpus/zoo/lstm_i2_h8.relay";
  if (std::filesystem::exists(path)) {
    std::string text = readText(path);
    size_t at = text.find("#[metadata]");
    REQUIRE(at != std::string::npos);
    uint32_t file = sources::add(path, text);
    uint32_t offset = uint32_t(at + std::strlen("#[metadata]"));
    auto f = readMetaJson(std::string_view(sources::text(file)).substr(offset), file, offset);
    REQUIRE(f);
    REQUIRE(f->at("runtime.BoxInt").size() == 2);
    CHECK(f->at("runtime.BoxInt")[1].value == 4);
  }
}

TEST_CASE("relay meta: VirtualDevice entries", "[relay]") {
  // What SaveJSON writes for [VirtualDevice(cpu, 0, Target("llvm"), "global"), VirtualDevice(cuda)]:
  // the Target's kind is a TargetKind saved as its name, the memory scope a runtime.String.
  std::string json = graph({
      R"({"type_key": ""})",
      R"({"type_key": "Map", "keys": ["VirtualDevice"], "data": [2]})",
      R"({"type_key": "Array", "data": [3, 10]})",
      R"({"type_key": "VirtualDevice", "attrs": {"device_type_int": "1", "memory_scope": "4", "target": "5", "virtual_device_id": "0"}})",
      R"({"type_key": "runtime.String", "repr_str": "global"})",
      R"({"type_key": "Target", "attrs": {"attrs": "7", "features": "7", "host": "null", "keys": "8", "kind": "6", "tag": "11"}})",
      R"({"type_key": "TargetKind", "repr_str": "llvm"})",
      R"({"type_key": "Map"})",
      R"({"type_key": "Array", "data": [9]})",
      R"({"type_key": "runtime.String", "repr_str": "cpu"})",
      R"({"type_key": "VirtualDevice", "attrs": {"device_type_int": "2", "memory_scope": "11", "target": "null", "virtual_device_id": "-1"}})",
      R"({"type_key": "runtime.String"})",
  });
  auto t = readMetaJson(json);
  INFO((t ? "" : t.error().message));
  REQUIRE(t);
  auto& v = t->at("VirtualDevice");
  REQUIRE(v.size() == 2);
  CHECK(v[0].kind == MetaValue::VirtualDevice);
  CHECK(v[0].deviceType == 1);
  CHECK(v[0].virtualDeviceId == 0);
  CHECK(v[0].target == "llvm");
  CHECK(v[0].memoryScope == "global");
  CHECK(v[1].deviceType == 2);
  CHECK(v[1].virtualDeviceId == -1);
  CHECK(v[1].target.empty());
  CHECK(v[1].memoryScope.empty());
}

TEST_CASE("relay meta: numbers, and kinds kept as Other", "[relay]") {
  std::string json = graph({
      R"({"type_key": ""})",
      R"({"type_key": "Map", "keys": ["IntImm", "runtime.BoxFloat", "runtime.BoxBool", "FloatImm", "relay.attrs.Conv2DAttrs"], "data": [2, 4, 6, 8, 10]})",
      R"({"type_key": "Array", "data": [3]})",
      R"({"type_key": "IntImm", "attrs": {"dtype": "int64", "span": "0", "value": "-7"}})",
      R"({"type_key": "Array", "data": [5]})",
      R"({"type_key": "runtime.BoxFloat", "repr_str": "0.25"})",
      R"({"type_key": "Array", "data": [7]})",
      R"({"type_key": "runtime.BoxBool", "repr_str": "1"})",
      R"({"type_key": "Array", "data": [9]})",
      R"({"type_key": "FloatImm", "attrs": {"dtype": "float32", "span": "0", "value": "1.5"}})",
      R"({"type_key": "Array", "data": [11]})",
      R"({"type_key": "relay.attrs.Conv2DAttrs", "attrs": {"channels": "null"}})",
  });
  auto t = readMetaJson(json);
  INFO((t ? "" : t.error().message));
  REQUIRE(t);
  auto& i = t->at("IntImm")[0];
  CHECK(i.kind == MetaValue::Int);
  CHECK(i.value == -7);
  CHECK(i.dtype == "int64");
  auto& f = t->at("runtime.BoxFloat")[0];
  CHECK(f.kind == MetaValue::Float);
  CHECK(f.f == 0.25);
  CHECK(t->at("runtime.BoxBool")[0].kind == MetaValue::Int);
  CHECK(t->at("runtime.BoxBool")[0].value == 1);
  auto& g = t->at("FloatImm")[0];
  CHECK(g.kind == MetaValue::Float);
  CHECK(g.f == 1.5);
  CHECK(g.dtype == "float32");
  auto& o = t->at("relay.attrs.Conv2DAttrs")[0];
  CHECK(o.kind == MetaValue::Other);
  CHECK(o.typeKey == "relay.attrs.Conv2DAttrs");
}

TEST_CASE("relay meta: shape variables (tir.SizeVar, tir.Var)", "[relay]") {
  // What TVM v0.19 prints for `te.size_var("n")` in a parameter's shape: the name is a
  // runtime.String node; older TVMs stored it as the attribute's text.
  std::string json = graph({
      R"({"type_key": ""})",
      R"({"type_key": "Map", "keys": ["tir.SizeVar", "tir.Var"], "data": [2, 6]})",
      R"({"type_key": "Array", "data": [3]})",
      R"({"type_key": "tir.SizeVar", "attrs": {"dtype": "int32", "name": "4", "span": "0", "type_annotation": "5"}})",
      R"({"type_key": "runtime.String", "repr_str": "batch"})",
      R"({"type_key": "PrimType", "attrs": {"dtype": "int32", "span": "0"}})",
      R"({"type_key": "Array", "data": [7]})",
      R"({"type_key": "tir.Var", "attrs": {"dtype": "int64", "name": "seq_len", "span": "0", "type_annotation": "0"}})",
  });
  auto t = readMetaJson(json);
  INFO((t ? "" : t.error().message));
  REQUIRE(t);
  auto& n = t->at("tir.SizeVar")[0];
  CHECK(n.kind == MetaValue::SymVar);
  CHECK(n.name == "batch");
  CHECK(n.dtype == "int32");
  auto& v = t->at("tir.Var")[0];
  CHECK(v.kind == MetaValue::SymVar);
  CHECK(v.name == "seq_len");
  CHECK(v.dtype == "int64");
  // A name that points at something other than a string is refused, located.
  std::string bad = graph({
      R"({"type_key": ""})",
      R"({"type_key": "Map", "keys": ["tir.SizeVar"], "data": [2]})",
      R"({"type_key": "Array", "data": [3]})",
      R"({"type_key": "tir.SizeVar", "attrs": {"dtype": "int32", "name": "2", "span": "0"}})",
  });
  auto b = readMetaJson(bad);
  REQUIRE_FALSE(b);
  CHECK(b.error().message.find("expected a runtime.String") != std::string::npos);
}

TEST_CASE("relay meta: an empty Map is an empty table", "[relay]") {
  auto t = readMetaJson(R"({"root": 1, "nodes": [{"type_key": ""}, {"type_key": "Map"}], "b64ndarrays": []})");
  REQUIRE(t);
  CHECK(t->empty());
}

TEST_CASE("relay meta: NDArray headers are checked", "[relay]") {
  std::string f32x3("\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40", 12);
  auto ok = decodeTvmNDArray(tvmArray({3}, 2, 32, 12, f32x3));
  REQUIRE(ok);
  CHECK((*ok)->as<float>()[2] == 3.0f);
  // bool is uint1, a byte per element, read back as 0/1.
  auto flags = decodeTvmNDArray(tvmArray({2}, 1, 1, 2, std::string("\x00\x07", 2)));
  REQUIRE(flags);
  CHECK((*flags)->dtype == DataType::boolean());
  CHECK((*flags)->as<uint8_t>()[1] == 1);

  auto err = [](const std::string& bytes) { return decodeTvmNDArray(bytes).error().message; };
  CHECK(err(tvmArray({3}, 2, 32, 12, f32x3, 0x1122334455667788ULL)) ==
        "not a TVM NDArray: magic number 0x1122334455667788, expected 0xDD5E40F096B4A13F");
  CHECK(err(tvmArray({3}, 2, 32, 8, f32x3)) == "nbytes is 8 but 3 elements of float32 take 12");
  CHECK(err(tvmArray({3}, 2, 32, 12, f32x3.substr(0, 9))) == "truncated: the data needs 12 bytes, 9 left");
  CHECK(err(tvmArray({3}, 2, 32, 12, f32x3 + "x")) == "1 bytes after the data");
  CHECK(err(tvmArray({-1}, 2, 32, 12, f32x3)) == "shape[0] is negative (-1)");
  CHECK(err(tvmArray({1 << 30, 1 << 30}, 2, 32, 0, "")) == "the shape has more than 2^46 elements");
  CHECK(err(tvmArray({3}, 2, 32, 12, f32x3, 0xDD5E40F096B4A13FULL, 1000000)) ==
        "truncated: ndim 1000000 needs 8000000 bytes of shape, 28 left");
  CHECK(err(tvmArray({3}, 2, 32, 12, f32x3, 0xDD5E40F096B4A13FULL, -2)) == "negative ndim -2");
  CHECK(err(tvmArray({3}, 5, 64, 48, "")) == "unsupported element type (code 5, 64 bits)");
  CHECK(err(tvmArray({3}, 2, 12, 6, "")) == "unsupported element type (code 2, 12 bits)");
  CHECK(err(std::string("\x3f\xa1\xb4", 3)) == "truncated: the magic number at byte 0 needs 8 bytes, 3 left");
  CHECK(err(tvmArray({3}, 2, 32, 12, f32x3).substr(0, 30)) == "truncated: the type lanes at byte 30 needs 2 bytes, 0 left");
}

TEST_CASE("relay meta: bad sections give located errors", "[relay]") {
  SECTION("bad magic") {
    std::string b64 = kFloat123;
    b64[0] = 'A';
    std::string json = constantTable(b64);
    auto e = metaError(json);
    CHECK(e.message == "metadata: b64ndarrays[0] (meta[relay.Constant][0]): not a TVM NDArray: magic number 0xDD5E40F096B4A103, "
                       "expected 0xDD5E40F096B4A13F");
    CHECK(e.span.line == lineOf("#[metadata]\n" + json, "\"A6G0"));
    CHECK(e.span.col == 5);
    // The rendered diagnostic shows the offending line of the file.
    CHECK(renderError(e).find("    \"A6G0lvBAXt0") != std::string::npos);
  }
  SECTION("truncated") {
    std::string b64 = kFloat123;
    auto e = metaError(constantTable(b64.substr(0, b64.size() - 4)));
    CHECK(e.message == "metadata: b64ndarrays[0] (meta[relay.Constant][0]): truncated: the data needs 12 bytes, 9 left");
  }
  SECTION("nbytes mismatch") {
    auto e = metaError(constantTable(base64(tvmArray({2, 2}, 2, 32, 12, std::string(12, '\0')))));
    CHECK(e.message == "metadata: b64ndarrays[0] (meta[relay.Constant][0]): nbytes is 12 but 4 elements of float32 take 16");
  }
  SECTION("a data index out of range") {
    auto nodes = example6Nodes();
    nodes[2] = R"({"type_key": "Array", "data": [3, 99]})";
    std::string json = graph(nodes, {kFloat123, kInt8Five});
    auto e = metaError(json);
    CHECK(e.message == "metadata: nodes[2].data[1]: not a node index (there are 12 nodes)");
    CHECK(e.span.line == lineOf("#[metadata]\n" + json, "[3, 99]"));
    CHECK(e.span.col == colOf("#[metadata]\n" + json, "99]"));
    CHECK(e.span.len == 2);
  }
  SECTION("an array index out of range") {
    auto nodes = example6Nodes();
    nodes[9] = R"({"type_key": "relay.Constant", "attrs": {"data": "2"}})";
    std::string json = graph(nodes, {kFloat123, kInt8Five});
    auto e = metaError(json);
    CHECK(e.message == "metadata: nodes[9].attrs.data (meta[relay.Constant][1]): \"2\" is not an index into b64ndarrays (there are 2)");
    CHECK(e.span.line == lineOf("#[metadata]\n" + json, "{\"data\": \"2\"}"));
  }
  SECTION("a cycle") {
    auto nodes = example6Nodes();
    nodes[2] = R"({"type_key": "Array", "data": [3, 9, 7]})";
    nodes[7] = R"({"type_key": "Array", "data": [8, 2]})";
    auto e = metaError(graph(nodes, {kFloat123, kInt8Five}));
    CHECK(e.message == "metadata: nodes[7].data[1]: refers back to nodes[2], making a cycle");
  }
  SECTION("not JSON") {
    std::string json = "{\n  \"root\": 1,\n  \"nodes\": [}\n";
    auto e = metaError(json);
    CHECK(e.message == "metadata: malformed JSON at byte 27: syntax error while parsing value - unexpected '}'; expected '[', '{', or a literal");
    CHECK(e.span.line == 4);
    CHECK(e.span.col == 13);
  }
  SECTION("JSON cut short") {
    auto e = metaError("{\"root\": 1, \"nodes\": [");
    CHECK(e.message.rfind("metadata: malformed JSON at byte 22: syntax error while parsing value - unexpected end of input", 0) == 0);
    CHECK(e.span.line == 2);
  }
  SECTION("deep nesting") {
    // 200000 levels: neither the parser, the checks nor the error locator may recurse that deep.
    auto e = metaError("{\"root\": 0, \"nodes\": [" + std::string(200000, '[') + std::string(200000, ']') + "]}");
    CHECK(e.message == "metadata: nodes[0]: expected a node object");
    CHECK(e.span.col == 23);
  }
  SECTION("an empty section") {
    auto e = metaError("\n\n");
    CHECK(e.message.rfind("metadata: the section is empty", 0) == 0);
    CHECK(readMetaJson("").error().message.rfind("metadata: the section is empty", 0) == 0);
  }
  SECTION("the root is no Map") {
    auto e = metaError(graph({R"({"type_key": ""})", R"({"type_key": "Array"})"}));
    CHECK(e.message == "metadata: root: the root must be a Map, nodes[1] (Array) is not");
    CHECK(e.span.line == 3);
  }
  SECTION("a table entry that is no Array") {
    auto e = metaError(graph({R"({"type_key": ""})", R"({"type_key": "Map", "keys": ["runtime.BoxInt"], "data": [0]})"}));
    CHECK(e.message == "metadata: nodes[1].data[0]: meta[runtime.BoxInt] must be an Array, nodes[0] (null) is not");
  }
  SECTION("a bad BoxInt") {
    auto e = metaError(graph({R"({"type_key": ""})", R"({"type_key": "Map", "keys": ["runtime.BoxInt"], "data": [2]})",
                              R"({"type_key": "Array", "data": [3]})", R"({"type_key": "runtime.BoxInt", "repr_str": "4x"})"}));
    CHECK(e.message == "metadata: nodes[3] (meta[runtime.BoxInt][0]): a runtime.BoxInt holding \"4x\", not an integer");
  }
  SECTION("a VirtualDevice without its attributes") {
    auto e = metaError(graph({R"({"type_key": ""})", R"({"type_key": "Map", "keys": ["VirtualDevice"], "data": [2]})",
                              R"({"type_key": "Array", "data": [3]})", R"({"type_key": "VirtualDevice", "attrs": {"device_type_int": "1"}})"}));
    CHECK(e.message == "metadata: nodes[3].attrs (meta[VirtualDevice][0]): a VirtualDevice needs the attribute 'virtual_device_id'");
  }
  SECTION("an attribute that is not a string") {
    auto e = metaError(graph({R"({"type_key": ""})", R"({"type_key": "Map", "keys": ["IntImm"], "data": [2]})",
                              R"({"type_key": "Array", "data": [3]})", R"({"type_key": "IntImm", "attrs": {"dtype": "int32", "value": 3}})"}));
    CHECK(e.message == "metadata: nodes[3].attrs.value: expected a string (TVM writes every attribute as one)");
  }
  SECTION("no nodes") {
    auto e = metaError(R"({"root": 0})");
    CHECK(e.message == "metadata: expected a \"nodes\" array");
  }
}

TEST_CASE("relay meta: readMetaFile", "[relay]") {
  auto missing = readMetaFile("/nonexistent/table.json");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message == "cannot open meta table file '/nonexistent/table.json': No such file or directory");

  auto dir = std::filesystem::temp_directory_path();
  std::string good = (dir / ("rlx_meta_good_" + std::to_string(::getpid()) + ".json")).string();
  std::string bad = (dir / ("rlx_meta_bad_" + std::to_string(::getpid()) + ".json")).string();
  std::ofstream(good) << graph(example6Nodes(), {kFloat123, kInt8Five});
  std::ofstream(bad) << constantTable("P6G0");
  auto t = readMetaFile(good);
  REQUIRE(t);
  CHECK(t->at("relay.Constant")[1].array->as<int8_t>()[0] == 5);
  auto e = readMetaFile(bad);
  REQUIRE_FALSE(e);
  CHECK(e.error().message == "metadata: b64ndarrays[0] (meta[relay.Constant][0]): truncated: the magic number at byte 0 needs 8 bytes, 3 left");
  CHECK(sources::name(e.error().span.file) == bad);
  CHECK(e.error().span.line == lineOf(constantTable("P6G0"), "\"P6G0"));
  CHECK(e.error().span.col == 5);
  std::filesystem::remove(good);
  std::filesystem::remove(bad);
}

TEST_CASE("relay meta: locateJson", "[relay]") {
  std::string text = R"({"a": [1, {"b": "xyz"}], "c": {"d": [ ]}})";
  auto loc = locateJson(text, JsonPath().key("a").index(1).key("b"));
  CHECK(text.substr(loc.offset, loc.length) == "\"xyz\"");
  loc = locateJson(text, JsonPath().key("a").index(0));
  CHECK(text.substr(loc.offset, loc.length) == "1");
  // A missing step locates the deepest value that exists.
  loc = locateJson(text, JsonPath().key("c").key("d").index(4));
  CHECK(text[loc.offset] == '[');
  CHECK(JsonPath().key("nodes").index(7).key("attrs").key("data").str() == "nodes[7].attrs.data");
}
