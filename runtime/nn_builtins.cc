// The builtins that rlx::nn effects call (TVM's lm_support.cc and debug functions): the attention
// KV cache (create / append in place / view) and vm.builtin.invoke_debug_func with debug_print.
#include <fmt/format.h>

#include <cstring>

#include "runtime/format.h"
#include "runtime/vm.h"

namespace rlx::vm {

namespace {

// A growable cache of unit-shaped rows: `data` holds `capacity` rows (dim 0), of which the first
// `fill` are valid. Appends write in place and double the capacity when it runs out.
class KVCacheObj final : public RtObject {
 public:
  KVCacheObj(NDArrayRef d, int64_t f) : data(std::move(d)), fill(f) {}
  std::string describe() const override { return fmt::format("a {} KV cache of {} rows", data->dtype.str(), fill); }

  int64_t capacity() const { return data->shape[0]; }
  int64_t rowElems() const {
    int64_t n = 1;
    for (size_t i = 1; i < data->shape.size(); ++i) n *= data->shape[i];
    return n;
  }
  size_t rowBytes() const { return size_t(rowElems()) * size_t(data->dtype.bytes()); }

  void append(const NDArray& value, const char* builtin) {
    if (value.dtype != data->dtype) throwVMError(fmt::format("{}: the cache holds {}, the value is {}", builtin, data->dtype.str(), value.dtype.str()));
    if (value.shape.size() != data->shape.size() || value.shape.empty())
      throwVMError(fmt::format("{}: a value of {} dims cannot be appended to a cache of {}-dim rows", builtin, value.shape.size(), data->shape.size() - 1));
    for (size_t i = 1; i < value.shape.size(); ++i)
      if (value.shape[i] != data->shape[i]) throwVMError(fmt::format("{}: dim {} of the value is {}, the cache's is {}", builtin, i, value.shape[i], data->shape[i]));
    int64_t rows = value.shape[0];
    int64_t cap = std::max<int64_t>(capacity(), 1);
    while (fill + rows > cap) cap *= 2;
    if (cap != capacity()) {
      std::vector<int64_t> shape = data->shape;
      shape[0] = cap;
      NDArrayRef grown = NDArray::uninitialized(data->dtype, shape);
      if (!grown) throwVMError(fmt::format("{}: out of memory growing the cache to {} rows", builtin, cap));
      std::memcpy(grown->data(), data->data(), size_t(fill) * rowBytes());
      data = grown;
    }
    std::memcpy(static_cast<char*>(data->data()) + size_t(fill) * rowBytes(), value.data(), size_t(rows) * rowBytes());
    fill += rows;
  }

