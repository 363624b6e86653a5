// The source registry: every parsed text is kept (append-only) so diagnostics raised later, by the
// verifier or a pass, can still show the offending line.
#include <algorithm>
#include <cstring>
#include <deque>
#include <vector>

#include "ir/span.h"

namespace rlx::sources {
namespace {
struct Source {
  std::string name, text;
  std::vector<uint32_t> lineStarts;
};
std::deque<Source>& registry() {
  static std::deque<Source> r;
  return r;
}
const Source& get(uint32_t file) {
  static const Source empty;
  auto& r = registry();
  return file >= 1 && file <= r.size() ? r[file - 1] : empty;
}
}  // namespace

// Only the most recent texts are kept, so a long session (REPL, fuzzer) does not grow without
// bound; a diagnostic about an older text still has its file:line:col, just not the line itself.
constexpr size_t kKeptTexts = 64;

uint32_t add(std::string name, std::string text) {
  Source s{std::move(name), std::move(text), {0}};
  // memchr runs many bytes a step: this is a pass over every byte of a possibly large module.
  const char* b = s.text.data();
  const char* e = b + s.text.size();
  for (const char* p = b; (p = static_cast<const char*>(std::memchr(p, '\n', size_t(e - p)))); ++p) s.lineStarts.push_back(uint32_t(p - b) + 1);
  auto& r = registry();
  r.push_back(std::move(s));
  if (r.size() > kKeptTexts) {
    Source& old = r[r.size() - 1 - kKeptTexts];
    std::string().swap(old.text);
    std::vector<uint32_t>().swap(old.lineStarts);
  }
  return uint32_t(r.size());
}
const std::string& name(uint32_t file) { return get(file).name; }
const std::string& text(uint32_t file) { return get(file).text; }
std::string_view line(uint32_t file, uint32_t line) {
  auto& s = get(file);
  if (line == 0 || line > s.lineStarts.size()) return {};
  uint32_t b = s.lineStarts[line - 1];
  uint32_t e = line < s.lineStarts.size() ? s.lineStarts[line] - 1 : uint32_t(s.text.size());
  if (e > b && s.text[e - 1] == '\r') --e;
  return std::string_view(s.text).substr(b, e - b);
}

Span spanAt(uint32_t file, uint32_t offset, uint32_t len) {
  auto& s = get(file);
  if (s.lineStarts.empty()) return {};
  auto it = std::upper_bound(s.lineStarts.begin(), s.lineStarts.end(), offset);
  uint32_t lineNo = uint32_t(it - s.lineStarts.begin());
  uint32_t col = offset - s.lineStarts[lineNo - 1] + 1;
  uint32_t lineEnd = lineNo < s.lineStarts.size() ? s.lineStarts[lineNo] - 1 : uint32_t(s.text.size());
  if (offset + len > lineEnd) len = lineEnd > offset ? lineEnd - offset : 1;
  return Span{file, lineNo, col, len};
}

}  // namespace rlx::sources
