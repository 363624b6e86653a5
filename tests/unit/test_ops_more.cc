// Unit tests covering the remaining (non-★) ops: one representative call each with its inferred
// struct info, so every registered op is built and inferred at least once.
#include <catch2/catch.hpp>

#include "ir/tir.h"
#include "tests/unit/op_test_util.h"

using namespace rlx;
using namespace rlx::test;

TEST_CASE("every op has inference, a doc line and a script name", "[ops]") {
  for (auto* op : allOps()) {
    INFO(op->name);
    CHECK(op->infer);
    CHECK(!op->doc.empty());
    CHECK(op->scriptName().rfind("R.", 0) == 0);
  }
}

TEST_CASE("remaining elementwise ops", "[ops][unary][binary]") {
  auto x = tvar("x", {c64(2), c64(3)});
  for (const char* op : {"relax.acos", "relax.acosh", "relax.asin", "relax.asinh", "relax.atan", "relax.atanh", "relax.sinh", "relax.cosh", "relax.tan", "relax.ceil",
                         "relax.floor", "relax.round", "relax.trunc", "relax.sign"})
    CHECK(infer(op, {E(x)}) == T("(2, 3)"));
  for (const char* op : {"relax.isfinite", "relax.isinf"}) CHECK(infer(op, {E(x)}) == T("(2, 3)", "bool"));
  CHECK(infer("relax.logical_not", {E(x)}) == T("(2, 3)"));  // like logical_and: the input's dtype (TVM)
  auto xi = tvar("xi", {c64(4)}, "int32");
  CHECK(infer("relax.bitwise_not", {E(xi)}) == T("(4,)", "int32"));
  for (const char* op : {"relax.floor_divide", "relax.floor_mod", "relax.mod", "relax.log_add_exp", "relax.logical_and", "relax.logical_or", "relax.logical_xor"})
    CHECK(infer(op, {E(x), E(x)}) == T("(2, 3)"));
  for (const char* op : {"relax.bitwise_and", "relax.bitwise_or", "relax.bitwise_xor", "relax.left_shift", "relax.right_shift"}) CHECK(infer(op, {E(xi), E(xi)}) == T("(4,)", "int32"));
  for (const char* op : {"relax.not_equal", "relax.less_equal", "relax.greater_equal"}) CHECK(infer(op, {E(x), E(x)}) == T("(2, 3)", "bool"));
  CHECK(infer("relax.ewise_fma", {E(x), E(x), E(x)}) == T("(2, 3)"));
  CHECK(infer("relax.ewise_fma", {E(x), E(x), E(tvar("y", {c64(3), c64(2)}))}) ==
        "error: R.ewise_fma: the 3 arguments must have the same shape, but got (2, 3), (2, 3) and (3, 2)");
  auto p = var("p", make<PrimSInfo>(DataType::int64()));
  CHECK(infer("relax.add", {E(p), E(p)}) == "R.Prim(\"int64\")");
}

TEST_CASE("remaining creation ops", "[ops][create]") {
  auto x = tvar("x", {c64(3), c64(4)});
  CHECK(infer("relax.eye_like", {E(x)}) == T("(3, 4)"));
  CHECK(infer("relax.eye_like", {E(tvar("v", {c64(3)}))}) == "error: R.eye_like: expects a 2-D tensor, but it has 1 dimensions");
  CHECK(infer("relax.eye", {I(2), I(5), I(1)}, {{"dtype", S("int32")}}) == T("(2, 5)", "int32"));
  CHECK(infer("relax.hamming_window", {I(8), B(true), F(0.54), F(0.46)}, {{"dtype", S("float32")}}) == T("(8,)"));
  CHECK(infer("relax.hamming_window", {I(0), B(true), F(0.54), F(0.46)}, {{"dtype", S("float32")}}) == "error: R.hamming_window: window_size must be at least 1, but it is 0");
}

