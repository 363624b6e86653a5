// A path into a JSON document ("nodes[7].attrs.data") and where its value starts in the text, so a
// metadata error can name the bad field and point at it (nlohmann's DOM keeps no positions).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace rlx::relay {

class JsonPath {
 public:
  JsonPath() = default;
  JsonPath key(std::string k) const {
    JsonPath p = *this;
    p.steps_.emplace_back(std::move(k));
    return p;
  }
  JsonPath index(size_t i) const {
    JsonPath p = *this;
    p.steps_.emplace_back(i);
    return p;
  }
  // "nodes[7].attrs.data"; "" for the document itself.
  std::string str() const;
  const std::vector<std::variant<std::string, size_t>>& steps() const { return steps_; }

 private:
  std::vector<std::variant<std::string, size_t>> steps_;
};

struct JsonLocation {
  size_t offset = 0;  // byte offset of the value (or of the deepest enclosing value found)
  size_t length = 1;  // the whole token for a scalar, 1 for an object or array
};

// Where `path` is in `text`, which must be JSON that already parsed (the scan trusts its syntax, but
// never reads outside `text`). A path that does not exist locates its deepest existing prefix.
JsonLocation locateJson(std::string_view text, const JsonPath& path);

}  // namespace rlx::relay
