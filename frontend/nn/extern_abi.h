// The calling convention of extern kernels (nn::SourceModule / nn::ObjectModule symbols): a DLPack-
// compatible DLTensor and one packed C entry point per symbol. Self-contained C/C++; SourceModule puts it beside the source.
#ifndef RLX_NN_EXTERN_ABI_H
#define RLX_NN_EXTERN_ABI_H

#include <stddef.h>
#include <stdint.h>

// DLPack's layout (v0.8 DLTensor), declared here so kernels need no DLPack install; a source that
// includes <dlpack/dlpack.h> first uses that definition instead.
#ifndef DLPACK_VERSION
typedef enum { kDLCPU = 1 } DLDeviceType;
typedef struct {
  int32_t device_type;
  int32_t device_id;
} DLDevice;
typedef enum { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4 } DLDataTypeCode;
typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;
typedef struct {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // null: compact row-major
  uint64_t byte_offset;
} DLTensor;
#endif

// One argument of a call: call_dps_packed passes the inputs in order (R.prim_value ints and floats,
// R.str strings, tensors), then the output tensors the kernel writes (destination passing).
typedef enum { RLX_EXTERN_INT = 0, RLX_EXTERN_FLOAT = 1, RLX_EXTERN_STR = 2, RLX_EXTERN_TENSOR = 3 } RlxExternKind;
typedef struct {
  int32_t kind;  // RlxExternKind
  int32_t reserved;
  union {
    int64_t v_int;
    double v_float;
    const char* v_str;
    DLTensor* v_tensor;
  } value;
} RlxExternArg;

// Symbol NAME is the C function `rlx_extern_NAME`. It returns 0, or non-zero after writing a
// message (NUL-terminated, at most error_size bytes) into `error`.
typedef int (*RlxExternFn)(const RlxExternArg* args, int32_t num_args, char* error, size_t error_size);
#define RLX_EXTERN_SYMBOL_PREFIX "rlx_extern_"

#ifdef __cplusplus
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace rlx_extern {

template <typename T>
T argAs(const RlxExternArg& a, int index) {
  auto wrong = [&](const char* want) { throw std::invalid_argument("argument " + std::to_string(index) + " is not " + want); };
  if constexpr (std::is_same_v<T, DLTensor*>) {
    if (a.kind != RLX_EXTERN_TENSOR) wrong("a tensor");
    return a.value.v_tensor;
  } else if constexpr (std::is_same_v<T, const char*> || std::is_same_v<T, std::string>) {
    if (a.kind != RLX_EXTERN_STR) wrong("a string");
    return T(a.value.v_str);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (a.kind == RLX_EXTERN_INT) return T(a.value.v_int);
    if (a.kind != RLX_EXTERN_FLOAT) wrong("a number");
    return T(a.value.v_float);
  } else {
    static_assert(std::is_integral_v<T>, "extern kernel parameters are DLTensor*, integers, floating point or strings");
    if (a.kind != RLX_EXTERN_INT) wrong("an integer");
    return T(a.value.v_int);
  }
}

// Unpacks the arguments into a typed function; a C++ exception or a non-zero int result becomes the error.
template <typename R, typename... A, size_t... I>
int callTyped(R (*f)(A...), const RlxExternArg* args, std::index_sequence<I...>) {
  if constexpr (std::is_void_v<R>) {
    f(argAs<std::decay_t<A>>(args[I], int(I))...);
    return 0;
  } else {
    auto r = f(argAs<std::decay_t<A>>(args[I], int(I))...);
    if (r != 0) throw std::runtime_error("the kernel returned " + std::to_string(r));
    return 0;
  }
}

template <typename R, typename... A>
int call(R (*f)(A...), const RlxExternArg* args, int32_t n, char* error, size_t errorSize) {
  try {
    if (n != int32_t(sizeof...(A))) throw std::invalid_argument("expects " + std::to_string(sizeof...(A)) + " arguments (inputs, then outputs), got " + std::to_string(n));
    return callTyped(f, args, std::index_sequence_for<A...>{});
  } catch (const std::exception& e) {
    std::snprintf(error, errorSize, "%s", e.what());
  } catch (...) {
    std::snprintf(error, errorSize, "unknown C++ exception");
  }
  return -1;
}

}  // namespace rlx_extern

// Exports `Impl` (e.g. `int impl(DLTensor* a, double s, DLTensor* out)`) as symbol `Name`; the
// counterpart of TVM's TVM_FFI_DLL_EXPORT_TYPED_FUNC.
#define RLX_EXTERN_EXPORT_TYPED_FUNC(Name, Impl)                                                                          \
  extern "C" __attribute__((visibility("default"))) int rlx_extern_##Name(const RlxExternArg* args, int32_t num_args, char* error, \
                                                                         size_t error_size) {                             \
    return ::rlx_extern::call(Impl, args, num_args, error, error_size);                                                   \
  }
#endif  // __cplusplus

#endif  // RLX_NN_EXTERN_ABI_H
