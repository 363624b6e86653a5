// BlockBuilder: the normalizer every IR producer goes through (parser, passes, nn frontend).
// It binds non-leaf call arguments to fresh vars (lv/gv numbering), infers struct info, and
// collects bindings into blocks, exactly the normalization TVM's parser performs.
#pragma once
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/expr.h"

namespace rlx {

class BlockBuilder {
 public:
  // Starts a new function: resets the lv/gv counters.
  void beginFunction();
  void beginBlock(bool dataflow);
  // Ends the current block; returns null when it is empty.
  BlockRef endBlock();
  bool inDataflow() const { return !frames_.empty() && frames_.back().dataflow; }

  // Normalizes `value`, binds it to a new var named `name` ("" = fresh lv/gv name) and returns it.
  // `asOutput` makes the var a plain Var even inside a dataflow block (R.output vars).
  // `annotation`, when given, becomes the var's struct info after a compatibility check.
  Result<VarRef> emit(Expr value, const std::string& name, Span span, StructInfo annotation = nullptr, bool asOutput = false);
  Result<VarRef> emitMatchCast(Expr value, StructInfo target, const std::string& name, Span span, bool asOutput = false);
  // Appends an already-normalized binding.
  void addBinding(BindingRef b);
  // When `var` is bound by the last binding of the current block, rebinds that value to a new var
  // named `name` and returns it (importers name a value after its source once it is built); else
  // returns `var` unchanged.
  VarRef renameLastBinding(const VarRef& var, const std::string& name);

  // Infers struct info for `e` and binds non-leaf arguments (emitting bindings into the current
  // block). Leaves and tuples of leaves come back unchanged (same pointer when already normalized).
  Result<Expr> normalize(const Expr& e);
  // Like normalize, but a non-leaf result is itself bound to a fresh var (call arguments).
  Result<Expr> normalizeArgument(const Expr& e);

  // The next fresh name ("lv", "lv1", ... in dataflow blocks; "gv", "gv1", ... outside). Every
  // emitted binding consumes a number, named or not (TVM's counters).
  std::string freshName();
  void consumeName();

 private:
  struct Frame {
    bool dataflow;
    std::vector<BindingRef> bindings;
  };
  std::vector<Frame> frames_;
  int lvCount_ = 0, gvCount_ = 0;
};

// Struct info of a call from its callee (op rule, function signature, or sinfo_args).
Result<StructInfo> inferCallSInfo(const Call& call);
// The struct info with every symbolic var outside `defined` erased (shapes become ndim-only).
StructInfo eraseUndefinedVars(const StructInfo& s, const std::vector<const PrimVar*>& defined);
// A function body's struct info as its return struct info: what the body binds (symbolic vars
// from match_cast, shape vars) is erased; only the parameters' symbolic vars stay.
StructInfo eraseToSignature(const StructInfo& body, const std::vector<VarRef>& params);

}  // namespace rlx
