// Shared by DecomposeOpsForInference and DecomposeOpsForTraining: the inference decomposition
// (the training pass ends with it, as TVM's does) and the func_name option handling.
#pragma once
#include <functional>

#include "passes/registry.h"

namespace rlx {

// `func` with batch_norm decomposed into its inference arithmetic and tensor_to_shape into a
// run-time builtin plus a match_cast (same object when it has neither).
Expr decomposeOpsForInference(const Expr& func);

// A module pass applying `fn` to every Relax function, or only to func_name when the option names
// one (an error when the module has no such Relax function).
Result<Pass> makeDecomposePass(const char* name, PassOptions& options, std::function<Expr(const Expr&)> fn);

}  // namespace rlx