TEST_CASE("remaining manipulation ops", "[ops][manipulate]") {
  auto x = tvar("x", {c64(2), c64(3)});
  CHECK(infer("relax.stack", {Tup({E(x), E(x), E(x)})}, {{"axis", I(1)}}) == T("(2, 3, 3)"));
  CHECK(infer("relax.tile", {E(x), Ints({2, 1, 2})}) == T("(2, 2, 6)"));
  CHECK(infer("relax.repeat", {E(x), I(2)}, {{"axis", I(0)}}) == T("(4, 3)"));
  CHECK(infer("relax.repeat", {E(x), I(2)}) == T("(12,)"));
  CHECK(infer("relax.flip", {E(x), I(1)}) == T("(2, 3)"));
  CHECK(infer("relax.flip", {E(x), I(2)}) == "error: R.flip: axis 2 is out of range for a tensor of 2 dimensions (expected -2 <= axis < 2)");
  auto i = make<PrimVar>("i", DataType::int64()), j = make<PrimVar>("j", DataType::int64());
  CHECK(infer("relax.layout_transform", {E(x)}, {{"index_map", L({L({P(i), P(j)}), L({P(j), P(i)})})}}) == T("(3, 2)"));
  CHECK(infer("relax.collapse_sum_like", {E(tvar("g", {c64(4), c64(2), c64(3)})), E(x)}) == T("(2, 3)"));
  CHECK(infer("relax.collapse_sum_to", {E(tvar("g", {c64(4), c64(2), c64(3)})), Ints({1, 3})}) == T("(1, 3)"));
  auto a = tvar("a", {c64(2)}), b = tvar("b", {c64(5)});
  CHECK(infer("relax.meshgrid", {Tup({E(a), E(b)})}) == "R.Tuple(R.Tensor((2, 5), dtype=\"float32\"), R.Tensor((2, 5), dtype=\"float32\"))");
  CHECK(infer("relax.meshgrid", {Tup({E(a), E(b)})}, {{"indexing", S("xy")}}) == "R.Tuple(R.Tensor((5, 2), dtype=\"float32\"), R.Tensor((5, 2), dtype=\"float32\"))");
  auto idx = tvar("idx", {c64(2), c64(1)}, "int64");
  CHECK(infer("relax.gather_elements", {E(x), E(idx)}, {{"axis", I(1)}}) == T("(2, 1)"));
  CHECK(infer("relax.gather_nd", {E(x), E(idx)}) == T("(2, 3)"));
  CHECK(infer("relax.gather_nd", {E(tvar("d", {c64(2), c64(3), c64(4)})), E(tvar("ix", {c64(5), c64(2)}, "int64"))}) == T("(5, 4)"));
  CHECK(infer("relax.scatter_elements", {E(x), E(idx), E(tvar("u", {c64(2), c64(1)}))}) == T("(2, 3)"));
  CHECK(infer("relax.scatter_elements", {E(x), E(idx), E(tvar("u", {c64(2), c64(1)}))}, {{"reduction", S("foo")}}) == "error: R.scatter_elements: unknown reduction \"foo\"");
  CHECK(infer("relax.scatter_nd", {E(x), E(idx), E(tvar("u", {c64(2), c64(3)}))}) == T("(2, 3)"));
  auto r = tvar("r", {c64(4)}, "int64");
  CHECK(infer("relax.index_put", {E(x), Tup({E(r)}), E(tvar("vals", {c64(4), c64(3)}))}) == T("(2, 3)"));
  CHECK(infer("relax.index_tensor", {E(tvar("d", {c64(5), c64(6), c64(7)})), Tup({E(r), E(r)})}) == T("(4, 7)"));
  CHECK(infer("relax.slice_scatter", {E(x), E(tvar("s", {c64(2), c64(1)})), I(0), I(1)}, {{"axis", I(1)}}) == T("(2, 3)"));
  CHECK(built("relax.slice_scatter", {E(x), E(x), I(0), I(1)}) == "R.slice_scatter(x, x, R.prim_value(0), R.prim_value(1), R.prim_value(1), axis=0)");
  CHECK(infer("relax.one_hot", {E(r), F(1.0), F(0.0), I(10)}) == T("(4, 10)"));
  CHECK(infer("relax.one_hot", {E(r), F(1.0), F(0.0)}, {{"depth", I(3)}, {"axis", I(0)}}) == T("(3, 4)"));
}

