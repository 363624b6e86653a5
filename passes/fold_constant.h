// FoldConstant's folding rules, shared with PartialEvaluate: each returns the constant a call
// evaluates to, or the call itself when it does not fold (see fold_constant.cc for the rules).
#pragma once
#include "ir/module.h"

namespace rlx {

// An op call whose arguments are all constants, by the op's reference evaluator (the size rule
// for ops without tensor inputs applies).
Expr foldOpCall(const Ref<Call>& call);
// R.shape_of of a tensor whose shape is known (symbolic dims included).
Expr foldShapeOf(const Ref<Call>& call);
// R.call_tir of a module PrimFunc on constant tensors, by the TIR interpreter.
Expr foldCallTIR(const Ref<Call>& call, const IRModuleRef& mod);

}  // namespace rlx
