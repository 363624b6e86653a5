// Regression tests for struct-info inference fixes found while writing the reference evaluator:
// arange lengths of empty and descending ranges; layout_transform shapes of padding index maps.
#include <catch2/catch.hpp>

#include "ir/arith.h"
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

namespace {
// [[vars...], [results...]], the parsed form of `lambda vars: results`.
PyValue indexMap(const std::vector<PrimExpr>& vars, const std::vector<PrimExpr>& results) {
  std::vector<PyValue> vs, rs;
  for (auto& v : vars) vs.push_back(P(v));
  for (auto& r : results) rs.push_back(P(r));
  return L({L(vs), L(rs)});
}
PrimExpr iv(const char* name) { return make<PrimVar>(name, DataType::int64()); }
}  // namespace

TEST_CASE("layout_transform: split maps pad the input to a multiple of the divisor", "[ops]") {
  auto i = iv("i");
  auto split = [&](int64_t c) { return indexMap({i}, {floordiv(i, intImm(c)), floormod(i, intImm(c))}); };
  CHECK(infer("relax.layout_transform", {E(tvar("x", {c64(3)}))}, {{"index_map", split(2)}}) == T("(2, 2)"));
  CHECK(infer("relax.layout_transform", {E(tvar("x", {c64(3)}))}, {{"index_map", split(4)}}) == T("(1, 4)"));
  CHECK(infer("relax.layout_transform", {E(tvar("x", {c64(8)}))}, {{"index_map", split(4)}}) == T("(2, 4)"));
  CHECK(infer("relax.layout_transform", {E(tvar("x", {c64(0)}))}, {{"index_map", split(4)}}) == T("(0, 4)"));
  CHECK(infer("relax.layout_transform", {E(tvar("x", {sym("n")}))}, {{"index_map", split(4)}}) == T("((n - n % -4) // 4, 4)"));
  // Every divisor used on a var pads it: lcm(3, 2) = 6 here.
  CHECK(infer("relax.layout_transform", {E(tvar("x", {c64(7)}))}, {{"index_map", indexMap({i}, {floordiv(i, intImm(3)), floormod(i, intImm(2))})}}) == T("(4, 2)"));
  // Nested splits: i // 2 // 2 and i // 2 % 2 over 5 (padded to 8).
  CHECK(infer("relax.layout_transform", {E(tvar("x", {c64(5)}))},
              {{"index_map", indexMap({i}, {floordiv(floordiv(i, intImm(2)), intImm(2)), floormod(floordiv(i, intImm(2)), intImm(2)), floormod(i, intImm(2))})}}) == T("(2, 2, 2)"));
}

TEST_CASE("layout_transform: packed, fused and scaled maps", "[ops]") {
  auto n = iv("n"), c = iv("c"), h = iv("h"), w = iv("w"), i = iv("i"), j = iv("j");
  auto nchw4c = indexMap({n, c, h, w}, {n, floordiv(c, intImm(4)), h, w, floormod(c, intImm(4))});
  CHECK(infer("relax.layout_transform", {E(tvar("x", {c64(1), c64(6), c64(2), c64(2)}))}, {{"index_map", nchw4c}}) == T("(1, 2, 2, 2, 4)"));
  CHECK(infer("relax.layout_transform", {E(tvar("x", {c64(1), c64(8), c64(2), c64(2)}))}, {{"index_map", nchw4c}}) == T("(1, 2, 2, 2, 4)"));
  CHECK(infer("relax.layout_transform", {E(tvar("x", {c64(3), c64(4)}))}, {{"index_map", indexMap({i, j}, {add(mul(i, intImm(4)), j)})}}) == T("(12,)"));
  CHECK(infer("relax.layout_transform", {E(tvar("x", {c64(2), c64(3)}))}, {{"index_map", indexMap({i, j}, {j, i})}}) == T("(3, 2)"));
  CHECK(infer("relax.layout_transform", {E(tvar("x", {c64(2), c64(3)}))}, {{"index_map", indexMap({i, j}, {j, i, intImm(0)})}}) == T("(3, 2, 1)"));
  // A scaled iterator spans extent * scale (TVM's iterator-sum extent).
  CHECK(infer("relax.layout_transform", {E(tvar("x", {c64(3)}))}, {{"index_map", indexMap({i}, {mul(i, intImm(2))})}}) == T("(6,)"));
  // Offsets and other non-affine forms keep the image of the input box.
  CHECK(infer("relax.layout_transform", {E(tvar("x", {c64(3)}))}, {{"index_map", indexMap({i}, {add(i, intImm(1))})}}) == T("(4,)"));
  CHECK(infer("relax.layout_transform", {E(tvar("x", {c64(2), c64(3)}))}, {{"index_map", indexMap({i, j}, {add(i, j)})}}) == T("(4,)"));
}

TEST_CASE("layout_transform: the evaluator fills the padding of split maps", "[ops][eval]") {
  auto i = iv("i");
  auto split2 = indexMap({i}, {floordiv(i, intImm(2)), floormod(i, intImm(2))});
  auto r = ev("relax.layout_transform", {C("float32", {3}, {1, 2, 3})}, {{"index_map", split2}});
  CHECK(r.error == "");
  CHECK(r.shape == Dims{2, 2});
  CHECK(r.values == V{1, 2, 3, 0});
  CHECK(ev("relax.layout_transform", {C("int32", {3}, {1, 2, 3})}, {{"index_map", split2}, {"pad_value", I(7)}}).values == V{1, 2, 3, 7});
  auto split4 = ev("relax.layout_transform", {C("float32", {3}, {1, 2, 3})}, {{"index_map", indexMap({i}, {floordiv(i, intImm(4)), floormod(i, intImm(4))})}, {"pad_value", F(-1)}});
  CHECK(split4.shape == Dims{1, 4});
  CHECK(split4.values == V{1, 2, 3, -1});
  auto n = iv("n"), c = iv("c"), h = iv("h"), w = iv("w");
  auto packed = ev("relax.layout_transform", {C("float32", {1, 6, 1, 1}, {0, 1, 2, 3, 4, 5})},
                   {{"index_map", indexMap({n, c, h, w}, {n, floordiv(c, intImm(4)), h, w, floormod(c, intImm(4))})}});
  CHECK(packed.shape == Dims{1, 2, 1, 1, 4});
  CHECK(packed.values == V{0, 1, 2, 3, 4, 5, 0, 0});
  auto scaled = ev("relax.layout_transform", {C("float32", {3}, {1, 2, 3})}, {{"index_map", indexMap({i}, {mul(i, intImm(2))})}});
  CHECK(scaled.values == V{1, 0, 2, 0, 3, 0});
}
