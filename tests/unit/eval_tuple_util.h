// Helpers of the reference-evaluator tests for results that are not a single tensor: tuple results
// (split, meshgrid) field by field, and exact int64 elements (beyond double's 53 bits).
#pragma once
#include <string>
#include <vector>

#include "tests/unit/eval_test_util.h"

namespace rlx::test {

// Evaluates an op with a tuple result; one Evaluated per field, or a single failed one holding the
// error ("error: ...") when evaluation fails or the result is not a tuple of tensors.
inline std::vector<Evaluated> evTuple(const std::string& op, std::vector<PyValue> args, KwArgs kwargs = {}) {
  auto r = evalCall(op, std::move(args), std::move(kwargs));
  Evaluated failed;
  if (!r.ok()) {
    failed.error = "error: " + r.error().message;
    return {failed};
  }
  if (r.value().kind != Value::Tuple) {
    failed.error = "error: not a tuple";
    return {failed};
  }
  std::vector<Evaluated> out;
  for (auto& f : r.value().fields) {
    Evaluated e;
    e.ok = f.kind == Value::Tensor;
    if (e.ok) {
      e.values = vals(f);
      e.shape = shp(f);
      e.dtype = dtypeOf(f);
    }
    out.push_back(std::move(e));
  }
  return out;
}

// The elements of a tensor result as exact int64 values (empty on error or non-tensor results).
inline std::vector<int64_t> evInts(const std::string& op, std::vector<PyValue> args, KwArgs kwargs = {}) {
  auto r = evalCall(op, std::move(args), std::move(kwargs));
  std::vector<int64_t> out;
  if (!r.ok() || r.value().kind != Value::Tensor) return out;
  for (int64_t i = 0; i < r.value().tensor->numel(); ++i) out.push_back(r.value().tensor->getInt(i));
  return out;
}

// A tensor constant built from exact int64 values (nd() goes through double).
inline PyValue CI(const char* dtype, std::vector<int64_t> shape, const std::vector<int64_t>& values) {
  auto t = make<NDArray>(dt(dtype), std::move(shape));
  for (size_t i = 0; i < values.size() && int64_t(i) < t->numel(); ++i) t->setInt(int64_t(i), values[i]);
  return E(valueToExpr(Value::ofTensor(t)));
}

// Builds and normalizes the call from `args` (as evalCall does) but evaluates it on `values`: the
// evaluator must reject values that contradict the call's struct info with an error, never crash.
inline std::string evMismatch(const std::string& op, std::vector<PyValue> args, KwArgs kwargs, const std::vector<Value>& values) {
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

inline Value tensorOf(const char* dtype, std::vector<int64_t> shape, std::vector<double> values = {}) {
  return Value::ofTensor(nd(dtype, std::move(shape), std::move(values)));
}

}  // namespace rlx::test
