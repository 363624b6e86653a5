// Well-formedness verifier for Relax functions and TIR PrimFuncs: checks the numbered invariants
// below and returns every violation as an Error whose message starts with the invariant id.
#pragma once
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/module.h"

namespace rlx {

// Invariants (ids are stable: tests, golden files and users grep for them).
//
// Relax
//  [V1] Every Var used is defined before the use and in scope: function params, earlier bindings of
//       the enclosing SeqExprs (a branch's bindings are not visible after its If; only the If's
//       binding var is), and vars of enclosing functions inside a nested function.
//  [V2] DataflowVars are bound only in dataflow blocks, are never function params, and are never
//       used outside the block that binds them.
//  [V3] No Var is bound twice (as a param or binding) anywhere in the module.
//  [V4] Each binding's var struct info is a base of (or equal to) what inference gives for its
//       value (inferCallSInfo for calls); a match_cast var's struct info is a base of its target.
//       Unless VerifyOptions::strictAnnotations, an annotation that refines the inferred struct
//       info (R.Tensor((2, 3)) for an inferred R.Tensor(ndim=2)) is accepted too: TVM's parser
//       allows such runtime-checked refinements, so user input and TVM output may contain them.
//  [V5] Symbolic (PrimVar) shape variables are defined — by the function signature or an earlier
//       match_cast — before any use in a binding, a value or the return struct info.
//  [V6] Every GlobalVar referenced names a function of the module; function names are unique.
//  [V7] Function level: the body is a SeqExpr; the returned value's struct info is compatible
//       with (a subtype of) the declared return struct info; the `relax.force_pure` attr appears
//       only on functions declared pure (TVM's rule: force_pure=True implies is_pure=True).
//  [V8] An If condition is a boolean scalar (R.Tensor((), "bool") or R.Prim("bool")).
//  [V10] R.call_tir(f, args, out_sinfo) with f a PrimFunc of the module: the argument and output
//       tensors match f's buffers in number and rank, and in every extent known on both sides.
// TIR
//  [V9] Inside a PrimFunc every buffer used (loads, stores, reads/writes regions, match_buffer
//       sources) is defined (buffer_map, alloc_buffer, match_buffer) and in scope, every variable
//       used is a param, a buffer_map shape var, or an enclosing loop / let / block iter var, and a
//       block's iter var count equals its BlockRealize's binding count.
//
// Messages look like "[V1] variable 'x' is used before it is defined (in function 'main')".

struct VerifyOptions {
  // [V4] without the refinement allowance: the annotation must be a base of the inferred info.
  bool strictAnnotations = false;
};

// Verifies every function of `mod`; an empty vector means the module is well formed.
std::vector<Error> verifyModule(const IRModuleRef& mod, const VerifyOptions& opts = {});

// Verifies one PrimFunc ([V9] only); `name` is used in messages.
void verifyPrimFunc(const PrimFunc& func, const std::string& name, std::vector<Error>& out);
// The vars a PrimFunc uses that neither its params, its buffers' shapes nor its own loops, lets
// and blocks define, in first-use order (buffer layouts first, then the body).
std::vector<Ref<PrimVar>> primFuncFreeVars(const PrimFunc& func);

}  // namespace rlx
