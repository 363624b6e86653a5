// Reference evaluator: reductions, scans, search/sort and set ops (hand-computed values; axis
// handling, keepdims, ties, NaN, integer wrapping and truncation, zero-size and size-1 dims).
#include <catch2/catch.hpp>

#include <cmath>

#include "tests/unit/eval_test_util.h"

using namespace rlx;
using namespace rlx::test;
using V = std::vector<double>;
using Dims = std::vector<int64_t>;

namespace {

// Field `i` of a tuple result, evaluated like ev() does for a single tensor.
Evaluated field(const std::string& op, std::vector<PyValue> args, KwArgs kwargs, size_t i) {
  Evaluated e;
  auto r = evalCall(op, std::move(args), std::move(kwargs));
  if (!r.ok()) {
    e.error = "error: " + r.error().message;
    return e;
  }
  if (r.value().kind != Value::Tuple || i >= r.value().fields.size()) {
    e.error = "error: not a tuple with field " + std::to_string(i);
    return e;
  }
  e.ok = true;
  readTensor(e, r.value().fields[i]);
  return e;
}

bool allNaN(const V& v) {
  for (double x : v)
    if (!std::isnan(x)) return false;
  return !v.empty();
}

PyValue m23() { return C("float32", {2, 3}, {1, 2, 3, 4, 5, 6}); }

}  // namespace

TEST_CASE("eval: sum/prod/mean over axes, keepdims, negative axes", "[eval]") {
  auto all = ev("relax.sum", {m23()});
  CHECK(all.shape == Dims{});
  CHECK(all.values == V{21});
  auto cols = ev("relax.sum", {m23()}, {{"axis", Ints({0})}});
  CHECK(cols.shape == Dims{3});
  CHECK(cols.values == V{5, 7, 9});
  auto rows = ev("relax.sum", {m23()}, {{"axis", Ints({-1})}, {"keepdims", B(true)}});
  CHECK(rows.shape == Dims{2, 1});
  CHECK(rows.values == V{6, 15});
  auto keepAll = ev("relax.sum", {m23()}, {{"keepdims", B(true)}});
  CHECK(keepAll.shape == Dims{1, 1});
  CHECK(keepAll.values == V{21});
  auto cube = ev("relax.sum", {C("int32", {2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7})}, {{"axis", Ints({0, 2})}});
  CHECK(cube.shape == Dims{2});
  CHECK(cube.values == V{10, 18});
  CHECK(ev("relax.prod", {m23()}, {{"axis", Ints({1})}}).values == V{6, 120});
  CHECK(ev("relax.mean", {m23()}, {{"axis", Ints({0})}}).values == V{2.5, 3.5, 4.5});
  CHECK(ev("relax.mean", {m23()}, {{"axis", Ints({-2, -1})}}).values == V{3.5});
}

TEST_CASE("eval: integer reductions wrap and mean truncates like TVM's kernels", "[eval]") {
  auto s = ev("relax.sum", {C("int8", {2}, {100, 100})});
  CHECK(s.dtype == "int8");
  CHECK(s.values == V{-56});
  CHECK(ev("relax.prod", {C("uint8", {2}, {16, 17})}).values == V{16});
  auto m = ev("relax.mean", {C("int32", {4}, {1, 2, 3, 4})});
  CHECK(m.dtype == "int32");
  CHECK(m.values == V{2});
  CHECK(ev("relax.mean", {C("int32", {3}, {-1, -2, -4})}).values == V{-2});  // -7/3 truncates
  CHECK(ev("relax.sum", {C("bool", {3}, {1, 0, 1})}).values == V{1});
  CHECK(ev("relax.prod", {C("int64", {3}, {-2, 3, 4})}).values == V{-24});
}