  NDArrayRef data;
  int64_t fill;
};

KVCacheObj& cacheArg(const Value& v, const char* builtin) {
  auto* c = v.kind == Value::Object ? dynamic_cast<KVCacheObj*>(v.obj.get()) : nullptr;
  if (!c) throwVMError(fmt::format("{}: the first argument must be a KV cache (from vm.builtin.attention_kv_cache_create), got {}", builtin, v.describe()));
  return *c;
}

const NDArray& tensorArg(const Value& v, const char* builtin, const char* what) {
  if (v.kind != Value::Tensor) throwVMError(fmt::format("{}: {} must be a tensor, got {}", builtin, what, v.describe()));
  return *v.array;
}

// attention_kv_cache_create(init, reserve_shape, init_fill_count): a cache of reserve_shape that
// starts with the rows of `init`; a fill count >= 0 then overrides how many rows count as filled
// (TVM passes zeros of the reserved shape and 0: an empty cache with room for those rows).
Value kvCacheCreate(VirtualMachine&, const Value* args, int64_t n) {
  const char* name = "vm.builtin.attention_kv_cache_create";
  if (n != 3) throwVMError(fmt::format("{} expects (init, reserve_shape, init_fill_count), got {} arguments", name, n));
  const NDArray& init = tensorArg(args[0], name, "init");
  if (args[1].kind != Value::Shape) throwVMError(fmt::format("{}: reserve_shape must be a shape, got {}", name, args[1].describe()));
  if (args[2].kind != Value::Int) throwVMError(fmt::format("{}: init_fill_count must be an integer, got {}", name, args[2].describe()));
  std::vector<int64_t> reserve = args[1].shapeDims();
  if (reserve.empty()) throwVMError(fmt::format("{}: reserve_shape must have at least one dim", name));
  for (int64_t d : reserve)
    if (d < 0) throwVMError(fmt::format("{}: negative dim {} in reserve_shape", name, d));
  NDArrayRef data = NDArray::uninitialized(init.dtype, reserve);
  if (!data) throwVMError(fmt::format("{}: out of memory allocating the cache", name));
  auto cache = Ref<KVCacheObj>(new KVCacheObj(data, 0));
  cache->append(init, name);
  if (args[2].i >= 0) {
    if (args[2].i > cache->fill) throwVMError(fmt::format("{}: init_fill_count {} exceeds the {} initial rows", name, args[2].i, cache->fill));
    cache->fill = args[2].i;
  }
  return Value::ofObject(cache);
}

// attention_kv_cache_append(cache, value): appends value's rows in place; returns the cache.
Value kvCacheAppend(VirtualMachine&, const Value* args, int64_t n) {
  const char* name = "vm.builtin.attention_kv_cache_append";
  if (n != 2) throwVMError(fmt::format("{} expects (cache, value), got {} arguments", name, n));
  cacheArg(args[0], name).append(tensorArg(args[1], name, "the value"), name);
  return args[0];
}

// attention_kv_cache_view(cache[, shape]): the filled rows as a tensor of `shape`, whose dim 0
// must be the fill count (as in TVM). A view of the cache's memory, as TVM's: appends write past
// the filled rows, and growing moves the cache to a new block while the view keeps the old one.
Value kvCacheView(VirtualMachine&, const Value* args, int64_t n) {
  const char* name = "vm.builtin.attention_kv_cache_view";
  if (n != 1 && n != 2) throwVMError(fmt::format("{} expects (cache[, shape]), got {} arguments", name, n));
  KVCacheObj& c = cacheArg(args[0], name);
  std::vector<int64_t> shape = c.data->shape;
  shape[0] = c.fill;
  if (n == 2) {
    if (args[1].kind != Value::Shape) throwVMError(fmt::format("{}: the shape must be a shape, got {}", name, args[1].describe()));
    std::vector<int64_t> want = args[1].shapeDims();
    if (want != shape) {
      std::string have = fmt::format("({})", fmt::join(shape, ", "));
      throwVMError(fmt::format("{}: the view shape ({}) does not match the cache ({}: dim 0 must be the {} filled rows)", name, fmt::join(want, ", "), have, c.fill));
    }
  }
  return Value::ofTensor(make<NDArray>(c.data->dtype, shape, c.data->data(), c.data));
}

// invoke_debug_func(io, name, line_info, args...): calls the registered function `name` with
// (line_info, args...) and returns the IO effect token (null, as TVM lowers it).
Value invokeDebugFunc(VirtualMachine& vm, const Value* args, int64_t n) {
  const char* name = "vm.builtin.invoke_debug_func";
  if (n < 3) throwVMError(fmt::format("{} expects (io, name, line_info, args...), got {} arguments", name, n));
  if (args[0].kind != Value::Null) throwVMError(fmt::format("{}: the IO effect must be null (from _initialize_effect), got {}", name, args[0].describe()));
  if (args[1].kind != Value::Str || args[2].kind != Value::Str) throwVMError(fmt::format("{}: the function name and line info must be strings", name));
  const PackedFn* fn = findPackedFunction(args[1].str());
  if (!fn) throwVMError(fmt::format("{}: no debug function named \"{}\" (register it with rlx::vm::registerPackedFunction)", name, args[1].str()));
  (*fn)(vm, args + 2, n - 2);
  return args[0];
}

// numpy's str() of an array, which TVM's debug_print shows: the repr without "array(", the dtype
// and the commas ("[[1. 2.]\n [3. 4.]]").
std::string numpyStr(const NDArray& a) {
  std::string repr = formatArray(a);
  if (repr.rfind("array(", 0) != 0) return repr;
  size_t dtype = repr.rfind(", dtype=");
  std::string body = repr.substr(6, (dtype == std::string::npos ? repr.size() - 1 : dtype) - 6);
  std::string out;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] == ',') continue;
    out += body[i];
    // Continuation lines lose the width of "array(".
    if (body[i] == '\n')
      for (int k = 0; k < 6 && i + 1 < body.size() && body[i + 1] == ' '; ++k) ++i;
  }
  return out;
}

// debug_print(line_info, value): "<file>:<line>: shape = (2, 4), dtype = float32, data =" and the
// array as numpy's str() shows it.
Value debugPrint(VirtualMachine& vm, const Value* args, int64_t n) {
  if (n != 2) throwVMError(fmt::format("vm.builtin.debug_print expects (line_info, value), got {} arguments", n));
  std::string where = args[0].kind == Value::Str ? args[0].str() : formatValue(args[0]);
  const Value& v = args[1];
  if (v.kind == Value::Tensor) {
    std::string dims;
    for (size_t i = 0; i < v.array->shape.size(); ++i) dims += (i ? ", " : "") + std::to_string(v.array->shape[i]);
    if (v.array->shape.size() == 1) dims += ",";
    vm.print(fmt::format("{}: shape = ({}), dtype = {}, data =\n{}\n", where, dims, v.array->dtype.str(), numpyStr(*v.array)));
  } else {
    vm.print(fmt::format("{}: {}\n", where, formatValue(v)));
  }
  return Value();
}

}  // namespace

void registerNNBuiltins() {
  registerPackedFunction("vm.builtin.attention_kv_cache_create", kvCacheCreate);
  registerPackedFunction("vm.builtin.attention_kv_cache_append", kvCacheAppend);
  registerPackedFunction("vm.builtin.attention_kv_cache_view", kvCacheView);
  registerPackedFunction("vm.builtin.invoke_debug_func", invokeDebugFunc);
  registerPackedFunction("vm.builtin.debug_print", debugPrint);
}

}  // namespace rlx::vm
