// The parts of the kernel API (runtime/jit.h) that need no LLVM: calling a compiled kernel, its
// messages, where the disk cache lives. Linked into every binary, with or without the compiler.
#include <cstdlib>

#include "ir/ndarray.h"
#include "runtime/jit.h"

namespace rlx {

std::string CompiledKernel::messageFor(int32_t code) const {
  if (code >= 1 && size_t(code) <= messages.size()) return messages[size_t(code) - 1];
  return "kernel '" + symbol + "' returned the unknown code " + std::to_string(code);
}

std::string defaultKernelCacheDir() {
  if (const char* d = std::getenv("RLX_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/rlx";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/rlx";
  return "";
}

Status runKernel(const CompiledKernel& kernel, const PrimFunc& func, const std::vector<TirArg>& args) {
  size_t n = func.params.size();
  if (args.size() != n) return Error("the PrimFunc takes " + std::to_string(n) + " argument(s) but got " + std::to_string(args.size()));
  std::vector<RlxTensorArg> tensors(n);
  std::vector<RlxArg> raw(n);
  for (size_t i = 0; i < n; ++i) {
    const PrimVar& p = *func.params[i];
    const TirArg& a = args[i];
    std::string name = "argument " + std::to_string(i) + " ('" + p.name + "')";
    const BufferRef* buf = func.bufferOf(func.params[i]);
    if (buf || p.dtype.isHandle()) {
      if (a.kind != TirArg::Array || !a.array) return Error(name + " must be an NDArray");
      if (buf && a.array->dtype != (*buf)->dtype) return Error("buffer '" + (*buf)->name + "' has dtype " + (*buf)->dtype.str() + " but the array is " + a.array->dtype.str());
      tensors[i] = RlxTensorArg{a.array->data(), a.array->shape.data(), int64_t(a.array->shape.size())};
      raw[i].tensor = &tensors[i];
      continue;
    }
    if (a.kind == TirArg::Array) return Error(name + " is a " + p.dtype.str() + " scalar, not an array");
    // The kernel reads RlxArg.f for float params and RlxArg.i otherwise (and converts to the dtype).
    if (p.dtype.isFloat()) raw[i].f = a.kind == TirArg::Float ? a.f : double(a.i);
    else raw[i].i = a.kind == TirArg::Int ? a.i : saturatingInt(a.f);
  }
  int32_t code = kernel.fn(raw.data(), int32_t(n));
  if (code != 0) return Error(kernel.messageFor(code));
  return okStatus();
}

}  // namespace rlx
