// Unit tests of the op registry and the schema-driven builder, and struct-info inference of the
// elementwise, creation, manipulation, indexing, linalg and reduction ops (hand-checked values).
#include <catch2/catch.hpp>

#include "ir/arith.h"
#include "ir/tir.h"
#include "tests/unit/op_test_util.h"

using namespace rlx;
using namespace rlx::test;

TEST_CASE("registry holds all 219 TVM v0.23 ops, sorted", "[ops]") {
  auto& ops = allOps();
  CHECK(ops.size() == 219);
  for (size_t i = 1; i < ops.size(); ++i) CHECK(ops[i - 1]->name < ops[i]->name);
  for (const char* n : {"relax.call_tir", "relax.add", "relax.nn.conv2d", "relax.memory.alloc_storage", "relax.vm.call_tir_dyn", "relax.inspect.tensor_shape_i",
                        "relax.ccl.allreduce", "relax.grad.take_backward", "relax.image.resize2d", "relax.vision.all_class_non_max_suppression", "relax.size"})
    CHECK(findOp(n) != nullptr);
  CHECK(findOp("relax.nope") == nullptr);
  CHECK(opRef("relax.add").get() == opRef("relax.add").get());
  CHECK(opRef("relax.add")->name() == "relax.add");
  CHECK(findOp("relax.nn.conv2d")->scriptName() == "R.nn.conv2d");
  CHECK(suggestOp("relax.ad") == "relax.add");
  CHECK(suggestOp("R.nn.rellu") == "relax.nn.relu");
  CHECK(findOp("relax.print")->pure == false);
  CHECK(findOp("relax.memory.kill_tensor")->pure == false);
  CHECK(findOp("relax.call_tir")->pure == true);
  CHECK(findOp("relax.nn.conv2d")->attrsType == "relax.attrs.Conv2DAttrs");
}

TEST_CASE("PyValue::describe names the kind", "[ops]") {
  CHECK(I(1).describe() == "an int");
  CHECK(S("a").describe() == "a string");
  CHECK(L({}).describe() == "a list");
  CHECK(None().describe() == "None");
}

TEST_CASE("builder fills every attr default in declaration order", "[ops][build]") {
  auto x = tvar("x", {c64(1), c64(3), c64(8), c64(8)}), w = tvar("w", {c64(4), c64(3), c64(3), c64(3)});
  CHECK(built("relax.nn.conv2d", {E(x), E(w)}) ==
        "R.nn.conv2d(x, w, strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, data_layout=\"NCHW\", kernel_layout=\"OIHW\", out_layout=\"NCHW\", out_dtype=\"void\")");
  // padding: 1 int → 4, 2 ints → (top, left, top, left); strides int → pair; out_layout follows data_layout
  CHECK(built("relax.nn.conv2d", {E(x), E(w)}, {{"padding", I(1)}, {"strides", I(2)}, {"data_layout", S("NHWC")}}) ==
        "R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout=\"NHWC\", kernel_layout=\"OIHW\", out_layout=\"NHWC\", out_dtype=\"void\")");
  CHECK(built("relax.nn.conv2d", {E(x), E(w)}, {{"padding", Ints({1, 2})}}).find("padding=[1, 2, 1, 2]") != std::string::npos);
  // pooling: Python order (pool_size, strides, padding, dilation) but attrs print dilation before padding
  CHECK(built("relax.nn.max_pool2d", {E(x), Ints({3, 3}), Ints({2, 2}), I(1)}) ==
        "R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], dilation=[1, 1], padding=[1, 1, 1, 1], ceil_mode=False, count_include_pad=False, layout=\"NCHW\", out_layout=\"NCHW\")");
  CHECK(built("relax.sum", {E(x)}, {{"axis", I(1)}}) == "R.sum(x, axis=[1], keepdims=False)");
  CHECK(built("relax.sum", {E(x)}) == "R.sum(x, axis=None, keepdims=False)");
  CHECK(built("relax.matmul", {E(x), E(w)}) == "R.matmul(x, w, out_dtype=\"void\")");
  CHECK(built("relax.permute_dims", {E(x)}) == "R.permute_dims(x, axes=None)");
  CHECK(built("relax.take", {E(x), E(w)}) == "R.take(x, w, axis=None, mode=\"fast\")");
  CHECK(built("relax.split", {E(x), I(2)}) == "R.split(x, indices_or_sections=2, axis=0)");
  CHECK(built("relax.split", {E(x), Ints({1, 3})}, {{"axis", I(1)}}) == "R.split(x, indices_or_sections=[1, 3], axis=1)");
  CHECK(built("relax.nn.softmax", {E(x)}) == "R.nn.softmax(x, axis=-1)");
  CHECK(built("relax.nn.layer_norm", {E(x), E(w), E(w)}, {{"axes", I(-1)}}) == "R.nn.layer_norm(x, w, w, axes=[-1], epsilon=1.0000000000000001e-05, center=True, scale=True)");
  CHECK(built("relax.cumsum", {E(x)}, {{"axis", I(1)}}) == "R.cumsum(x, axis=1, dtype=\"void\", exclusive=False)");
  CHECK(built("relax.quantize", {E(x), E(w), E(w)}) == "R.quantize(x, w, w, out_dtype=\"int8\", axis=-1)");
  CHECK(built("relax.nn.adaptive_avg_pool2d", {E(x)}, {{"output_size", I(1)}}) == "R.nn.adaptive_avg_pool2d(x, output_size=[1, 1], layout=\"NCHW\", out_layout=\"NCHW\")");
}