TEST_CASE("remaining index, statistical and search ops", "[ops][search]") {
  auto x = tvar("x", {c64(2), c64(3), c64(4)});
  auto bnd = tvar("b", {c64(3)}, "int64");
  CHECK(infer("relax.dynamic_strided_slice", {E(x), E(bnd), E(bnd), E(bnd)}) == "R.Tensor(dtype=\"float32\", ndim=3)");
  CHECK(infer("relax.prod", {E(x)}, {{"axis", Ints({0})}}) == T("(3, 4)"));
  CHECK(infer("relax.std", {E(x)}, {{"axis", Ints({1, 2})}, {"keepdims", B(true)}}) == T("(2, 1, 1)"));
  CHECK(infer("relax.cumprod", {E(x)}, {{"axis", I(-1)}}) == T("(2, 3, 4)"));
  CHECK(infer("relax.argmin", {E(x)}, {{"axis", I(1)}, {"keepdims", B(true)}}) == T("(2, 1, 4)", "int64"));
  CHECK(infer("relax.sort", {E(x)}) == T("(2, 3, 4)"));
  CHECK(infer("relax.argsort", {E(x)}) == T("(2, 3, 4)", "int32"));
  CHECK(infer("relax.topk", {E(x)}, {{"k", I(2)}}) == "R.Tuple(R.Tensor((2, 3, 2), dtype=\"float32\"), R.Tensor((2, 3, 2), dtype=\"int32\"))");
  CHECK(infer("relax.topk", {E(x)}, {{"k", I(2)}, {"ret_type", S("indices")}, {"axis", I(0)}}) == T("(2, 3, 4)", "int32"));
  CHECK(infer("relax.bucketize", {E(x), E(tvar("bd", {c64(5)}))}) == T("(2, 3, 4)", "int64"));
  CHECK(infer("relax.bucketize", {E(x), E(tvar("bd", {c64(5)}))}, {{"out_int32", B(true)}}) == T("(2, 3, 4)", "int32"));
  CHECK(infer("relax.nonzero", {E(x)}) == "R.Tensor(dtype=\"int64\", ndim=2)");
  CHECK(infer("relax.unique", {E(x)}) == "R.Tensor(dtype=\"float32\", ndim=1)");
  CHECK(infer("relax.multinomial_from_uniform", {E(tvar("prob", {c64(4), c64(100)})), E(tvar("u", {c64(4), c64(1)})), E(tvar("si", {c64(4), c64(1)}, "int64"))}) ==
        T("(4, 1)", "int64"));
}

TEST_CASE("remaining nn ops", "[ops][nn]") {
  auto x = tvar("x", {c64(1), c64(4), c64(8), c64(8)});
  CHECK(infer("relax.nn.selu", {E(x)}) == T("(1, 4, 8, 8)"));
  CHECK(infer("relax.nn.softplus", {E(x)}) == T("(1, 4, 8, 8)"));
  CHECK(built("relax.nn.softplus", {E(x)}) == "R.nn.softplus(x, beta=1.0, threshold=20.0)");
  CHECK(infer("relax.nn.prelu", {E(x), E(tvar("al", {c64(4)}))}) == T("(1, 4, 8, 8)"));
  CHECK(infer("relax.nn.prelu", {E(x), E(tvar("al", {c64(3)}))}) == "error: R.nn.prelu: alpha has 3 entries but axis 1 has extent 4");
  auto g = tvar("g", {c64(4)});
  CHECK(infer("relax.nn.instance_norm", {E(x), E(g), E(g)}, {{"axes", Ints({2, 3})}}) == T("(1, 4, 8, 8)"));
  CHECK(infer("relax.nn.avg_pool1d", {E(tvar("a", {c64(1), c64(2), c64(9)}))}, {{"pool_size", I(3)}, {"strides", I(3)}}) == T("(1, 2, 3)"));
  CHECK(infer("relax.nn.avg_pool3d", {E(tvar("b", {c64(1), c64(2), c64(4), c64(4), c64(4)}))}, {{"pool_size", I(2)}}) == T("(1, 2, 3, 3, 3)"));
  CHECK(infer("relax.nn.adaptive_avg_pool1d", {E(tvar("a", {c64(1), c64(2), c64(9)}))}, {{"output_size", I(3)}}) == T("(1, 2, 3)"));
  CHECK(infer("relax.nn.adaptive_avg_pool3d", {E(tvar("b", {c64(1), c64(2), c64(4), c64(4), c64(4)}))}, {{"output_size", I(1)}}) == T("(1, 2, 1, 1, 1)"));
  CHECK(infer("relax.nn.pixel_shuffle", {E(x)}, {{"upscale_factor", I(2)}}) == T("(1, 1, 16, 16)"));
  auto q = tvar("q", {c64(1), c64(10), c64(2), c64(8)}), seq = tvar("seq", {c64(3)}, "int32");
  auto mx = var("mx", tensorSInfo({}, DataType::int32()));
  CHECK(infer("relax.nn.attention_var_len", {E(q), E(q), E(q), E(seq), E(seq), E(mx), E(mx)}) == T("(1, 10, 2, 8)"));
  auto pred = tvar("pred", {c64(4), c64(10)}), lab = tvar("lab", {c64(4)}, "int64");
  CHECK(infer("relax.nn.cross_entropy_with_logits", {E(pred), E(pred)}) == T("()"));
  CHECK(infer("relax.nn.nll_loss", {E(pred), E(lab)}) == T("()"));
  CHECK(infer("relax.nn.nll_loss", {E(pred), E(lab)}, {{"reduction", S("none")}}) == T("(4,)"));
  CHECK(built("relax.nn.nll_loss", {E(pred), E(lab)}) == "R.nn.nll_loss(pred, lab, reduction=\"mean\", ignore_index=-100)");
}