TEST_CASE("eval: reductions over zero-size, size-1 and empty axis lists", "[eval]") {
  auto z = [] { return C("float32", {0, 3}, {}); };
  auto s = ev("relax.sum", {z()}, {{"axis", Ints({0})}});
  CHECK(s.shape == Dims{3});
  CHECK(s.values == V{0, 0, 0});
  CHECK(ev("relax.prod", {z()}, {{"axis", Ints({0})}}).values == V{1, 1, 1});
  CHECK(allNaN(ev("relax.mean", {z()}, {{"axis", Ints({0})}}).values));
  auto r = ev("relax.sum", {z()}, {{"axis", Ints({1})}});
  CHECK(r.shape == Dims{0});
  CHECK(r.values.empty());
  CHECK(ev("relax.max", {z()}, {{"axis", Ints({1})}}).ok);  // no slice to reduce: fine
  CHECK(ev("relax.max", {z()}, {{"axis", Ints({0})}}).error == "error: R.max: cannot take the max of an empty axis (zero-size reduction)");
  CHECK(ev("relax.mean", {C("int32", {0}, {})}).error == "error: R.mean: integer division by zero (the mean of an empty axis)");
  auto one = ev("relax.max", {C("int32", {1, 3}, {4, -5, 6})}, {{"axis", Ints({0})}});
  CHECK(one.shape == Dims{3});
  CHECK(one.values == V{4, -5, 6});
  auto none = ev("relax.sum", {C("float32", {2}, {1, 2})}, {{"axis", Ints({})}});
  CHECK(none.shape == Dims{2});
  CHECK(none.values == V{1, 2});
}

TEST_CASE("eval: max/min propagate NaN, compare integers exactly", "[eval]") {
  CHECK(allNaN(ev("relax.max", {C("float32", {3}, {1, NAN, 3})}).values));
  CHECK(allNaN(ev("relax.min", {C("float64", {3}, {1, NAN, 3})}).values));
  auto m = [] { return C("int32", {2, 3}, {3, -1, 7, 2, 9, 0}); };
  CHECK(ev("relax.max", {m()}, {{"axis", Ints({1})}}).values == V{7, 9});
  CHECK(ev("relax.min", {m()}, {{"axis", Ints({0})}}).values == V{2, -1, 0});
  CHECK(ev("relax.max", {C("uint8", {2}, {200, 100})}).values == V{200});
  CHECK(ev("relax.min", {C("float32", {3}, {-INFINITY, 0, 1})}).values == V{-INFINITY});
}

TEST_CASE("eval: variance and std are population statistics", "[eval]") {
  CHECK(ev("relax.variance", {C("float32", {4}, {1, 2, 3, 4})}).values == V{1.25});
  CHECK(ev("relax.std", {C("float64", {4}, {1, 2, 3, 4})}).values == V{std::sqrt(1.25)});
  auto m = [] { return C("float32", {2, 2}, {1, 3, 2, 6}); };
  CHECK(ev("relax.variance", {m()}, {{"axis", Ints({1})}}).values == V{1, 4});
  auto s = ev("relax.std", {m()}, {{"axis", Ints({-1})}, {"keepdims", B(true)}});
  CHECK(s.shape == Dims{2, 1});
  CHECK(s.values == V{1, 2});
  CHECK(ev("relax.variance", {C("float32", {1}, {7})}).values == V{0});
  // Integers: truncating mean 10/4 = 2, squares 1,0,1,4 → 6/4 = 1.
  CHECK(ev("relax.variance", {C("int32", {4}, {1, 2, 3, 4})}).values == V{1});
  // mean 5/3 = 1, squares 1,1,16 → 18/3 = 6, sqrt truncates to 2.
  CHECK(ev("relax.std", {C("int32", {3}, {0, 0, 5})}).values == V{2});
}