TEST_CASE("builder converts Python values to Relax args", "[ops][build]") {
  auto x = tvar("x", {c64(2), c64(3)});
  CHECK(built("relax.reshape", {E(x), Ints({3, 2})}) == "R.reshape(x, R.shape([3, 2]))");
  CHECK(built("relax.reshape", {E(x), Ints({-1})}) == "R.reshape(x, R.shape([6]))");
  CHECK(built("relax.reshape", {E(x), Ints({3, -1})}) == "R.reshape(x, R.shape([3, 2]))");
  CHECK(built("relax.triu", {E(x), I(1)}) == "R.triu(x, R.prim_value(1))");
  CHECK(built("relax.tril", {E(x)}) == "R.tril(x, R.prim_value(0))");
  CHECK(built("relax.clip", {E(x), I(0), I(6)}) == "R.clip(x, R.prim_value(0), R.prim_value(6))");
  CHECK(built("relax.arange", {I(8)}) == "R.arange(R.prim_value(0), R.prim_value(8), R.prim_value(1), dtype=\"int64\")");
  CHECK(built("relax.arange", {I(0), F(2.0), F(0.5)}) == "R.arange(R.prim_value(0), R.prim_value(T.float32(2.0)), R.prim_value(T.float32(0.5)), dtype=\"float32\")");
  CHECK(built("relax.strided_slice", {E(x), Ints({1}), Ints({0}), Ints({2})}) == "R.strided_slice(x, (R.prim_value(1),), (R.prim_value(0),), (R.prim_value(2),), assume_inbound=False)");
  CHECK(built("relax.add", {E(x), F(1.0)}) == "R.add(x, R.const(1.0, \"float32\"))");
  CHECK(built("relax.full", {Ints({2, 2}), F(0.5)}, {{"dtype", S("float16")}}) == "R.full(R.shape([2, 2]), R.const(0.5, \"float16\"), dtype=\"float16\")");
  CHECK(built("relax.zeros", {Ints({2})}, {{"dtype", S("int32")}}) == "R.zeros(R.shape([2]), dtype=\"int32\")");
  CHECK(built("relax.concat", {Tup({E(x), E(x)})}, {{"axis", I(1)}}) == "R.concat((x, x), axis=1)");
  CHECK(built("relax.astype", {E(x), S("float16")}) == "R.astype(x, dtype=\"float16\")");
}

