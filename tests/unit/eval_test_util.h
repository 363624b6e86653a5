// Helpers of the reference-evaluator tests: make small tensors from literal values, evaluate an
// op written like its TVMScript call (kwargs for attrs), and read results back as doubles.
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
inline Evaluated ev(const std::string& op, std::vector<PyValue> args, KwArgs kwargs = {}) {
  Evaluated e;
  auto r = evalCall(op, std::move(args), std::move(kwargs));
  if (!r.ok()) {
    e.error = "error: " + r.error().message;
    return e;
  }
  e.ok = true;
  if (r.value().kind == Value::Tensor) {
    e.values = vals(r.value());
    e.shape = shp(r.value());
    e.dtype = dtypeOf(r.value());
  }
  return e;
}

}  // namespace rlx::test