TEST_CASE("image, vision and qdq ops", "[ops][image]") {
  auto x = tvar("x", {c64(1), c64(3), c64(8), c64(8)});
  CHECK(infer("relax.image.resize2d", {E(x), Ints({16, 12})}) == T("(1, 3, 16, 12)"));
  CHECK(infer("relax.image.resize2d", {E(x), I(4)}) == T("(1, 3, 4, 4)"));
  CHECK(infer("relax.image.grid_sample", {E(x), E(tvar("grid", {c64(1), c64(5), c64(6), c64(2)}))}) == T("(1, 3, 5, 6)"));
  auto boxes = tvar("boxes", {c64(1), c64(10), c64(4)}), scores = tvar("scores", {c64(1), c64(3), c64(10)});
  auto k = tvar("k", {}, "int64"), th = tvar("th", {});
  CHECK(infer("relax.vision.all_class_non_max_suppression", {E(boxes), E(scores), E(k), E(th), E(th)}) ==
        "R.Tuple(R.Tensor((30, 3), dtype=\"int64\"), R.Tensor((1,), dtype=\"int64\"))");
  auto sc = tvar("sc", {}), zp = tvar("zp", {}, "int8");
  CHECK(infer("relax.quantize", {E(x), E(sc), E(zp)}) == T("(1, 3, 8, 8)", "int8"));
  CHECK(infer("relax.dequantize", {E(tvar("q", {c64(4)}, "int8")), E(sc), E(zp)}) == T("(4,)"));
  CHECK(infer("relax.quantize", {E(x), E(tvar("sv", {c64(5)})), E(zp)}, {{"axis", I(1)}}) == "error: R.quantize: scale has 5 entries but axis 1 has extent 3");
}