TEST_CASE("builder reports bad calls clearly", "[ops][build]") {
  auto x = tvar("x", {c64(2), c64(3)});
  auto r = build("relax.sum", {E(x)}, {{"axes", I(1)}});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "R.sum got an unexpected keyword argument 'axes'");
  CHECK(r.error().hint == "did you mean 'axis'?");
  CHECK(built("relax.add", {E(x)}) == "error: R.add missing required argument 'x2'");
  CHECK(built("relax.add", {E(x), E(x), E(x)}) == "error: R.add takes at most 2 positional arguments, but 3 were given");
  CHECK(built("relax.sum", {E(x), I(1)}, {{"axis", I(1)}}) == "error: R.sum got multiple values for argument 'axis'");
  CHECK(built("relax.sum", {E(x)}, {{"axis", S("a")}}) == "error: R.sum argument 'axis' expects an int or a list of ints, but got a string");
  CHECK(built("relax.astype", {E(x)}, {{"dtype", S("floot32")}}) == "error: R.astype argument 'dtype': unknown dtype \"floot32\"");
  CHECK(built("relax.reshape", {E(x), Ints({-1, -1})}) == "error: R.reshape: at most one -1 is allowed in the new shape (-1, -1)");
  CHECK(built("relax.nn.conv2d", {E(x), E(x)}, {{"padding", Ints({1, 2, 3})}}) == "error: R.nn.conv2d: padding must have 1, 2 or 4 values, but got 3");
}

TEST_CASE("unary ops keep shape; float-only ops reject ints", "[ops][unary]") {
  auto n = sym("n");
  auto x = tvar("x", {n, c64(4)});
  for (const char* op : {"relax.exp", "relax.log", "relax.sqrt", "relax.rsqrt", "relax.tanh", "relax.sigmoid", "relax.negative", "relax.erf", "relax.abs", "relax.sin", "relax.cos", "relax.square"})
    CHECK(infer(op, {E(x)}) == T("(n, 4)"));
  auto xi = tvar("xi", {c64(3)}, "int32");
  CHECK(infer("relax.exp", {E(xi)}) == "error: R.exp: requires a float tensor, but the input dtype is int32");
  CHECK(infer("relax.abs", {E(xi)}) == T("(3,)", "int32"));
  CHECK(infer("relax.isnan", {E(x)}) == T("(n, 4)", "bool"));
  CHECK(infer("relax.clip", {E(x), I(0), I(6)}) == T("(n, 4)"));
  CHECK(infer("relax.exp", {E(tvarNdim("u", 3))}) == "R.Tensor(dtype=\"float32\", ndim=3)");
  CHECK(infer("relax.exp", {E(var("o", objectSInfo()))}) == "error: R.exp: expected x to be a tensor, but it is R.Object");
  CHECK(infer("relax.astype", {E(x), S("float16")}) == T("(n, 4)", "float16"));
}

TEST_CASE("binary ops broadcast with symbolic dims", "[ops][binary]") {
  auto n = sym("n"), m = sym("m");
  auto a = tvar("a", {c64(2), c64(3)}), b = tvar("b", {c64(3)}), c = tvar("c", {c64(2), c64(4)});
  for (const char* op : {"relax.add", "relax.subtract", "relax.multiply", "relax.divide", "relax.power", "relax.maximum", "relax.minimum"}) CHECK(infer(op, {E(a), E(b)}) == T("(2, 3)"));
  CHECK(infer("relax.add", {E(a), E(c)}) == "error: R.add: broadcasting mismatch: dim 1 is 3 in x1 and 4 in x2");
  for (const char* op : {"relax.equal", "relax.less", "relax.greater"}) CHECK(infer(op, {E(a), E(b)}) == T("(2, 3)", "bool"));
  auto s1 = tvar("s1", {n, c64(1), c64(4)}), s2 = tvar("s2", {c64(5), c64(4)});
  CHECK(infer("relax.add", {E(s1), E(s2)}) == T("(n, 5, 4)"));
  auto s3 = tvar("s3", {n}), s4 = tvar("s4", {m});
  CHECK(infer("relax.add", {E(s3), E(s4)}) == "R.Tensor(dtype=\"float32\", ndim=1)");  // undecidable n vs m
  CHECK(infer("relax.add", {E(s3), E(s3)}) == T("(n,)"));
  auto ai = tvar("ai", {c64(3)}, "int32");
  CHECK(infer("relax.add", {E(b), E(ai)}) == "error: R.add: dtype mismatch: x1 is float32 but x2 is int32 (binary operators need equal dtypes)");
  CHECK(infer("relax.add", {E(tvarNdim("u", 2, "")), E(a)}) == "R.Tensor(ndim=2)");
  CHECK(infer("relax.add", {E(a), F(2.0)}) == T("(2, 3)"));
  auto cond = tvar("cond", {n, n}, "bool"), sc = tvar("sc", {c64(1), c64(12), n, n});
  CHECK(infer("relax.where", {E(cond), F(-1e9), E(sc)}) == T("(1, 12, n, n)"));
  CHECK(infer("relax.where", {E(a), E(a), E(a)}) == "error: R.where: expects a bool condition, but its dtype is float32");
}

