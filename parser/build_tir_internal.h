// Internal state of the TIR builder (parser/build_tir*.cc): scopes, the enclosing loops and blocks,
// and the statement/buffer helpers shared by the function-level and statement-level halves.
#pragma once
#include <string>
#include <tuple>
#include <vector>

#include "ir/tir.h"
#include "parser/build_tir.h"
#include "parser/prim_eval.h"

namespace rlx::tirbuild {

// A block under construction: block-level calls (T.axis.*, T.reads, T.where, ...) fill it.
struct BlockFrame {
  TirBlockRef block;
  std::vector<PrimExpr> iterValues;
  PrimExpr predicate;  // null = true
  bool readsGiven = false, writesGiven = false;
};

// Where a statement list sits: block-level and function-level calls are only legal in their place.
enum class Place { Function, Block, Other };

class TirBuilder {
 public:
  explicit TirBuilder(DiagnosticEngine& d) : diag(d) {}

  DiagnosticEngine& diag;
  PrimScope scope;
  PrimEvalOptions evalOpts;  // int literals are int32 in TIR
  std::vector<Ref<For>> loops;       // enclosing loops, innermost last (T.axis.remap looks here)
  // `for iters in T.grid(...)`: the one name stands for all the grid's loop vars (iters_0, ...).
  std::vector<std::pair<std::string, std::vector<PrimExpr>>> loopGroups;
  std::vector<BlockFrame*> blocks;   // enclosing blocks, innermost last
  std::vector<BufferRef> rootAllocs; // T.alloc_buffer at function level
  AttrsRef funcAttrs;
  Ref<PrimFunc> func;
  std::vector<std::pair<std::string, PrimVarRef>> params;  // by source name
  // Blocks built directly at function level whose regions were inferred (reads, writes): TVM
  // infers nothing for the outermost block, so an explicit root block gets them cleared.
  std::vector<std::tuple<TirBlock*, bool, bool>> topLevelInferred;

  // ---- errors
  void error(const std::string& msg, Span span, std::string hint = {}) { diag.error(Error(msg, span, std::move(hint))); }
  void report(Error e, Span fallback) { diag.error(std::move(e.at(fallback))); }

  // ---- expressions (build_tir.cc)
  Result<PrimExpr> evalExpr(const ast::Expr* e) { return evalPrim(e, scope, evalOpts); }
  Result<Attr> evalAttr(const ast::Expr* e);
  Result<AttrsRef> evalAttrDict(const ast::Expr* e);
  // The dtype named by `T.int64` / `T.int64()` / "int64"; nullopt when `e` names none.
  std::optional<DataType> annotationDtype(const ast::Expr* e);
  // Shape / strides as a tuple, list or single expression.
  Result<std::vector<PrimExpr>> evalShape(const ast::Expr* e);
  // A buffer declared by T.Buffer / T.match_buffer / T.alloc_buffer; `args` are the call's
  // arguments after the leading ones already consumed (`firstArg`).
  Result<BufferRef> declareBuffer(const ast::Expr* call, size_t firstArg, const std::string& name, bool allowShapeless);
  // `A[i, j]` / `A[0:4, i]` as a region (T.reads/T.writes/T.match_buffer sources).
  Result<BufferRegion> evalRegion(const ast::Expr* e);
  // The buffer named by a Subscript's value.
  Result<BufferRef> subscriptBuffer(const ast::Expr* e);
  static std::vector<const ast::Expr*> subscriptIndices(const ast::Expr* e);

  // ---- statements (build_tir_stmt.cc)
  // Builds statements body[from..] (a LetStmt/Assert takes the rest of the list as its body).
  Stmt buildBody(const std::vector<ast::Stmt*>& body, size_t from, Place place);
  bool buildAssign(const ast::Stmt* s, Place place, std::vector<Stmt>& out, const std::vector<ast::Stmt*>& body, size_t i, bool& consumedRest);
  bool buildExprStmt(const ast::Stmt* s, Place place, std::vector<Stmt>& out, const std::vector<ast::Stmt*>& body, size_t i, bool& consumedRest);
  Stmt buildFor(const ast::Stmt* s);
  Stmt buildWith(const ast::Stmt* s, Place place, const std::vector<ast::Stmt*>& body, size_t i, bool& consumedRest);
  Stmt buildBlock(const ast::Stmt* s, const ast::Expr* call);
  Stmt buildIf(const ast::Stmt* s);
  Stmt buildStore(const ast::Stmt* s);
  bool buildAxis(const ast::Stmt* s, const std::string& callee);
  bool buildBlockCall(const ast::Expr* call, const std::string& callee);
  // Declares `n = T.int64()` style symbolic variables; false when `s` is not such a declaration.
  bool tryVarDecl(const ast::Stmt* s);
  BlockFrame* currentBlock(Place place) { return place == Place::Block && !blocks.empty() ? blocks.back() : nullptr; }
};

// Wraps statements as TVM does: none → T.evaluate(0), one → itself, more → SeqStmt (no-op
// evaluates of constants dropped).
Stmt seqOf(std::vector<Stmt> stmts);
bool containsBlockRealize(const Stmt& s);
// Casts a value to a buffer's dtype the way TVM's buffer store does (constants fold).
PrimExpr castTo(DataType t, const PrimExpr& v);

// T.reads/T.writes inference (parser/tir_access.cc), as TVM's block access-region detector:
// buffers in first-access order, point indices kept, loops inside the block relaxed to ranges.
void inferAccessRegions(TirBlock& block, bool reads, bool writes);

}  // namespace rlx::tirbuild
