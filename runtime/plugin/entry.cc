// The plugin side: librlx_llvm.so exports its kernel compiler (runtime/llvm) as one table. It is
// linked with -Bsymbolic-functions, so these addresses are its own functions, not the tool's stubs.
#include "runtime/plugin/api.h"

extern "C" const rlx::plugin::JitPluginApi* rlx_llvm_jit_plugin() {
  static const rlx::plugin::JitPluginApi api{
      rlx::plugin::kJitPluginAbi, &rlx::compileKernel, &rlx::compileKernels, &rlx::enableKernelDiskCache,
      &rlx::kernelCompileCount,   &rlx::emitLLVM,      &rlx::emitAsm,
  };
  return &api;
}