TEST_CASE("creation ops", "[ops][create]") {
  auto n = sym("n");
  CHECK(infer("relax.full", {Ints({16, 16}), F(-1e9)}, {{"dtype", S("float32")}}) == T("(16, 16)"));
  CHECK(infer("relax.zeros", {L({P(n), I(4)})}, {{"dtype", S("float32")}}) == T("(n, 4)"));
  CHECK(infer("relax.ones", {Ints({2})}, {{"dtype", S("int8")}}) == T("(2,)", "int8"));
  auto x = tvar("x", {n, c64(4)});
  CHECK(infer("relax.zeros_like", {E(x)}) == T("(n, 4)"));
  CHECK(infer("relax.ones_like", {E(x)}, {{"dtype", S("int32")}}) == T("(n, 4)", "int32"));
  CHECK(infer("relax.full_like", {E(x), F(1.0)}) == T("(n, 4)"));
  CHECK(infer("relax.arange", {I(8)}) == T("(8,)", "int64"));
  CHECK(infer("relax.arange", {I(1), I(10), I(3)}) == T("(3,)", "int64"));
  CHECK(infer("relax.arange", {F(0.0), F(1.0), F(0.25)}) == T("(4,)"));
  CHECK(infer("relax.arange", {P(n)}) == T("(n,)", "int64"));
  CHECK(infer("relax.tril", {E(x)}) == T("(n, 4)"));
  CHECK(infer("relax.triu", {E(tvar("v", {c64(3)}))}) == "error: R.triu: expects a tensor of at least 2 dimensions, but it has 1");
  CHECK(infer("relax.eye", {I(3)}) == T("(3, 3)"));
  CHECK(infer("relax.full", {Ints({2}), E(x)}) == "error: R.full: expects fill_value to be a 0-d tensor, but it is R.Tensor((n, 4), dtype=\"float32\")");
}

