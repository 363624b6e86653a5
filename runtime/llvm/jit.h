// Compiles TIR PrimFuncs to host machine code (LLVM O3 for the host CPU, ORC JIT) as RlxKernelFns,
// once per process per structurally-equal PrimFunc. No LLVM header is visible from here.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/tir.h"
#include "ir/tir_eval.h"
#include "runtime/kernel_abi.h"

namespace rlx {

// A kernel compiled for this process. Lives until the process ends.
struct CompiledKernel {
  std::string symbol;  // the JIT symbol (the requested name, made unique)
  RlxKernelFn fn = nullptr;
  // messages[code - 1] says which check a non-zero return code reports, naming the buffer and
  // dimension ("buffer 'x' dim 1 does not match 'n' (from buffer 'y' dim 0)").
  std::vector<std::string> messages;

  std::string messageFor(int32_t code) const;
};

// The kernel of `func` from the process-wide cache, compiled on first use (keyed by structural
// hash and equality, so `symbol` only names it). Constructs the code generator does not support
// are Errors. Thread-safe.
Result<const CompiledKernel*> compileKernel(const PrimFuncRef& func, const std::string& symbol);

// How many PrimFuncs compileKernel has compiled (cache misses) in this process.
int64_t kernelCompileCount();

// Calls `kernel` (compiled from `func`) the way runPrimFunc runs `func`: arrays for buffer params,
// scalars for scalar params; array dtypes are checked here (the kernel checks ranks and dims), and a
// non-zero return code becomes an Error with the kernel's message.
Status runKernel(const CompiledKernel& kernel, const PrimFunc& func, const std::vector<TirArg>& args);

// The optimized LLVM IR text / host assembly of `func` as `symbol` (for --emit=llvm / --emit=asm).
Result<std::string> emitLLVM(const PrimFuncRef& func, const std::string& symbol = "kernel");
Result<std::string> emitAsm(const PrimFuncRef& func, const std::string& symbol = "kernel");

}  // namespace rlx