TEST_CASE("eval: median is the lower middle element, with indices over one axis", "[eval]") {
  auto all = ev("relax.median", {C("float32", {4}, {3, 1, 2, 4})});
  CHECK(all.shape == Dims{});
  CHECK(all.values == V{2});
  CHECK(ev("relax.median", {C("int32", {2, 2}, {4, 1, 3, 2})}).values == V{2});
  auto x = [] { return C("float32", {2, 3}, {5, 1, 3, 2, 2, 9}); };
  auto v = field("relax.median", {x()}, {{"axis", Ints({1})}}, 0);
  CHECK(v.shape == Dims{2});
  CHECK(v.values == V{3, 2});
  auto i = field("relax.median", {x()}, {{"axis", Ints({1})}}, 1);
  CHECK(i.dtype == "int64");
  CHECK(i.values == V{2, 1});  // the tie 2, 2 picks the lower index's sorted position
  auto k = field("relax.median", {x()}, {{"axis", Ints({-2})}, {"keepdims", B(true)}}, 1);
  CHECK(k.shape == Dims{1, 3});
  CHECK(k.values == V{1, 0, 0});  // columns (5,2), (1,2), (3,9): lower middles 2, 1, 3
  CHECK(allNaN(ev("relax.median", {C("float32", {3}, {1, NAN, 0})}).values));
  CHECK(field("relax.median", {C("float32", {1, 3}, {1, NAN, 0})}, {{"axis", Ints({1})}}, 1).values == V{1});
  CHECK(ev("relax.median", {C("float32", {0}, {})}).error == "error: R.median: cannot take the median of an empty axis (zero-size reduction)");
}

TEST_CASE("eval: cumsum/cumprod along an axis or flattened", "[eval]") {
  CHECK(ev("relax.cumsum", {C("int32", {4}, {1, 2, 3, 4})}).values == V{1, 3, 6, 10});
  auto rows = ev("relax.cumsum", {m23()}, {{"axis", I(1)}});
  CHECK(rows.shape == Dims{2, 3});
  CHECK(rows.values == V{1, 3, 6, 4, 9, 15});
  CHECK(ev("relax.cumsum", {m23()}, {{"axis", I(-2)}}).values == V{1, 2, 3, 5, 7, 9});
  auto flat = ev("relax.cumsum", {m23()});
  CHECK(flat.shape == Dims{6});
  CHECK(flat.values == V{1, 3, 6, 10, 15, 21});
  CHECK(ev("relax.cumprod", {C("float32", {3}, {1.5, 2, -1})}).values == V{1.5, 3, -3});
  CHECK(ev("relax.cumprod", {m23()}, {{"axis", I(0)}}).values == V{1, 2, 3, 4, 10, 18});
  auto empty = ev("relax.cumsum", {C("float32", {0}, {})});
  CHECK(empty.shape == Dims{0});
}

TEST_CASE("eval: cumsum/cumprod exclusive and dtype attrs", "[eval]") {
  CHECK(ev("relax.cumsum", {C("int32", {3}, {1, 2, 3})}, {{"exclusive", B(true)}}).values == V{0, 1, 3});
  CHECK(ev("relax.cumprod", {C("int32", {3}, {2, 3, 4})}, {{"exclusive", B(true)}}).values == V{1, 2, 6});
  CHECK(ev("relax.cumsum", {C("int32", {2, 2}, {1, 2, 3, 4})}, {{"axis", I(0)}, {"exclusive", B(true)}}).values == V{0, 0, 1, 2});
  CHECK(ev("relax.cumsum", {C("int8", {2}, {100, 100})}).values == V{100, -56});
  auto wide = ev("relax.cumsum", {C("int8", {2}, {100, 100})}, {{"dtype", S("int32")}});
  CHECK(wide.dtype == "int32");
  CHECK(wide.values == V{100, 200});
  // The input is cast to the result dtype first: 1.5 → 1, 2.7 → 2.
  CHECK(ev("relax.cumsum", {C("float32", {2}, {1.5, 2.7})}, {{"dtype", S("int32")}}).values == V{1, 3});
  CHECK(ev("relax.cumsum", {C("int32", {2}, {1, 2})}, {{"dtype", S("float64")}}).dtype == "float64");
}

