// The bytecode interpreter: loads an Executable (resolving packed entries to builtins, registered
// C++ functions or kernels), then runs functions over a register file per frame.
#pragma once
#include <deque>
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
  bool profile = false;  // time every kernel and builtin call (VirtualMachine::profile)
  // Denormal floats read and computed as zero while a function runs (x86's FTZ and DAZ, as ONNX
  // Runtime's and oneDNN's CPU kernels may run): a model whose activations underflow otherwise runs
  // its arithmetic on the slow microcode path, 20x slower per operation; results change only where
  // a value is below 1.2e-38 in magnitude. RLX_DENORMALS=keep (rlx run) turns it off.
  bool flushDenormals = true;
};

// Sets FTZ and DAZ on the calling thread for its lifetime (when `on`), restoring the old mode after.
class DenormalsAsZero {
 public:
  explicit DenormalsAsZero(bool on);
  ~DenormalsAsZero();
  DenormalsAsZero(const DenormalsAsZero&) = delete;
  DenormalsAsZero& operator=(const DenormalsAsZero&) = delete;

 private:
  unsigned saved_ = 0;
  bool on_ = false;
};

// What the calls of one kernel or builtin cost over the runs since load or resetProfile.
struct ProfileEntry {
  std::string name;
  int64_t calls = 0;
  double ms = 0;
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
  // A storage value of `bytes` bytes (uninitialized): a pooled block no value uses any more when
  // there is one of that size, as TVM's pooled allocator does, else a new one. Throws VMError when
  // the memory cannot be allocated.
  Value allocateStorage(int64_t bytes);
  // Where R.print writes (the shell captures it).
  void print(const std::string& text) const;

  // Calls a function value (function-table index or closure) — invoke_closure and call_tir_dyn use it.
  Value callFunction(int64_t funcIdx, const Value* args, int64_t n);
  Value callValue(const Value& callee, const Value* args, int64_t n);

  // With VMOptions::profile: the kernels and builtins called so far, most time first (a call
  // to a VM function is not an entry: the calls it makes are).
  std::vector<ProfileEntry> profile() const;
  void resetProfile();

 private:
  struct Callee {
    const PackedFn* packed = nullptr;
    std::unique_ptr<Kernel> kernel;
    bool isVMFunc = false;
  };
  // Instructions as the interpreter runs them, prepared once at load and checked there (registers
  // inside the function's register file, jumps inside the function): a Call is specialised by its
  // callee (kernel, alloc_tensor, null_value/kill_object, anything else), and its arguments need no
  // decoding: an argument is a register index or the index of the value it reads.
  // SelfTailCall: a call of the running function whose result is only returned (maybe through
  // copies and kills): the frame is reused, so a recursive loop runs in constant stack.
  enum class Step : uint8_t { Call, CompiledKernel, Kernel, AllocTensor, Null, Ret, Goto, If, SelfTailCall };
  struct Op {
    Step step = Step::Call;
    int32_t numArgs = 0;
    int32_t target = 0;     // the Call steps: function-table index; Goto and If: the pc offset
    int32_t reg = -1;       // the Call steps: destination; Ret: result; If: condition (-1: %void, %vm)
    uint32_t firstArg = 0;  // the Call steps: index of the first argument in args_
  };
  // An argument: a register (>= 0), else ~index into fixed_ (a constant, an immediate or null).
  using StepArg = int32_t;
  // A pooled storage block and the tensor views of it the VM made: a view no value holds any more
  // (the record is its only owner) is handed out again by an alloc_tensor asking for the same
  // offset, shape and dtype, from any call site, so a run allocates nothing per op and its views
  // stay few and in cache. A block whose only other holders are such idle views counts as free.
  static constexpr int kViewsPerBlock = 4;
  struct StorageBlock {
    NDArrayRef block;
    NDArrayRef views[kViewsPerBlock];
    int numViews = 0;
  };
  Status prepareCode();
  Value runFrame(const FuncInfo& info, const Value* args, int64_t n);
  template <bool kProfile>
  Value runFrame(const FuncInfo& info, const Value* args, int64_t n);
  const NDArrayRef* idleView(const Value* const* args, int64_t n) const;
  Value allocTensor(const Callee& c, const Value* const* args, int64_t n);
  // Marks the calls of `info` to itself whose result is only returned as SelfTailCall steps.
  void markSelfTailCalls(const FuncInfo& info);
  bool storageFree(const StorageBlock& s) const;

  std::shared_ptr<const Executable> exec_;
  std::vector<Op> code_;              // exec_'s instructions, prepared once (same indices)
  std::vector<StepArg> args_;         // the Call steps' arguments
  std::vector<const Value*> fixed_;   // what non-register arguments read
  std::deque<Value> immediates_;      // the values of immediate and function-index arguments
  int64_t maxCallArgs_ = 0;           // the most arguments any Call passes
  VMOptions options_;
  std::vector<Callee> pool_;
  // Storage values carry their block's index here in Value::i (checked against the block pointer).
  std::vector<StorageBlock> storage_;
  std::unordered_map<int64_t, std::vector<size_t>> storageBySize_;  // bytes -> indices into storage_
  int64_t depth_ = 0;
  struct CallProfile {
    int64_t calls = 0, ns = 0;
  };
  std::vector<CallProfile> profile_;  // per function-table index, with VMOptions::profile
};

}  // namespace rlx::vm
