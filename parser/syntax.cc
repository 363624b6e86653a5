// Splits source text into logical lines (joining bracketed continuations, skipping comments and
// blank lines), parses each with the line grammar, and nests them into blocks by indentation.
#include "parser/syntax.h"

#include "parser/line_parser.h"

namespace rlx::syntax {
namespace {

struct LogicalLine {
  uint32_t offset = 0, length = 0;
  uint32_t indent = 0;
};

// Returns the logical lines; unterminated strings/brackets are reported at their opening.
std::vector<LogicalLine> splitLines(const std::string& text, uint32_t file, DiagnosticEngine& diag, int maxDepth) {
  std::vector<LogicalLine> lines;
  size_t i = 0, n = text.size();
  while (i < n) {
    // Indentation of this physical line.
    size_t lineStart = i;
    uint32_t indent = 0;
    while (i < n && (text[i] == ' ' || text[i] == '\t')) {
      indent += text[i] == '\t' ? 8 - indent % 8 : 1;
      ++i;
    }
    if (i >= n) break;
    if (text[i] == '\n' || text[i] == '\r' || text[i] == '#') {  // blank or comment-only line
      while (i < n && text[i] != '\n') ++i;
      ++i;
      continue;
    }
    size_t start = i;
    std::vector<std::pair<char, size_t>> brackets;
    bool bad = false;
    while (i < n) {
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

class BlockParser {
 public:
  BlockParser(const std::string& text, uint32_t file, ast::Arena& arena, DiagnosticEngine& diag, int maxDepth, std::vector<LogicalLine> lines)
      : text_(text), file_(file), arena_(arena), diag_(diag), maxDepth_(maxDepth), lines_(std::move(lines)) {}

  std::vector<ast::Stmt*> parseAll() {
    std::vector<ast::Stmt*> out;
    while (pos_ < lines_.size()) {
      if (lines_[pos_].indent != 0) {
        error("unexpected indentation", pos_);
        skipBlock(lines_[pos_].indent);
        continue;
      }
      parseBlockInto(0, out, 0);
    }
    return out;
  }

 private:
  void error(const std::string& msg, size_t line) {
    auto& l = lines_[line];
    diag_.error(Error(msg, sources::spanAt(file_, l.offset, std::max<uint32_t>(l.length, 1))));
  }
  // Skips lines more indented than `indent` (the body of a bad header).
  void skipBody(uint32_t indent) {
    while (pos_ < lines_.size() && lines_[pos_].indent > indent) ++pos_;
  }
  void skipBlock(uint32_t indent) {
    ++pos_;
    skipBody(indent);
  }

  // Parses statements at exactly `indent` into `out`.
  void parseBlockInto(uint32_t indent, std::vector<ast::Stmt*>& out, int depth) {
    std::vector<ast::Expr*> decorators;
    while (pos_ < lines_.size()) {
      auto& l = lines_[pos_];
      if (l.indent < indent) break;
      if (l.indent > indent) {
        error("unexpected indentation", pos_);
        skipBlock(indent);
        continue;
      }
      if (l.length == 0) {  // a line the splitter already reported
        skipBlock(indent);
        continue;
      }
      auto r = parseLine(std::string_view(text_).substr(l.offset, l.length), file_, l.offset, arena_, maxDepth_);
      size_t here = pos_++;
      if (!r.ok()) {
        diag_.error(std::move(r.error()));
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
          decorators.clear();
          parseBody(indent, s->body, here, depth);
          out.push_back(s);
          continue;
        case LineResult::If:
          parseBody(indent, s->body, here, depth);
          parseElse(indent, s, depth);
          break;
        case LineResult::For:
        case LineResult::With:
          parseBody(indent, s->body, here, depth);
          break;
        case LineResult::Elif:
          error("'elif' without a matching 'if'", here);
          skipBody(indent);
          continue;
        case LineResult::Else:
          error("'else' without a matching 'if'", here);
          skipBody(indent);
          continue;
        case LineResult::Import:
          error("import statements are not part of TVMScript (the header comments are enough)", here);
          continue;
        case LineResult::While:
          error("'while' loops are not supported in TVMScript", here);
          skipBody(indent);
          continue;
        default:
          break;
      }
      if (!decorators.empty()) {
        diag_.error(Error("a decorator must be followed by 'def' or 'class'", decorators.back()->span));
        decorators.clear();
      }
      out.push_back(s);
    }
    if (!decorators.empty()) diag_.error(Error("a decorator must be followed by 'def' or 'class'", decorators.back()->span));
  }

  void parseBody(uint32_t indent, std::vector<ast::Stmt*>& body, size_t header, int depth) {
    if (pos_ >= lines_.size() || lines_[pos_].indent <= indent) {
      error("expected an indented block after this line", header);
      return;
    }
    if (depth + 1 > maxDepth_) {
      error("blocks nested too deeply", header);
      skipBody(indent);
      return;
    }
    parseBlockInto(lines_[pos_].indent, body, depth + 1);
  }

  // After an if-body: optional elif/else at the same indentation.
  void parseElse(uint32_t indent, ast::Stmt* ifStmt, int depth) {
    if (pos_ >= lines_.size() || lines_[pos_].indent != indent || lines_[pos_].length == 0) return;
    auto& l = lines_[pos_];
    std::string_view t = std::string_view(text_).substr(l.offset, l.length);
    bool isElse = t.substr(0, 4) == "else" && (t.size() == 4 || !std::isalnum((unsigned char)t[4]));
    bool isElif = t.substr(0, 4) == "elif" && (t.size() == 4 || !std::isalnum((unsigned char)t[4]));
    if (!isElse && !isElif) return;
    auto r = parseLine(t, file_, l.offset, arena_, maxDepth_);
    size_t here = pos_++;
    if (!r.ok()) {
      diag_.error(std::move(r.error()));
      skipBody(indent);
      return;
    }
    ifStmt->hasElse = true;
    if (r.value().kind == LineResult::Else) {
      parseBody(indent, ifStmt->orelse, here, depth);
    } else {
      ast::Stmt* nested = r.value().stmt;
      parseBody(indent, nested->body, here, depth);
      parseElse(indent, nested, depth);
      ifStmt->orelse.push_back(nested);
    }
  }

  const std::string& text_;
  uint32_t file_;
  ast::Arena& arena_;
  DiagnosticEngine& diag_;
  int maxDepth_;
  std::vector<LogicalLine> lines_;
  size_t pos_ = 0;
};

}  // namespace

std::vector<ast::Stmt*> parseFile(const std::string& text, uint32_t file, ast::Arena& arena, DiagnosticEngine& diag, int maxDepth) {
  auto lines = splitLines(text, file, diag, maxDepth);
  BlockParser p(text, file, arena, diag, maxDepth, std::move(lines));
  return p.parseAll();
}

}  // namespace rlx::syntax