TEST_CASE("eval: argmax/argmin pick the first of ties and the first NaN", "[eval]") {
  auto a = ev("relax.argmax", {C("float32", {4}, {1, 3, 3, 2})});
  CHECK(a.dtype == "int64");
  CHECK(a.shape == Dims{});
  CHECK(a.values == V{1});
  CHECK(ev("relax.argmin", {C("int32", {4}, {2, 1, 1, 5})}).values == V{1});
  auto m = [] { return C("int32", {2, 3}, {1, 5, 2, 7, 0, 7}); };
  CHECK(ev("relax.argmax", {m()}, {{"axis", I(1)}}).values == V{1, 0});
  CHECK(ev("relax.argmax", {m()}, {{"axis", I(0)}}).values == V{1, 0, 1});
  auto k = ev("relax.argmin", {m()}, {{"axis", I(-1)}, {"keepdims", B(true)}});
  CHECK(k.shape == Dims{2, 1});
  CHECK(k.values == V{0, 1});
  CHECK(ev("relax.argmax", {m()}).values == V{3});  // flat index of the first 7
  CHECK(ev("relax.argmax", {m()}, {{"keepdims", B(true)}}).shape == Dims{1, 1});
  CHECK(ev("relax.argmax", {C("float32", {4}, {1, NAN, 5, NAN})}).values == V{1});
  CHECK(ev("relax.argmin", {C("float32", {4}, {1, NAN, -5, NAN})}).values == V{1});
  CHECK(ev("relax.argmax", {C("float32", {2, 0}, {})}, {{"axis", I(1)}}).error == "error: R.argmax: cannot take the argmax of an empty axis (zero-size reduction)");
}

TEST_CASE("eval: sort and argsort are stable, NaN sorts as the largest", "[eval]") {
  CHECK(ev("relax.sort", {C("float32", {3}, {3, 1, 2})}).values == V{1, 2, 3});
  CHECK(ev("relax.sort", {C("int32", {3}, {3, -1, 2})}, {{"descending", B(true)}}).values == V{3, 2, -1});
  auto cols = ev("relax.sort", {C("int32", {2, 3}, {3, 1, 2, 0, 5, 4})}, {{"axis", I(0)}});
  CHECK(cols.shape == Dims{2, 3});
  CHECK(cols.values == V{0, 1, 2, 3, 5, 4});
  auto n = ev("relax.sort", {C("float32", {3}, {NAN, 1, 0})});
  CHECK((n.values[0] == 0 && n.values[1] == 1 && std::isnan(n.values[2])));
  auto d = ev("relax.sort", {C("float32", {3}, {0, NAN, 1})}, {{"descending", B(true)}});
  CHECK((std::isnan(d.values[0]) && d.values[1] == 1 && d.values[2] == 0));
  auto as = ev("relax.argsort", {C("float32", {4}, {2, 1, 2, 1})});
  CHECK(as.dtype == "int32");
  CHECK(as.values == V{1, 3, 0, 2});
  CHECK(ev("relax.argsort", {C("float32", {4}, {2, 1, 2, 1})}, {{"descending", B(true)}}).values == V{0, 2, 1, 3});
  auto a0 = ev("relax.argsort", {C("int32", {2, 2}, {4, 1, 3, 5})}, {{"axis", I(0)}, {"dtype", S("int64")}});
  CHECK(a0.dtype == "int64");
  CHECK(a0.values == V{1, 0, 0, 1});
  CHECK(ev("relax.sort", {C("float32", {2, 0}, {})}).shape == Dims{2, 0});
}

TEST_CASE("eval: topk values and indices, largest/smallest, ret_type, k < 1", "[eval]") {
  auto x = [] { return C("float32", {4}, {1, 3, 2, 3}); };
  auto v = field("relax.topk", {x()}, {{"k", I(2)}}, 0);
  CHECK(v.values == V{3, 3});
  auto i = field("relax.topk", {x()}, {{"k", I(2)}}, 1);
  CHECK(i.dtype == "int32");
  CHECK(i.values == V{1, 3});
  CHECK(field("relax.topk", {x()}, {{"k", I(2)}, {"largest", B(false)}}, 0).values == V{1, 2});
  CHECK(field("relax.topk", {x()}, {{"k", I(2)}, {"largest", B(false)}}, 1).values == V{0, 2});
  CHECK(ev("relax.topk", {x()}, {{"k", I(3)}, {"ret_type", S("values")}}).values == V{3, 3, 2});
  auto idx = ev("relax.topk", {x()}, {{"k", I(1)}, {"ret_type", S("indices")}, {"dtype", S("int64")}});
  CHECK(idx.dtype == "int64");
  CHECK(idx.values == V{1});
  CHECK(ev("relax.topk", {x()}, {{"k", I(0)}, {"ret_type", S("indices")}}).values == V{1, 3, 2, 0});
  auto m = [] { return C("int32", {2, 3}, {1, 5, 2, 7, 0, 7}); };
  auto c = field("relax.topk", {m()}, {{"k", I(1)}, {"axis", I(0)}}, 0);
  CHECK(c.shape == Dims{1, 3});
  CHECK(c.values == V{7, 5, 7});
  CHECK(field("relax.topk", {m()}, {{"k", I(1)}, {"axis", I(-2)}}, 1).values == V{1, 0, 1});
}

