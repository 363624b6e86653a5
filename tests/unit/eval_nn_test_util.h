// Helpers of the nn-family evaluator tests: approximate comparisons naming the failing element and
// tuple results (iota, TV and evalOn come from eval_test_util.h).
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
  e.ok = true;
  readTensor(e, r.value().fields[field]);
  return e;
}

}  // namespace rlx::test
