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
    if (e.ok) readTensor(e, f);
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

}  // namespace rlx::test
