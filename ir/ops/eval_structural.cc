// Reference evaluators of the structural ops that are pure functions of constant values: shape_of,
// size, shape <-> tensor conversions, device hints (the identity on the host) and inspect.* queries.
//
// Deliberately without an evaluator (they are not value-level functions of constants):
//   call_tir, call_tir_inplace, call_tir_with_grad, call_dps_packed, call_pure_packed,
//   call_inplace_packed, call_builtin_with_ctx, call_py_func — they run external code (PrimFuncs,
//     packed or Python functions) the evaluator cannot see;
//   make_closure, invoke_closure, invoke_pure_closure — closures are function values, not data;
//   null_value — a null object has no Value representation;
//   print, assert_op — impure: their effect is the point, folding them away would lose it.
#include <fmt/format.h>

#include "ir/ops/eval_util.h"

namespace rlx {
namespace {
using namespace ops;

Result<Value> evalShapeOf(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "expr"));
  return Value::ofShape(x->shape);
}

// The element count as the inferred 0-d int64 tensor.
Result<Value> evalSize(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "expr"));
  RLX_TRY(out, allocResult(call));
  if (out->numel() != 1) return evalError(call, "expects a scalar result");
  out->setInt(0, x->numel());
  return Value::ofTensor(out);
}

Result<Value> evalShapeToTensor(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(s, shapeValue(call, args, 0, "expr"));
  NDArrayRef out = allocTensor(DataType::int64(), {int64_t(s.size())});
  for (size_t k = 0; k < s.size(); ++k) out->setInt(int64_t(k), s[k]);
  return Value::ofTensor(out);
}

// A 1-D integer tensor as a shape; a shape cannot hold negative extents.
Result<Value> evalTensorToShape(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "expr"));
  if (x->shape.size() != 1 || !x->dtype.isIntegral())
    return evalError(call, fmt::format("expects a 1-D integer tensor, got {}", args[0].describe()));
  std::vector<int64_t> dims;
  for (int64_t k = 0; k < x->numel(); ++k) {
    int64_t d = x->getInt(k);
    if (d < 0) return evalError(call, fmt::format("a shape cannot have the negative extent {} (element {})", d, k));
    dims.push_back(d);
  }
  return Value::ofShape(std::move(dims));
}

// Device placement does not change values: on the host the tensor itself is the result.
Result<Value> evalIdentity(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  return Value::ofTensor(x);
}

// inspect.*: the DLTensor field as a prim value of the dtype inference gave it (the evaluator's
// tensors are compact and unoffset, so strides are row-major and offsets 0).
using FieldFn = std::function<Result<int64_t>(const Call&, const NDArray&, const std::vector<Value>&)>;

void registerInspect(const char* name, FieldFn field) {
  registerEval(std::string("relax.inspect.") + name, [field](const Call& call, const std::vector<Value>& args) -> Result<Value> {
    RLX_TRY(x, tensorValue(call, args, 0, "tensor"));
    auto p = call.sinfo ? call.sinfo.as<PrimSInfo>() : nullptr;
    if (!p) return evalError(call, "the result is not a prim value");
    RLX_TRY(v, field(call, *x, args));
    return Value::ofInt(v, p->dtype);
  });
}

// The axis argument of tensor_shape_i / tensor_stride_i, checked against the tensor's rank.
Result<size_t> inspectAxis(const Call& call, const NDArray& x, const std::vector<Value>& args) {
  RLX_TRY(a, primValueArg(call, args, 1, "axis"));
  int64_t axis = a.primInt();
  if (axis < 0 || axis >= int64_t(x.shape.size()))
    return evalError(call, fmt::format("axis {} is out of range for a tensor of {} dimensions", axis, x.shape.size()));
  return size_t(axis);
}

void registerInspects() {
  registerInspect("tensor_dtype_code", [](const Call&, const NDArray& x, const std::vector<Value>&) -> Result<int64_t> { return int64_t(x.dtype.code); });
  registerInspect("tensor_dtype_bits", [](const Call&, const NDArray& x, const std::vector<Value>&) -> Result<int64_t> { return int64_t(x.dtype.bits); });
  registerInspect("tensor_dtype_lanes", [](const Call&, const NDArray& x, const std::vector<Value>&) -> Result<int64_t> { return int64_t(x.dtype.lanes); });
  registerInspect("tensor_ndim", [](const Call&, const NDArray& x, const std::vector<Value>&) -> Result<int64_t> { return int64_t(x.shape.size()); });
  registerInspect("tensor_byte_offset", [](const Call&, const NDArray&, const std::vector<Value>&) -> Result<int64_t> { return int64_t(0); });
  registerInspect("tensor_elem_offset", [](const Call&, const NDArray&, const std::vector<Value>&) -> Result<int64_t> { return int64_t(0); });
  registerInspect("tensor_shape_i", [](const Call& call, const NDArray& x, const std::vector<Value>& args) -> Result<int64_t> {
    RLX_TRY(axis, inspectAxis(call, x, args));
    return x.shape[axis];
  });
  registerInspect("tensor_stride_i", [](const Call& call, const NDArray& x, const std::vector<Value>& args) -> Result<int64_t> {
    RLX_TRY(axis, inspectAxis(call, x, args));
    return stridesOf(x.shape)[axis];
  });
}

}  // namespace

void registerStructuralEvals() {
  registerEval("relax.shape_of", evalShapeOf);
  registerEval("relax.size", evalSize);
  registerEval("relax.shape_to_tensor", evalShapeToTensor);
  registerEval("relax.tensor_to_shape", evalTensorToShape);
  registerEval("relax.hint_on_device", evalIdentity);
  registerEval("relax.to_vdevice", evalIdentity);
  registerInspects();
}

}  // namespace rlx
