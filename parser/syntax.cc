// Splits source text into logical lines (joining bracketed continuations, skipping comments and
// blank lines), parses each with the line grammar, and nests them into blocks by indentation.
#include "parser/syntax.h"

#include "parser/line_parser.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace rlx::syntax {
namespace {

// The bytes splitLines passes over without a look: all but comment, string, bracket, backslash
// and newline characters.
constexpr std::array<bool, 256> kPlain = [] {
  std::array<bool, 256> t{};
  t.fill(true);
  for (char c : std::string_view("#\"'([{)]}\\\n")) t[static_cast<unsigned char>(c)] = false;
  return t;
}();

}  // namespace

// Returns the logical lines; unterminated strings/brackets are reported at their opening.
std::vector<LogicalLine> splitLines(const std::string& text, uint32_t file, DiagnosticEngine& diag, int maxDepth) {
  std::vector<LogicalLine> lines;
  std::vector<std::pair<char, size_t>> brackets;  // open brackets of the current line (reused)
  size_t i = 0, n = text.size();
  char indentChar = 0;  // what the first indented line used: ' ' or '\t' (Python's TabError)
  while (i < n) {
    // Indentation of this physical line.
    size_t lineStart = i;
    uint32_t indent = 0;
    bool spaces = false, tabs = false;
    while (i < n && (text[i] == ' ' || text[i] == '\t')) {
      indent += text[i] == '\t' ? 8 - indent % 8 : 1;
      (text[i] == '\t' ? tabs : spaces) = true;
      ++i;
    }
    if (i >= n) break;
    if (text[i] == '\n' || text[i] == '\r' || text[i] == '#') {  // blank or comment-only line
      while (i < n && text[i] != '\n') ++i;
      ++i;
      continue;
    }
    if (spaces || tabs) {
      bool mixed = (spaces && tabs) || (indentChar == ' ' && tabs) || (indentChar == '\t' && spaces);
      if (mixed) {
        diag.error(Error("inconsistent use of tabs and spaces in indentation", sources::spanAt(file, uint32_t(lineStart), uint32_t(i - lineStart))));
        // Python's TabError ends compilation: the rest would only report its consequences.
        return {};
      } else if (!indentChar) {
        indentChar = tabs ? '\t' : ' ';
      }
    }
    size_t start = i;
    brackets.clear();
    bool bad = false;
    while (i < n) {
      // Most bytes are none of the characters handled below: skip them in a tight loop.
      while (i < n && kPlain[static_cast<unsigned char>(text[i])]) ++i;
      if (i >= n) break;
      char c = text[i];
      if (c == '#') {
        while (i < n && text[i] != '\n') ++i;
        continue;
      }
      if (c == '"' || c == '\'') {
        bool triple = c == '"' && text.compare(i, 3, "\"\"\"") == 0;
        size_t open = i;
        i += triple ? 3 : 1;
        bool closed = false;
        while (i < n) {
          if (text[i] == '\\') {
            i += 2;
            continue;
          }
          if (!triple && text[i] == '\n') break;
          if (triple ? text.compare(i, 3, "\"\"\"") == 0 : text[i] == c) {
            i += triple ? 3 : 1;
            closed = true;
            break;
          }
          ++i;
        }
        if (!closed) {
          diag.error(Error("unterminated string literal", sources::spanAt(file, uint32_t(open), 1)));
          bad = true;
          while (i < n && text[i] != '\n') ++i;
          break;
        }
        continue;
      }
      if (c == '(' || c == '[' || c == '{') {
        brackets.push_back({c, i});
        if (int(brackets.size()) > maxDepth && !bad) {
          diag.error(Error("brackets nested too deeply (limit " + std::to_string(maxDepth) + ")", sources::spanAt(file, uint32_t(i), 1)));
          bad = true;
        }
      } else if (c == ')' || c == ']' || c == '}') {
        char want = c == ')' ? '(' : c == ']' ? '[' : '{';
        if (brackets.empty() || brackets.back().first != want) {
          if (!bad) diag.error(Error(std::string("unmatched '") + c + "'", sources::spanAt(file, uint32_t(i), 1)));
          bad = true;
        } else {
          brackets.pop_back();
        }
      } else if (c == '\\' && i + 1 < n && text[i + 1] == '\n') {
        i += 2;
        continue;
      } else if (c == '\n' && brackets.empty()) {
        break;
      }
      ++i;
    }
    if (!brackets.empty() && !bad) {
      diag.error(Error(std::string("'") + brackets.back().first + "' was never closed", sources::spanAt(file, uint32_t(brackets.back().second), 1)));
      bad = true;
    }
    size_t end = i;
    while (end > start && (text[end - 1] == ' ' || text[end - 1] == '\t' || text[end - 1] == '\r')) --end;
    if (!bad) lines.push_back({uint32_t(start), uint32_t(end - start), indent});
    else lines.push_back({uint32_t(start), 0, indent});  // placeholder: skipped with its block
    (void)lineStart;
    ++i;
  }
  return lines;
}

