// The bytecode interpreter: loads an Executable (resolving packed entries to builtins, registered
// C++ functions or kernels), then runs functions over a register file per frame.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/diagnostic.h"
#include "runtime/executable.h"
#include "runtime/kernel.h"
#include "runtime/value.h"

namespace rlx::vm {

class VirtualMachine;

// A packed function: VM builtins (`vm.builtin.*`) and C++ functions registered for
// `call_dps_packed` / `call_packed`. Errors are thrown with throwVMError.
using PackedFn = std::function<Value(VirtualMachine& vm, const Value* args, int64_t n)>;
void registerPackedFunction(const std::string& name, PackedFn fn);
const PackedFn* findPackedFunction(const std::string& name);
std::vector<std::string> packedFunctionNames();

struct VMOptions {
  bool interpretKernels = false;  // run kernels with the TIR interpreter even when a compiler is installed
  int64_t maxCallDepth = 10000;   // deeper recursion is an error, not a stack overflow
  std::function<void(const std::string&)> printSink;  // R.print output (null: stdout)
};

class VirtualMachine {
 public:
  // Resolves every function-table entry; unknown packed names and kernels that fail to compile
  // are errors here, before anything runs.
  static Result<std::unique_ptr<VirtualMachine>> load(std::shared_ptr<const Executable> exec, VMOptions options = {});

  // Runs `func` on `args`; a runtime failure (shape mismatch, failed check, kernel error) is an
  // Error naming the function.
  Result<Value> invoke(const std::string& func, std::vector<Value> args);
  const Executable& executable() const { return *exec_; }
  bool hasFunction(const std::string& name) const;
  // A storage block of `bytes` bytes (uninitialized): a pooled block no value uses any more when
  // there is one of that size, as TVM's pooled allocator does, else a new one. Throws VMError when
  // the memory cannot be allocated.
  NDArrayRef allocateStorage(int64_t bytes);
  // Where R.print writes (the shell captures it).
  void print(const std::string& text) const;

  // Calls a function value (function-table index or closure) — invoke_closure and call_tir_dyn use it.
  Value callFunction(int64_t funcIdx, const Value* args, int64_t n);
  Value callValue(const Value& callee, const Value* args, int64_t n);

 private:
  struct Callee {
    const PackedFn* packed = nullptr;
    std::unique_ptr<Kernel> kernel;
    bool isVMFunc = false;
    bool isAllocTensor = false;  // vm.builtin.alloc_tensor: served from the call site's view cache
  };
  Value runFrame(const FuncInfo& info, const Value* args, int64_t n);
  Value allocTensorAt(int64_t pc, const Callee& c, const Value* const* args, int64_t n);
  bool storageFree(const NDArrayRef& block);

  std::shared_ptr<const Executable> exec_;
  std::vector<Instruction> code_;  // exec_'s instructions, decoded once
  int64_t maxCallArgs_ = 0;        // the most arguments any Call passes
  VMOptions options_;
  std::vector<Callee> pool_;
  std::unordered_map<int64_t, std::vector<NDArrayRef>> storagePool_;  // by size
  // The tensor view each alloc_tensor call site made last: when no value holds it any more and the
  // call asks for the same storage, offset, shape and dtype, it is handed out again (no allocation
  // per op). A storage block whose only other holders are such idle views counts as free.
  std::vector<NDArrayRef> viewCache_;                                  // by instruction index
  std::unordered_map<const NDArray*, std::vector<int64_t>> viewSites_;  // block -> call sites caching a view of it
  int64_t depth_ = 0;
};

}  // namespace rlx::vm
