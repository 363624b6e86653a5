// Reference evaluator: indexing, gather/scatter, meshgrid and one_hot against hand-computed values,
// including the out-of-range policy of each op (see ir/ops/eval_manipulate.cc).
#include <catch2/catch.hpp>

#include "tests/unit/eval_tuple_util.h"

using namespace rlx;
using namespace rlx::test;
using V = std::vector<double>;
using Dims = std::vector<int64_t>;

namespace {
bool mentions(const Evaluated& e, const std::string& text) { return !e.ok && e.error.find(text) != std::string::npos; }
}  // namespace

TEST_CASE("eval: take along an axis", "[eval]") {
  auto table = [] { return C("float32", {3, 2}, {1, 2, 3, 4, 5, 6}); };
  auto r = ev("relax.take", {table(), C("int64", {2}, {2, 0})}, {{"axis", I(0)}});
  CHECK(r.shape == Dims{2, 2});
  CHECK(r.values == V{5, 6, 1, 2});
  auto c = ev("relax.take", {table(), C("int32", {1}, {1})}, {{"axis", I(-1)}});
  CHECK(c.shape == Dims{3, 1});
  CHECK(c.values == V{2, 4, 6});
  auto s = ev("relax.take", {table(), I(2)}, {{"axis", I(0)}});
  CHECK(s.shape == Dims{2});
  CHECK(s.values == V{5, 6});
  auto v = [] { return C("int32", {4}, {10, 20, 30, 40}); };
  auto m = ev("relax.take", {v(), C("int64", {2, 2}, {3, 0, 1, 1})});
  CHECK(m.shape == Dims{2, 2});
  CHECK(m.values == V{40, 10, 20, 20});
  CHECK(ev("relax.take", {v(), C("int64", {0}, {})}).shape == Dims{0});
}

TEST_CASE("eval: take's modes: fast rejects out-of-range, clip clamps, wrap wraps", "[eval]") {
  auto v = [] { return C("int32", {4}, {10, 20, 30, 40}); };
  CHECK(mentions(ev("relax.take", {v(), C("int64", {1}, {4})}), "index 4 is out of range [0, 4)"));
  CHECK(mentions(ev("relax.take", {v(), C("int64", {1}, {-1})}), "index -1 is out of range"));
  CHECK(ev("relax.take", {v(), C("int64", {2}, {-1, 5})}, {{"mode", S("clip")}}).values == V{10, 40});
  CHECK(ev("relax.take", {v(), C("int64", {3}, {-1, 5, -9})}, {{"mode", S("wrap")}}).values == V{40, 20, 40});
}

TEST_CASE("eval: strided_slice uses python slicing", "[eval]") {
  auto x = [] { return iota("float32", {10}); };
  CHECK(ev("relax.strided_slice", {x(), Ints({0}), Ints({2}), Ints({8}), Ints({3})}).values == V{2, 5});
  CHECK(ev("relax.strided_slice", {x(), Ints({0}), Ints({8}), Ints({2}), Ints({-2})}).values == V{8, 6, 4});
  CHECK(ev("relax.strided_slice", {x(), Ints({0}), Ints({-3}), Ints({100})}).values == V{7, 8, 9});
  CHECK(ev("relax.strided_slice", {x(), Ints({0}), Ints({-1}), Ints({-100}), Ints({-4})}).values == V{9, 5, 1});
  CHECK(ev("relax.strided_slice", {x(), Ints({0}), Ints({5}), Ints({2})}).shape == Dims{0});
  auto m = [] { return iota("int32", {3, 4}); };
  auto r = ev("relax.strided_slice", {m(), Ints({1, 0}), Ints({1, 0}), Ints({3, 2})});
  CHECK(r.shape == Dims{2, 2});
  CHECK(r.values == V{1, 2, 5, 6});
  CHECK(ev("relax.strided_slice", {m(), Ints({-1}), Ints({0}), Ints({4}), Ints({2})}).values == V{0, 2, 4, 6, 8, 10});
}

TEST_CASE("eval: dynamic_strided_slice takes tensor bounds", "[eval]") {
  auto r = ev("relax.dynamic_strided_slice", {iota("int32", {3, 4}), C("int64", {2}, {0, 3}), C("int64", {2}, {3, -5}), C("int64", {2}, {2, -1})});
  CHECK(r.shape == Dims{2, 4});
  CHECK(r.values == V{3, 2, 1, 0, 11, 10, 9, 8});
  CHECK(mentions(ev("relax.dynamic_strided_slice", {iota("int32", {3}), C("int64", {1}, {0}), C("int64", {1}, {3}), C("int64", {1}, {0})}), "strides must not be zero"));
}

