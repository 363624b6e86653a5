// The fast path for the common line shape (see parseCommonLine in line_parser.h): a small
// recursive-descent reader that builds exactly the grammar's tree, and gives up on anything else.
#include <array>
#include <charconv>
#include <cstdlib>

#include "grammar/grammar.hpp"
#include "parser/line_parser.h"
#include "parser/line_span.h"

namespace rlx::syntax {
namespace {
using ast::Expr;

// Character classes by table: identifiers are most of a line's bytes.
enum : uint8_t { kDigit = 1, kIdentStart = 2 };
constexpr std::array<uint8_t, 256> kCharClass = [] {
  std::array<uint8_t, 256> t{};
  for (int c = '0'; c <= '9'; ++c) t[c] = kDigit;
  for (int c = 'a'; c <= 'z'; ++c) t[c] = kIdentStart;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = kIdentStart;
  t['_'] = kIdentStart;
  return t;
}();
bool isDigit(char c) { return kCharClass[static_cast<unsigned char>(c)] == kDigit; }
bool isIdentStart(char c) { return kCharClass[static_cast<unsigned char>(c)] == kIdentStart; }
bool isIdentChar(char c) { return kCharClass[static_cast<unsigned char>(c)] != 0; }

// Every reader returns null to give up: on input it does not handle (the grammar may still accept
// it) and on input that is wrong (the grammar reports it). It never reports anything itself.
class CommonLineReader {
 public:
  CommonLineReader(std::string_view text, uint32_t file, uint32_t offset, ast::Arena& arena, int maxDepth)
      : p_(text.data()), end_(text.data() + text.size()), spans_(text, file, offset), arena_(arena), maxDepth_(maxDepth) {}

  // simple_stmt restricted to one target: name-led `test [':' test] ['=' test]`.
  std::optional<LineResult> statement() {
    const char* begin = p_;
    // Keywords, decorators, brackets and starred targets start every other statement form.
    if (p_ == end_ || !isIdentStart(*p_)) return std::nullopt;
    Expr* target = test();
    if (!target) return std::nullopt;
    Expr* annotation = nullptr;
    Expr* value = nullptr;
    skipWs();
    if (at(':')) {
      ++p_;
      skipWs();
      if (!(annotation = test())) return std::nullopt;
      skipWs();
    }
    if (atAssign()) {
      ++p_;
      skipWs();
      if (!(value = test())) return std::nullopt;
      skipWs();
    }
    if (p_ != end_) return std::nullopt;  // a tuple, an operator, a second '=', ...
    auto* s = arena_.stmt(ast::Stmt::ExprStmt, spans_.at(begin, size_t(end_ - begin)));
    if (annotation || value) {
      s->kind = ast::Stmt::Assign;
      s->target = target;
      s->annotation = annotation;
      s->value = value;
    } else {
      s->value = target;
    }
    LineResult r;
    r.kind = LineResult::Simple;
    r.stmt = s;
    return r;
  }

 private:
  bool at(char c) const { return p_ != end_ && *p_ == c; }
  bool atAssign() const { return at('=') && !(p_ + 1 != end_ && p_[1] == '='); }  // not `==`
  Expr* node(Expr::Kind k, const char* b, size_t n) { return arena_.expr(k, spans_.at(b, n)); }

  // The grammar's ws: blanks, newlines (inside brackets), comments and backslash continuations.
  void skipWs() {
    while (p_ != end_) {
      char c = *p_;
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f') {
        ++p_;
      } else if (c == '#') {
        while (p_ != end_ && *p_ != '\n') ++p_;
      } else if (c == '\\' && p_ + 1 != end_ && p_[1] == '\n') {
        p_ += 2;
      } else if (c == '\\' && end_ - p_ >= 3 && p_[1] == '\r' && p_[2] == '\n') {
        p_ += 3;
      } else {
        break;
      }
    }
  }

