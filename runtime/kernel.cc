// Kernel calls: argument checks shared by both backends, then either the compiled entry point
// (RlxArg array on the stack) or the TIR interpreter (TirArg list).
#include "runtime/kernel.h"

#include <fmt/format.h>

#include "ir/tir_eval.h"

namespace rlx::vm {

void throwVMError(std::string message) { throw VMError{std::move(message)}; }

Result<std::unique_ptr<Kernel>> Kernel::create(const std::string& name, PrimFuncRef func, bool interpret) {
  auto k = std::unique_ptr<Kernel>(new Kernel());
  k->name_ = name;
  for (auto& p : func->params) {
    Param param;
    param.name = p->name;
    if (const BufferRef* b = func->bufferOf(p)) {
      param.isBuffer = true;
      param.dtype = (*b)->dtype;
    } else {
      param.dtype = p->dtype;
    }
    k->params_.push_back(std::move(param));
  }
  // Host functions returning a scalar (ComputePrimValue's) are tiny: the interpreter runs them.
  if (!interpret && func->retType.isVoid()) {
    RLX_TRY(compiled, compileKernel(func, name));
    k->compiled_ = compiled;
  }
  k->func_ = std::move(func);
  return k;
}

void Kernel::checkArgs(const Value* const* args, int64_t n) const {
  if (n != int64_t(params_.size()))
    throwVMError(fmt::format("kernel {} takes {} arguments but was called with {}", name_, params_.size(), n));
  for (int64_t k = 0; k < n; ++k) {
    const Param& p = params_[size_t(k)];
    const Value& a = *args[k];
    if (p.isBuffer) {
      if (a.kind != Value::Tensor)
        throwVMError(fmt::format("kernel {}: argument {} ({}) must be a tensor, got {}", name_, k, p.name, a.describe()));
      if (a.array->dtype != p.dtype)
        throwVMError(fmt::format("kernel {}: argument {} ({}) must be a {} tensor, got {}", name_, k, p.name, p.dtype.str(), a.describe()));
    } else if (a.kind != Value::Int && a.kind != Value::Float) {
      throwVMError(fmt::format("kernel {}: argument {} ({}) must be a {} scalar, got {}", name_, k, p.name, p.dtype.str(), a.describe()));
    }
  }
}

Value Kernel::call(const Value* const* args, int64_t n) const {
  checkArgs(args, n);
  if (compiled_) {
    constexpr int64_t kInline = 16;
    RlxTensorArg tensorsInline[kInline];
    RlxArg argsInline[kInline];
    std::vector<RlxTensorArg> tensorsHeap;
    std::vector<RlxArg> argsHeap;
    RlxTensorArg* tensors = tensorsInline;
    RlxArg* raw = argsInline;
    if (n > kInline) {
      tensorsHeap.resize(size_t(n));
      argsHeap.resize(size_t(n));
      tensors = tensorsHeap.data();
      raw = argsHeap.data();
    }
    for (int64_t k = 0; k < n; ++k) {
      const Value& a = *args[k];
      if (a.kind == Value::Tensor) {
        tensors[k] = RlxTensorArg{a.array->data(), a.array->shape.data(), int64_t(a.array->shape.size())};
        raw[k].tensor = &tensors[k];
      } else if (params_[size_t(k)].dtype.isFloat()) {
        raw[k].f = a.kind == Value::Float ? a.f : double(a.i);
      } else {
        raw[k].i = a.kind == Value::Int ? a.i : int64_t(a.f);
      }
    }
    int32_t code = compiled_->fn(raw, int32_t(n));
    if (code != 0) {
      throwVMError(fmt::format("kernel {}: {}", name_, compiled_->messageFor(code)));
    }
    return Value();
  }
  std::vector<TirArg> tirArgs;
  tirArgs.reserve(size_t(n));
  for (int64_t k = 0; k < n; ++k) {
    const Value& a = *args[k];
    if (a.kind == Value::Tensor) tirArgs.emplace_back(a.array);
    else if (a.kind == Value::Float) tirArgs.emplace_back(a.f);
    else tirArgs.emplace_back(a.i);
  }
  TirArg result(int64_t(0));
  Status st = runPrimFunc(*func_, tirArgs, &result);
  if (!st.ok()) throwVMError(fmt::format("kernel {}: {}", name_, st.error().message));
  if (func_->retType.isVoid()) return Value();
  return result.kind == TirArg::Float ? Value::ofFloat(result.f) : Value::ofInt(result.i);
}

}  // namespace rlx::vm
