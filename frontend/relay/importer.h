// The importer's internals: one Relay syntax tree into one Relax module through the BlockBuilder —
// globals, closures, lets and graph bindings, if, tuples — with op calls handed to convert.h's table.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "frontend/relay/convert.h"
#include "frontend/relay/relay.h"

namespace rlx::relay {

// Relay types as Relax struct info (import_types.cc). Each `?` of a parameter's type becomes a fresh
// symbolic var (`fresh` names it); elsewhere a tensor with a `?` keeps only its rank. A metadata
// shape variable is one symbolic var wherever it appears (first defined by a parameter's type).
class TypeConverter {
 public:
  StructInfo convert(const Type& t, bool defineVars);
  // Whether struct info `s` agrees with the type TVM printed: same ranks, dtypes and static dims
  // (`?` agrees with anything).
  static bool agrees(const StructInfo& s, const Type& t);
  static std::string str(const Type& t);  // Relay spelling, for messages
  void resetVars() { next_ = 0; }

 private:
  int next_ = 0;
  // One symbolic var per metadata shape variable (`meta[tir.SizeVar][0]`), shared by every type
  // that names it, as TVM's SizeVar object is.
  std::map<const MetaValue*, Ref<PrimVar>> metaVars_;
};

class Importer final : public Emitter {
 public:
  Importer(const Module& m, const ImportOptions& o) : m_(m), options_(o) {}
  Result<IRModuleRef> run();

  rlx::Expr emit(const rlx::Expr& e, Span span) override;
  const MetaValue* lookupMeta(const std::string& typeKey, int64_t index) override;

 private:
  void refuseTypeDefinitions();
  void declareGlobals();
  // A Relay function as a Relax one; nested functions are built in the current block frame.
  // `argSInfo` (when given) types the parameters written without a type, from a call's arguments.
  FunctionRef function(const Function& fn, const std::string& name, bool global, const std::vector<StructInfo>* argSInfo = nullptr);
  FunctionRef function(const std::vector<int>& params, const Expr& body, const Attrs& attrs, const Type* ret, Span span, const std::string& name,
                       bool global, const std::vector<StructInfo>* argSInfo = nullptr);
  bool hasUntypedParams(const Function& fn) const;
  // A closure whose parameters have no types is built where it is first called, typed by the
  // arguments (Relay's inference would unify them the same way).
  rlx::Expr materialize(int binder, const std::vector<rlx::Expr>& args, Span span);
  // Emits what `e` computes into the current block and returns an atom (var, constant, global).
  rlx::Expr expr(const Expr& e, const std::string& nameHint = "");
  rlx::Expr call(const Expr& e, const std::string& nameHint);
  rlx::Expr let(const Expr& e);
  rlx::Expr ifExpr(const Expr& e, const std::string& nameHint);
  rlx::Expr branch(const Expr& e);  // a SeqExpr of its own block
  rlx::Expr scalar(const Expr& e);
  rlx::Expr constant(const MetaValue& v, const Expr& at);
  rlx::Expr bindNamed(rlx::Expr value, const std::string& name, Span span);  // renames the value's binding
  rlx::Expr bindAs(rlx::Expr value, const std::string& name, Span span);  // a new binding name = value ("" = fresh)
  [[noreturn]] void notExpressible(const std::string& construct, Span span, const std::string& hint = {});
  void checkPrinted(const Type* printed, const rlx::Expr& value, Span span);
  StructInfo paramSInfo(const Binder& b);

  const Module& m_;
  ImportOptions options_;
  BlockBuilder bb_;
  TypeConverter types_;
  std::vector<rlx::Expr> values_;  // by binder index
  std::map<int, const Expr*> deferred_;  // closures with untyped parameters, by binder, until called
  std::map<std::string, GlobalVarRef> globals_;
  std::vector<std::string> importing_;  // the globals being imported (recursion without a signature)
};

}  // namespace rlx::relay
