// The Relax half of the printer (internal): struct info, expressions, bindings and functions.
// Shared by print_relax.cc (functions, bindings), print_expr.cc (expressions) and print_module.cc.
#pragma once
#include <unordered_set>

#include "printer/print_context.h"

namespace rlx {

class RelaxPrinter {
 public:
  explicit RelaxPrinter(PrintContext& c) : ctx(c) {}
  PrintContext& ctx;

  // Symbolic vars defined by the signature being printed: they print quoted ("n * 2") there.
  std::unordered_set<const PrimVar*> sigVars;
  bool inSignature = false;
  // Body-hoisted prelude lines (cls = Module, decls of vars first met in the body), in order.
  std::vector<std::string>* hoisted = nullptr;
  size_t preludeFrame = 0;  // the NameTable frame of the top-level function being printed
  std::unordered_set<const PrimVar*> declared;
  bool clsPrinted = false;
  // Vars used anywhere in the top-level function being printed: a void binding prints as a bare
  // statement only when nothing refers to its var (otherwise the text would not re-parse).
  // Collected on the first void binding, as most functions have none.
  std::unordered_set<const Var*> voidVars;  // bound to a void value: printed as R.tuple()
  std::vector<NDArrayRef> metadata;

  void printFunction(const Function& f, const std::string& name, bool topLevel, bool isPrivate);
  std::string sinfo(const StructInfo& s);
  std::string expr(const Expr& e);
  void appendExpr(std::string& out, const Expr& e);  // out += expr(e)
  std::string shapeDim(const PrimExpr& e);
  void appendShapeDim(std::string& out, const PrimExpr& e);  // out += shapeDim(e)
  std::string attrValue(const Attr& a);

 private:
  friend struct ExprPrinter;
  void printSeqBody(const SeqExpr& seq);
  void printBlocks(const SeqExpr& seq);
  void printBinding(const Binding& b);
  void printIf(const Binding& b, const If& node);
  std::string declLine(const PrimVar& v);
  void noteVars(const PrimExpr& e);
  void noteSInfoVars(const StructInfo& s);
  std::string callExpr(const Call& c);
  std::string opCall(const Call& c, const Op& op);
  std::string constant(const Constant& c);
  std::string sinfoArgsKw(const std::vector<StructInfo>& s);
  std::string outSInfo(const StructInfo& s);
  std::string tupleArg(const Expr& e);
  std::string calleeName(const Expr& e);
};

}  // namespace rlx
