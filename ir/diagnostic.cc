// Rendering of diagnostics (location, message, source line, caret) and name suggestions.
// Format follows clang/rustc: `file:line:col: error: message`, then the line and `^~~~`.
#include "ir/diagnostic.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace rlx {

std::string renderError(const Error& e, bool color) {
  const char* bold = color ? "\033[1m" : "";
  const char* red = color ? "\033[1;31m" : "";
  const char* green = color ? "\033[1;32m" : "";
  const char* cyan = color ? "\033[1;36m" : "";
  const char* reset = color ? "\033[0m" : "";
  std::string out;
  auto location = [&](const Span& s) {
    std::string loc = sources::name(s.file);
    if (loc.empty()) loc = "<input>";
    if (s.line) loc += ":" + std::to_string(s.line) + ":" + std::to_string(s.col);
    return loc;
  };
  auto showLine = [&](const Span& s) {
    if (!s.known()) return;
    std::string_view text = sources::line(s.file, s.line);
    out += "  ";
    out += text;
    out += "\n  ";
    for (uint32_t i = 1; i < s.col && i - 1 < text.size(); ++i) out += text[i - 1] == '\t' ? '\t' : ' ';
    out += green;
    out += '^';
    uint32_t len = std::max<uint32_t>(s.len, 1);
    if (s.col - 1 + len > text.size() + 1) len = std::max<uint32_t>(uint32_t(text.size()) + 1 - (s.col - 1), 1);
    for (uint32_t i = 1; i < len; ++i) out += '~';
    out += reset;
    out += '\n';
  };
  out += bold;
  out += e.span.file ? location(e.span) : std::string("rlx");
  out += ": ";
  out += red;
  out += "error: ";
  out += reset;
  out += bold;
  out += e.message;
  out += reset;
  out += '\n';
  showLine(e.span);
  if (!e.hint.empty()) {
    out += "  ";
    out += cyan;
    out += "hint: ";
    out += reset;
    out += e.hint + "\n";
  }
  for (auto& [span, note] : e.notes) {
    out += location(span) + ": note: " + note + "\n";
    showLine(span);
  }
  return out;
}

std::string DiagnosticEngine::render(bool color) const {
  std::string out;
  for (auto& e : errors_) out += renderError(e, color);
  return out;
}

static size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string closestName(std::string_view name, const std::vector<std::string>& candidates) {
  std::string best;
  size_t bestDist = std::max<size_t>(2, name.size() / 3) + 1;
  for (auto& c : candidates) {
    size_t d = editDistance(name, c);
    // A candidate that ends with the name (R.relu vs relax.nn.relu) is a good suggestion too.
    if (c.size() > name.size() && c.compare(c.size() - name.size(), name.size(), name) == 0 && c[c.size() - name.size() - 1] == '.') d = 1;
    if (d < bestDist) {
      bestDist = d;
      best = c;
    }
  }
  return best;
}

void checkFailed(const char* cond, const char* file, int line, const std::string& msg) {
  std::fprintf(stderr, "rlx: internal error: %s:%d: check failed: %s%s%s\n", file, line, cond, msg.empty() ? "" : ": ", msg.c_str());
  std::fprintf(stderr, "This is a bug in rlx; please report it with the input that triggered it.\n");
  std::abort();
}

}  // namespace rlx
