// safetensors reading and writing with a small purpose-built JSON reader for the header.
// Malformed files are errors that say what is wrong, never crashes.
#include "ir/safetensors.h"

#include <filesystem>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>

#include "ir/file_util.h"

namespace rlx::safetensors {
namespace {

const std::pair<const char*, DataType> kDtypes[] = {
    {"F64", DataType::float64()}, {"F32", DataType::float32()}, {"F16", DataType(DataType::Float, 16)}, {"BF16", DataType(DataType::BFloat, 16)},
    {"I64", DataType::int64()}, {"I32", DataType::int32()}, {"I16", DataType(DataType::Int, 16)}, {"I8", DataType(DataType::Int, 8)},
    {"U64", DataType(DataType::UInt, 64)}, {"U32", DataType(DataType::UInt, 32)}, {"U16", DataType(DataType::UInt, 16)}, {"U8", DataType(DataType::UInt, 8)},
    {"BOOL", DataType::boolean()},
    // The float8 types safetensors names (its F4/F6 are packed; rlx holds one element a byte).
    {"F8_E4M3", DataType(DataType::Float8E4M3FN, 8)}, {"F8_E5M2", DataType(DataType::Float8E5M2, 8)}, {"F8_E8M0", DataType(DataType::Float8E8M0FNU, 8)}};

struct JsonReader {
  const std::string& s;
  size_t i = 0;
  std::string err;
  void ws() {
    while (i < s.size() && std::isspace((unsigned char)s[i])) ++i;
  }
  bool eat(char c) {
    ws();
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  bool str(std::string& out) {
    ws();
    if (i >= s.size() || s[i] != '"') return false;
    ++i;
    while (i < s.size() && s[i] != '"') {
      if (s[i] == '\\' && i + 1 < s.size()) ++i;
      out += s[i++];
    }
    return i < s.size() && s[i++] == '"';
  }
  bool num(int64_t& out) {
    ws();
    size_t start = i;
    if (i < s.size() && s[i] == '-') ++i;
    while (i < s.size() && std::isdigit((unsigned char)s[i])) ++i;
    if (start == i) return false;
    out = std::stoll(s.substr(start, i - start));
    return true;
  }
  // Skips any JSON value (for __metadata__).
  bool skip() {
    ws();
    if (i >= s.size()) return false;
    if (s[i] == '"') {
      std::string tmp;
      return str(tmp);
    }
    if (s[i] == '{' || s[i] == '[') {
      char close = s[i] == '{' ? '}' : ']';
      ++i;
      if (eat(close)) return true;
      do {
        if (close == '}') {
          std::string k;
          if (!str(k) || !eat(':')) return false;
        }
        if (!skip()) return false;
      } while (eat(','));
      return eat(close);
    }
    while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']') ++i;
    return true;
  }
};

}  // namespace

Result<std::vector<Entry>> read(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Error("cannot read '" + path + "': it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error("cannot open '" + path + "': " + std::strerror(errno));
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (data.size() < 8) return Error("'" + path + "' is not a safetensors file (too short)");
  uint64_t n = 0;
  std::memcpy(&n, data.data(), 8);
  if (n > data.size() - 8) return Error("'" + path + "' is not a safetensors file (bad header length)");
  std::string header = data.substr(8, n);
  size_t base = 8 + n;
  JsonReader j{header};
  std::vector<Entry> out;
  if (!j.eat('{')) return Error("'" + path + "': the header is not a JSON object");
  if (j.eat('}')) return out;
  do {
    std::string name;
    if (!j.str(name) || !j.eat(':')) return Error("'" + path + "': malformed header");
    if (name == "__metadata__") {
      if (!j.skip()) return Error("'" + path + "': malformed __metadata__");
      continue;
    }
    if (!j.eat('{')) return Error("'" + path + "': malformed tensor entry '" + name + "'");
    std::string dtype;
    std::vector<int64_t> shape;
    int64_t b = -1, e = -1;
    do {
      std::string key;
      if (!j.str(key) || !j.eat(':')) return Error("'" + path + "': malformed tensor entry '" + name + "'");
      if (key == "dtype") {
        if (!j.str(dtype)) return Error("'" + path + "': bad dtype of '" + name + "'");
      } else if (key == "shape" || key == "data_offsets") {
        std::vector<int64_t> v;
        if (!j.eat('[')) return Error("'" + path + "': bad " + key + " of '" + name + "'");
        if (!j.eat(']')) {
          do {
            int64_t x;
            if (!j.num(x)) return Error("'" + path + "': bad " + key + " of '" + name + "'");
            v.push_back(x);
          } while (j.eat(','));
          if (!j.eat(']')) return Error("'" + path + "': bad " + key + " of '" + name + "'");
        }
        if (key == "shape") shape = v;
        else if (v.size() == 2) b = v[0], e = v[1];
      } else if (!j.skip()) {
        return Error("'" + path + "': malformed tensor entry '" + name + "'");
      }
    } while (j.eat(','));
    if (!j.eat('}')) return Error("'" + path + "': malformed tensor entry '" + name + "'");
    DataType t;
    bool known = false;
    for (auto& [k, v] : kDtypes)
      if (dtype == k) t = v, known = true;
    if (!known) return Error("'" + path + "': unsupported dtype '" + dtype + "' of '" + name + "'");
    for (auto d : shape)
      if (d < 0) return Error("'" + path + "': negative dimension in '" + name + "'");
    auto arr = make<NDArray>(t, shape);
    if (b < 0 || e < b || uint64_t(e) > data.size() - base || size_t(e - b) != arr->nbytes())
      return Error("'" + path + "': data offsets of '" + name + "' do not match its shape and dtype");
    std::memcpy(arr->data(), data.data() + base + b, arr->nbytes());
    out.push_back({name, arr});
  } while (j.eat(','));
  if (!j.eat('}')) return Error("'" + path + "': malformed header");
  return out;
}

Status write(const std::string& path, const std::vector<Entry>& entries) {
  std::string header = "{";
  size_t offset = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    auto& a = *entries[i].array;
    const char* dt = nullptr;
    for (auto& [k, v] : kDtypes)
      if (v == a.dtype) dt = k;
    if (!dt) return Error("cannot store dtype " + a.dtype.str() + " in safetensors");
    header += (i ? "," : "") + std::string("\"") + entries[i].name + "\":{\"dtype\":\"" + dt + "\",\"shape\":[";
    for (size_t d = 0; d < a.shape.size(); ++d) header += (d ? "," : "") + std::to_string(a.shape[d]);
    header += "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + a.nbytes()) + "]}";
    offset += a.nbytes();
  }
  header += "}";
  while (header.size() % 8) header += ' ';
  std::string prefix(8, '\0');
  uint64_t n = header.size();
  std::memcpy(prefix.data(), &n, 8);
  prefix += header;
  // The tensors' bytes go out from where they are, not through one joined copy.
  std::vector<std::string_view> parts = {prefix};
  for (auto& e : entries) parts.emplace_back(static_cast<const char*>(e.array->data()), e.array->nbytes());
  return writeFileAtomically(path, parts);
}

Result<std::vector<NDArrayRef>> readConstants(const std::string& path) {
  RLX_TRY(entries, read(path));
  std::map<int64_t, NDArrayRef> byIndex;
  const std::string prefix = "relax.expr.Constant.";
  for (auto& e : entries) {
    if (e.name.compare(0, prefix.size(), prefix) != 0) continue;
    byIndex[std::stoll(e.name.substr(prefix.size()))] = e.array;
  }
  std::vector<NDArrayRef> out;
  for (auto& [i, a] : byIndex) {
    if (i != int64_t(out.size())) return Error("'" + path + "': constant " + std::to_string(out.size()) + " is missing");
    out.push_back(a);
  }
  return out;
}

Status writeConstants(const std::string& path, const std::vector<NDArrayRef>& constants) {
  std::vector<Entry> entries;
  for (size_t i = 0; i < constants.size(); ++i) entries.push_back({"relax.expr.Constant." + std::to_string(i), constants[i]});
  return write(path, entries);
}

}  // namespace rlx::safetensors
