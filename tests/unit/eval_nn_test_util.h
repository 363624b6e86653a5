// Helpers of the nn-family evaluator tests: approximate comparisons naming the failing element,
// tuple results, and evaluating a normalized call on other values (the evaluator's own checks).
#pragma once
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tests/unit/eval_test_util.h"

namespace rlx::test {

using V = std::vector<double>;
using Dims = std::vector<int64_t>;

// The evaluation succeeded with `shape` and values within `tol` (relative and absolute) of `want`.
inline void checkNear(const Evaluated& e, const Dims& shape, const V& want, double tol = 1e-5) {
  INFO(e.error);
  REQUIRE(e.ok);
  CHECK(e.shape == shape);
  REQUIRE(e.values.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i << ": got " << e.values[i] << ", want " << want[i]);
    CHECK(e.values[i] == Approx(want[i]).epsilon(tol).margin(tol));
  }
}

// Field `field` of a tuple-valued evaluation, as an Evaluated.
inline Evaluated evField(const std::string& op, std::vector<PyValue> args, KwArgs kwargs, size_t field) {
  Evaluated e;
  auto r = evalCall(op, std::move(args), std::move(kwargs));
  if (!r.ok()) {
    e.error = "error: " + r.error().message;
    return e;
  }
  if (r.value().kind != Value::Tuple || field >= r.value().fields.size() || !r.value().fields[field].isTensor()) {
    e.error = "error: not a tuple of tensors";
    return e;
  }
  const Value& f = r.value().fields[field];
  e.ok = true;
  e.values = vals(f);
  e.shape = shp(f);
  e.dtype = dtypeOf(f);
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

// Builds and normalizes the call from `args` but evaluates it on `values`: "ok" or the error.
inline std::string evalOn(const std::string& op, std::vector<PyValue> args, KwArgs kwargs, std::vector<Value> values) {
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

inline Value TV(const char* dtype, std::vector<int64_t> shape, std::vector<double> values) { return Value::ofTensor(nd(dtype, std::move(shape), std::move(values))); }

}  // namespace rlx::test
