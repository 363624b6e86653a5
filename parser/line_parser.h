// One logical line → a statement or block header (internal to the parser library).
// The block structure (indentation) is assembled by parser/syntax.cc.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/diagnostic.h"
#include "parser/ast.h"

namespace rlx::syntax {

struct LineResult {
  enum Kind : uint8_t { Decorator, Def, Class, If, Elif, Else, For, With, Return, Pass, Import, While, Simple };
  Kind kind = Simple;
  ast::Stmt* stmt = nullptr;
  ast::Expr* expr = nullptr;  // Decorator
};

// `text` is the logical line (may span physical lines inside brackets) starting at byte `offset`
// of source `file`. Tries parseCommonLine, then the grammar.
Result<LineResult> parseLine(std::string_view text, uint32_t file, uint32_t offset, ast::Arena& arena, int maxDepth);

// The PEGTL line grammar alone: every statement form, and the syntax errors with their messages.
Result<LineResult> parseLineWithGrammar(std::string_view text, uint32_t file, uint32_t offset, ast::Arena& arena, int maxDepth);

// A hand-written reader for the shape nearly every binding line has (`name[: ann] [= value]`, whose
// expressions are names, attributes, calls, subscripts, literals, lists and tuples). It returns the
// tree the grammar would build, node for node and span for span, or nothing when the line has
// anything else (operators, slices, escapes, keywords, errors); the grammar then reads it.
std::optional<LineResult> parseCommonLine(std::string_view text, uint32_t file, uint32_t offset, ast::Arena& arena, int maxDepth);

// The logical lines of a source (for tests that feed lines to the parsers above): offset, length
// and indentation of each; a line with a bracket or string error has length 0 and is reported.
struct LogicalLine {
  uint32_t offset = 0, length = 0;
  uint32_t indent = 0;
};
std::vector<LogicalLine> splitLines(const std::string& text, uint32_t file, DiagnosticEngine& diag, int maxDepth);

}  // namespace rlx::syntax
