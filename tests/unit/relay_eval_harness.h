// Running a converted Relay op on the reference evaluator in tests: the result tensor's shape and
// values (eval_test_util's Evaluated) and small input ramps.
#pragma once
#include <catch2/catch.hpp>

#include "tests/unit/eval_test_util.h"
#include "tests/unit/relay_op_harness.h"

namespace rlx::test {

// Runs main(inputs) and returns its tensor result (shape, values), or the error.
inline Evaluated runTensor(RelayHarness& h, const Expr& result, const std::vector<Value>& inputs) {
  Evaluated e;
  auto r = h.run(result, inputs);
  if (!r.ok()) {
    e.error = r.error().message;
    return e;
  }
  REQUIRE(r.value().kind == Value::Tensor);
  e.ok = true;
  readTensor(e, r.value());
  return e;
}

// start, start + 1, ..., n values.
inline std::vector<double> iotaValues(int64_t n, double start = 0) {
  std::vector<double> v;
  for (int64_t k = 0; k < n; ++k) v.push_back(start + double(k));
  return v;
}

}  // namespace rlx::test