  std::string_view identifier() {
    const char* b = p_;
    if (p_ == end_ || !isIdentStart(*p_)) return {};
    while (p_ != end_ && isIdentChar(*p_)) ++p_;
    return std::string_view(b, size_t(p_ - b));
  }

  // test := ['-'] primary, when nothing that would continue an expression follows (each caller
  // checks that what comes next is a separator it expects). The grammar counts two levels of
  // nesting (test, operand) per level here, against a limit of 3 * maxDepth + 16: staying within
  // maxDepth levels means the grammar would not have reported the nesting.
  Expr* test() {
    if (depth_ == maxDepth_) return nullptr;
    ++depth_;
    Expr* e = operand();
    --depth_;
    return e;
  }

  // A leading minus becomes what the grammar's precedence climber makes of it: a UnaryOp at the
  // operator's byte.
  Expr* operand() {
    if (!at('-')) return primary();
    const char* op = p_++;
    skipWs();
    Expr* inner = primary();
    if (!inner) return nullptr;
    auto* e = node(Expr::UnaryOp, op, 1);
    e->str = "-";
    e->a = inner;
    return e;
  }

  // primary := atom (ws trailer)*
  Expr* primary() {
    Expr* e = atom();
    while (e) {
      skipWs();
      if (at('(')) e = call(e);
      else if (at('[')) e = subscript(e);
      else if (at('.')) e = attribute(e);
      else break;
    }
    return e;
  }

  // atom := paren | list | None | True | False | number | string | name  (dicts: the grammar's)
  Expr* atom() {
    if (p_ == end_) return nullptr;
    char c = *p_;
    if (c == '(') return parenthesized();
    if (c == '[') return list();
    if (c == '"' || c == '\'') return string();
    if (isDigit(c) || (c == '.' && p_ + 1 != end_ && isDigit(p_[1]))) return number();
    const char* b = p_;
    std::string_view id = identifier();
    if (id.empty()) return nullptr;
    if (id == "None" || id == "True" || id == "False") {
      auto* e = node(id == "None" ? Expr::NoneLit : Expr::Bool, b, id.size());
      e->b = id == "True";
      return e;
    }
    if (grammar::isReservedWord(id)) return nullptr;
    auto* e = node(Expr::Name, b, id.size());
    e->str.assign(id);
    return e;
  }

  // number := digits ['.' digits] [exponent] | '.' digits [exponent], not followed by a letter.
  Expr* number() {
    const char* b = p_;
    while (p_ != end_ && isDigit(*p_)) ++p_;
    if (at('.')) {
      ++p_;
      while (p_ != end_ && isDigit(*p_)) ++p_;
    }
    if (at('e') || at('E')) {  // an exponent needs digits; otherwise the letter ends the number
      const char* q = p_ + 1;
      if (q != end_ && (*q == '+' || *q == '-')) ++q;
      if (q != end_ && isDigit(*q)) {
        while (q != end_ && isDigit(*q)) ++q;
        p_ = q;
      }
    }
    if (p_ != end_ && isIdentChar(*p_)) return nullptr;
    std::string_view text(b, size_t(p_ - b));
    if (text.find_first_of(".eE") == std::string_view::npos) {
      auto* e = node(Expr::Int, b, text.size());
      auto [q, ec] = std::from_chars(text.data(), text.data() + text.size(), e->i);
      if (ec != std::errc() || q != text.data() + text.size()) return nullptr;  // too big for int64
      return e;
    }
    auto* e = node(Expr::Float, b, text.size());
    e->d = std::strtod(std::string(text).c_str(), nullptr);
    return e;
  }

  // One quoted literal without escapes; triple quotes and adjacent literals are the grammar's.
  Expr* string() {
    const char* b = p_;
    char quote = *p_++;
    if (quote == '"' && end_ - p_ >= 2 && p_[0] == '"' && p_[1] == '"') return nullptr;
    const char* body = p_;
    while (p_ != end_ && *p_ != quote) {
      if (*p_ == '\\' || *p_ == '\n') return nullptr;
      ++p_;
    }
    if (p_ == end_) return nullptr;
    ++p_;
    auto* e = node(Expr::Str, b, size_t(p_ - b));
    e->str.assign(body, size_t(p_ - 1 - body));
    const char* after = p_;
    skipWs();
    if (at('"') || at('\'')) return nullptr;
    p_ = after;
    return e;
  }

