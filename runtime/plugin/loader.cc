// runtime/jit.h for the rlx tool: the LLVM kernel compiler lives in librlx_llvm.so next to the
// executable and is loaded on the first call that needs it, so commands that never compile a kernel
// (print, check, opt, import) never map LLVM (about 40 MB of resident pages at load).
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <optional>

#include "runtime/plugin/api.h"

namespace rlx {

namespace {

struct PluginState {
  std::mutex mutex;
  const plugin::JitPluginApi* api = nullptr;
  std::optional<Error> failure;           // a failed load is reported on every later call
  std::optional<std::string> cacheDir;   // enableKernelDiskCache before the plugin was loaded
};

PluginState& state() {
  static PluginState s;
  return s;
}

// $RLX_LLVM_PLUGIN, else librlx_llvm.so in the directory of the running executable.
std::string pluginPath() {
  if (const char* p = std::getenv("RLX_LLVM_PLUGIN"); p && *p) return p;
  std::string exe(4096, '\0');
  ssize_t n = readlink("/proc/self/exe", exe.data(), exe.size());
  if (n <= 0) return "librlx_llvm.so";
  exe.resize(size_t(n));
  return exe.substr(0, exe.rfind('/') + 1) + "librlx_llvm.so";
}

Result<const plugin::JitPluginApi*> load() {
  PluginState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.api) return s.api;
  if (s.failure) return *s.failure;
  std::string path = pluginPath();
  auto fail = [&](const std::string& why) -> Error {
    s.failure = Error("cannot load the kernel compiler: " + why + " (set RLX_LLVM_PLUGIN to the path of librlx_llvm.so)");
    return *s.failure;
  };
  // RTLD_NOW: a symbol the plugin needs and the executable lacks is an error here, not a crash later.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) return fail(dlerror());
  auto entry = reinterpret_cast<const plugin::JitPluginApi* (*)()>(dlsym(handle, plugin::kJitPluginEntry));
  if (!entry) return fail(path + " does not export " + plugin::kJitPluginEntry);
  const plugin::JitPluginApi* api = entry();
  if (!api || api->abi != plugin::kJitPluginAbi)
    return fail(path + " was built for another version of rlx (plugin ABI " + std::to_string(api ? api->abi : -1) +
                ", this rlx expects " + std::to_string(plugin::kJitPluginAbi) + ")");
  if (s.cacheDir) api->enableKernelDiskCache(*s.cacheDir);
  s.api = api;
  return api;
}

}  // namespace

Result<const CompiledKernel*> compileKernel(const PrimFuncRef& func, const std::string& symbol) {
  RLX_TRY(api, load());
  return api->compileKernel(func, symbol);
}

std::vector<Result<const CompiledKernel*>> compileKernels(const std::vector<KernelRequest>& requests) {
  auto api = load();
  if (!api) return std::vector<Result<const CompiledKernel*>>(requests.size(), api.error());
  return (*api)->compileKernels(requests);
}

void enableKernelDiskCache(const std::string& dir) {
  PluginState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.api) s.api->enableKernelDiskCache(dir);
  else s.cacheDir = dir;
}

int64_t kernelCompileCount() {
  PluginState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.api ? s.api->kernelCompileCount() : 0;
}

Result<std::string> emitLLVM(const PrimFuncRef& func, const std::string& symbol) {
  RLX_TRY(api, load());
  return api->emitLLVM(func, symbol);
}

Result<std::string> emitAsm(const PrimFuncRef& func, const std::string& symbol) {
  RLX_TRY(api, load());
  return api->emitAsm(func, symbol);
}

}  // namespace rlx