namespace {

// Nests logical lines into blocks. Statements are produced one at a time (nextStmt), so a deferred
// body can be read lazily with exactly the checks and messages of an eager parse. Errors are kept
// with the line position and block depth at which an eager, front-to-back parse would have
// reported them, so lazily read bodies still report in source order.
class BlockParser {
 public:
  BlockParser(const std::string& text, uint32_t file, ast::Arena& arena, int maxDepth, std::vector<LogicalLine> lines, DeferRule rule)
      : text_(text), file_(file), arena_(arena), maxDepth_(maxDepth), lines_(std::move(lines)), limit_(lines_.size()), rule_(std::move(rule)) {}

  ast::Arena& arena() { return arena_; }

  struct KeyedError {
    size_t pos;
    int depth;
    Error error;
  };
  std::vector<KeyedError> errors;

  // A `with` body left for later: lines [begin, end) at `indent`; `pos` is the next unread line.
  struct Deferred {
    size_t begin, end, pos;
    uint32_t indent;
    int depth;
  };
  std::vector<Deferred> deferred;

  std::vector<ast::Stmt*> parseAll() {
    std::vector<ast::Stmt*> out;
    while (pos_ < limit_) {
      if (lines_[pos_].indent != 0) {
        error("unexpected indentation", pos_, 0);
        skipBlock(lines_[pos_].indent);
        continue;
      }
      parseBlockInto(0, out, 0, false, arena_);
    }
    return out;
  }

  // The next statement of deferred body `id` (1-based) into `arena`; null at its end. With
  // `skipLast` the body's last line is left out (the caller has it from peekLast).
  ast::Stmt* nextDeferred(uint32_t id, bool skipLast, ast::Arena& arena) {
    Deferred& d = deferred[id - 1];
    if (d.pos >= d.end) return nullptr;
    size_t savedPos = pos_, savedLimit = limit_;
    pos_ = d.pos;
    limit_ = skipLast ? d.end - 1 : d.end;
    ast::Stmt* s = nextStmt(d.indent, d.depth, true, arena);
    // Deferred may have grown (a nested deferred body): index again.
    deferred[id - 1].pos = s ? pos_ : deferred[id - 1].end;
    pos_ = savedPos;
    limit_ = savedLimit;
    return s;
  }

  // The last line of body `id` parsed alone, when it is a cleanly parsing simple statement at the
  // body's indentation; null otherwise. Reports nothing.
  ast::Stmt* peekLast(uint32_t id) {
    const Deferred& d = deferred[id - 1];
    if (d.end <= d.pos) return nullptr;
    const LogicalLine& l = lines_[d.end - 1];
    if (l.indent != d.indent || l.length == 0) return nullptr;
    auto r = parseLine(std::string_view(text_).substr(l.offset, l.length), file_, l.offset, arena_, maxDepth_);
    if (!r.ok() || r.value().kind != LineResult::Simple) return nullptr;
    return r.value().stmt;
  }