TEST_CASE("remaining structural, memory and distributed ops", "[ops][structural]") {
  auto x = tvar("x", {c64(4), c64(2)});
  StructInfo out = tensorSInfo({c64(4), c64(2)}, DataType::float32());
  auto f = make<GlobalVar>("f");
  CHECK(infer("relax.call_tir_with_grad", {E(f), Tup({E(x)})}, {{"out_sinfo", SI(out)}, {"te_grad_name", S("g")}}) == T("(4, 2)"));
  CHECK(built("relax.call_tir_with_grad", {E(f), Tup({E(x)})}, {{"out_sinfo", SI(out)}, {"te_grad_name", S("g")}}) ==
        "R.call_tir_with_grad(f, (x,), out_sinfo=R.Tensor((4, 2), dtype=\"float32\"), te_grad_name=\"g\", te_grad_kwargs={})");
  CHECK(infer("relax.call_inplace_packed", {S("inplace_add"), E(x), E(x)}, {{"inplace_indices", I(0)}, {"sinfo_args", SI(out)}}) == T("(4, 2)"));
  CHECK(infer("relax.call_py_func", {S("py_f"), Tup({E(x)})}, {{"out_sinfo", SI(out)}}) == T("(4, 2)"));
  CHECK(infer("relax.make_closure", {E(f), Tup({E(x)})}) == "R.Object");
  auto clo = var("clo", objectSInfo());
  CHECK(infer("relax.invoke_closure", {E(clo), Tup({E(x)}), SI(out)}) == T("(4, 2)"));
  CHECK(infer("relax.invoke_pure_closure", {E(clo), Tup({E(x)})}, {{"sinfo_args", SI(out)}}) == T("(4, 2)"));
  CHECK(infer("relax.inspect.tensor_dtype_code", {E(x)}) == "R.Prim(value=2)");
  CHECK(infer("relax.inspect.tensor_dtype_bits", {E(x)}) == "R.Prim(value=32)");
  CHECK(infer("relax.inspect.tensor_dtype_lanes", {E(x)}) == "R.Prim(value=1)");
  CHECK(infer("relax.inspect.tensor_byte_offset", {E(x)}) == "R.Prim(value=0)");
  CHECK(infer("relax.inspect.tensor_elem_offset", {E(x)}) == "R.Prim(value=0)");
  CHECK(infer("relax.inspect.tensor_stride_i", {E(x), I(0)}) == "R.Prim(value=2)");
  CHECK(infer("relax.inspect.tensor_shape_i", {E(x), I(2)}) == "error: R.inspect.tensor_shape_i: axis 2 is out of range for a tensor of 2 dimensions");
  CHECK(infer("relax.builtin.stop_lift_params", {E(x)}) == T("(4, 2)"));
  CHECK(infer("relax.memory.ensure_zero_offset", {E(x)}) == T("(4, 2)"));
  CHECK(infer("relax.vm.alloc_tensor", {E(var("s", objectSInfo())), I(0), Ints({8}), S("int32")}) == T("(8,)", "int32"));
  CHECK(infer("relax.vm.call_tir_dyn", {E(f), Tup({E(x), E(x)})}) == "R.Tuple");
  CHECK(infer("relax.ccl.allreduce", {E(x)}) == T("(4, 2)"));
  CHECK(built("relax.ccl.allreduce", {E(x)}, {{"op_type", S("mean")}}) == "error: R.ccl.allreduce: op_type must be one of sum, prod, min, max, avg, but it is \"mean\"");
  CHECK(infer("relax.ccl.allgather", {E(x)}, {{"num_workers", I(2)}}) == T("(8, 2)"));
  CHECK(infer("relax.ccl.broadcast_from_worker0", {E(x)}) == T("(4, 2)"));
  CHECK(infer("relax.ccl.scatter_from_worker0", {E(x)}, {{"num_workers", I(2)}}) == T("(2, 2)"));
  CHECK(infer("relax.ccl.scatter_from_worker0", {E(x)}, {{"num_workers", I(3)}}) == "error: R.ccl.scatter_from_worker0: axis 0 of extent 4 is not divisible by 3 workers");
  CHECK(infer("relax.dist.annotate_sharding", {E(x)}, {{"device_mesh", S("mesh[0]")}, {"placement", S("S[0]")}}) == T("(4, 2)"));
  CHECK(infer("relax.dist.redistribute", {E(x)}, {{"device_mesh", S("mesh[0]")}, {"placement", S("R")}}) == T("(4, 2)"));
  CHECK(infer("relax.dist.redistribute_replica_to_shard", {E(x)}, {{"num_workers", I(2)}, {"axis", I(1)}}) == T("(4, 1)"));
  CHECK(infer("relax.dist.call_tir_local_view", {E(f), Tup({E(x)})}, {{"out_sinfo", SI(out)}}) == T("(4, 2)"));
  for (const char* op : {"relax.grad.no_grad", "relax.grad.start_checkpoint", "relax.grad.end_checkpoint"}) CHECK(infer(op, {E(x)}) == T("(4, 2)"));
  auto pred = tvar("pred", {c64(4), c64(10)}), lab = tvar("lab", {c64(4)}, "int64"), g0 = tvar("g0", {});
  CHECK(infer("relax.grad.nll_loss_backward", {E(g0), E(pred), E(lab)}) == T("(4, 10)"));
  auto img = tvar("img", {c64(1), c64(1), c64(4), c64(4)}), og = tvar("og", {c64(1), c64(1), c64(2), c64(2)});
  CHECK(infer("relax.grad.max_pool2d_backward", {E(og), E(img)}, {{"pool_size", Ints({2, 2})}, {"strides", Ints({2, 2})}}) == T("(1, 1, 4, 4)"));
  CHECK(infer("relax.grad.avg_pool2d_backward", {E(og), E(img)}) == T("(1, 1, 4, 4)"));
  CHECK(infer("relax.grad.take_backward", {E(tvar("tg", {c64(3), c64(10)})), E(pred), E(tvar("ti", {c64(3)}, "int64"))}, {{"axis", I(0)}}) == T("(4, 10)"));
}
