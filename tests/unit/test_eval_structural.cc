// Reference evaluator: structural ops with value-level meaning (shape_of, size, shape <-> tensor,
// device hints, inspect.*) and the structural ops that deliberately have no evaluator.
#include <catch2/catch.hpp>

#include "tests/unit/eval_tuple_util.h"

using namespace rlx;
using namespace rlx::test;
using V = std::vector<double>;
using Dims = std::vector<int64_t>;

namespace {
PyValue shapeArg(std::vector<int64_t> dims) { return E(valueToExpr(Value::ofShape(std::move(dims)))); }
}  // namespace

TEST_CASE("eval: shape_of, size and shape <-> tensor", "[eval]") {
  auto s = evalCall("relax.shape_of", {C("float32", {2, 0, 3}, {})});
  REQUIRE(s.ok());
  CHECK(s->kind == Value::Shape);
  CHECK(s->shape == Dims{2, 0, 3});
  auto n = ev("relax.size", {C("int8", {2, 3}, {})});
  CHECK(n.dtype == "int64");
  CHECK(n.shape == Dims{});
  CHECK(n.values == V{6});
  auto t = ev("relax.shape_to_tensor", {shapeArg({4, 5})});
  CHECK(t.dtype == "int64");
  CHECK(t.shape == Dims{2});
  CHECK(t.values == V{4, 5});
  CHECK(ev("relax.shape_to_tensor", {shapeArg({})}).shape == Dims{0});
  auto back = evalCall("relax.tensor_to_shape", {C("int32", {2}, {7, 1})});
  REQUIRE(back.ok());
  CHECK(back->kind == Value::Shape);
  CHECK(back->shape == Dims{7, 1});
  auto neg = evalCall("relax.tensor_to_shape", {C("int64", {1}, {-2})});
  REQUIRE_FALSE(neg.ok());
  CHECK(neg.error().message == "R.tensor_to_shape: a shape cannot have the negative extent -2 (element 0)");
}

TEST_CASE("eval: device hints are the identity on the host", "[eval]") {
  auto h = ev("relax.hint_on_device", {C("float32", {2}, {1, 2}), S("cpu")});
  CHECK(h.values == V{1, 2});
  auto v = ev("relax.to_vdevice", {C("int32", {1}, {3})}, {{"dst_vdevice", S("llvm:0:global")}});
  CHECK(v.dtype == "int32");
  CHECK(v.values == V{3});
}

TEST_CASE("eval: inspect.* read the tensor's DLTensor fields", "[eval]") {
  auto prim = [](const std::string& op, std::vector<PyValue> args) -> std::pair<int64_t, std::string> {
    auto r = evalCall(op, std::move(args));
    if (!r.ok()) return {-1, "error: " + r.error().message};
    return {r->i, r->dtype.str()};
  };
  auto x = [] { return C("float16", {2, 3, 4}, {}); };
  CHECK(prim("relax.inspect.tensor_dtype_code", {x()}) == std::make_pair(int64_t(2), std::string("uint8")));
  CHECK(prim("relax.inspect.tensor_dtype_bits", {x()}).first == 16);
  CHECK(prim("relax.inspect.tensor_dtype_lanes", {x()}) == std::make_pair(int64_t(1), std::string("uint16")));
  CHECK(prim("relax.inspect.tensor_ndim", {x()}) == std::make_pair(int64_t(3), std::string("int32")));
  CHECK(prim("relax.inspect.tensor_byte_offset", {x()}).first == 0);
  CHECK(prim("relax.inspect.tensor_elem_offset", {x()}).first == 0);
  CHECK(prim("relax.inspect.tensor_shape_i", {x(), I(1)}) == std::make_pair(int64_t(3), std::string("int64")));
  CHECK(prim("relax.inspect.tensor_stride_i", {x(), I(0)}).first == 12);
  CHECK(prim("relax.inspect.tensor_stride_i", {x(), I(2)}).first == 1);
}

TEST_CASE("eval: impure and external structural ops have no evaluator", "[eval]") {
  for (const char* op : {"relax.call_tir", "relax.call_dps_packed", "relax.call_pure_packed", "relax.call_builtin_with_ctx", "relax.make_closure",
                         "relax.invoke_closure", "relax.null_value", "relax.print", "relax.assert_op"})
    CHECK(findEval(op) == nullptr);
  for (const char* op : {"relax.shape_of", "relax.size", "relax.shape_to_tensor", "relax.tensor_to_shape", "relax.hint_on_device", "relax.to_vdevice",
                         "relax.inspect.tensor_shape_i"})
    CHECK(findEval(op) != nullptr);
}

TEST_CASE("eval: every creation, manipulation and indexing op has an evaluator", "[eval]") {
  for (const char* op : {"full", "full_like", "zeros", "zeros_like", "ones", "ones_like", "arange", "eye", "eye_like", "hamming_window", "tril", "triu",
                         "reshape", "permute_dims", "expand_dims", "squeeze", "flatten", "concat", "split", "broadcast_to", "stack", "tile", "repeat",
                         "flip", "layout_transform", "collapse_sum_like", "collapse_sum_to", "take", "strided_slice", "dynamic_strided_slice",
                         "meshgrid", "gather_elements", "gather_nd", "scatter_elements", "scatter_nd", "index_put", "index_tensor", "slice_scatter",
                         "one_hot"}) {
    INFO(op);
    CHECK(findEval(std::string("relax.") + op) != nullptr);
  }
}