TEST_CASE("eval: bucketize follows torch.bucketize", "[eval]") {
  auto b = [] { return C("int32", {5}, {1, 3, 5, 7, 9}); };
  auto x = [] { return C("int32", {2, 3}, {3, 6, 9, 0, 1, 10}); };
  auto left = ev("relax.bucketize", {x(), b()});
  CHECK(left.dtype == "int64");
  CHECK(left.shape == Dims{2, 3});
  CHECK(left.values == V{1, 3, 4, 0, 0, 5});
  auto right = ev("relax.bucketize", {x(), b()}, {{"out_int32", B(true)}, {"right", B(true)}});
  CHECK(right.dtype == "int32");
  CHECK(right.values == V{2, 3, 5, 0, 1, 5});
  CHECK(ev("relax.bucketize", {C("float32", {2}, {2, NAN}), C("float32", {2}, {1.5, 2.5})}).values == V{1, 2});
  CHECK(ev("relax.bucketize", {C("int32", {1}, {2}), C("float32", {0}, {})}).values == V{0});
}

TEST_CASE("eval: unique sorted or in first-occurrence order, with index/inverse/counts", "[eval]") {
  auto x = [] { return C("int32", {5}, {3, 1, 3, 2, 1}); };
  auto u = ev("relax.unique", {x()});
  CHECK(u.shape == Dims{3});
  CHECK(u.values == V{1, 2, 3});
  KwArgs all = {{"return_index", B(true)}, {"return_inverse", B(true)}, {"return_counts", B(true)}};
  CHECK(field("relax.unique", {x()}, all, 1).values == V{1, 3, 0});
  CHECK(field("relax.unique", {x()}, all, 2).values == V{2, 0, 2, 1, 0});
  CHECK(field("relax.unique", {x()}, all, 3).values == V{2, 1, 2});
  KwArgs unsorted = all;
  unsorted.push_back({"sorted", B(false)});
  CHECK(field("relax.unique", {x()}, unsorted, 0).values == V{3, 1, 2});
  CHECK(field("relax.unique", {x()}, unsorted, 1).values == V{0, 1, 3});
  CHECK(field("relax.unique", {x()}, unsorted, 2).values == V{0, 1, 0, 2, 1});
  CHECK(field("relax.unique", {x()}, unsorted, 3).values == V{2, 2, 1});
  CHECK(field("relax.unique", {x()}, {{"return_counts", B(true)}}, 1).values == V{2, 1, 2});
  CHECK(ev("relax.unique", {C("float32", {2, 2}, {2, 2, 1, 1})}).values == V{1, 2});
  auto n = field("relax.unique", {C("float32", {3}, {NAN, 1, NAN})}, {{"return_counts", B(true)}}, 0);
  CHECK((n.values.size() == 2 && n.values[0] == 1 && std::isnan(n.values[1])));
  CHECK(field("relax.unique", {C("float32", {3}, {NAN, 1, NAN})}, {{"return_counts", B(true)}}, 1).values == V{1, 2});
}

