// Evaluation of syntax-tree expressions into PrimExprs: literals, `T.int64(4)`, `T.float32(0.5)`,
// arithmetic and comparisons, T.max/T.min/T.Cast/T.Select/T.if_then_else and intrinsic calls.
#pragma once
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/tir.h"
#include "parser/ast.h"

namespace rlx {

// Name resolution for PrimExpr evaluation: a stack of scopes mapping names to PrimVars/Buffers.
class PrimScope {
 public:
  void push() { frames_.emplace_back(); }
  void pop() { frames_.pop_back(); }
  void define(const std::string& name, PrimExpr value) { frames_.back().vars[name] = std::move(value); }
  void defineBuffer(const std::string& name, BufferRef b) { frames_.back().buffers[name] = std::move(b); }
  const PrimExpr* lookup(const std::string& name) const;
  const BufferRef* lookupBuffer(const std::string& name) const;

 private:
  struct Frame {
    std::unordered_map<std::string, PrimExpr> vars;
    std::unordered_map<std::string, BufferRef> buffers;
  };
  std::vector<Frame> frames_{1};
};

struct PrimEvalOptions {
  // Default dtype of a bare integer literal: int32 in TIR (as TVM), int64 in Relax shapes.
  DataType intLiteral = DataType::int32();
  // Whether Python operators constant-fold (TVM's TIR parser folds `T.float32(1) / T.float32(3)`).
  bool fold = true;
};

// Evaluates `e` to a PrimExpr. Unknown names are errors naming the identifier.
Result<PrimExpr> evalPrim(const ast::Expr* e, const PrimScope& scope, const PrimEvalOptions& opts = {});

// Applies a Python binary operator ("+", "//", "<", "and", ...) to two PrimExprs, promoting
// int literals to the other side's dtype as TVM does. Folds constants when both are immediates.
Result<PrimExpr> applyPrimBinary(const std::string& op, PrimExpr a, PrimExpr b, Span span);

// "int64" / "float32" / ... when `name` is `T.<dtype>`, else nullopt.
std::optional<DataType> tirDtypeCallee(const std::string& dotted);

}  // namespace rlx