  // How many statements of body `id` bind each of `names` (an assignment to the plain name, or a
  // def of it). Only lines whose first token is one of the names (or `def`) can, and only those
  // are parsed, into `scratch`.
  std::unordered_map<std::string, int> countBindings(uint32_t id, const std::unordered_set<std::string>& names, ast::Arena& scratch) {
    std::unordered_map<std::string, int> counts;
    const Deferred& d = deferred[id - 1];
    for (size_t i = d.pos; i < d.end; ++i) {
      const LogicalLine& l = lines_[i];
      if (l.indent != d.indent || l.length == 0) continue;
      std::string_view t = std::string_view(text_).substr(l.offset, l.length);
      std::string_view first = firstName(t);
      bool isDef = first == "def";
      if (!isDef && !names.count(std::string(first))) continue;
      scratch.reset();
      auto r = parseLine(t, file_, l.offset, scratch, maxDepth_);
      if (!r.ok()) continue;
      const ast::Stmt* s = r.value().stmt;
      if (r.value().kind == LineResult::Def && names.count(s->name)) counts[s->name]++;
      if (r.value().kind == LineResult::Simple && s->kind == ast::Stmt::Assign && s->target->kind == ast::Expr::Name && names.count(s->target->str))
        counts[s->target->str]++;
    }
    return counts;
  }

 private:
  // The identifier a line starts with, looking through opening parentheses, whitespace and
  // comments (the only things that can precede an assigned name); "" if it starts otherwise.
  static std::string_view firstName(std::string_view t) {
    size_t i = 0;
    while (i < t.size()) {
      char c = t[i];
      if (c == '(' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\\') {
        ++i;
      } else if (c == '#') {
        while (i < t.size() && t[i] != '\n') ++i;
      } else {
        break;
      }
    }
    size_t b = i;
    while (i < t.size() && (std::isalnum((unsigned char)t[i]) || t[i] == '_')) ++i;
    return t.substr(b, i - b);
  }

  void report(Error e, int depth) { errors.push_back({pos_, depth, std::move(e)}); }
  void error(const std::string& msg, size_t line, int depth) {
    auto& l = lines_[line];
    report(Error(msg, sources::spanAt(file_, l.offset, std::max<uint32_t>(l.length, 1))), depth);
  }
  // Skips lines more indented than `indent` (the body of a bad header).
  void skipBody(uint32_t indent) {
    while (pos_ < limit_ && lines_[pos_].indent > indent) ++pos_;
  }
  void skipBlock(uint32_t indent) {
    ++pos_;
    skipBody(indent);
  }

  // Parses statements at exactly `indent` into `out`.
  void parseBlockInto(uint32_t indent, std::vector<ast::Stmt*>& out, int depth, bool inDeferDef, ast::Arena& arena) {
    while (ast::Stmt* s = nextStmt(indent, depth, inDeferDef, arena)) out.push_back(s);
  }