TEST_CASE("eval: unique along an axis compares slices lexicographically", "[eval]") {
  auto rows = [] { return C("int32", {3, 2}, {1, 2, 0, 5, 1, 2}); };
  KwArgs all = {{"return_index", B(true)}, {"return_inverse", B(true)}, {"return_counts", B(true)}, {"axis", I(0)}};
  auto v = field("relax.unique", {rows()}, all, 0);
  CHECK(v.shape == Dims{2, 2});
  CHECK(v.values == V{0, 5, 1, 2});
  CHECK(field("relax.unique", {rows()}, all, 1).values == V{1, 0});
  CHECK(field("relax.unique", {rows()}, all, 2).values == V{1, 0, 1});
  CHECK(field("relax.unique", {rows()}, all, 3).values == V{1, 2});
  auto cols = ev("relax.unique", {C("int32", {2, 3}, {1, 0, 1, 2, 3, 2})}, {{"axis", I(-1)}});
  CHECK(cols.shape == Dims{2, 2});
  CHECK(cols.values == V{0, 1, 3, 2});
}

TEST_CASE("eval: nonzero gives (ndim, count) indices; 0-d counts as 1-D", "[eval]") {
  auto m = ev("relax.nonzero", {C("int32", {2, 2}, {0, 1, 2, 0})});
  CHECK(m.dtype == "int64");
  CHECK(m.shape == Dims{2, 2});
  CHECK(m.values == V{0, 1, 1, 0});
  auto v = ev("relax.nonzero", {C("float32", {4}, {0, 3, 0, NAN})});
  CHECK(v.shape == Dims{1, 2});
  CHECK(v.values == V{1, 3});
  auto s = ev("relax.nonzero", {C("bool", {}, {1})});
  CHECK(s.shape == Dims{1, 1});
  CHECK(s.values == V{0});
  CHECK(ev("relax.nonzero", {C("int32", {}, {0})}).shape == Dims{1, 0});
  CHECK(ev("relax.nonzero", {C("int32", {3, 0}, {})}).shape == Dims{2, 0});
}

TEST_CASE("eval: multinomial_from_uniform picks the first cumulative probability above u", "[eval]") {
  auto prob = [] { return C("float32", {2, 3}, {0.2, 0.3, 0.5, 1, 0, 0}); };
  auto r = ev("relax.multinomial_from_uniform", {prob(), C("float32", {4, 1}, {0.1, 0.3, 0.99, 1}), C("int64", {4, 1}, {0, 0, 1, 0})});
  CHECK(r.dtype == "int64");
  CHECK(r.shape == Dims{4, 1});
  CHECK(r.values == V{0, 1, 0, 2});  // u = 1 is past every cumulative sum: the last index
  auto i32 = ev("relax.multinomial_from_uniform", {prob(), C("float32", {1, 1}, {0.7}), C("int32", {1, 1}, {0})}, {{"dtype", S("int32")}});
  CHECK(i32.dtype == "int32");
  CHECK(i32.values == V{2});
  auto bad = ev("relax.multinomial_from_uniform", {prob(), C("float32", {1, 1}, {0.5}), C("int64", {1, 1}, {2})});
  CHECK(bad.error == "error: R.multinomial_from_uniform: sample index 2 is out of range for 2 rows of prob");
}

TEST_CASE("eval: sort-like and set ops on size-1 and zero-size dims, narrow floats", "[eval]") {
  auto one = [] { return C("float32", {3, 1}, {4, -1, 2}); };
  auto tv = field("relax.topk", {one()}, {{"k", I(1)}}, 0);
  CHECK(tv.shape == Dims{3, 1});
  CHECK(tv.values == V{4, -1, 2});
  CHECK(field("relax.topk", {one()}, {{"k", I(1)}}, 1).values == V{0, 0, 0});
  CHECK(ev("relax.argsort", {one()}).values == V{0, 0, 0});
  CHECK(ev("relax.argsort", {one()}, {{"axis", I(0)}}).values == V{1, 2, 0});
  auto u = ev("relax.unique", {C("int32", {0}, {})});
  CHECK(u.shape == Dims{0});
  CHECK(ev("relax.cumprod", {C("float32", {2, 0}, {})}, {{"axis", I(1)}}).shape == Dims{2, 0});
  auto h = ev("relax.sum", {C("float16", {2}, {0.5, 0.25})});
  CHECK(h.dtype == "float16");
  CHECK(h.values == V{0.75});
  CHECK(ev("relax.mean", {C("bfloat16", {2}, {1, 2})}).values == V{1.5});
}
