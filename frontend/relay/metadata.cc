// readMetaJson / readMetaFile: the `#[metadata]` section (TVM's SaveJSON of a Map<String,
// Array<Object>>) read into a MetaTable. The graph is validated as TVM's LoadJSON would (indices in
// range, no cycles), then each table entry is decoded by its type key; every error names its JSON
// path and points at it. nlohmann-json stays inside this file.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "frontend/relay/base64_ndarray.h"
#include "frontend/relay/json_path.h"
#include "frontend/relay/relay.h"

namespace rlx::relay {

namespace {

using json = nlohmann::json;

const JsonPath kNodes = JsonPath().key("nodes");

bool isIndex(const json& v) { return v.is_number_unsigned(); }

class MetaReader {
 public:
  MetaReader(std::string_view text, uint32_t file, uint32_t offset) : text_(text), file_(file), offset_(offset) {}

  Result<MetaTable> read() {
    if (text_.find_first_not_of(" \t\r\n") == std::string_view::npos)
      return fail({}, "the section is empty (expected TVM's node-graph JSON: {\"root\": ..., \"nodes\": [...], ...})");
    try {
      doc_ = json::parse(text_.begin(), text_.end());
    } catch (const json::parse_error& e) {
      return syntaxError(e);
    }
    RLX_TRY_STATUS(checkTop());
    RLX_TRY_STATUS(checkNodes());
    RLX_TRY_STATUS(checkAcyclic());
    return table();
  }

 private:
  std::string_view text_;
  uint32_t file_, offset_;
  json doc_;
  const json* nodes_ = nullptr;
  const json* arrays_ = nullptr;        // b64ndarrays, or null when absent
  std::map<size_t, NDArrayRef> decoded_;  // b64ndarrays index -> array (entries may share one)
  std::string entry_;                   // "meta[KEY][i]" while that entry is decoded

  Span spanOf(size_t pos, size_t len) const {
    if (!file_) return {};
    uint64_t at = uint64_t(offset_) + pos;
    return sources::spanAt(file_, uint32_t(std::min<uint64_t>(at, UINT32_MAX)), uint32_t(std::min<size_t>(len, 1u << 16)));
  }

  Error fail(const JsonPath& at, const std::string& msg) const {
    std::string where = at.str();
    if (!entry_.empty()) where += where.empty() ? entry_ : " (" + entry_ + ")";
    Error e("metadata: " + (where.empty() ? "" : where + ": ") + msg);
    if (file_) {
      auto loc = locateJson(text_, at);
      e.span = spanOf(loc.offset, loc.length);
    }
    return e;
  }

  Error syntaxError(const json::parse_error& e) const {
    // nlohmann says "[json.exception.parse_error.101] parse error at line 1, column 5: <why>"; the
    // line and column count from the JSON's start, so only <why> is kept and the span locates it.
    std::string why = e.what();
    if (auto p = why.find("parse error"); p != std::string::npos) {
      why = why.substr(p);
      if (auto colon = why.find(": "); colon != std::string::npos) why = why.substr(colon + 2);
    }
    size_t pos = std::min<size_t>(e.byte ? e.byte - 1 : 0, text_.size());
    Error err("metadata: malformed JSON at byte " + std::to_string(pos) + ": " + why);
    err.span = spanOf(pos, 1);
    return err;
  }

  // ---- the graph as TVM's LoadJSON requires it -------------------------------------------------
  Status checkTop() {
    if (!doc_.is_object()) return fail({}, "expected a JSON object with \"root\" and \"nodes\"");
    auto nodes = doc_.find("nodes");
    if (nodes == doc_.end() || !nodes->is_array()) return fail({}, "expected a \"nodes\" array");
    nodes_ = &*nodes;
    auto root = doc_.find("root");
    if (root == doc_.end()) return fail({}, "expected a \"root\" node index");
    if (!isIndex(*root) || root->get<uint64_t>() >= nodes_->size())
      return fail(JsonPath().key("root"), "not a node index (there are " + std::to_string(nodes_->size()) + " nodes)");
    auto arrays = doc_.find("b64ndarrays");
    if (arrays != doc_.end()) {
      if (!arrays->is_array()) return fail(JsonPath().key("b64ndarrays"), "expected an array of base64 strings");
      arrays_ = &*arrays;
    }
    return okStatus();
  }