  // The next statement at exactly `indent` (its nested bodies parsed or deferred), or null at the
  // end of the block. Decorator lines attach to the def/class that follows them.
  ast::Stmt* nextStmt(uint32_t indent, int depth, bool inDeferDef, ast::Arena& arena) {
    std::vector<ast::Expr*> decorators;
    while (pos_ < limit_) {
      auto& l = lines_[pos_];
      if (l.indent < indent) break;
      if (l.indent > indent) {
        error("unexpected indentation", pos_, depth);
        skipBlock(indent);
        continue;
      }
      if (l.length == 0) {  // a line the splitter already reported
        skipBlock(indent);
        continue;
      }
      auto r = parseLine(std::string_view(text_).substr(l.offset, l.length), file_, l.offset, arena, maxDepth_);
      size_t here = pos_++;
      if (!r.ok()) {
        report(std::move(r.error()), depth);
        skipBody(indent);
        continue;
      }
      LineResult& lr = r.value();
      ast::Stmt* s = lr.stmt;
      switch (lr.kind) {
        case LineResult::Decorator:
          decorators.push_back(lr.expr);
          continue;
        case LineResult::Def:
        case LineResult::Class:
          s->decorators = std::move(decorators);
          parseBody(indent, s->body, here, depth, lr.kind == LineResult::Def ? rule_.inDef && rule_.inDef(*s) : inDeferDef, arena);
          return s;
        case LineResult::If:
          parseBody(indent, s->body, here, depth, inDeferDef, arena);
          parseElse(indent, s, depth, inDeferDef, arena);
          break;
        case LineResult::For:
          parseBody(indent, s->body, here, depth, inDeferDef, arena);
          break;
        case LineResult::With:
          if (inDeferDef && rule_.with && rule_.with(*s)) deferBody(indent, s, here, depth);
          else parseBody(indent, s->body, here, depth, inDeferDef, arena);
          break;
        case LineResult::Elif:
          error("'elif' without a matching 'if'", here, depth);
          skipBody(indent);
          continue;
        case LineResult::Else:
          error("'else' without a matching 'if'", here, depth);
          skipBody(indent);
          continue;
        case LineResult::Import:
          error("import statements are not part of TVMScript (the header comments are enough)", here, depth);
          continue;
        case LineResult::While:
          error("'while' loops are not supported in TVMScript", here, depth);
          skipBody(indent);
          continue;
        default:
          break;
      }
      if (!decorators.empty()) {
        report(Error("a decorator must be followed by 'def' or 'class'", decorators.back()->span), depth);
        decorators.clear();
      }
      return s;
    }
    if (!decorators.empty()) report(Error("a decorator must be followed by 'def' or 'class'", decorators.back()->span), depth);
    return nullptr;
  }

  // The checks parseBody makes before descending; false when there is no body to parse.
  bool enterBody(uint32_t indent, size_t header, int depth) {
    if (pos_ >= limit_ || lines_[pos_].indent <= indent) {
      error("expected an indented block after this line", header, depth);
      return false;
    }
    if (depth + 1 > maxDepth_) {
      error("blocks nested too deeply", header, depth);
      skipBody(indent);
      return false;
    }
    return true;
  }

  void parseBody(uint32_t indent, std::vector<ast::Stmt*>& body, size_t header, int depth, bool inDeferDef, ast::Arena& arena) {
    if (enterBody(indent, header, depth)) parseBlockInto(lines_[pos_].indent, body, depth + 1, inDeferDef, arena);
  }

  // Records the body's lines and skips them: it ends where parseBlockInto would stop.
  void deferBody(uint32_t indent, ast::Stmt* s, size_t header, int depth) {
    if (!enterBody(indent, header, depth)) return;
    uint32_t bodyIndent = lines_[pos_].indent;
    size_t begin = pos_;
    while (pos_ < limit_ && lines_[pos_].indent >= bodyIndent) ++pos_;
    deferred.push_back({begin, pos_, begin, bodyIndent, depth + 1});
    s->deferred = uint32_t(deferred.size());
  }

  // After an if-body: optional elif/else at the same indentation.
  void parseElse(uint32_t indent, ast::Stmt* ifStmt, int depth, bool inDeferDef, ast::Arena& arena) {
    if (pos_ >= limit_ || lines_[pos_].indent != indent || lines_[pos_].length == 0) return;
    auto& l = lines_[pos_];
    std::string_view t = std::string_view(text_).substr(l.offset, l.length);
    bool isElse = t.substr(0, 4) == "else" && (t.size() == 4 || !std::isalnum((unsigned char)t[4]));
    bool isElif = t.substr(0, 4) == "elif" && (t.size() == 4 || !std::isalnum((unsigned char)t[4]));
    if (!isElse && !isElif) return;
    auto r = parseLine(t, file_, l.offset, arena, maxDepth_);
    size_t here = pos_++;
    if (!r.ok()) {
      report(std::move(r.error()), depth);
      skipBody(indent);
      return;
    }
    ifStmt->hasElse = true;
    if (r.value().kind == LineResult::Else) {
      parseBody(indent, ifStmt->orelse, here, depth, inDeferDef, arena);
    } else {
      ast::Stmt* nested = r.value().stmt;
      parseBody(indent, nested->body, here, depth, inDeferDef, arena);
      parseElse(indent, nested, depth, inDeferDef, arena);
      ifStmt->orelse.push_back(nested);
    }
  }

