// The machine-level view of a lowered module's kernels: optimized LLVM IR or host assembly of
// one PrimFunc or all of them (`rlx run --emit=llvm|asm`, the shell's :llvm / :asm).
#pragma once
#include <string>

#include "ir/diagnostic.h"
#include "ir/module.h"

namespace rlx {

// `kernel` empty: every PrimFunc, each under a "; ---- kernel NAME" line. An unknown name is an
// error with a suggestion.
Result<std::string> kernelCode(const IRModule& lowered, const std::string& kernel, bool assembly);

}  // namespace rlx
