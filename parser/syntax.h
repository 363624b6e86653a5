// From text to the Python-subset syntax tree: logical lines (brackets, strings, continuations),
// indentation blocks, and one PEGTL parse per line. Syntax errors are collected, not thrown.
#pragma once
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "parser/ast.h"

namespace rlx::syntax {

// Parses a whole file into top-level statements. Lines with syntax errors are reported and skipped
// (with their indented bodies), so independent errors further down are reported too.
std::vector<ast::Stmt*> parseFile(const std::string& text, uint32_t file, ast::Arena& arena, DiagnosticEngine& diag, int maxDepth);

}  // namespace rlx::syntax
