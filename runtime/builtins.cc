// The VM builtins (`vm.builtin.*`): storage and tensor allocation, the shape heap (match/make
// shape, checks of parameter struct info), tuples, closures, reshape views and if-conditions.
#include <fmt/format.h>

#include <cstdio>

#include "runtime/vm.h"

namespace rlx::vm {

namespace {

// The err_ctx strings VMShapeLower emits end with a space; messages read better without it.
std::string context(const Value& v) {
  if (v.kind != Value::Str) return "";
  std::string s = v.str();
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s + ": ";
}

int64_t intArg(const Value* args, int64_t n, int64_t k, const char* builtin) {
  if (k >= n) throwVMError(fmt::format("{} expects at least {} arguments, got {}", builtin, k + 1, n));
  const Value& v = args[k];
  if (v.kind == Value::Int) return v.i;
  if (v.kind == Value::Tensor && v.array->numel() == 1 && v.array->dtype.isIntegral()) return v.array->getInt(0);
  throwVMError(fmt::format("{}: argument {} must be an integer, got {}", builtin, k, v.describe()));
}

const Value& argOfKind(const Value* args, int64_t n, int64_t k, Value::Kind kind, const char* what, const char* builtin) {
  if (k >= n) throwVMError(fmt::format("{} expects at least {} arguments, got {}", builtin, k + 1, n));
  if (args[k].kind != kind) throwVMError(fmt::format("{}: argument {} must be {}, got {}", builtin, k, what, args[k].describe()));
  return args[k];
}

int64_t* heapData(const Value& heap, const char* builtin) {
  if (heap.kind != Value::Tensor || heap.array->dtype != DataType::int64())
    throwVMError(fmt::format("{}: the shape heap must be an int64 tensor, got {}", builtin, heap.describe()));
  return heap.array->as<int64_t>();
}

int64_t heapSlot(const Value& heap, int64_t slot, const char* builtin) {
  if (slot < 0 || slot >= heap.array->numel()) throwVMError(fmt::format("{}: shape heap slot {} out of range", builtin, slot));
  return slot;
}

// The dims of a tensor or shape argument.
const int64_t* dimsOf(const Value& v, int64_t& ndim) {
  if (v.kind == Value::Tensor) {
    ndim = int64_t(v.array->shape.size());
    return v.array->shape.data();
  }
  ndim = v.shapeSize();
  return v.shapeData();
}

// match_shape(value, heap, ndim, (code, v) * ndim, err_ctx): codes 0 AssertEqualToImm, 1 StoreToHeap,
// 2 NoOp, 3 AssertEqualToLoad.
Value matchShape(VirtualMachine&, const Value* args, int64_t n) {
  const char* name = "vm.builtin.match_shape";
  if (n < 3) throwVMError(fmt::format("{} expects at least 3 arguments, got {}", name, n));
  const Value& v = args[0];
  if (v.kind != Value::Tensor && v.kind != Value::Shape) throwVMError(fmt::format("{}: expected a tensor or shape, got {}", name, v.describe()));
  int64_t* heap = args[1].kind == Value::Null ? nullptr : heapData(args[1], name);
  int64_t ndim = intArg(args, n, 2, name);
  std::string ctx = context(args[n - 1]);
  int64_t actual = 0;
  const int64_t* dims = dimsOf(v, actual);
  if (actual != ndim) throwVMError(fmt::format("{}expected {} dimensions, got {} ({})", ctx, ndim, actual, v.describe()));
  if (n < 3 + 2 * ndim + 1) throwVMError(fmt::format("{} expects {} arguments for ndim {}, got {}", name, 3 + 2 * ndim + 1, ndim, n));
  for (int64_t d = 0; d < ndim; ++d) {
    int64_t code = intArg(args, n, 3 + 2 * d, name), val = intArg(args, n, 4 + 2 * d, name);
    switch (code) {
      case 0:
        if (dims[d] != val) throwVMError(fmt::format("{}dimension {} is {}, expected {}", ctx, d, dims[d], val));
        break;
      case 1:
        if (!heap) throwVMError(fmt::format("{}: no shape heap", name));
        heap[heapSlot(args[1], val, name)] = dims[d];
        break;
      case 2: break;
      case 3:
        if (!heap) throwVMError(fmt::format("{}: no shape heap", name));
        if (dims[d] != heap[heapSlot(args[1], val, name)])
          throwVMError(fmt::format("{}dimension {} is {}, but the same symbolic dimension is {} elsewhere", ctx, d, dims[d], heap[val]));
        break;
      default: throwVMError(fmt::format("{}: unknown match code {}", name, code));
    }
  }
  return Value();
}

// make_shape(heap, ndim, (code, v) * ndim): codes 0 UseImm, 1 LoadShape.
Value makeShape(VirtualMachine&, const Value* args, int64_t n) {
  const char* name = "vm.builtin.make_shape";
  int64_t* heap = args[0].kind == Value::Null ? nullptr : heapData(args[0], name);
  int64_t ndim = intArg(args, n, 1, name);
  std::vector<int64_t> dims(size_t(std::max<int64_t>(ndim, 0)));
  for (int64_t d = 0; d < ndim; ++d) {
    int64_t code = intArg(args, n, 2 + 2 * d, name), val = intArg(args, n, 3 + 2 * d, name);
    if (code == 0) dims[size_t(d)] = val;
    else if (code == 1 && heap) dims[size_t(d)] = heap[heapSlot(args[0], val, name)];
    else throwVMError(fmt::format("{}: bad make code {}", name, code));
  }
  return Value::ofShape(dims);
}

Value matchPrimValue(VirtualMachine&, const Value* args, int64_t n) {
  const char* name = "vm.builtin.match_prim_value";
  int64_t v = intArg(args, n, 0, name);
  int64_t* heap = args[1].kind == Value::Null ? nullptr : heapData(args[1], name);
  int64_t code = intArg(args, n, 2, name), val = intArg(args, n, 3, name);
  std::string ctx = context(args[n - 1]);
  if (code == 0 && v != val) throwVMError(fmt::format("{}value is {}, expected {}", ctx, v, val));
  if (code == 1 && heap) heap[heapSlot(args[1], val, name)] = v;
  if (code == 3 && heap && heap[heapSlot(args[1], val, name)] != v)
    throwVMError(fmt::format("{}value is {}, but the same symbolic value is {} elsewhere", ctx, v, heap[val]));
  return Value();
}

Value makePrimValue(VirtualMachine&, const Value* args, int64_t n) {
  const char* name = "vm.builtin.make_prim_value";
  int64_t* heap = args[0].kind == Value::Null ? nullptr : heapData(args[0], name);
  int64_t code = intArg(args, n, 1, name), val = intArg(args, n, 2, name);
  if (code == 0) return Value::ofInt(val);
  if (code == 1 && heap) return Value::ofInt(heap[heapSlot(args[0], val, name)]);
  throwVMError(fmt::format("{}: bad make code {}", name, code));
}

// check_tensor_info(x, ndim, [dtype,] err_ctx): ndim -1 and a void dtype accept anything.
Value checkTensorInfo(VirtualMachine&, const Value* args, int64_t n) {
  if (n < 3) throwVMError(fmt::format("vm.builtin.check_tensor_info expects 3 or 4 arguments, got {}", n));
  std::string ctx = context(args[n - 1]);
  const Value& x = args[0];
  if (x.kind != Value::Tensor) throwVMError(fmt::format("{}expected a tensor, got {}", ctx, x.describe()));
  int64_t ndim = intArg(args, n, 1, "vm.builtin.check_tensor_info");
  if (ndim != -1 && int64_t(x.array->shape.size()) != ndim)
    throwVMError(fmt::format("{}expected a tensor of {} dimensions, got {}", ctx, ndim, x.describe()));
  if (n == 4 && args[2].kind == Value::DType && !args[2].dt.isVoid() && args[2].dt != x.array->dtype)
    throwVMError(fmt::format("{}expected dtype {}, got {}", ctx, args[2].dt.str(), x.describe()));
  return Value();
}

Value checkShapeInfo(VirtualMachine&, const Value* args, int64_t n) {
  std::string ctx = context(args[n - 1]);
  if (args[0].kind != Value::Shape) throwVMError(fmt::format("{}expected a shape, got {}", ctx, args[0].describe()));
  int64_t ndim = intArg(args, n, 1, "vm.builtin.check_shape_info");
  if (ndim != -1 && args[0].shapeSize() != ndim) throwVMError(fmt::format("{}expected a shape of {} dimensions, got {}", ctx, ndim, args[0].describe()));
  return Value();
}

Value checkPrimValueInfo(VirtualMachine&, const Value* args, int64_t n) {
  std::string ctx = context(args[n - 1]);
  const Value& x = args[0];
  if (x.kind != Value::Int && x.kind != Value::Float) throwVMError(fmt::format("{}expected a prim value, got {}", ctx, x.describe()));
  if (n == 3 && args[1].kind == Value::DType && !args[1].dt.isVoid()) {
    bool wantFloat = args[1].dt.isFloat();
    if (wantFloat != (x.kind == Value::Float)) throwVMError(fmt::format("{}expected a {} value, got {}", ctx, args[1].dt.str(), x.describe()));
  }
  return Value();
}

Value checkTupleInfo(VirtualMachine&, const Value* args, int64_t n) {
  std::string ctx = context(args[n - 1]);
  if (args[0].kind != Value::Tuple) throwVMError(fmt::format("{}expected a tuple, got {}", ctx, args[0].describe()));
  int64_t size = intArg(args, n, 1, "vm.builtin.check_tuple_info");
  if (int64_t(args[0].fields().size()) != size) throwVMError(fmt::format("{}expected a tuple of {} fields, got {}", ctx, size, args[0].describe()));
  return Value();
}

Value checkFuncInfo(VirtualMachine&, const Value* args, int64_t n) {
  std::string ctx = context(args[n - 1]);
  if (args[0].kind != Value::Func && args[0].kind != Value::Closure) throwVMError(fmt::format("{}expected a function, got {}", ctx, args[0].describe()));
  return Value();
}

// The product of `dims`; negative dims and int64 overflow are errors.
int64_t checkedProduct(const std::vector<int64_t>& dims, const char* builtin) {
  int64_t p = 1;
  for (auto d : dims) {
    if (d < 0) throwVMError(fmt::format("{}: negative size {}", builtin, d));
    if (__builtin_mul_overflow(p, d, &p)) throwVMError(fmt::format("{}: the size overflows int64", builtin));
  }
  return p;
}

// alloc_storage(vm, size, device_index, dtype_hint, scope): size is a shape whose product times the
// hint's byte width is the block size.
Value allocStorage(VirtualMachine& vm, const Value* args, int64_t n) {
  const char* name = "vm.builtin.alloc_storage";
  const Value& size = argOfKind(args, n, 1, Value::Shape, "a shape", name);
  std::vector<int64_t> dims = size.shapeDims();
  if (n > 3 && args[3].kind == Value::DType) dims.push_back(std::max(1, args[3].dt.bytes()));
  int64_t bytes = checkedProduct(dims, name);
  return vm.allocateStorage(bytes);
}

// alloc_tensor(storage, offset, shape, dtype[, scope]): a view into the storage block.
Value allocTensor(VirtualMachine&, const Value* args, int64_t n) {
  const char* name = "vm.builtin.alloc_tensor";
  const Value& storage = argOfKind(args, n, 0, Value::Storage, "a storage block", name);
  int64_t offset = intArg(args, n, 1, name);
  const Value& shape = argOfKind(args, n, 2, Value::Shape, "a shape", name);
  const Value& dtype = argOfKind(args, n, 3, Value::DType, "a dtype", name);
  std::vector<int64_t> dims = shape.shapeDims();
  dims.push_back(std::max(1, dtype.dt.bytes()));
  int64_t bytes = checkedProduct(dims, name);
  if (offset < 0 || offset > storage.array->shape[0] || bytes > storage.array->shape[0] - offset)
    throwVMError(fmt::format("{}: a {} tensor of {} at offset {} does not fit in {}", name, dtype.dt.str(), shape.describe().substr(4), offset, storage.describe()));
  dims.pop_back();
  auto view = NDArrayRef(new NDArray(dtype.dt, std::move(dims), static_cast<char*>(storage.array->data()) + offset, storage.array));
  return Value::ofTensor(std::move(view));
}

// reshape(x, shape): a view of the same data with another shape of as many elements.
Value reshape(VirtualMachine&, const Value* args, int64_t n) {
  const char* name = "vm.builtin.reshape";
  const Value& x = argOfKind(args, n, 0, Value::Tensor, "a tensor", name);
  const Value& shape = argOfKind(args, n, 1, Value::Shape, "a shape", name);
  std::vector<int64_t> dims = shape.shapeDims();
  int64_t numel = 1;
  for (auto d : dims) numel *= d;
  if (numel != x.array->numel()) throwVMError(fmt::format("{}: cannot reshape {} to {}", name, x.describe(), shape.describe()));
  NDArrayRef owner = x.array->owner() ? x.array->owner() : x.array;
  return Value::ofTensor(new NDArray(x.array->dtype, std::move(dims), x.array->data(), owner));
}

Value shapeOf(VirtualMachine&, const Value* args, int64_t n) {
  const Value& x = argOfKind(args, n, 0, Value::Tensor, "a tensor", "vm.builtin.shape_of");
  return Value::ofShape(x.array->shape);
}

Value tensorToShape(VirtualMachine&, const Value* args, int64_t n) {
  const Value& x = argOfKind(args, n, 0, Value::Tensor, "a tensor", "vm.builtin.tensor_to_shape");
  if (x.array->shape.size() != 1 || !x.array->dtype.isIntegral())
    throwVMError(fmt::format("vm.builtin.tensor_to_shape: expected a 1-d integer tensor, got {}", x.describe()));
  std::vector<int64_t> dims(size_t(x.array->numel()));
  for (size_t k = 0; k < dims.size(); ++k) dims[k] = x.array->getInt(int64_t(k));
  return Value::ofShape(dims);
}

// A shape as a 1-d int64 tensor (relax.shape_to_tensor): shapes computed at run time reach tensor
// ops this way (an ONNX Shape of a symbolic dim).
Value shapeToTensor(VirtualMachine&, const Value* args, int64_t n) {
  const Value& s = argOfKind(args, n, 0, Value::Shape, "a shape", "vm.builtin.shape_to_tensor");
  std::vector<int64_t> dims = s.shapeDims();
  auto t = make<NDArray>(DataType::int64(), std::vector<int64_t>{int64_t(dims.size())});
  for (size_t k = 0; k < dims.size(); ++k) t->setInt(int64_t(k), dims[k]);
  return Value::ofTensor(t);
}

Value readIfCond(VirtualMachine&, const Value* args, int64_t n) {
  const Value& c = args[0];
  if (c.kind == Value::Int) return Value::ofInt(c.i != 0);
  if (c.kind == Value::Float) return Value::ofInt(c.f != 0);
  if (c.kind == Value::Tensor && c.array->numel() == 1) return Value::ofInt(c.array->getDouble(0) != 0);
  throwVMError(fmt::format("an if condition must be a scalar (a bool/int tensor of one element or a prim value), got {}", c.describe()));
}

Value tupleGetItem(VirtualMachine&, const Value* args, int64_t n) {
  const Value& t = argOfKind(args, n, 0, Value::Tuple, "a tuple", "vm.builtin.tuple_getitem");
  int64_t i = intArg(args, n, 1, "vm.builtin.tuple_getitem");
  if (i < 0 || i >= int64_t(t.fields().size())) throwVMError(fmt::format("tuple index {} out of range for {}", i, t.describe()));
  return t.fields()[size_t(i)];
}

Value makeTuple(VirtualMachine&, const Value* args, int64_t n) { return Value::ofTuple(std::vector<Value>(args, args + n)); }

// make_closure(func, captured...).
Value makeClosure(VirtualMachine&, const Value* args, int64_t n) {
  const Value& f = argOfKind(args, n, 0, Value::Func, "a function", "vm.builtin.make_closure");
  return Value::ofClosure(f.i, std::vector<Value>(args + 1, args + n));
}

// invoke_closure(vm, closure, args...).
Value invokeClosure(VirtualMachine& vm, const Value* args, int64_t n) {
  if (n < 2) throwVMError("vm.builtin.invoke_closure expects the closure");
  return vm.callValue(args[1], args + 2, n - 2);
}

// call_tir_dyn([vm,] kernel, tensors..., shape): the shape's values follow the tensors as scalars.
Value callTirDyn(VirtualMachine& vm, const Value* args, int64_t n) {
  if (n > 0 && args[0].kind == Value::Null) ++args, --n;
  if (n < 2 || args[n - 1].kind != Value::Shape) throwVMError("vm.builtin.call_tir_dyn expects a kernel, its tensors and a shape of scalar arguments");
  std::vector<Value> all(args + 1, args + n - 1);
  for (int64_t k = 0; k < args[n - 1].shapeSize(); ++k) all.push_back(Value::ofInt(args[n - 1].shapeData()[k]));
  return vm.callValue(args[0], all.data(), int64_t(all.size()));
}

Value identity(VirtualMachine&, const Value* args, int64_t n) { return n ? args[0] : Value(); }
Value nullValue(VirtualMachine&, const Value*, int64_t) { return Value(); }
Value allocShapeHeap(VirtualMachine&, const Value* args, int64_t n) {
  int64_t size = intArg(args, n, 1, "vm.builtin.alloc_shape_heap");
  if (size < 0 || size > (int64_t(1) << 20)) throwVMError(fmt::format("vm.builtin.alloc_shape_heap: bad size {}", size));
  return Value::ofTensor(new NDArray(DataType::int64(), {size}));
}

}  // namespace

void registerBuiltins() {
  registerPackedFunction("vm.builtin.alloc_shape_heap", allocShapeHeap);
  registerPackedFunction("vm.builtin.match_shape", matchShape);
  registerPackedFunction("vm.builtin.make_shape", makeShape);
  registerPackedFunction("vm.builtin.match_prim_value", matchPrimValue);
  registerPackedFunction("vm.builtin.make_prim_value", makePrimValue);
  registerPackedFunction("vm.builtin.check_tensor_info", checkTensorInfo);
  registerPackedFunction("vm.builtin.check_shape_info", checkShapeInfo);
  registerPackedFunction("vm.builtin.check_prim_value_info", checkPrimValueInfo);
  registerPackedFunction("vm.builtin.check_tuple_info", checkTupleInfo);
  registerPackedFunction("vm.builtin.check_func_info", checkFuncInfo);
  registerPackedFunction("vm.builtin.alloc_storage", allocStorage);
  registerPackedFunction("vm.builtin.alloc_tensor", allocTensor);
  registerPackedFunction("vm.builtin.reshape", reshape);
  registerPackedFunction("vm.builtin.shape_of", shapeOf);
  registerPackedFunction("vm.builtin.tensor_to_shape", tensorToShape);
  registerPackedFunction("vm.builtin.shape_to_tensor", shapeToTensor);
  registerPackedFunction("vm.builtin.read_if_cond", readIfCond);
  registerPackedFunction("vm.builtin.tuple_getitem", tupleGetItem);
  registerPackedFunction("vm.builtin.make_tuple", makeTuple);
  registerPackedFunction("vm.builtin.make_closure", makeClosure);
  registerPackedFunction("vm.builtin.invoke_closure", invokeClosure);
  registerPackedFunction("vm.builtin.call_tir_dyn", callTirDyn);
  registerPackedFunction("vm.builtin.copy", identity);
  registerPackedFunction("vm.builtin.to_device", identity);
  registerPackedFunction("vm.builtin.ensure_zero_offset", identity);
  registerPackedFunction("vm.builtin.null_value", nullValue);
}

}  // namespace rlx::vm