  Status checkNodes() {
    size_t n = nodes_->size();
    for (size_t i = 0; i < n; ++i) {
      const json& node = (*nodes_)[i];
      JsonPath at = kNodes.index(i);
      if (!node.is_object()) return fail(at, "expected a node object");
      if (auto t = node.find("type_key"); t != node.end() && !t->is_string()) return fail(at.key("type_key"), "expected a string");
      for (const char* repr : {"repr_str", "repr_b64"})
        if (auto r = node.find(repr); r != node.end() && !r->is_string()) return fail(at.key(repr), "expected a string");
      if (auto attrs = node.find("attrs"); attrs != node.end()) {
        if (!attrs->is_object()) return fail(at.key("attrs"), "expected an object of strings");
        for (auto& [k, v] : attrs->items())
          if (!v.is_string()) return fail(at.key("attrs").key(k), "expected a string (TVM writes every attribute as one)");
      }
      size_t keys = 0;
      if (auto ks = node.find("keys"); ks != node.end()) {
        if (!ks->is_array()) return fail(at.key("keys"), "expected an array of strings");
        for (size_t k = 0; k < ks->size(); ++k)
          if (!(*ks)[k].is_string()) return fail(at.key("keys").index(k), "expected a string");
        keys = ks->size();
      }
      if (auto data = node.find("data"); data != node.end()) {
        if (!data->is_array()) return fail(at.key("data"), "expected an array of node indices");
        for (size_t k = 0; k < data->size(); ++k) {
          const json& d = (*data)[k];
          if (!isIndex(d) || d.get<uint64_t>() >= n)
            return fail(at.key("data").index(k), "not a node index (there are " + std::to_string(n) + " nodes)");
        }
        if (keys && keys != data->size())
          return fail(at.key("keys"), std::to_string(keys) + " keys for " + std::to_string(data->size()) + " values");
        if (!keys && data->size() % 2 && node.value("type_key", "") == "Map")
          return fail(at.key("data"), "a Map without keys holds key/value pairs, but there are " + std::to_string(data->size()) + " indices");
      } else if (keys) {
        return fail(at.key("keys"), std::to_string(keys) + " keys for 0 values");
      }
    }
    return okStatus();
  }

  // Containers refer to their elements by index; TVM refuses a graph where that makes a cycle.
  // Depth-first with an explicit stack (the graph may be deep), colouring nodes on the stack.
  Status checkAcyclic() {
    size_t n = nodes_->size();
    enum : uint8_t { New, OnStack, Done };
    std::vector<uint8_t> colour(n, New);
    std::vector<std::pair<size_t, size_t>> stack;  // node, next element of its data
    for (size_t start = 0; start < n; ++start) {
      if (colour[start] != New) continue;
      stack.push_back({start, 0});
      colour[start] = OnStack;
      while (!stack.empty()) {
        auto& [i, next] = stack.back();
        const json* data = dataOf(i);
        if (!data || next == data->size()) {
          colour[i] = Done;
          stack.pop_back();
          continue;
        }
        size_t k = next++;
        size_t j = size_t((*data)[k].get<uint64_t>());
        if (colour[j] == OnStack)
          return fail(kNodes.index(i).key("data").index(k), "refers back to nodes[" + std::to_string(j) + "], making a cycle");
        if (colour[j] == New) {
          colour[j] = OnStack;
          stack.push_back({j, 0});
        }
      }
    }
    return okStatus();
  }

  // ---- node accessors (after the checks above) -------------------------------------------------
  const json& nodeAt(size_t i) const { return (*nodes_)[i]; }
  const json* dataOf(size_t i) const {
    auto d = nodeAt(i).find("data");
    return d == nodeAt(i).end() ? nullptr : &*d;
  }
  std::string typeKey(size_t i) const {
    auto t = nodeAt(i).find("type_key");
    return t == nodeAt(i).end() ? "" : t->get<std::string>();
  }
  std::string describe(size_t i) const {
    std::string t = typeKey(i);
    return "nodes[" + std::to_string(i) + "] (" + (t.empty() ? "null" : t) + ")";
  }
  // The text an object with its own representation was saved as (repr_str, or repr_b64 decoded).
  Result<std::string> repr(size_t i) const {
    const json& node = nodeAt(i);
    if (auto s = node.find("repr_str"); s != node.end()) return s->get<std::string>();
    if (auto b = node.find("repr_b64"); b != node.end()) {
      auto bytes = decodeBase64(b->get<std::string>());
      if (!bytes) return fail(kNodes.index(i).key("repr_b64"), bytes.error().message);
      return std::move(*bytes);
    }
    return std::string();
  }
  Result<std::string> attr(size_t i, const char* name) const {
    const json& node = nodeAt(i);
    auto attrs = node.find("attrs");
    if (attrs == node.end() || !attrs->contains(name))
      return fail(kNodes.index(i).key("attrs"), std::string("a ") + typeKey(i) + " needs the attribute '" + name + "'");
    return (*attrs)[name].get<std::string>();
  }
  Result<int64_t> intAttr(size_t i, const char* name) const {
    RLX_TRY(s, attr(i, name));
    auto v = parseInt(s);
    if (!v) return fail(kNodes.index(i).key("attrs").key(name), "expected an integer, found \"" + s + "\"");
    return *v;
  }
  // An attribute referring to another node: its index, or nullopt for "null".
  Result<std::optional<size_t>> refAttr(size_t i, const char* name) const {
    RLX_TRY(s, attr(i, name));
    if (s == "null") return std::optional<size_t>();
    auto v = parseInt(s);
    if (!v || *v < 0 || uint64_t(*v) >= nodes_->size())
      return fail(kNodes.index(i).key("attrs").key(name), "\"" + s + "\" is not a node index (there are " + std::to_string(nodes_->size()) + " nodes)");
    return std::optional<size_t>(size_t(*v));
  }

