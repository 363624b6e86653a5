// Helpers of the reference-evaluator tests: make small tensors from literal values, evaluate an
// op written like its TVMScript call (kwargs for attrs), and read results back as doubles; the
// helpers every evaluator test file shares (iota, TV, evalOn) live here too.
#pragma once
#include <string>
#include <vector>

#include "ir/block_builder.h"
#include "ir/eval.h"
#include "tests/unit/op_test_util.h"

namespace rlx::test {

// A tensor of `dtype` and `shape` holding `values` (row-major; converted to the dtype).
inline NDArrayRef nd(const char* dtype, std::vector<int64_t> shape, std::vector<double> values) {
  auto t = make<NDArray>(dt(dtype), std::move(shape));
  for (size_t i = 0; i < values.size() && int64_t(i) < t->numel(); ++i) t->setDouble(int64_t(i), values[i]);
  return t;
}
// A constant tensor argument for evalCall.
inline PyValue C(const char* dtype, std::vector<int64_t> shape, std::vector<double> values) {
  return E(valueToExpr(Value::ofTensor(nd(dtype, std::move(shape), std::move(values)))));
}

// Builds the op call from TVMScript-like arguments, normalizes it (struct info) and evaluates it.
inline Result<Value> evalCall(const std::string& op, std::vector<PyValue> args, KwArgs kwargs = {}) {
  RLX_TRY(call, build(op, std::move(args), std::move(kwargs)));
  BlockBuilder bb;
  RLX_TRY(norm, bb.normalize(call));
  auto c = norm.as<Call>();
  if (!c) return Error("normalization did not keep a call");
  std::vector<Value> values;
  for (auto& a : c->args) {
    auto v = constantValue(a);
    if (!v) return Error("argument is not constant");
    values.push_back(std::move(*v));
  }
  return evaluateCall(*c, values);
}

// The elements of a tensor value as doubles (row-major), its shape, its dtype string.
inline std::vector<double> vals(const Value& v) {
  std::vector<double> out;
  for (int64_t i = 0; i < v.tensor->numel(); ++i) out.push_back(v.tensor->getDouble(i));
  return out;
}
inline std::vector<int64_t> shp(const Value& v) { return v.tensor->shape; }
inline std::string dtypeOf(const Value& v) { return v.tensor->dtype.str(); }

// Evaluates and returns the result tensor's values; the error text (prefixed "error: ") otherwise.
struct Evaluated {
  bool ok = false;
  std::string error;
  std::vector<double> values;
  std::vector<int64_t> shape;
  std::string dtype;
};
// Copies a tensor value's elements, shape and dtype into `e` (ok is left to the caller).
inline void readTensor(Evaluated& e, const Value& v) {
  e.values = vals(v);
  e.shape = shp(v);
  e.dtype = dtypeOf(v);
}
inline Evaluated ev(const std::string& op, std::vector<PyValue> args, KwArgs kwargs = {}) {
  Evaluated e;
  auto r = evalCall(op, std::move(args), std::move(kwargs));
  if (!r.ok()) {
    e.error = "error: " + r.error().message;
    return e;
  }
  e.ok = true;
  if (r.value().kind == Value::Tensor) readTensor(e, r.value());
  return e;
}

// A tensor start, start + step, ... of `shape`.
inline PyValue iota(const char* dtype, std::vector<int64_t> shape, double start = 0, double step = 1) {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(start + double(i) * step);
  return C(dtype, std::move(shape), std::move(v));
}

// A tensor Value (not a constant expression) for evalOn and tuple-valued arguments.
inline Value TV(const char* dtype, std::vector<int64_t> shape, std::vector<double> values = {}) {
  return Value::ofTensor(nd(dtype, std::move(shape), std::move(values)));
}

// Builds and normalizes the call from `args` (as evalCall does) but evaluates it on `values`: "ok"
// or the error. The evaluator must reject values that contradict the call's struct info with an
// error, never crash.
inline std::string evalOn(const std::string& op, std::vector<PyValue> args, KwArgs kwargs, const std::vector<Value>& values) {
  auto call = build(op, std::move(args), std::move(kwargs));
  if (!call.ok()) return "build error: " + call.error().message;
  BlockBuilder bb;
  auto norm = bb.normalize(call.value());
  if (!norm.ok()) return "normalize error: " + norm.error().message;
  auto c = norm.value().as<Call>();
  if (!c) return "not a call";
  auto r = evaluateCall(*c, values);
  return r.ok() ? "ok" : "error: " + r.error().message;
}

}  // namespace rlx::test