TEST_CASE("reshape, flatten and friends", "[ops][manipulate]") {
  auto n = sym("n"), m = sym("m");
  auto x = tvar("x", {n, m});
  CHECK(infer("relax.flatten", {E(x)}) == T("(n * m,)"));
  CHECK(infer("relax.reshape", {E(x), L({P(mul(n, m))})}) == T("(n * m,)"));
  CHECK(infer("relax.reshape", {E(x), L({P(m), I(-1)})}) == T("(m, n)"));
  auto y = tvar("y", {c64(2), c64(3)});
  CHECK(infer("relax.reshape", {E(y), Ints({2, -1})}) == T("(2, 3)"));
  CHECK(infer("relax.reshape", {E(y), Ints({4, 2})}) == "error: R.reshape: cannot reshape (2, 3) (6 elements) to (4, 2) (8 elements)");
  auto s = var("s", make<ShapeSInfo>(std::nullopt, 2));
  CHECK(infer("relax.reshape", {E(tvarNdim("u", 2)), E(s)}) == "R.Tensor(s, dtype=\"float32\")");
  auto target = var("target", make<ShapeSInfo>(std::vector<PrimExpr>{m, n}, 2));
  CHECK(infer("relax.reshape", {E(x), E(target)}) == T("(m, n)"));
  CHECK(infer("relax.flatten", {E(tvar("z", {}))}) == T("(1,)"));
  CHECK(infer("relax.permute_dims", {E(tvar("q", {c64(1), c64(16), c64(12), c64(64)}))}, {{"axes", Ints({0, 2, 1, 3})}}) == T("(1, 12, 16, 64)"));
  CHECK(infer("relax.permute_dims", {E(y)}) == T("(3, 2)"));
  CHECK(infer("relax.permute_dims", {E(y)}, {{"axes", Ints({0, 0})}}) == "error: R.permute_dims: axes must not repeat, but axis 0 appears more than once");
  CHECK(infer("relax.permute_dims", {E(y)}, {{"axes", Ints({1})}}) == "error: R.permute_dims: expects 2 axes (one per dimension of the input), but got 1");
  CHECK(infer("relax.expand_dims", {E(y)}, {{"axis", Ints({0, -1})}}) == T("(1, 2, 3, 1)"));
  CHECK(infer("relax.expand_dims", {E(y)}, {{"axis", I(3)}}) == "error: R.expand_dims: axis 3 is out of range for a tensor of 3 dimensions (expected -3 <= axis < 3)");
  auto sq = tvar("sq", {c64(2), c64(1), c64(3), c64(1)});
  CHECK(infer("relax.squeeze", {E(sq)}) == T("(2, 3)"));
  CHECK(infer("relax.squeeze", {E(sq)}, {{"axis", Ints({1})}}) == T("(2, 3, 1)"));
  // A listed axis whose extent is not 1 stays, as TVM v0.23 (and torch.squeeze) keep it.
  CHECK(infer("relax.squeeze", {E(sq)}, {{"axis", Ints({0})}}) == T("(2, 1, 3, 1)"));
  CHECK(infer("relax.squeeze", {E(sq)}, {{"axis", Ints({0, 1, 2, 3})}}) == T("(2, 3)"));
  CHECK(infer("relax.broadcast_to", {E(tvar("b", {c64(1), c64(3)})), Ints({4, 2, 3})}) == T("(4, 2, 3)"));
  CHECK(infer("relax.broadcast_to", {E(y), Ints({4, 3})}) ==
        "error: R.broadcast_to: cannot broadcast (2, 3) to (4, 3): dim 0 of the input is 2 but the target has 4");
}

TEST_CASE("concat and split", "[ops][manipulate]") {
  auto n = sym("n");
  auto a = tvar("a", {c64(4), c64(4)}), b = tvar("b", {c64(4), c64(3)}), c = tvar("c", {c64(4), c64(1)});
  CHECK(infer("relax.concat", {Tup({E(a), E(b), E(c)})}, {{"axis", I(1)}}) == T("(4, 8)"));
  CHECK(infer("relax.concat", {Tup({E(a), E(b)})}) == "error: R.concat: tensors must agree on every dimension but the concatenation axis 0, but dim 1 is 4 and 3");
  auto s = tvar("s", {n, c64(2)});
  CHECK(infer("relax.concat", {Tup({E(s), E(s)})}) == T("(n * 2, 2)"));
  CHECK(infer("relax.concat", {Tup({E(a), E(tvar("i", {c64(4), c64(4)}, "int32"))})}) == "error: R.concat: all tensors must have the same dtype, but got float32 and int32");
  auto x = tvar("x", {c64(4), c64(12)});
  CHECK(infer("relax.split", {E(x), I(3)}, {{"axis", I(1)}}) ==
        "R.Tuple(R.Tensor((4, 4), dtype=\"float32\"), R.Tensor((4, 4), dtype=\"float32\"), R.Tensor((4, 4), dtype=\"float32\"))");
  CHECK(infer("relax.split", {E(tvar("y", {c64(4), c64(6)})), Ints({2, 5})}, {{"axis", I(1)}}) ==
        "R.Tuple(R.Tensor((4, 2), dtype=\"float32\"), R.Tensor((4, 3), dtype=\"float32\"), R.Tensor((4, 1), dtype=\"float32\"))");
  CHECK(infer("relax.split", {E(x), I(5)}, {{"axis", I(1)}}) == "error: R.split: cannot split axis 1 of extent 12 into 5 equal sections");
  CHECK(infer("relax.split", {E(tvar("q", {c64(1), n, c64(2304)})), I(3)}, {{"axis", I(2)}}) ==
        "R.Tuple(R.Tensor((1, n, 768), dtype=\"float32\"), R.Tensor((1, n, 768), dtype=\"float32\"), R.Tensor((1, n, 768), dtype=\"float32\"))");
}