  static std::optional<int64_t> parseInt(std::string_view s) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
  }
  static std::optional<double> parseFloat(std::string_view s) {
    if (s == "inf") return HUGE_VAL;
    if (s == "-inf") return -HUGE_VAL;
    double v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
  }

  // ---- the table -------------------------------------------------------------------------------
  Result<MetaTable> table() {
    size_t root = size_t((*doc_.find("root")).get<uint64_t>());
    JsonPath at = kNodes.index(root);
    if (typeKey(root) != "Map") return fail(JsonPath().key("root"), "the root must be a Map, " + describe(root) + " is not");
    const json& map = nodeAt(root);
    const json* data = dataOf(root);
    MetaTable table;
    if (!data || data->empty()) return table;  // an empty Map
    auto keys = map.find("keys");
    if (keys == map.end()) return fail(at, "the root Map's keys must be strings (type keys), as TVM's meta table has");
    for (size_t k = 0; k < data->size(); ++k) {
      std::string key = (*keys)[k].get<std::string>();
      size_t arr = size_t((*data)[k].get<uint64_t>());
      if (typeKey(arr) != "Array") return fail(at.key("data").index(k), "meta[" + key + "] must be an Array, " + describe(arr) + " is not");
      auto& values = table[key];
      values.clear();  // a repeated key replaces the earlier one, as Map.Set does
      const json* elems = dataOf(arr);
      for (size_t e = 0; elems && e < elems->size(); ++e) {
        entry_ = "meta[" + key + "][" + std::to_string(e) + "]";
        RLX_TRY(v, value(size_t((*elems)[e].get<uint64_t>())));
        values.push_back(std::move(v));
      }
      entry_.clear();
    }
    return table;
  }

  Result<MetaValue> value(size_t i) {
    MetaValue v;
    v.typeKey = typeKey(i);
    const std::string& t = v.typeKey;
    if (t == "relay.Constant") {
      v.kind = MetaValue::Constant;
      RLX_TRY(a, ndarray(i));
      v.array = std::move(a);
    } else if (t == "runtime.BoxInt" || t == "runtime.BoxBool") {
      v.kind = MetaValue::Int;
      RLX_TRY(s, repr(i));
      auto n = parseInt(s);
      if (!n && t == "runtime.BoxBool" && (s == "true" || s == "false")) n = s == "true";
      if (!n || (t == "runtime.BoxBool" && *n != 0 && *n != 1))
        return fail(kNodes.index(i), "a " + t + " holding \"" + s + "\", not " + (t == "runtime.BoxInt" ? "an integer" : "0 or 1"));
      v.value = *n;
    } else if (t == "runtime.BoxFloat") {
      v.kind = MetaValue::Float;
      RLX_TRY(s, repr(i));
      auto f = parseFloat(s);
      if (!f) return fail(kNodes.index(i), "a runtime.BoxFloat holding \"" + s + "\", not a number");
      v.f = *f;
    } else if (t == "IntImm") {
      v.kind = MetaValue::Int;
      RLX_TRY(dtype, attr(i, "dtype"));
      RLX_TRY(n, intAttr(i, "value"));
      v.dtype = dtype;
      v.value = n;
    } else if (t == "FloatImm") {
      v.kind = MetaValue::Float;
      RLX_TRY(dtype, attr(i, "dtype"));
      RLX_TRY(s, attr(i, "value"));
      auto f = parseFloat(s);
      if (!f) return fail(kNodes.index(i).key("attrs").key("value"), "expected a number, found \"" + s + "\"");
      v.dtype = dtype;
      v.f = *f;
    } else if (t == "VirtualDevice") {
      RLX_TRY_STATUS(virtualDevice(i, v));
    } else if (t == "tir.SizeVar" || t == "tir.Var") {
      RLX_TRY_STATUS(symVar(i, v));
    }
    return v;  // anything else stays Other: an error only if the program uses it
  }