TEST_CASE("eval: slice_scatter writes src into a strided slice", "[eval]") {
  auto r = ev("relax.slice_scatter", {C("float32", {5}, {0, 0, 0, 0, 0}), C("float32", {2}, {1, 2}), I(1), I(5), I(2)});
  CHECK(r.values == V{0, 1, 0, 2, 0});
  auto a = ev("relax.slice_scatter", {C("int32", {2, 3}, {}), C("int32", {2, 1}, {7, 8}), I(2), I(3)}, {{"axis", I(-1)}});
  CHECK(a.values == V{0, 0, 7, 0, 0, 8});
  CHECK(mentions(ev("relax.slice_scatter", {C("float32", {5}, {}), C("float32", {3}, {}), I(1), I(5), I(2)}), "src has shape (3,) but the slice has shape (2,)"));
}

TEST_CASE("eval: gather_elements and gather_nd", "[eval]") {
  auto d = [] { return C("float32", {2, 2}, {1, 2, 3, 4}); };
  CHECK(ev("relax.gather_elements", {d(), C("int64", {2, 2}, {0, 0, 1, 0})}, {{"axis", I(1)}}).values == V{1, 1, 4, 3});
  auto g0 = ev("relax.gather_elements", {d(), C("int32", {1, 2}, {1, 0})});
  CHECK(g0.shape == Dims{1, 2});
  CHECK(g0.values == V{3, 2});
  CHECK(mentions(ev("relax.gather_elements", {d(), C("int64", {1, 1}, {-1})}), "index -1 is out of range [0, 2)"));
  auto nd = [] { return C("int32", {2, 2}, {0, 1, 2, 3}); };
  auto pts = ev("relax.gather_nd", {nd(), C("int64", {2, 2}, {0, 0, 1, 1})});
  CHECK(pts.shape == Dims{2});
  CHECK(pts.values == V{0, 3});
  auto rows = ev("relax.gather_nd", {nd(), C("int64", {2, 1}, {1, 0})});
  CHECK(rows.shape == Dims{2, 2});
  CHECK(rows.values == V{2, 3, 0, 1});
  auto batched = ev("relax.gather_nd", {iota("int32", {2, 2, 2}), C("int64", {2, 1}, {1, 0})}, {{"batch_dims", I(1)}});
  CHECK(batched.shape == Dims{2, 2});
  CHECK(batched.values == V{2, 3, 4, 5});
  CHECK(mentions(ev("relax.gather_nd", {nd(), C("int64", {1, 2}, {0, 2})}), "out of range"));
}

TEST_CASE("eval: index_tensor is numpy advanced indexing", "[eval]") {
  auto d = [] { return iota("int32", {3, 3}); };
  CHECK(ev("relax.index_tensor", {d(), Tup({C("int64", {2}, {0, 2}), C("int64", {2}, {1, -1})})}).values == V{1, 8});
  auto rows = ev("relax.index_tensor", {d(), Tup({C("int64", {2}, {2, 0})})});
  CHECK(rows.shape == Dims{2, 3});
  CHECK(rows.values == V{6, 7, 8, 0, 1, 2});
  auto grid = ev("relax.index_tensor", {d(), Tup({C("int64", {2, 1}, {0, 2}), C("int64", {2}, {0, 2})})});
  CHECK(grid.shape == Dims{2, 2});
  CHECK(grid.values == V{0, 2, 6, 8});
  CHECK(mentions(ev("relax.index_tensor", {d(), Tup({C("int64", {1}, {3})})}), "index 3 is out of range [-3, 3)"));
}

TEST_CASE("eval: scatter_elements with every reduction", "[eval]") {
  auto r = ev("relax.scatter_elements", {C("float32", {1, 5}, {1, 2, 3, 4, 5}), C("int64", {1, 2}, {1, 3}), C("float32", {1, 2}, {1.5, 2.5})}, {{"axis", I(1)}});
  CHECK(r.values == V{1, 1.5, 3, 2.5, 5});
  auto data = [] { return C("int32", {3}, {1, 2, 3}); };
  auto idx = [] { return C("int64", {3}, {0, 0, -1}); };
  auto upd = [] { return C("int32", {3}, {10, 20, 30}); };
  CHECK(ev("relax.scatter_elements", {data(), idx(), upd()}, {{"reduction", S("add")}}).values == V{31, 2, 33});
  CHECK(ev("relax.scatter_elements", {data(), idx(), upd()}, {{"reduction", S("mul")}}).values == V{200, 2, 90});
  CHECK(ev("relax.scatter_elements", {data(), idx(), upd()}, {{"reduction", S("min")}}).values == V{1, 2, 3});
  CHECK(ev("relax.scatter_elements", {data(), idx(), upd()}, {{"reduction", S("max")}}).values == V{20, 2, 30});
  CHECK(ev("relax.scatter_elements", {data(), idx(), upd()}).values == V{20, 2, 30});
  // mean averages pairwise in index order, as TVM's kernel: (4 + 8) / 2 = 6, (6 + 0) / 2 = 3.
  CHECK(ev("relax.scatter_elements", {C("float32", {1}, {4}), C("int64", {2}, {0, 0}), C("float32", {2}, {8, 0})}, {{"reduction", S("mean")}}).values == V{3});
  CHECK(mentions(ev("relax.scatter_elements", {data(), idx(), upd()}, {{"reduction", S("sum")}}), "reduction \"sum\" is not supported"));
  CHECK(mentions(ev("relax.scatter_elements", {data(), C("int64", {1}, {3}), C("int32", {1}, {0})}), "index 3 is out of range [-3, 3)"));
}