TEST_CASE("take and strided_slice", "[ops][index]") {
  auto table = tvar("table", {c64(10), c64(4)}), idx = tvar("idx", {c64(5)}, "int64");
  CHECK(infer("relax.take", {E(table), E(idx)}, {{"axis", I(0)}}) == T("(5, 4)"));
  auto n = sym("n");
  CHECK(infer("relax.take", {E(table), E(tvar("ids", {c64(1), n}, "int32"))}, {{"axis", I(0)}}) == T("(1, n, 4)"));
  CHECK(infer("relax.take", {E(table), E(idx)}) == "error: R.take: without an axis the data must be 1-D, but it has 2 dimensions");
  CHECK(infer("relax.take", {E(table), E(table)}, {{"axis", I(0)}}) == "error: R.take: expects integer indices, but their dtype is float32");
  CHECK(infer("relax.take", {E(tvar("v", {c64(7)})), E(idx)}) == T("(5,)"));
  auto x = tvar("x", {c64(2), c64(3), c64(4)});
  CHECK(infer("relax.strided_slice", {E(x), Ints({2}), Ints({1}), Ints({3})}) == T("(2, 3, 2)"));
  auto fl = tvar("fl", {c64(24)});
  CHECK(infer("relax.strided_slice", {E(fl), Ints({0}), Ints({0}), Ints({24}), Ints({4})}) == T("(6,)"));
  CHECK(infer("relax.strided_slice", {E(fl), Ints({0}), Ints({-5}), Ints({100})}) == T("(5,)"));
  CHECK(infer("relax.strided_slice", {E(fl), Ints({0}), Ints({20}), Ints({2}), Ints({-3})}) == T("(6,)"));
  CHECK(infer("relax.strided_slice", {E(tvar("s", {n, c64(8)})), Ints({0, 1}), Ints({0, 2}), L({P(n), I(6)})}) == T("(n, 4)"));
  CHECK(infer("relax.strided_slice", {E(x), Ints({3}), Ints({0}), Ints({1})}) == "error: R.strided_slice: axis 3 is out of range for a tensor of 3 dimensions (expected -3 <= axis < 3)");
  CHECK(built("relax.strided_slice", {E(x), Ints({0, 1}), Ints({0}), Ints({1})}) == "error: R.strided_slice: axes, begin, end and strides must have the same length, but got 2 and 1");
}

TEST_CASE("matmul follows numpy semantics", "[ops][linalg]") {
  auto n = sym("n");
  auto a = tvar("a", {c64(1), n, c64(768)}), w = tvar("w", {c64(768), c64(2304)});
  CHECK(infer("relax.matmul", {E(a), E(w)}) == T("(1, n, 2304)"));
  CHECK(infer("relax.matmul", {E(tvar("q", {c64(1), c64(12), n, c64(64)})), E(tvar("k", {c64(1), c64(12), c64(64), n}))}) == T("(1, 12, n, n)"));
  auto v = tvar("v", {c64(3)}), m = tvar("m", {c64(3), c64(4)}), bm = tvar("bm", {c64(5), c64(4), c64(3)});
  CHECK(infer("relax.matmul", {E(v), E(m)}) == T("(4,)"));
  CHECK(infer("relax.matmul", {E(bm), E(v)}) == T("(5, 4)"));
  CHECK(infer("relax.matmul", {E(v), E(v)}) == T("()"));
  CHECK(infer("relax.matmul", {E(tvar("b1", {c64(2), c64(1), c64(4), c64(3)})), E(tvar("b2", {c64(7), c64(3), c64(5)}))}) == T("(2, 7, 4, 5)"));
  CHECK(infer("relax.matmul", {E(m), E(m)}) == "error: R.matmul: reduction dims differ: 4 vs 3");
  CHECK(infer("relax.matmul", {E(m), E(tvar("h", {c64(4), c64(2)}, "float16"))}, {{"out_dtype", S("float32")}}) == T("(3, 2)"));
  CHECK(infer("relax.matmul", {E(tvar("z", {})), E(m)}) == "error: R.matmul: both inputs need at least 1 dimension, but x1 is 0-d");
  CHECK(infer("relax.matmul", {E(tvarNdim("u", 3)), E(m)}) == "R.Tensor(dtype=\"float32\", ndim=3)");
  CHECK(infer("relax.einsum", {Tup({E(m), E(tvar("p", {c64(4), c64(6)}))})}, {{"subscripts", S("ij,jk->ik")}}) == T("(3, 6)"));
  CHECK(infer("relax.outer", {E(v), E(tvar("o", {c64(2)}))}) == T("(3, 2)"));
}

