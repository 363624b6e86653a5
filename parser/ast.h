// The Python-subset syntax tree that the PEGTL grammar produces for TVMScript. It knows nothing
// of Relax or TIR; parser/build_*.cc give it meaning, as TVM's parser does with Python's ast.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/span.h"

namespace rlx::ast {

struct Expr {
  enum Kind : uint8_t {
    Name, Attribute, Call, Int, Float, Str, Bool, NoneLit, Tuple, List, Dict, Subscript, Slice,
    BinOp, UnaryOp, Compare, BoolOp, IfExp, Lambda, Keyword,
    Marker,  // grammar-internal: an operator or separator token (str), never in a finished tree
  };
  Kind kind = Name;
  Span span;
  std::string str;      // Name id, Attribute attr, Str value, BinOp/UnaryOp/BoolOp symbol, Keyword name
  int64_t i = 0;        // Int value
  double d = 0;         // Float value
  bool b = false;       // Bool value; Tuple: written with parentheses
  std::vector<Expr*> items;     // Call args (Keyword nodes for kwargs), Tuple/List items, Dict k,v,k,v,
                                // Subscript indices, Compare operands, BoolOp operands, Lambda params (Names)
  std::vector<std::string> ops; // Compare operators
  Expr* a = nullptr;  // Attribute/Call/Subscript value, BinOp lhs, UnaryOp operand, IfExp body, Slice lo, Keyword value, Lambda body
  Expr* b2 = nullptr; // BinOp rhs, IfExp test, Slice hi
  Expr* c = nullptr;  // IfExp orelse, Slice step

  // "R.nn.relu" for a dotted name chain, "" otherwise.
  std::string dottedName() const;
  // Back to a default node, keeping the capacity of its strings and lists (arena reuse).
  void clear() {
    str.clear();
    i = 0;
    d = 0;
    b = false;
    items.clear();
    ops.clear();
    a = b2 = c = nullptr;
  }
};

struct Param {
  std::string name;
  Expr* annotation = nullptr;
  Span span;
};

struct Stmt {
  enum Kind : uint8_t { ExprStmt, Assign, Return, If, For, With, FunctionDef, ClassDef, Pass };
  Kind kind = Pass;
  Span span;
  Expr* target = nullptr;      // Assign
  Expr* annotation = nullptr;  // Assign (may be null)
  Expr* value = nullptr;       // Assign value (null for `x: T` without value), ExprStmt, Return (may be null), If test, For iter, With item
  Expr* withTarget = nullptr;  // With ... as target
  std::vector<Expr*> decorators;
  std::string name;            // FunctionDef/ClassDef
  std::vector<Param> params;
  Expr* returns = nullptr;
  std::vector<Stmt*> body, orelse;
  bool hasElse = false;
  uint32_t deferred = 0;  // With: its body is left to syntax::Reader (0 = parsed into `body`)

  // Back to a default node, keeping the capacity of its strings and lists (arena reuse).
  void clear() {
    target = annotation = value = withTarget = returns = nullptr;
    decorators.clear();
    name.clear();
    params.clear();
    body.clear();
    orelse.clear();
    hasElse = false;
    deferred = 0;
  }
};

// Owns every node of one parse; nodes are plain pointers into it. Nodes come from fixed-size
// chunks (one allocation per 256 nodes) and are destroyed together with the arena. reset() hands
// the same chunks out again (a scratch arena per statement): old nodes are cleared on reuse
// (T::clear(), which keeps their buffers).
template <typename T, size_t kChunk = 256>
class Pool {
 public:
  T* make() {
    if (used_ == kChunk) {
      if (next_ == chunks_.size()) chunks_.push_back(std::make_unique<T[]>(kChunk));
      cur_ = chunks_[next_++].get();
      used_ = 0;
    }
    T* p = cur_ + used_++;
    if (next_ <= dirty_) p->clear();  // this chunk was handed out before the last reset
    return p;
  }
  void reset() {
    dirty_ = chunks_.size();
    next_ = 0;
    used_ = kChunk;
  }

 private:
  std::vector<std::unique_ptr<T[]>> chunks_;
  T* cur_ = nullptr;
  size_t next_ = 0;   // index of the next chunk to hand out
  size_t dirty_ = 0;  // chunks [0, dirty_) hold nodes from before the last reset
  size_t used_ = kChunk;
};

class Arena {
 public:
  Expr* expr(Expr::Kind k, Span s) {
    auto* e = exprs_.make();
    e->kind = k;
    e->span = s;
    return e;
  }
  Stmt* stmt(Stmt::Kind k, Span s) {
    auto* st = stmts_.make();
    st->kind = k;
    st->span = s;
    return st;
  }
  // Every node made so far becomes invalid; their memory is reused.
  void reset() {
    exprs_.reset();
    stmts_.reset();
  }
  // Grammar-internal tokens (Expr::Marker) that live for one line only: resetMarkers() at the
  // start of each line reuses them.
  Expr* marker(Span s) {
    auto* e = markers_.make();
    e->kind = Expr::Marker;
    e->span = s;
    return e;
  }
  void resetMarkers() { markers_.reset(); }
  // The line parser's working stacks, kept here so their buffers are reused line after line.
  struct LineScratch {
    std::vector<Expr*> stack, taken;
    std::vector<size_t> frames;
  };
  LineScratch& lineScratch() { return lineScratch_; }

 private:
  LineScratch lineScratch_;
  Pool<Expr, 32> markers_;
  Pool<Expr> exprs_;
  Pool<Stmt> stmts_;
};

}  // namespace rlx::ast
