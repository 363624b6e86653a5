// The state of one export: the IRModule being built, the binding-name table shared by all of its
// functions, and the function under construction (its bindings and symbolic vars). nn ops emit into
// the active context; effects and subroutines extend a function through the same interface.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "frontend/nn/name_supply.h"
#include "ir/block_builder.h"
#include "ir/module.h"

namespace rlx::nn {

class ExternModule;
class IOEffect;

class ExportContext {
 public:
  ExportContext();
  ExportContext(const ExportContext&) = delete;
  ExportContext& operator=(const ExportContext&) = delete;

  // The active context, or null outside an export; current() throws NNError instead of null.
  static ExportContext* active();
  static ExportContext& current();

  // Makes a context active for its lifetime (nested scopes restore the outer one).
  class Scope {
   public:
    explicit Scope(ExportContext& ctx);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    ExportContext* prev_;
  };

  NameSupply& names() { return names_; }
  const IRModuleRef& module() const { return module_; }

  // ---- the function under construction
  // Starts a function whose bindings go into one dataflow block; symbolic vars start empty.
  // Functions nest (a subroutine is emitted while its caller is being built): the innermost one
  // is current until its endFunction.
  void beginFunction(const std::string& name);
  bool inFunction() const { return !frames_.empty(); }
  // Whether the current function is a subroutine (Module::callSubroutine), where effects are refused:
  // their states belong to the exported method.
  void markSubroutine() { frame().subroutine = true; }
  bool inSubroutine() const { return !frames_.empty() && frames_.back().subroutine; }
  const std::string& functionName() const;
  // The int64 symbolic var called `name` of the current function (created on first use).
  PrimVarRef symbolicVar(const std::string& name);
  // Binds `value` to a fresh var named after `nameHint`. Non-leaf arguments nested inside it are
  // bound first, left to right, as lv, lv1, ... (TVM's normalizer); a sub-expression used twice is
  // bound once. A Var or constant comes back unchanged when `bindLeaf` is false.
  Expr emit(const Expr& value, const std::string& nameHint, bool bindLeaf = true);
  // Binds the function result (a non-dataflow var, "gv" by default).
  VarRef emitOutput(const Expr& value, const std::string& nameHint = "gv");
  // Ends the dataflow block and adds the function `name(params) -> output` with `attrs` (a dict;
  // global_symbol is added unless `isPrivate`). Returns its GlobalVar.
  GlobalVarRef endFunction(std::vector<VarRef> params, const Expr& output, AttrsRef attrs, bool isPrivate = false);

  // ---- module-level functions
  // Adds a PrimFunc (or private function) under a fresh name derived from `nameHint`; a function
  // structurally equal to one already added reuses that one's GlobalVar (TVM's add_func).
  GlobalVarRef addFunction(const Expr& func, const std::string& nameHint);

  // Extern modules registered with addExtern during this export (extern.cc checks duplicates).
  std::vector<std::shared_ptr<ExternModule>>& externModules() { return externModules_; }

  // ---- effects: the IO effect of a debug export (null otherwise), which op::debugFunc threads
  IOEffect* ioEffect() const { return io_; }
  void setIOEffect(IOEffect* io) { io_ = io; }

  // ---- subroutines emitted so far (Module::callSubroutine): a call whose class and signature
  // (argument + parameter struct info, symbolic vars matched by position) equal one's reuses it.
  struct Subroutine {
    std::string cls;       // the module's C++ type
    StructInfo signature;  // a TupleSInfo of the call's argument and parameter struct info
    GlobalVarRef gv;
    bool tensorOutput;
  };
  std::vector<Subroutine>& subroutines() { return subroutines_; }

 private:
  Expr bindNested(const Expr& e, std::unordered_map<const ExprNode*, Expr>& memo);
  Expr bindArgument(const Expr& a, std::unordered_map<const ExprNode*, Expr>& memo);

  struct Frame {
    std::string name;
    BlockBuilder bb;
    std::map<std::string, PrimVarRef> symVars;
    bool subroutine = false;
  };
  Frame& frame();

  NameSupply names_;
  IRModuleRef module_;
  std::vector<Frame> frames_;
  std::vector<std::shared_ptr<ExternModule>> externModules_;
  IOEffect* io_ = nullptr;
  std::vector<Subroutine> subroutines_;
};

}  // namespace rlx::nn