TEST_CASE("reductions and scans", "[ops][statistical]") {
  auto x = tvar("x", {c64(2), c64(3), c64(4)});
  CHECK(infer("relax.sum", {E(x)}, {{"axis", Ints({1})}}) == T("(2, 4)"));
  CHECK(infer("relax.mean", {E(x)}, {{"axis", Ints({2})}, {"keepdims", B(true)}}) == T("(2, 3, 1)"));
  CHECK(infer("relax.max", {E(x)}, {{"axis", Ints({0, 2})}}) == T("(3,)"));
  CHECK(infer("relax.sum", {E(x)}) == T("()"));
  CHECK(infer("relax.min", {E(x)}, {{"keepdims", B(true)}}) == T("(1, 1, 1)"));
  CHECK(infer("relax.variance", {E(x)}, {{"axis", Ints({-1, -2})}}) == T("(2,)"));
  CHECK(infer("relax.sum", {E(x)}, {{"axis", Ints({3})}}) == "error: R.sum: axis 3 is out of range for a tensor of 3 dimensions (expected -3 <= axis < 3)");
  CHECK(infer("relax.sum", {E(tvarNdim("u", 3))}, {{"axis", I(0)}}) == "R.Tensor(dtype=\"float32\", ndim=2)");
  CHECK(infer("relax.sum", {E(tvarNdim("u", 3))}) == T("()"));
  CHECK(infer("relax.cumsum", {E(x)}, {{"axis", I(1)}}) == T("(2, 3, 4)"));
  CHECK(infer("relax.cumsum", {E(x)}) == T("(24,)"));
  CHECK(infer("relax.cumsum", {E(x)}, {{"axis", I(1)}, {"dtype", S("float64")}}) == T("(2, 3, 4)", "float64"));
  CHECK(infer("relax.argmax", {E(x)}, {{"axis", I(-1)}}) == T("(2, 3)", "int64"));
  CHECK(infer("relax.argmax", {E(x)}) == T("()", "int64"));
  CHECK(infer("relax.median", {E(x)}, {{"axis", I(1)}}) == "R.Tuple(R.Tensor((2, 4), dtype=\"float32\"), R.Tensor((2, 4), dtype=\"int64\"))");
}

TEST_CASE("builder sees through nested un-normalized calls", "[ops][build]") {
  auto x = tvar("x", {c64(2), c64(3)}, "float16");
  auto inner = build("relax.multiply", {E(x), E(x)});
  REQUIRE(inner.ok());
  CHECK(built("relax.add", {E(inner.value()), F(1.0)}) == "R.add(R.multiply(x, x), R.const(1.0, \"float16\"))");
  CHECK(built("relax.reshape", {E(inner.value()), Ints({-1})}) == "R.reshape(R.multiply(x, x), R.shape([6]))");
  auto cat = build("relax.concat", {Tup({E(x), E(inner.value())})}, {{"axis", I(1)}});
  REQUIRE(cat.ok());
  CHECK(built("relax.reshape", {E(cat.value()), Ints({3, -1})}) == "R.reshape(R.concat((x, R.multiply(x, x)), axis=1), R.shape([3, 4]))");
}
