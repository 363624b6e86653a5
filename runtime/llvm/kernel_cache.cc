// The process-wide kernel cache (structural hash + structural equality of the PrimFunc: one compile
// per distinct kernel) and runKernel, which calls a compiled kernel with NDArrays and scalars.
#include <mutex>
#include <unordered_map>

#include "ir/ndarray.h"
#include "ir/structural_equal.h"
#include "runtime/llvm/engine.h"
#include "runtime/llvm/jit.h"

namespace rlx {

namespace {

struct CacheEntry {
  PrimFuncRef func;  // kept alive for the equality check of later lookups
  std::unique_ptr<CompiledKernel> kernel;
};

struct KernelCache {
  std::mutex mutex;
  std::unordered_multimap<uint64_t, CacheEntry> entries;
  int64_t compiles = 0;
};

KernelCache& cache() {
  static KernelCache c;
  return c;
}

// JIT symbols must be unique in the process; the requested name stays recognizable.
std::string uniqueSymbol(const std::string& name, int64_t serial) {
  std::string s = "rlx_";
  for (char c : name) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  return s + "_" + std::to_string(serial);
}

}  // namespace

std::string CompiledKernel::messageFor(int32_t code) const {
  if (code >= 1 && size_t(code) <= messages.size()) return messages[size_t(code) - 1];
  return "kernel '" + symbol + "' returned the unknown code " + std::to_string(code);
}

Result<const CompiledKernel*> compileKernel(const PrimFuncRef& func, const std::string& symbol) {
  uint64_t hash = structuralHash(func);
  KernelCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto [lo, hi] = c.entries.equal_range(hash);
  for (auto it = lo; it != hi; ++it)
    if (structuralEqual(it->second.func, func)) return static_cast<const CompiledKernel*>(it->second.kernel.get());
  auto kernel = std::make_unique<CompiledKernel>();
  kernel->symbol = uniqueSymbol(symbol, c.compiles);
  RLX_TRY(built, codegen::buildOptimized(func, kernel->symbol));
  kernel->messages = built.messages;
  RLX_TRY(fn, codegen::addToJit(std::move(built), kernel->symbol));
  kernel->fn = fn;
  ++c.compiles;
  const CompiledKernel* out = kernel.get();
  c.entries.emplace(hash, CacheEntry{func, std::move(kernel)});
  return out;
}

int64_t kernelCompileCount() {
  KernelCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.compiles;
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
