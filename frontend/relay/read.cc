// readRelay: a Relay file through the PEGTL grammar into a parse tree (located syntax errors), its
// metadata section into the meta table, then the tree walker into the syntax tree.
#include <fstream>
#include <optional>
#include <sstream>

#include "frontend/relay/reader.h"
#include "frontend/relay/relay.h"
#include "grammar/relay_errors.hpp"

namespace rlx::relay {
namespace g = rlx::grammar::relay;
namespace pegtl = tao::pegtl;

namespace {

// Brackets and comments nest by recursion in the grammar; a bound keeps hostile input from
// exhausting the stack (real programs nest a few dozen levels at most).
constexpr int kMaxNesting = 400;

template <typename Rule>
struct Control : pegtl::normal<Rule> {
  template <typename Input, typename... States>
  [[noreturn]] static void raise(const Input& in, States&&...) {
    throw pegtl::parse_error(g::errorMessage<Rule>(), in);
  }
};

// Checks nesting before the grammar runs: the first place where brackets or comments nest deeper
// than kMaxNesting, or the start of a comment that never ends (the grammar would only see the end of
// the file). Strings and line comments are skipped; inside a block comment only `/*` and `*/` count.
std::optional<Error> checkNesting(std::string_view text, uint32_t file) {
  int depth = 0;
  std::vector<size_t> comments;  // where each open block comment starts
  auto at = [&](size_t p, const std::string& message) { return Error(message, sources::spanAt(file, uint32_t(p), 2)); };
  for (size_t p = 0; p < text.size(); ++p) {
    bool opens = text.compare(p, 2, "/*") == 0, closes = text.compare(p, 2, "*/") == 0;
    if (!comments.empty()) {
      if (opens) comments.push_back(p++);
      else if (closes) comments.pop_back(), ++p;
      if (comments.size() > size_t(kMaxNesting)) return at(p, "comments nested more than " + std::to_string(kMaxNesting) + " deep");
      continue;
    }
    char c = text[p];
    if (c == '"') {  // strings have no escapes
      size_t q = text.find('"', p + 1);
      if (q == std::string_view::npos) return std::nullopt;  // the grammar reports it
      p = q;
    } else if (text.compare(p, 2, "//") == 0) {
      size_t q = text.find('\n', p);
      if (q == std::string_view::npos) return std::nullopt;
      p = q;
    } else if (text.compare(p, 11, "#[metadata]") == 0) {
      return std::nullopt;  // JSON follows; its reader bounds its own nesting
    } else if (opens) {
      comments.push_back(p++);
    } else if (c == '(' || c == '[' || c == '{') {
      if (++depth > kMaxNesting) return at(p, "brackets nested more than " + std::to_string(kMaxNesting) + " deep");
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    }
  }
  if (!comments.empty()) return at(comments.front(), "unterminated comment (/* without */)");
  return std::nullopt;
}

// A lone '\r' (not part of "\r\n") is an error in Relay's lexer; say so instead of "invalid syntax".
size_t loneCarriageReturn(std::string_view text) {
  for (size_t p = 0; p < text.size(); ++p)
    if (text[p] == '\r' && (p + 1 >= text.size() || text[p + 1] != '\n')) return p;
  return std::string_view::npos;
}

}  // namespace

Result<Module> readRelay(uint32_t file, const ReadOptions& options) {
  const std::string& text = sources::text(file);
  if (auto bad = checkNesting(text, file)) return *bad;
  if (size_t at = loneCarriageReturn(text); at != std::string_view::npos)
    return Error("a carriage return must be followed by a newline", sources::spanAt(file, uint32_t(at), 1));
  Module mod;
  mod.file = file;
  pegtl::memory_input<> in(text.data(), text.size(), sources::name(file));
  std::unique_ptr<Node> root;
  try {
    root = pegtl::parse_tree::parse<g::file, TreeSelector, pegtl::nothing, Control>(in);
  } catch (const pegtl::parse_error& e) {
    auto& pos = e.positions().front();
    return Error(std::string(e.message()), sources::spanAt(file, uint32_t(pos.byte), 1));
  }
  if (!root) return Error("invalid syntax", sources::spanAt(file, 0, 1));
  // The version header, then the metadata section (read first: meta[...] references resolve
  // against it as the walker meets them).
  for (auto& c : root->children) {
    if (c->is_type<g::version_string>()) {
      if (c->string() != "\"0.0.5\"")
        return Error("unsupported Relay version " + c->string(), sources::spanAt(file, uint32_t(c->m_begin.byte), uint32_t(c->string().size())),
                     "rlx reads Relay text version \"0.0.5\" (TVM v0.7 to v0.19)");
    } else if (c->is_type<g::metadata_json>()) {
      auto table = readMetaJson(c->string_view(), file, uint32_t(c->m_begin.byte));
      if (!table) return table.error();
      mod.meta = std::move(*table);
    }
  }
  if (options.externalMeta)
    for (auto& [key, entries] : *options.externalMeta) {
      auto& dst = mod.meta[key];
      dst.insert(dst.end(), entries.begin(), entries.end());
    }
  try {
    TreeWalker walker(mod, file, text);
    walker.file(*root);
  } catch (const ReadError& e) {
    return e.error;
  }
  return mod;
}

Result<Module> readRelayText(std::string text, const std::string& sourceName, const ReadOptions& options) {
  return readRelay(sources::add(sourceName, std::move(text)), options);
}

}  // namespace rlx::relay