  // items := [test (',' test)* [',']] up to `close`, which it consumes. `trailingComma`: the
  // list ended with a comma.
  bool items(std::vector<Expr*>& out, char close, bool& trailingComma) {
    trailingComma = false;
    skipWs();
    while (!at(close)) {
      Expr* e = test();
      if (!e) return false;
      out.push_back(e);
      skipWs();
      trailingComma = at(',');
      if (trailingComma) {
        ++p_;
        skipWs();
      } else if (!at(close)) {
        return false;
      }
    }
    ++p_;
    return true;
  }

  // paren := '(' items ')': one item without a comma is that item; otherwise a Tuple.
  Expr* parenthesized() {
    const char* b = p_++;
    auto* e = node(Expr::Tuple, b, 1);
    bool comma;
    if (!items(e->items, ')', comma)) return nullptr;
    if (e->items.size() == 1 && !comma) return e->items[0];
    e->span = spans_.at(b, size_t(p_ - b));
    e->b = true;
    return e;
  }

  Expr* list() {
    const char* b = p_++;
    auto* e = node(Expr::List, b, 1);
    bool comma;
    if (!items(e->items, ']', comma)) return nullptr;
    e->span = spans_.at(b, size_t(p_ - b));
    return e;
  }

  // call_trailer := '(' [argument (',' argument)* [',']] ')'; a Call has its callee's span.
  Expr* call(Expr* callee) {
    ++p_;
    auto* e = arena_.expr(Expr::Call, callee->span);
    e->a = callee;
    skipWs();
    while (!at(')')) {
      Expr* arg = argument();
      if (!arg) return nullptr;
      e->items.push_back(arg);
      skipWs();
      if (at(',')) {
        ++p_;
        skipWs();
      } else if (!at(')')) {
        return nullptr;
      }
    }
    ++p_;
    return e;
  }

  // argument := name '=' test | test    (`*args` is the grammar's). A Keyword has its name's span.
  Expr* argument() {
    const char* b = p_;
    std::string_view id = identifier();
    if (!id.empty() && !grammar::isReservedWord(id)) {
      skipWs();
      if (atAssign()) {
        ++p_;
        skipWs();
        Expr* value = test();
        if (!value) return nullptr;
        auto* kw = node(Expr::Keyword, b, id.size());
        kw->str.assign(id);
        kw->a = value;
        return kw;
      }
    }
    p_ = b;
    return test();
  }

  // subscript_trailer := '[' test (',' test)* [','] ']' (slices are the grammar's); a Subscript
  // has its value's span, and a trailing comma makes its index a 1-tuple.
  Expr* subscript(Expr* value) {
    ++p_;
    auto* e = arena_.expr(Expr::Subscript, value->span);
    e->a = value;
    bool comma;
    if (!items(e->items, ']', comma) || e->items.empty()) return nullptr;
    e->b = comma;
    return e;
  }

  // attr_trailer := '.' name; an Attribute has the name's span.
  Expr* attribute(Expr* value) {
    ++p_;
    skipWs();
    const char* b = p_;
    std::string_view id = identifier();
    if (id.empty() || grammar::isReservedWord(id)) return nullptr;
    auto* e = node(Expr::Attribute, b, id.size());
    e->a = value;
    e->str.assign(id);
    return e;
  }

  const char* p_;
  const char* end_;
  LineSpans spans_;
  ast::Arena& arena_;
  int maxDepth_;
  int depth_ = 0;
};

}  // namespace

std::optional<LineResult> parseCommonLine(std::string_view text, uint32_t file, uint32_t offset, ast::Arena& arena, int maxDepth) {
  return CommonLineReader(text, file, offset, arena, maxDepth).statement();
}

}  // namespace rlx::syntax