TEST_CASE("eval: scatter_nd updates points and slices", "[eval]") {
  CHECK(ev("relax.scatter_nd", {C("int32", {4}, {1, 2, 3, 4}), C("int64", {2, 1}, {1, 3}), C("int32", {2}, {9, 10})}).values == V{1, 9, 3, 10});
  CHECK(ev("relax.scatter_nd", {C("float32", {2, 2}, {}), C("int64", {1, 1}, {1}), C("float32", {1, 2}, {5, 6})}).values == V{0, 0, 5, 6});
  CHECK(ev("relax.scatter_nd", {C("float32", {2}, {1, 1}), C("int64", {2, 1}, {0, 0}), C("float32", {2}, {1, 2})}, {{"reduction", S("add")}}).values == V{4, 1});
  CHECK(mentions(ev("relax.scatter_nd", {C("float32", {2}, {}), C("int64", {1, 1}, {-1}), C("float32", {1}, {1})}), "out of range [0, 2)"));
  CHECK(mentions(ev("relax.scatter_nd", {C("float32", {2}, {}), C("int64", {1, 1}, {0}), C("float32", {2}, {1, 1})}), "updates must have shape (1,)"));
}

TEST_CASE("eval: index_put writes (or accumulates) at advanced indices", "[eval]") {
  CHECK(ev("relax.index_put", {C("float32", {3}, {}), Tup({C("int64", {2}, {0, 2})}), C("float32", {2}, {5, 6})}).values == V{5, 0, 6});
  CHECK(ev("relax.index_put", {C("float32", {3}, {}), Tup({C("int64", {2}, {1, 1})}), C("float32", {2}, {1, 2})}, {{"accumulate", B(true)}}).values == V{0, 3, 0});
  CHECK(ev("relax.index_put", {C("int32", {2, 2}, {}), Tup({C("int64", {1}, {1}), C("int64", {1}, {-2})}), C("int32", {1}, {7})}).values == V{0, 0, 7, 0});
  // Fewer index tensors than dimensions index whole rows; values broadcast to the region.
  CHECK(ev("relax.index_put", {C("int32", {2, 2}, {}), Tup({C("int64", {2}, {0, 1})}), C("int32", {2}, {3, 4})}).values == V{3, 4, 3, 4});
  CHECK(ev("relax.index_put", {C("int32", {2, 2}, {}), Tup({C("int64", {1}, {1})}), C("int32", {}, {9})}).values == V{0, 0, 9, 9});
  CHECK(mentions(ev("relax.index_put", {C("int32", {2}, {}), Tup({C("int64", {1}, {0})}), C("int32", {3}, {})}), "do not fit the indexed region"));
}

TEST_CASE("eval: meshgrid in ij and xy indexing", "[eval]") {
  auto a = [] { return C("int32", {2}, {1, 2}); };
  auto b = [] { return C("int32", {3}, {3, 4, 5}); };
  auto ij = evTuple("relax.meshgrid", {Tup({a(), b()})});
  REQUIRE(ij.size() == 2);
  CHECK(ij[0].shape == Dims{2, 3});
  CHECK(ij[0].values == V{1, 1, 1, 2, 2, 2});
  CHECK(ij[1].values == V{3, 4, 5, 3, 4, 5});
  auto xy = evTuple("relax.meshgrid", {Tup({a(), b()})}, {{"indexing", S("xy")}});
  REQUIRE(xy.size() == 2);
  CHECK(xy[0].shape == Dims{3, 2});
  CHECK(xy[0].values == V{1, 2, 1, 2, 1, 2});
  CHECK(xy[1].values == V{3, 3, 4, 4, 5, 5});
}

TEST_CASE("eval: one_hot", "[eval]") {
  auto idx = [] { return C("int32", {3}, {0, 2, 5}); };
  auto r = ev("relax.one_hot", {idx(), F(1), F(0)}, {{"depth", I(3)}});
  CHECK(r.shape == Dims{3, 3});
  CHECK(r.dtype == "float32");
  CHECK(r.values == V{1, 0, 0, 0, 0, 1, 0, 0, 0});
  CHECK(ev("relax.one_hot", {idx(), F(1), F(0)}, {{"depth", I(3)}, {"axis", I(0)}}).values == V{1, 0, 0, 0, 0, 0, 0, 1, 0});
  auto i = ev("relax.one_hot", {C("int64", {}, {1}), I(5), I(-1)}, {{"depth", I(2)}});
  CHECK(i.dtype == "int64");
  CHECK(i.values == V{-1, 5});
}