  const std::string& text_;
  uint32_t file_;
  ast::Arena& arena_;
  int maxDepth_;
  std::vector<LogicalLine> lines_;
  size_t pos_ = 0;
  size_t limit_;  // lines at or past it are outside the block being read
  DeferRule rule_;
};

}  // namespace

std::vector<ast::Stmt*> parseFile(const std::string& text, uint32_t file, ast::Arena& arena, DiagnosticEngine& diag, int maxDepth) {
  Reader reader(text, file, arena, maxDepth, {});
  auto top = reader.parseTop();
  reader.finish(diag);
  return top;
}

struct Reader::Impl {
  std::vector<Error> splitErrors;  // unterminated strings and brackets: reported first
  BlockParser blocks;
  bool finished = false;
  Impl(const std::string& text, uint32_t file, ast::Arena& arena, int maxDepth, DeferRule rule)
      : blocks(text, file, arena, maxDepth, split(text, file, maxDepth), std::move(rule)) {}
  std::vector<LogicalLine> split(const std::string& text, uint32_t file, int maxDepth) {
    DiagnosticEngine d;
    auto lines = splitLines(text, file, d, maxDepth);
    splitErrors = d.errors();
    return lines;
  }
};

Reader::Reader(const std::string& text, uint32_t file, ast::Arena& arena, int maxDepth, DeferRule rule)
    : impl_(std::make_unique<Impl>(text, file, arena, maxDepth, std::move(rule))) {}
Reader::~Reader() = default;

std::vector<ast::Stmt*> Reader::parseTop() { return impl_->blocks.parseAll(); }

const ast::Stmt* Reader::peekLast(const ast::Stmt& with) { return impl_->blocks.peekLast(with.deferred); }

std::unordered_map<std::string, int> Reader::countBindings(const ast::Stmt& with, const std::unordered_set<std::string>& names) {
  ast::Arena scratch;
  return impl_->blocks.countBindings(with.deferred, names, scratch);
}

Reader::Cursor::Cursor(Reader& r, uint32_t id, bool skipLast) : reader_(r), id_(id), skipLast_(skipLast) {}

const ast::Stmt* Reader::Cursor::next() {
  scratch_.reset();
  return reader_.impl_->blocks.nextDeferred(id_, skipLast_, scratch_);
}

Reader::Cursor Reader::read(const ast::Stmt& with, bool skipLast) { return Cursor(*this, with.deferred, skipLast); }

std::vector<ast::Stmt*> Reader::materialize(const ast::Stmt& with) {
  std::vector<ast::Stmt*> out;
  while (ast::Stmt* s = impl_->blocks.nextDeferred(with.deferred, false, impl_->blocks.arena())) out.push_back(s);
  return out;
}

void Reader::finish(DiagnosticEngine& diag) {
  if (impl_->finished) return;
  impl_->finished = true;
  auto& b = impl_->blocks;
  // Bodies nobody read (their function failed earlier, or the builder stopped) still get their
  // syntax checked; reading one may defer more, so index rather than iterate.
  ast::Arena scratch;
  for (size_t i = 0; i < b.deferred.size(); ++i) {
    while (true) {
      scratch.reset();
      if (!b.nextDeferred(uint32_t(i + 1), false, scratch)) break;
    }
  }
  for (auto& e : impl_->splitErrors) diag.error(std::move(e));
  // Source order: by line position, and at the same position the deeper block first (an eager
  // parse finishes a body before it reports anything after it).
  std::stable_sort(b.errors.begin(), b.errors.end(), [](const BlockParser::KeyedError& x, const BlockParser::KeyedError& y) {
    return x.pos != y.pos ? x.pos < y.pos : x.depth > y.depth;
  });
  for (auto& e : b.errors) diag.error(std::move(e.error));
}

}  // namespace rlx::syntax
