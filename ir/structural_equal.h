// Structural equality and hashing over the whole IR, alpha-equivalent on bound variables.
// `rlx eq` prints the access path of the first mismatch; kernel caches key on the hash.
#pragma once
#include <cstdint>
#include <string>

#include "ir/object.h"

namespace rlx {

struct EqualResult {
  bool equal = true;
  // Access path of the first mismatch, e.g. Module.functions["main"].body.blocks[0].bindings[3].value.args[1]
  std::string path;
  // Short descriptions of the mismatching nodes or fields ("Var x", "IntImm 3 (int64)", "length 2").
  std::string lhs, rhs;
  explicit operator bool() const { return equal; }
};

// Compares two IR nodes of any kind (IRModule, functions, exprs, struct info, PrimExprs, TIR, attrs).
// Variables bound inside (function params, bindings, match_cast, signature/TIR vars, buffers) match
// by position; free variables must be the same object unless mapFreeVars. Var names, buffer and
// block names and spans do not matter (TVM's rules); GlobalVar names, dtypes and constants do.
// Module functions match by name.
EqualResult structuralEqual(const Ref<Object>& a, const Ref<Object>& b, bool mapFreeVars = false);

// A hash consistent with structuralEqual (default mode): bound vars hash by definition order,
// free vars by name, module functions order-insensitively. Deterministic across runs.
uint64_t structuralHash(const Ref<Object>& n);
// The same, except that a large array (over 4 KB) hashes by dtype, shape and a sample of its bytes:
// for hash tables whose hits structuralEqual confirms (common subexpressions, legalized kernels),
// which hashed every weight of a model byte by byte (a quarter of ResNet-50's warm `rlx run`).
uint64_t structuralHashSampled(const Ref<Object>& n);

}  // namespace rlx
