// ExprMutator: rebuilds a Relax expression bottom-up, sharing every unchanged subtree (the same Ref
// comes back when nothing changed, so passes can test `same` to detect "no change").
#pragma once
#include <unordered_map>

#include "ir/expr.h"

namespace rlx {

class ExprMutator {
 public:
  virtual ~ExprMutator() = default;
  // Dispatches on the node kind; subclasses override the visit* hooks they care about.
  Expr mutate(const Expr& e);

 protected:
  virtual Expr visitVar(const Ref<Var>& v);
  virtual Expr visitCall(const Ref<Call>& c);
  virtual Expr visitTuple(const Ref<Tuple>& t);
  virtual Expr visitTupleGetItem(const Ref<TupleGetItem>& t);
  virtual Expr visitIf(const Ref<If>& i);
  virtual Expr visitSeqExpr(const Ref<SeqExpr>& s);
  virtual Expr visitFunction(const Ref<Function>& f);
  virtual Expr visitLeaf(const Expr& e) { return e; }  // constants, shapes, prim values, globals, ops
  virtual BindingRef visitBinding(const BindingRef& b);
  virtual BlockRef visitBlock(const BlockRef& b);

  // Rebuilds binding `b` with `value`; when the var must change (new struct info or dataflow-ness)
  // a fresh var replaces it here and, through varMap, at every later use.
  BindingRef rebind(const BindingRef& b, const Expr& value, const StructInfo& sinfo, bool dataflow);
  // `s` with the shape vars it names (R.Tensor(lv2, ...)) replaced through varMap.
  StructInfo remapSInfo(const StructInfo& s) const;

  // Var substitution applied by visitVar (and to binding vars kept by visitBinding).
  std::unordered_map<const Var*, Expr> varMap;
};

// Replaces uses of vars by the mapped expressions throughout `e`.
Expr substituteVars(const Expr& e, const std::unordered_map<const Var*, Expr>& map);

}  // namespace rlx
