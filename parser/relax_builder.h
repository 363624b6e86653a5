// Internal: gives the syntax tree Relax meaning (TVM's relax parser + IRBuilder in one). One
// ModuleBuilder per parse; FunctionBuilder state lives in it while a function body is built.
#pragma once
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "ir/block_builder.h"
#include "ir/module.h"
#include "ir/op.h"
#include "parser/ast.h"
#include "parser/name_scope.h"
#include "parser/prim_eval.h"

namespace rlx {
namespace syntax {
class Reader;
}

// A symbolic var declaration: `T.int64()`, `T.int64(is_size_var=True)` or the tir.Var constructor
// `T.Var("n", "int64")` (its name in `name`). symbolicDecl gives nullopt for anything else
// (T.int64(15) is a value), an error for a malformed T.Var.
struct SymbolicDecl {
  DataType dtype;
  bool sizeVar = false;
  std::string name;  // T.Var's own name; empty: the assigned name
};
std::optional<Result<SymbolicDecl>> symbolicDecl(const ast::Expr* e);

class RelaxBuilder {
 public:
  RelaxBuilder(DiagnosticEngine& diag, std::string className) : diag_(diag), className_(std::move(className)) {}

  // Module-level symbols: GlobalVars by name (with signatures' struct info), set before bodies.
  std::map<std::string, GlobalVarRef> globals;
  // Sidecar constants for metadata["relax.expr.Constant"][i].
  std::vector<NDArrayRef>* metadata = nullptr;
  std::string metadataError;  // why metadata is unavailable (missing sidecar), for the message
  // Reads the deferred bodies (Stmt::deferred) of dataflow blocks; required when there are any.
  syntax::Reader* reader = nullptr;

  // The module's I.vdevice list (global infos), which "cuda:1" and "vdevice:3" name.
  void setVDevices(const AttrsRef& globalInfos);
  // The struct info of a function's signature (params + ret), for its GlobalVar before bodies exist.
  Result<StructInfo> signatureSInfo(const ast::Stmt* def, bool pure);
  // Builds a whole Relax function; null on error (diagnostics reported).
  FunctionRef buildFunction(const ast::Stmt* def, bool pure, bool isPrivate, const std::string& globalSymbol);

  // Struct info annotation (R.Tensor(...), ...). `sigMode` allows string dims naming signature vars.
  Result<StructInfo> evalSInfo(const ast::Expr* e, bool sigMode);
  Result<PyValue> evalValue(const ast::Expr* e);
  Result<Expr> evalExpr(const ast::Expr* e);
  Result<Expr> toExpr(const PyValue& v, Span span, bool inTuple = false);
  Result<Attr> toAttr(const ast::Expr* e);
  Result<AttrsRef> evalDictAttrs(const ast::Expr* e);
  Result<PrimExpr> evalPrimValue(const ast::Expr* e);
  Result<PyValue> evalIndexMap(const ast::Expr* lambda, DataType dtype);

 private:
  struct Scope {
    NameScope vars;  // Relax vars and local functions
  };
  DiagnosticEngine& diag_;
  std::string className_;
  BlockBuilder bb_;
  std::vector<Scope> scopes_;
  PrimScope primScope_;
  bool clsDefined_ = false;
  std::unordered_set<std::string> dataflowOutputs_;
  const ast::Stmt* dataflowReturn_ = nullptr;  // a `return` that ended the last dataflow block
  std::unordered_map<std::string, int> pendingBindings_;  // name -> bindings left in the dataflow block
  // Whether this binding of `name` is the one R.output exports (its last in the block); counts it.
  bool takeBindingSlot(const std::string& name);
  AttrsRef funcAttrs_;
  bool pure_ = true;
  struct VDeviceInfo {
    std::string kind, scope;
  };
  std::vector<VDeviceInfo> vdevices_;
  // "kind[:i[:scope]]" or "vdevice:i" (the i-th global vdevice) as the canonical "kind:i:scope",
  // i counting the module's vdevices of that kind, scope defaulting to that vdevice's own.
  Result<std::string> resolveVDevice(const std::string& text, Span span) const;

  // Names whose binding failed: later uses are silently skipped so one mistake reports once.
  std::unordered_set<std::string> poisoned_;
  void report(Error e);
  const Expr* lookupVar(const std::string& name) const;
  void define(const std::string& name, Expr e) { scopes_.back().vars.define(name, std::move(e)); }
  // Every bound name, innermost scope and most recent binding first (ties in "did you mean" go to
  // the first: the closest binding wins).
  std::vector<std::string> visibleNames() const;

  Status buildStmts(const std::vector<ast::Stmt*>& body, Expr* returned);
  Status buildStmt(const ast::Stmt* s, Expr* returned);
  Status buildAssign(const ast::Stmt* s);
  Status buildAssignImpl(const ast::Stmt* s);
  Status buildExprStmt(const ast::Stmt* s);
  Result<BlockRef> buildDataflow(const ast::Stmt* s);
  Result<BlockRef> buildDataflowBody(const std::vector<ast::Stmt*>& body, Span span);
  Result<BlockRef> streamDataflowBody(const ast::Stmt* s, const ast::Stmt* outputStmt);
  Status buildIf(const ast::Stmt* s);
  Status buildNestedFunction(const ast::Stmt* s);
  Result<Expr> buildBranch(const std::vector<ast::Stmt*>& body, const std::string& target, const char* suffix, StructInfo* annotation, Span span);
  Status declareSymbolicVar(const std::string& name, const SymbolicDecl& decl, Span span);
  Result<std::vector<VarRef>> buildParams(const ast::Stmt* def);
  Result<SeqExprRef> buildBody(const std::vector<ast::Stmt*>& body, Span span);

  Result<PyValue> evalCall(const ast::Expr* e);
  std::optional<Result<PyValue>> tensorProperty(const ast::Expr* e);
  Result<PyValue> evalOpCall(const ast::Expr* e, const OpInfo& op);
  Result<Expr> evalConst(const ast::Expr* e);
  Result<Expr> evalCallPacked(const ast::Expr* e);
  Result<PrimExpr> evalDim(const ast::Expr* e, bool sigMode);
  Result<std::vector<PrimExpr>> evalDims(const ast::Expr* e, bool sigMode);
  Result<Expr> relaxBinary(const std::string& op, const Expr& a, const Expr& b, Span span);
  Status collectSignatureVars(const ast::Stmt* def);
};

}  // namespace rlx
