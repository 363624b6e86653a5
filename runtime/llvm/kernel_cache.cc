// The process-wide kernel cache (structural hash + structural equality of the PrimFunc: one compile
// per distinct kernel, several compiled at once, optionally kept on disk).
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "ir/ndarray.h"
#include "ir/structural_equal.h"
#include "runtime/llvm/disk_cache.h"
#include "runtime/llvm/engine.h"
#include "runtime/jit.h"
#include "runtime/llvm/thread_pool.h"

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

// The JIT symbol of a kernel: named by its structural hash, so that an object from the disk cache
// (compiled by another process, under another requested name) defines the symbol looked up; a
// hash shared by a different function (a collision) gets a serial number and no disk cache.
std::string symbolFor(uint64_t hash, int64_t serial) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "rlx_k%016llx", static_cast<unsigned long long>(hash));
  return serial < 0 ? std::string(buf) : std::string(buf) + "_" + std::to_string(serial);
}

// One kernel to compile: built serially (IR), compiled to an object on a worker, linked serially.
struct Job {
  PrimFuncRef func;
  uint64_t hash = 0;
  std::string symbol, diskKey;  // diskKey empty: not disk-cached
  bool compiled = false;        // compiled here (not read from the disk cache)
  codegen::BuiltModule built;
  std::string object;
  std::vector<std::string> messages;
  std::optional<Error> error;
  const CompiledKernel* result = nullptr;
};

const CompiledKernel* lookup(KernelCache& c, const PrimFuncRef& func, uint64_t hash) {
  auto [lo, hi] = c.entries.equal_range(hash);
  for (auto it = lo; it != hi; ++it)
    if (structuralEqual(it->second.func, func)) return it->second.kernel.get();
  return nullptr;
}

// Optimizes and emits the jobs' objects on up to one thread per core: LLVM's optimizer and
// instruction selection dominate a first run, and each module has a context of its own. The largest
// modules go first (the unoptimized instruction count roughly predicts compile time), so that no
// thread is left with a big kernel at the end while the others idle.
void compileObjects(std::vector<Job*> jobs) {
  std::stable_sort(jobs.begin(), jobs.end(), [](const Job* a, const Job* b) { return a->built.mod->getInstructionCount() > b->built.mod->getInstructionCount(); });
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < jobs.size();) {
      Job& j = *jobs[i];
      auto object = codegen::compileToObject(j.built);
      if (object.ok()) j.object = std::move(*object);
      else j.error = object.error();
      // Freed on the thread that used them: the module before the context that owns its types.
      j.built.mod.reset();
      j.built.ctx.reset();
    }
  };
  size_t threads = std::min<size_t>(jobs.size(), size_t(std::max(1, parallelThreads())));
  std::vector<std::thread> workers;
  for (size_t t = 1; t < threads; ++t) workers.emplace_back(work);
  work();
  for (auto& w : workers) w.join();
}

}  // namespace

std::vector<Result<const CompiledKernel*>> compileKernels(const std::vector<KernelRequest>& requests) {
  KernelCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  std::vector<Job> jobs(requests.size());
  std::vector<Job*> toCompile;
  std::unordered_map<uint64_t, std::vector<Job*>> pending;  // this batch's new kernels, by hash
  for (size_t i = 0; i < requests.size(); ++i) {
    Job& j = jobs[i];
    j.func = requests[i].func;
    j.hash = structuralHash(j.func);
    if ((j.result = lookup(c, j.func, j.hash))) continue;
    auto& same = pending[j.hash];
    if (std::any_of(same.begin(), same.end(), [&](Job* p) { return structuralEqual(p->func, j.func); })) continue;  // resolved after the batch
    bool collision = !same.empty() || c.entries.count(j.hash) > 0;
    same.push_back(&j);
    j.symbol = symbolFor(j.hash, collision ? c.compiles + int64_t(i) : -1);
    if (!collision && !diskcache::directory().empty()) {
      j.diskKey = diskcache::keyFor(j.hash);
      if (auto cached = diskcache::load(j.diskKey)) {
        j.object = std::move(cached->object), j.messages = std::move(cached->messages);
        continue;
      }
    }
    auto built = codegen::buildModule(j.func, j.symbol);
    if (!built.ok()) {
      j.error = built.error();
      continue;
    }
    j.messages = built->messages;
    j.built = std::move(*built);
    j.compiled = true;
    toCompile.push_back(&j);
  }
  compileObjects(toCompile);
  std::vector<Result<const CompiledKernel*>> out;
  out.reserve(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    Job& j = jobs[i];
    if (!j.result && !j.error && !j.object.empty()) {
      auto fn = codegen::addObjectToJit(j.object, j.symbol);
      if (!fn.ok()) {
        j.error = fn.error();
      } else {
        if (j.compiled && !j.diskKey.empty()) diskcache::store(j.diskKey, {j.object, j.messages});
        auto kernel = std::make_unique<CompiledKernel>();
        kernel->symbol = j.symbol, kernel->fn = *fn, kernel->messages = j.messages;
        ++c.compiles;
        j.result = kernel.get();
        c.entries.emplace(j.hash, CacheEntry{j.func, std::move(kernel)});
      }
    }
    if (!j.result && !j.error) j.result = lookup(c, j.func, j.hash);  // a duplicate within the batch
    if (!j.result && !j.error) j.error = Error("kernel '" + requests[i].symbol + "' could not be compiled (an equal kernel of the same batch failed)");
    if (j.error) out.emplace_back(std::move(*j.error));
    else out.emplace_back(j.result);
  }
  return out;
}

Result<const CompiledKernel*> compileKernel(const PrimFuncRef& func, const std::string& symbol) { return std::move(compileKernels({{func, symbol}})[0]); }

void enableKernelDiskCache(const std::string& dir) { diskcache::setDirectory(dir); }

int64_t kernelCompileCount() {
  KernelCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.compiles;
}

}  // namespace rlx
