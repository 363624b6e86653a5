// Internal state of the TIR printer (printer/print_tir*.cc): name frames mirror TVM's printer
// frames (function, loop, block, let, branch), so names are released exactly where TVM releases them.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ir/tir.h"
#include "printer/print_context.h"

namespace rlx::tirprint {

class TirPrinter {
 public:
  TirPrinter(PrintContext& c, const PrimFunc& f) : ctx(c), func(f) {}
  PrintContext& ctx;
  const PrimFunc& func;
  std::vector<const For*> loops;  // enclosing loops, for the T.axis.remap rule

  // ---- names and expressions (print_tir.cc)
  // A variable already visible keeps its name (TVM's DefineVar), e.g. a loop var object reused.
  std::string defineVar(const PrimVar& v) {
    if (auto* n = ctx.names.find(&v)) return *n;
    return ctx.names.define(&v, v.name.empty() ? "v" : v.name);
  }
  std::string defineBuffer(const Buffer& b) { return ctx.names.define(&b, b.name.empty() ? "buffer" : b.name); }
  std::string bufferName(const Buffer& b) { return ctx.nameFor(&b, b.name.empty() ? "buffer" : b.name); }
  std::string expr(const PrimExpr& e) { return ctx.prim(e, PrimStyle::Tir); }
  // Emits `v = T.int32()` lines for variables in `exprs` that have no name yet (TVM defines a
  // free variable lazily, right before the statement that first uses it).
  void declareFree(const std::vector<PrimExpr>& exprs);
  std::string varCreation(const PrimVar& v);
  // `T.alloc_buffer((n, 4), "int64", scope="shared")`, first emitting declarations of new shape vars.
  std::string bufferDecl(const Buffer& b, const std::string& method, const std::vector<std::string>& leadArgs);
  std::string bufferAnnotation(const Buffer& b);  // T.Buffer((2, 3), "float32")
  std::string region(const BufferRegion& r);
  std::string indices(const std::vector<PrimExpr>& idx);
  std::string attrValue(const Attr& a);
  std::string attrDict(const AttrsRef& a);
  static std::string typeAnnotation(DataType t);
  bool isSimpleBuffer(const Buffer& b) const;

  // ---- statements (print_tir_stmt.cc)
  void printFunction(const std::string& name);
  void printBody(const Stmt& s);
  void printStmt(const Stmt& s, bool concise);
  void printFor(const For& f);
  void printBlock(const TirBlock& b, const BlockRealize* r);
};

// Calls fn on every expression a statement tree holds (values, indices, bounds, regions, shapes).
void forEachExpr(const Stmt& s, const std::function<void(const PrimExpr&)>& fn);
// a + b folded the way TVM's operator+ folds constants (used for `lo:hi` and `range(lo, hi)`).
PrimExpr foldAdd(const PrimExpr& a, const PrimExpr& b);

}  // namespace rlx::tirprint
