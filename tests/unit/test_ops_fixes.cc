// Regression tests for struct-info inference fixes found while writing the reference evaluator:
// arange lengths of empty and descending ranges.
#include <catch2/catch.hpp>

#include "tests/unit/eval_test_util.h"

using namespace rlx;
using namespace rlx::test;
using V = std::vector<double>;
using Dims = std::vector<int64_t>;

TEST_CASE("arange: constant integer ranges have length max(0, ceil((end - start) / step))", "[ops]") {
  CHECK(infer("relax.arange", {I(5), I(0), I(1)}) == T("(0,)", "int64"));
  CHECK(infer("relax.arange", {I(5), I(5), I(1)}) == T("(0,)", "int64"));
  CHECK(infer("relax.arange", {I(5), I(0), I(-1)}) == T("(5,)", "int64"));
  CHECK(infer("relax.arange", {I(5), I(0), I(-2)}) == T("(3,)", "int64"));
  CHECK(infer("relax.arange", {I(10), I(0), I(-3)}) == T("(4,)", "int64"));
  CHECK(infer("relax.arange", {I(0), I(5), I(-1)}) == T("(0,)", "int64"));
  CHECK(infer("relax.arange", {I(-3), I(4), I(2)}) == T("(4,)", "int64"));
  CHECK(infer("relax.arange", {I(0), I(10), I(3)}) == T("(4,)", "int64"));
  CHECK(infer("relax.arange", {I(0), I(9), I(3)}) == T("(3,)", "int64"));
  // No overflow at the ends of int64.
  CHECK(infer("relax.arange", {I(INT64_MAX), I(INT64_MIN), I(-1)}) == T("(9223372036854775807,)", "int64"));
  CHECK(infer("relax.arange", {I(INT64_MIN), I(INT64_MAX), I(INT64_MAX)}) == T("(3,)", "int64"));
  CHECK(infer("relax.arange", {I(1), I(2), I(0)}) == "error: R.arange: step must not be zero");
}

TEST_CASE("arange: float ranges are empty or descending as numpy counts them", "[ops]") {
  CHECK(infer("relax.arange", {F(1.0), F(0.0), F(0.5)}) == T("(0,)"));
  CHECK(infer("relax.arange", {F(1.0), F(0.0), F(-0.25)}) == T("(4,)"));
  CHECK(infer("relax.arange", {I(3), F(0.5), F(-1.0)}) == T("(3,)"));
}

TEST_CASE("arange: symbolic bounds keep TVM's form", "[ops]") {
  auto n = sym("n");
  CHECK(infer("relax.arange", {P(n)}) == T("(n,)", "int64"));
  CHECK(infer("relax.arange", {I(1), P(n), I(2)}) == T("(n // 2,)", "int64"));
}

TEST_CASE("arange: the evaluator gives empty and descending ranges", "[ops][eval]") {
  auto empty = ev("relax.arange", {I(5), I(0), I(1)});
  CHECK(empty.ok);
  CHECK(empty.shape == Dims{0});
  CHECK(ev("relax.arange", {I(5), I(0), I(-1)}).values == V{5, 4, 3, 2, 1});
  CHECK(ev("relax.arange", {I(5), I(0), I(-2)}).values == V{5, 3, 1});
  CHECK(ev("relax.arange", {F(1.0), F(0.0), F(-0.25)}).values == V{1, 0.75, 0.5, 0.25});
}

