// Reference interpreter for TIR PrimFuncs: runs a kernel on concrete NDArrays, destination-passing
// style, with TVM's semantics (integer wrap-around, truncating/floor division, init blocks, ...).
#pragma once
#include <cstdint>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/ndarray.h"
#include "ir/tir.h"

namespace rlx {

// One argument of a PrimFunc call: an NDArray for a buffer/handle parameter, or a scalar for a
// scalar parameter (converted to the parameter's dtype: wrapped to its width, or rounded).
struct TirArg {
  enum Kind : uint8_t { Array, Int, Float };
  Kind kind = Int;
  NDArrayRef array;
  int64_t i = 0;
  double f = 0;

  TirArg(NDArrayRef a) : kind(Array), array(std::move(a)) {}
  TirArg(int64_t v) : kind(Int), i(v) {}
  TirArg(int v) : kind(Int), i(v) {}
  TirArg(double v) : kind(Float), f(v) {}
};

// Runs `func` on `args`: one value per PrimFunc param, in order — an NDArray for a buffer/handle
// param (inputs and preallocated outputs, written in place), or an integer/float scalar for a scalar
// param. Symbolic shape vars of the buffer_map shapes are bound from the arrays' shapes (and checked
// when a var occurs twice, or a constant dim mismatches: an Error naming the buffer and dim).
// Every kind of loop runs serially. Out-of-bounds accesses, division by zero, a failed T.Assert and
// constructs the interpreter does not know become Errors; the arrays may be partly written then.
// A host function (`-> T.int64`, T.ret) stores its result in `*result` when given.
Status runPrimFunc(const PrimFunc& func, const std::vector<TirArg>& args, TirArg* result = nullptr);

}  // namespace rlx