  // relay.Constant: attrs.data is an index into b64ndarrays (not a node).
  Result<NDArrayRef> ndarray(size_t i) {
    JsonPath at = kNodes.index(i).key("attrs").key("data");
    RLX_TRY(s, attr(i, "data"));
    auto k = parseInt(s);
    size_t count = arrays_ ? arrays_->size() : 0;
    if (!k || *k < 0 || uint64_t(*k) >= count)
      return fail(at, "\"" + s + "\" is not an index into b64ndarrays (there are " + std::to_string(count) + ")");
    size_t index = size_t(*k);
    if (auto it = decoded_.find(index); it != decoded_.end()) return it->second;
    JsonPath arrayAt = JsonPath().key("b64ndarrays").index(index);
    const json& b64 = (*arrays_)[index];
    if (!b64.is_string()) return fail(arrayAt, "expected a base64 string");
    auto a = decodeBase64NDArray(b64.get_ref<const std::string&>());
    if (!a) return fail(arrayAt, a.error().message);
    decoded_[index] = *a;
    return std::move(*a);
  }

  // tir.SizeVar / tir.Var (a symbolic dimension): dtype and name, a runtime.String node (a plain
  // string in older TVMs).
  Status symVar(size_t i, MetaValue& v) {
    v.kind = MetaValue::SymVar;
    RLX_TRY(dtype, attr(i, "dtype"));
    v.dtype = dtype;
    RLX_TRY(name, attr(i, "name"));
    if (auto ref = parseInt(name)) {
      RLX_TRY(node, refAttr(i, "name"));
      if (!node || typeKey(*node) != "runtime.String")
        return fail(kNodes.index(i).key("attrs").key("name"), "expected a runtime.String" + (node ? ", " + describe(*node) + " is not" : ""));
      RLX_TRY(text, repr(*node));
      name = text;
    }
    v.name = name.empty() ? "n" : name;
    return okStatus();
  }

  // VirtualDevice: device_type_int, virtual_device_id, target (a Target node whose `kind` is a
  // TargetKind saved by its name) and memory_scope (a runtime.String node).
  Status virtualDevice(size_t i, MetaValue& v) {
    v.kind = MetaValue::VirtualDevice;
    RLX_TRY(deviceType, intAttr(i, "device_type_int"));
    RLX_TRY(deviceId, intAttr(i, "virtual_device_id"));
    if (deviceType < -1 || deviceType > INT32_MAX) return fail(kNodes.index(i).key("attrs").key("device_type_int"), "not a device type");
    if (deviceId < -1 || deviceId > INT32_MAX) return fail(kNodes.index(i).key("attrs").key("virtual_device_id"), "not a device id");
    v.deviceType = int(deviceType);
    v.virtualDeviceId = int(deviceId);
    RLX_TRY(target, refAttr(i, "target"));
    if (target && typeKey(*target) != "") {
      if (typeKey(*target) != "Target")
        return fail(kNodes.index(i).key("attrs").key("target"), "expected a Target, " + describe(*target) + " is not");
      RLX_TRY(kind, refAttr(*target, "kind"));
      if (!kind || typeKey(*kind) != "TargetKind")
        return fail(kNodes.index(*target).key("attrs").key("kind"), "expected a TargetKind" + (kind ? ", " + describe(*kind) + " is not" : ""));
      RLX_TRY(name, repr(*kind));
      if (name.empty()) {  // TVMs before the kind's name became its repr kept it as an attribute
        auto& node = nodeAt(*kind);
        if (auto a = node.find("attrs"); a != node.end() && a->contains("name")) name = (*a)["name"].get<std::string>();
      }
      v.target = name;
    }
    RLX_TRY(scope, refAttr(i, "memory_scope"));
    if (scope && typeKey(*scope) != "") {
      if (typeKey(*scope) != "runtime.String")
        return fail(kNodes.index(i).key("attrs").key("memory_scope"), "expected a runtime.String, " + describe(*scope) + " is not");
      RLX_TRY(s, repr(*scope));
      v.memoryScope = s;
    }
    return okStatus();
  }
};

}  // namespace

Result<MetaTable> readMetaJson(std::string_view json, uint32_t file, uint32_t offset) {
  try {
    return MetaReader(json, file, offset).read();
  } catch (const std::exception& e) {  // only out-of-memory is expected here; never let it escape
    return Error(std::string("metadata: ") + e.what(), file ? sources::spanAt(file, offset, 1) : Span{});
  }
}

Result<MetaTable> readMetaFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error("cannot open meta table file '" + path + "': " + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Error("cannot read meta table file '" + path + "'");
  uint32_t file = sources::add(path, ss.str());
  return readMetaJson(sources::text(file), file, 0);
}

}  // namespace rlx::relay
