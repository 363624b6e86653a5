// The host JIT behind runtime/llvm: builds a PrimFunc into an LLVM module optimized at O3 for the
// host CPU, and adds modules to the process's ORC LLJIT. Internal (includes LLVM headers).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "ir/diagnostic.h"
#include "ir/tir.h"
#include "runtime/kernel_abi.h"

namespace rlx::codegen {

// A kernel's module with the context that owns it, and the messages of its check codes.
struct BuiltModule {
  std::unique_ptr<llvm::LLVMContext> ctx;
  std::unique_ptr<llvm::Module> mod;
  std::vector<std::string> messages;
};

// Schedules `func` for the CPU, generates it as `symbol`, verifies the module and runs the O3
// pipeline for the host.
Result<BuiltModule> buildOptimized(const PrimFuncRef& func, const std::string& symbol);

// Compiles the module to machine code in the process-wide JIT and returns `symbol`'s address.
Result<RlxKernelFn> addToJit(BuiltModule built, const std::string& symbol);

}  // namespace rlx::codegen
