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

void Kernel::argError(const Value* const* args, int64_t n) const {
  checkArgs(args, n);
  throwVMError(fmt::format("kernel {}: bad arguments", name_));  // not reached: checkArgs names the first bad one
}

void Kernel::runCompiled(const Value* const* args, int64_t n) const {
  // One pass checks each argument's kind and dtype and fills its descriptor, on the stack; any
  // mismatch goes to argError for the message. Ranks and dims are the compiled entry's checks.
  constexpr int64_t kInline = 8;
  if (n != int64_t(params_.size())) argError(args, n);
  if (n > kInline) {
    std::vector<RlxTensorArg> tensors(static_cast<size_t>(n));
    std::vector<RlxArg> raw(static_cast<size_t>(n));
    return runWith(args, n, tensors.data(), raw.data());
  }
  RlxTensorArg tensors[kInline];
  RlxArg raw[kInline];
  runWith(args, n, tensors, raw);
}

void Kernel::runWith(const Value* const* args, int64_t n, RlxTensorArg* tensors, RlxArg* raw) const {
  const Param* params = params_.data();
  for (int64_t k = 0; k < n; ++k) {
    const Value& a = *args[k];
    const Param& p = params[k];
    if (p.isBuffer) {
      if (a.kind != Value::Tensor || a.array->dtype != p.dtype) argError(args, n);
      NDArray& t = *a.array;
      tensors[k] = RlxTensorArg{t.data(), t.shape.data(), int64_t(t.shape.size())};
      raw[k].tensor = &tensors[k];
    } else if (a.kind == Value::Int) {
      if (p.dtype.isFloat()) raw[k].f = double(a.i);
      else raw[k].i = a.i;
    } else if (a.kind == Value::Float) {
      if (p.dtype.isFloat()) raw[k].f = a.f;
      else raw[k].i = int64_t(a.f);
    } else {
      argError(args, n);
    }
  }
  int32_t code = compiled_->fn(raw, int32_t(n));
  if (code != 0) throwVMError(fmt::format("kernel {}: {}", name_, compiled_->messageFor(code)));
}

Value Kernel::call(const Value* const* args, int64_t n) const {
  if (compiled_) {
    runCompiled(args, n);
    return Value();
  }
  checkArgs(args, n);
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
