// locateJson: a forward scan over already-validated JSON that skips values without building them,
// to find the byte offset of one path. Only run when an error is reported, so simplicity wins.
#include "frontend/relay/json_path.h"

#include <algorithm>

namespace rlx::relay {

std::string JsonPath::str() const {
  std::string s;
  for (auto& step : steps_) {
    if (auto* k = std::get_if<std::string>(&step)) {
      if (!s.empty()) s += '.';
      s += *k;
    } else {
      s += '[' + std::to_string(std::get<size_t>(step)) + ']';
    }
  }
  return s;
}

namespace {

class Scanner {
 public:
  explicit Scanner(std::string_view t) : t_(t) {}
  size_t pos = 0;

  bool atEnd() const { return pos >= t_.size(); }
  char peek() const { return atEnd() ? '\0' : t_[pos]; }
  void skipSpace() {
    while (!atEnd() && (t_[pos] == ' ' || t_[pos] == '\n' || t_[pos] == '\r' || t_[pos] == '\t')) ++pos;
  }
  // Past a string starting at pos (on its opening quote); returns its raw contents.
  std::string_view skipString() {
    size_t start = ++pos;
    while (!atEnd() && t_[pos] != '"') pos += t_[pos] == '\\' ? 2 : 1;
    size_t end = std::min(pos, t_.size());
    if (!atEnd()) ++pos;
    return t_.substr(start, end - start);
  }
  // Past one value of any kind; nesting is counted, not recursed into.
  void skipValue() {
    skipSpace();
    char c = peek();
    if (c == '"') {
      skipString();
      return;
    }
    if (c != '[' && c != '{') {
      while (!atEnd() && std::string_view(",]} \n\r\t").find(t_[pos]) == std::string_view::npos) ++pos;
      return;
    }
    size_t depth = 0;
    while (!atEnd()) {
      c = t_[pos];
      if (c == '"') {
        skipString();
        continue;
      }
      ++pos;
      if (c == '[' || c == '{') ++depth;
      if ((c == ']' || c == '}') && --depth == 0) return;
    }
  }
  // Moves to member `key` of the object at pos; false (pos unspecified) when there is none.
  bool enterMember(std::string_view key) {
    skipSpace();
    if (peek() != '{') return false;
    ++pos;
    for (;;) {
      skipSpace();
      if (peek() != '"') return false;
      std::string_view k = skipString();
      skipSpace();
      if (peek() != ':') return false;
      ++pos;
      skipSpace();
      if (k == key) return true;
      skipValue();
      skipSpace();
      if (peek() != ',') return false;
      ++pos;
    }
  }
  // Moves to element `index` of the array at pos.
  bool enterElement(size_t index) {
    skipSpace();
    if (peek() != '[') return false;
    ++pos;
    for (size_t i = 0;; ++i) {
      skipSpace();
      if (peek() == ']' || atEnd()) return false;
      if (i == index) return true;
      skipValue();
      skipSpace();
      if (peek() != ',') return false;
      ++pos;
    }
  }

 private:
  std::string_view t_;
};

}  // namespace

JsonLocation locateJson(std::string_view text, const JsonPath& path) {
  Scanner s(text);
  s.skipSpace();
  size_t found = s.pos;
  for (auto& step : path.steps()) {
    bool ok = std::holds_alternative<std::string>(step) ? s.enterMember(std::get<std::string>(step)) : s.enterElement(std::get<size_t>(step));
    if (!ok) return {found, 1};
    s.skipSpace();
    found = s.pos;
  }
  char c = s.peek();
  if (c == '{' || c == '[' || s.atEnd()) return {found, 1};
  s.skipValue();
  return {found, std::max<size_t>(s.pos - found, 1)};
}

}  // namespace rlx::relay
