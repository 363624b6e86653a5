// The host JIT behind runtime/llvm: builds a PrimFunc into an LLVM module optimized at O2 for the
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

// Schedules `func` for the CPU, generates it as `symbol` and verifies the module (not optimized).
// Reads and builds IR, whose reference counts are not atomic: one thread at a time.
Result<BuiltModule> buildModule(const PrimFuncRef& func, const std::string& symbol);
// buildModule, then the O2 pipeline for the host.
Result<BuiltModule> buildOptimized(const PrimFuncRef& func, const std::string& symbol);

// O2 for the host, then machine code: the bytes of an ELF object. Touches only the module's own
// LLVM context and a target machine of its own, so threads may compile different modules at once.
Result<std::string> compileToObject(BuiltModule& built);

// Links an object into the process-wide JIT and returns `symbol`'s address.
Result<RlxKernelFn> addObjectToJit(const std::string& object, const std::string& symbol);

// What compiled code depends on besides the PrimFunc: LLVM's version and the host CPU and features.
std::string hostStamp();

}  // namespace rlx::codegen
