// The table of kernel-compiler entry points that librlx_llvm.so (the LLVM code generator built as a
// plugin) hands to the rlx tool, which loads it on first use (loader.cc). Internal.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/jit.h"

namespace rlx::plugin {

// Bumped whenever the table or a type it passes changes: the tool refuses a plugin built for another
// layout instead of calling through mismatched pointers.
constexpr int kJitPluginAbi = 1;

struct JitPluginApi {
  int abi;
  Result<const CompiledKernel*> (*compileKernel)(const PrimFuncRef&, const std::string&);
  std::vector<Result<const CompiledKernel*>> (*compileKernels)(const std::vector<KernelRequest>&);
  void (*enableKernelDiskCache)(const std::string&);
  int64_t (*kernelCompileCount)();
  Result<std::string> (*emitLLVM)(const PrimFuncRef&, const std::string&);
  Result<std::string> (*emitAsm)(const PrimFuncRef&, const std::string&);
};

// The symbol the plugin exports (extern "C", so dlsym finds it by this name).
constexpr const char* kJitPluginEntry = "rlx_llvm_jit_plugin";

}  // namespace rlx::plugin

extern "C" const rlx::plugin::JitPluginApi* rlx_llvm_jit_plugin();
