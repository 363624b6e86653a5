// Compiles TIR PrimFuncs to host machine code (LLVM O2 for the host CPU, ORC JIT) as RlxKernelFns,
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
  std::string symbol;  // the JIT symbol: rlx_k<structural hash>
  RlxKernelFn fn = nullptr;
  // messages[code - 1] says which check a non-zero return code reports, naming the buffer and
  // dimension ("buffer 'x' dim 1 does not match 'n' (from buffer 'y' dim 0)").
  std::vector<std::string> messages;

  std::string messageFor(int32_t code) const;
};

// The kernel of `func` from the process-wide cache, compiled on first use (keyed by structural
// hash and equality; `symbol` only names it in messages). Constructs the code generator does not support
// are Errors. Thread-safe.
Result<const CompiledKernel*> compileKernel(const PrimFuncRef& func, const std::string& symbol);

// compileKernel for several PrimFuncs: those not yet cached are built one after the other, then
// optimized and compiled to machine code on up to one thread per core (RLX_NUM_THREADS). Results in
// request order.
struct KernelRequest {
  PrimFuncRef func;
  std::string symbol;
};
std::vector<Result<const CompiledKernel*>> compileKernels(const std::vector<KernelRequest>& requests);

// The on-disk object cache (off until enabled): compiled kernels are stored under `dir` and later
// processes link them instead of compiling. "" turns it off. The rlx tool enables it at
// defaultKernelCacheDir() unless RLX_KERNEL_CACHE=0.
void enableKernelDiskCache(const std::string& dir);
// $RLX_CACHE_DIR, else $XDG_CACHE_HOME/rlx, else $HOME/.cache/rlx ("" when none is set).
std::string defaultKernelCacheDir();

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
