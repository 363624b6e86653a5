// The calling convention of compiled kernels (PrimFuncs JIT-compiled by runtime/llvm): plain C
// structs, so the VM calls a kernel with no allocation and no per-call conversion.
#pragma once
#include <cstdint>

extern "C" {

// One tensor argument: compact row-major data (the VM never passes strided views to kernels);
// the dtype is the one the PrimFunc's buffer declares, checked by the caller.
struct RlxTensorArg {
  void* data;
  const int64_t* shape;
  int64_t ndim;
};

// One argument, in PrimFunc parameter order: a tensor for a buffer parameter (inputs and the
// destination outputs), an integer or float for a scalar parameter (symbolic shape values, ...).
union RlxArg {
  const RlxTensorArg* tensor;
  int64_t i;
  double f;
};

// A compiled kernel. Returns 0 on success; otherwise the 1-based index of the failed check (ndim or
// a dim that disagrees with the buffer's declared shape, a failed T.Assert, ...), which the
// kernel's owner turns into a message naming the buffer and dimension.
typedef int32_t (*RlxKernelFn)(const RlxArg* args, int32_t num_args);
}
