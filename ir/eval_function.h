// The reference evaluator for whole Relax functions: walks bindings with the op evaluator,
// runs call_tir kernels with the TIR interpreter — the oracle the VM's results are checked against.
#pragma once
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/eval.h"
#include "ir/module.h"

namespace rlx {

// Runs function `name` of `mod` on `args`. Handles op calls, call_tir / call_dps-style kernel calls
// (including destination-passing PrimFunc calls after CallTIRRewrite), calls between functions,
// if/else, tuples, match_cast and symbolic shapes bound from the arguments, local functions and
// closures (nested functions over their environment, module functions as values, R.make_closure /
// R.invoke_closure). Packed functions and VM builtins are errors (the VM runs those).
Result<Value> evaluateFunction(const IRModule& mod, const std::string& name, const std::vector<Value>& args);

// The static struct info describing a concrete value (used to bind symbolic vars by matching).
StructInfo valueSInfo(const Value& v);

}  // namespace rlx
