// TIR kernels for FastMath: fast_exp / fast_tanh / fast_erf on float32 tensors of a given shape,
// written as TVMScript and parsed, so they print exactly like hand-written kernels.
#pragma once
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/tir.h"

namespace rlx {

enum class FastKernel { Exp, Tanh, Erf };

// The kernel `name(x, compute)` computing the approximation elementwise over a tensor of `dims`
// (constant or symbolic; symbolic dims become the kernel's own shape vars).
Result<Expr> makeFastKernel(FastKernel kind, const std::vector<PrimExpr>& dims, const std::string& name);
const char* fastKernelBaseName(FastKernel kind);  // "fast_exp", ...

}  // namespace rlx
