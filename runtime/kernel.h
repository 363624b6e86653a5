// A PrimFunc kernel as the VM calls it: compiled to machine code (runtime/llvm), or run by the TIR
// interpreter when asked — same arguments, same checks, same errors.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/tir.h"
#include "runtime/kernel_abi.h"
#include "runtime/jit.h"
#include "runtime/value.h"

namespace rlx::vm {

class Kernel {
 public:
  // Prepares `func` for calls: compiled (cached per process) unless `interpret`.
  static Result<std::unique_ptr<Kernel>> create(const std::string& name, PrimFuncRef func, bool interpret);

  // Runs the kernel on `n` VM values (tensors for buffer params, ints/floats for scalars), given by
  // pointer (the VM's registers, read in place); destination-passing; a host function's T.ret value
  // is the result (else null). Throws VMError with a message naming the kernel, parameter and dim.
  Value call(const Value* const* args, int64_t n) const;
  // call for a compiled kernel (compiled() is true): the VM's hot path, no result value.
  void runCompiled(const Value* const* args, int64_t n) const;
  const std::string& name() const { return name_; }
  bool compiled() const { return compiled_ != nullptr; }

 private:
  struct Param {
    std::string name;
    bool isBuffer = false;
    DataType dtype;  // buffer element type, or the scalar's type
  };
  // Throws the VMError for the first argument of the wrong count, kind or dtype; returns when all are right.
  void checkArgs(const Value* const* args, int64_t n) const;
  [[noreturn]] void argError(const Value* const* args, int64_t n) const;
  // runCompiled with descriptor arrays of n entries.
  void runWith(const Value* const* args, int64_t n, RlxTensorArg* tensors, RlxArg* raw) const;

  std::string name_;
  PrimFuncRef func_;
  std::vector<Param> params_;
  const CompiledKernel* compiled_ = nullptr;
};

// The exception the VM's builtins and kernels throw; VirtualMachine::invoke turns it into an Error.
struct VMError {
  std::string message;
  std::string where;  // "main, instruction 7 (call add)": set by the innermost frame
};
[[noreturn]] void throwVMError(std::string message);

}  // namespace rlx::vm
