// From text to the Python-subset syntax tree: logical lines (brackets, strings, continuations),
// indentation blocks, and one PEGTL parse per line. Syntax errors are collected, not thrown.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/diagnostic.h"
#include "parser/ast.h"

namespace rlx::syntax {

// Parses a whole file into top-level statements. Lines with syntax errors are reported and skipped
// (with their indented bodies), so independent errors further down are reported too.
std::vector<ast::Stmt*> parseFile(const std::string& text, uint32_t file, ast::Arena& arena, DiagnosticEngine& diag, int maxDepth);

// Which `with` bodies a Reader leaves unparsed: those whose header `with` accepts, inside a def
// (the nearest enclosing one) that `inDef` accepts. Never at top level or directly in a class.
struct DeferRule {
  std::function<bool(const ast::Stmt& def)> inDef;
  std::function<bool(const ast::Stmt& with)> with;
};

// parseFile for consumers that build as they read. Bodies of the `with` statements `rule`
// selects stay unparsed (Stmt::deferred != 0, body empty) until the consumer reads them one
// statement at a time, each in a scratch arena reused for the next, so the syntax tree of a huge
// block (a 100k-binding dataflow block) never exists whole.
//
// Diagnostics are exactly parseFile's, in the same order: they are held back and sorted into
// source order by finish(), which also parses whatever deferred body was never (fully) read.
class Reader {
 public:
  Reader(const std::string& text, uint32_t file, ast::Arena& arena, int maxDepth, DeferRule rule);
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  // The top-level statements (nested bodies parsed, except the deferred ones).
  std::vector<ast::Stmt*> parseTop();

  // The last statement of a deferred body, parsed on its own (into the reader's arena) when it is
  // a simple statement at the body's indentation that parses cleanly; null otherwise (and nothing
  // is reported: the caller falls back to materialize()).
  const ast::Stmt* peekLast(const ast::Stmt& with);
  // Reads the deferred body statement by statement, leaving out the last one when `skipLast`
  // (the statement peekLast returned). Each statement lives until the next call to next().
  class Cursor {
   public:
    // The next statement, or null at the end of the body.
    const ast::Stmt* next();

   private:
    friend class Reader;
    Cursor(Reader& r, uint32_t id, bool skipLast);
    Reader& reader_;
    uint32_t id_;
    bool skipLast_;
    ast::Arena scratch_;
  };
  Cursor read(const ast::Stmt& with, bool skipLast);
  // How many statements of a deferred body (not yet read) bind each of `names`: assignments to
  // the plain name and defs of it, as a parsed body's statements would show. Only the lines that
  // can do so are parsed; nothing is reported.
  std::unordered_map<std::string, int> countBindings(const ast::Stmt& with, const std::unordered_set<std::string>& names);
  // Parses the rest of a deferred body into the reader's arena, as parseFile would have.
  std::vector<ast::Stmt*> materialize(const ast::Stmt& with);

  // Parses every deferred body not read to its end (for its syntax errors), then appends all
  // syntax errors to `diag` in source order. Call once, after building.
  void finish(DiagnosticEngine& diag);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rlx::syntax
