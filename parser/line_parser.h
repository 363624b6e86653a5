// One logical line → a statement or block header (internal to the parser library).
// The block structure (indentation) is assembled by parser/syntax.cc.
#pragma once
#include <string_view>

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
// of source `file`.
Result<LineResult> parseLine(std::string_view text, uint32_t file, uint32_t offset, ast::Arena& arena, int maxDepth);

}  // namespace rlx::syntax
