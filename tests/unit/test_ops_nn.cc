// Unit tests of struct-info inference for R.nn.* ops (conv/pool output sizes incl. symbolic dims,
// norms, attention), structural ops (call_tir, packed calls, print/assert) and memory/vm ops.
#include <catch2/catch.hpp>

#include "ir/tir.h"
#include "tests/unit/op_test_util.h"

using namespace rlx;
using namespace rlx::test;

TEST_CASE("activations and softmax", "[ops][nn]") {
  auto n = sym("n");
  auto x = tvar("x", {n, c64(8)});
  for (const char* op : {"relax.nn.relu", "relax.nn.gelu", "relax.nn.gelu_tanh", "relax.nn.silu", "relax.nn.softmax", "relax.nn.log_softmax", "relax.nn.leakyrelu"})
    CHECK(infer(op, {E(x)}) == T("(n, 8)"));
  CHECK(built("relax.nn.leakyrelu", {E(x)}) == "R.nn.leakyrelu(x, alpha=0.01)");
  CHECK(infer("relax.nn.softmax", {E(x)}, {{"axis", I(2)}}) == "error: R.nn.softmax: axis 2 is out of range for a tensor of 2 dimensions (expected -2 <= axis < 2)");
  auto xi = tvar("xi", {c64(3)}, "int32");
  CHECK(infer("relax.nn.relu", {E(xi)}) == T("(3,)", "int32"));
  CHECK(infer("relax.nn.gelu", {E(xi)}) == "error: R.nn.gelu: requires a float tensor, but the input dtype is int32");
  CHECK(infer("relax.nn.softmax", {E(xi)}) == "error: R.nn.softmax: requires a float tensor, but the input dtype is int32");
}

TEST_CASE("conv2d output size", "[ops][nn][conv]") {
  auto x = tvar("x", {c64(1), c64(3), c64(32), c64(32)}), w = tvar("w", {c64(16), c64(3), c64(3), c64(3)});
  CHECK(infer("relax.nn.conv2d", {E(x), E(w)}, {{"padding", I(1)}}) == T("(1, 16, 32, 32)"));
  CHECK(infer("relax.nn.conv2d", {E(x), E(w)}) == T("(1, 16, 30, 30)"));
  CHECK(infer("relax.nn.conv2d", {E(x), E(w)}, {{"strides", I(2)}, {"padding", I(1)}}) == T("(1, 16, 16, 16)"));
  CHECK(infer("relax.nn.conv2d", {E(x), E(w)}, {{"dilation", I(2)}}) == T("(1, 16, 28, 28)"));
  auto dw = tvar("dw", {c64(16), c64(1), c64(3), c64(3)}), p = tvar("p", {c64(1), c64(16), c64(16), c64(16)});
  CHECK(infer("relax.nn.conv2d", {E(p), E(dw)}, {{"strides", I(2)}, {"padding", I(1)}, {"groups", I(16)}}) == T("(1, 16, 8, 8)"));
  auto h = sym("h"), wd = sym("w");
  auto xs = tvar("xs", {sym("n"), c64(3), h, wd});
  CHECK(infer("relax.nn.conv2d", {E(xs), E(w)}) == T("(n, 16, h - 2, w - 2)"));
  CHECK(infer("relax.nn.conv2d", {E(xs), E(w)}, {{"strides", I(2)}}) == T("(n, 16, (h - 3) // 2 + 1, (w - 3) // 2 + 1)"));
  auto nhwc = tvar("nhwc", {c64(1), c64(32), c64(32), c64(3)});
  CHECK(infer("relax.nn.conv2d", {E(nhwc), E(w)}, {{"data_layout", S("NHWC")}}) == T("(1, 30, 30, 16)"));
  CHECK(infer("relax.nn.conv2d", {E(x), E(tvar("w4", {c64(16), c64(4), c64(3), c64(3)}))}) ==
        "error: R.nn.conv2d: the data has 3 channels but the weight expects 4 input channels x 1 groups");
  CHECK(infer("relax.nn.conv2d", {E(x), E(w)}, {{"data_layout", S("NCHX")}}) == "error: R.nn.conv2d: the data layout \"NCHX\" is not convertible from NCHW");
  CHECK(infer("relax.nn.conv2d", {E(x), E(w)}, {{"data_layout", S("NCHw")}}) == "error: R.nn.conv2d: the data layout \"NCHw\" is not convertible from NCHW");
  // Packed layouts (TVM's BijectiveLayout): C = 4 outer x 4 inner channels; 16 output channels
  // are 4 x 4o in the kernel and 4 x 4c in the result.
  auto packed = tvar("xp", {c64(1), c64(4), c64(32), c64(32), c64(4)}), wp = tvar("wp", {c64(4), c64(16), c64(3), c64(3), c64(4)});
  CHECK(infer("relax.nn.conv2d", {E(packed), E(wp)}, {{"data_layout", S("NCHW4c")}, {"kernel_layout", S("OIHW4o")}}) == T("(1, 4, 30, 30, 4)"));
  CHECK(infer("relax.nn.conv2d", {E(packed), E(w)}, {{"data_layout", S("NCHW4c")}}) == "error: R.nn.conv2d: the data has 16 channels but the weight expects 3 input channels x 1 groups");
  CHECK(infer("relax.nn.conv2d", {E(tvar("x3", {c64(3), c64(32), c64(32)})), E(w)}) == "error: R.nn.conv2d: expects the data to have 4 dimensions (its layout), but it has 3");
  CHECK(infer("relax.nn.conv2d", {E(x), E(tvar("wh", {c64(16), c64(3), c64(3), c64(3)}, "float16"))}) ==
        "error: R.nn.conv2d: dtype mismatch: data is float32 but weight is float16 (binary operators need equal dtypes)");
  CHECK(infer("relax.nn.conv2d", {E(x), E(tvarNdim("wu", 4))}) == "R.Tensor(dtype=\"float32\", ndim=4)");
}

TEST_CASE("conv1d, conv3d and transposed convs", "[ops][nn][conv]") {
  auto x1 = tvar("x", {c64(2), c64(4), c64(10)}), w1 = tvar("w", {c64(8), c64(4), c64(3)});
  CHECK(infer("relax.nn.conv1d", {E(x1), E(w1)}, {{"padding", I(1)}}) == T("(2, 8, 10)"));
  CHECK(built("relax.nn.conv1d", {E(x1), E(w1)}) ==
        "R.nn.conv1d(x, w, strides=[1], padding=[0, 0], dilation=[1], groups=1, data_layout=\"NCW\", kernel_layout=\"OIW\", out_layout=\"NCW\", out_dtype=\"void\")");
  auto x3 = tvar("x3", {c64(1), c64(2), c64(8), c64(8), c64(8)}), w3 = tvar("w3", {c64(4), c64(2), c64(3), c64(3), c64(3)});
  CHECK(infer("relax.nn.conv3d", {E(x3), E(w3)}) == T("(1, 4, 6, 6, 6)"));
  CHECK(built("relax.nn.conv3d", {E(x3), E(w3)}).find("padding=[0, 0, 0, 0, 0, 0]") != std::string::npos);
  auto xt = tvar("xt", {c64(1), c64(4), c64(5), c64(5)}), wt = tvar("wt", {c64(4), c64(2), c64(3), c64(3)});
  CHECK(infer("relax.nn.conv2d_transpose", {E(xt), E(wt)}, {{"strides", I(2)}}) == T("(1, 2, 11, 11)"));
  CHECK(infer("relax.nn.conv2d_transpose", {E(xt), E(wt)}, {{"strides", I(2)}, {"padding", I(1)}, {"output_padding", I(1)}}) == T("(1, 2, 10, 10)"));
  CHECK(built("relax.nn.conv2d_transpose", {E(xt), E(wt)}) ==
        "R.nn.conv2d_transpose(xt, wt, strides=[1, 1], padding=[0, 0, 0, 0], output_padding=[0, 0], dilation=[1, 1], groups=1, data_layout=\"NCHW\", kernel_layout=\"IOHW\", "
        "out_layout=\"NCHW\", out_dtype=\"void\")");
  CHECK(infer("relax.nn.conv1d_transpose", {E(tvar("a", {c64(1), c64(4), c64(7)})), E(tvar("b", {c64(4), c64(3), c64(2)}))}) == T("(1, 3, 8)"));
}

TEST_CASE("pooling output size", "[ops][nn][pool]") {
  auto x = tvar("x", {c64(1), c64(16), c64(32), c64(32)});
  CHECK(infer("relax.nn.max_pool2d", {E(x)}, {{"pool_size", I(2)}, {"strides", I(2)}}) == T("(1, 16, 16, 16)"));
  CHECK(infer("relax.nn.max_pool2d", {E(x)}, {{"pool_size", I(3)}, {"strides", I(2)}, {"padding", I(1)}}) == T("(1, 16, 16, 16)"));
  CHECK(infer("relax.nn.avg_pool2d", {E(tvar("y", {c64(1), c64(1), c64(5), c64(5)}))}, {{"pool_size", I(2)}, {"strides", I(2)}}) == T("(1, 1, 2, 2)"));
  CHECK(infer("relax.nn.avg_pool2d", {E(tvar("y", {c64(1), c64(1), c64(5), c64(5)}))}, {{"pool_size", I(2)}, {"strides", I(2)}, {"ceil_mode", B(true)}}) == T("(1, 1, 3, 3)"));
  auto n = sym("n");
  CHECK(infer("relax.nn.max_pool2d", {E(tvar("s", {c64(1), c64(3), n, n}))}, {{"pool_size", I(2)}, {"strides", I(2)}}) == T("(1, 3, n // 2, n // 2)"));
  CHECK(infer("relax.nn.max_pool1d", {E(tvar("a", {c64(1), c64(2), c64(9)}))}, {{"pool_size", I(3)}}) == T("(1, 2, 7)"));
  CHECK(infer("relax.nn.max_pool3d", {E(tvar("b", {c64(1), c64(2), c64(4), c64(4), c64(4)}))}, {{"pool_size", I(2)}, {"strides", I(2)}}) == T("(1, 2, 2, 2, 2)"));
  CHECK(infer("relax.nn.adaptive_avg_pool2d", {E(x)}, {{"output_size", Ints({1, 1})}}) == T("(1, 16, 1, 1)"));
  CHECK(infer("relax.nn.adaptive_avg_pool2d", {E(x)}) == T("(1, 16, 32, 32)"));
  CHECK(infer("relax.nn.max_pool2d", {E(tvar("v", {c64(3)}))}) == "error: R.nn.max_pool2d: expects the data to have 4 dimensions (its layout), but it has 1");
}

TEST_CASE("normalizations and dropout", "[ops][nn][norm]") {
  auto n = sym("n");
  auto x = tvar("x", {c64(1), n, c64(768)}), g = tvar("g", {c64(768)});
  CHECK(infer("relax.nn.layer_norm", {E(x), E(g), E(g)}, {{"axes", I(-1)}}) == T("(1, n, 768)"));
  CHECK(infer("relax.nn.layer_norm", {E(x), E(tvar("g2", {c64(512)})), E(g)}, {{"axes", I(-1)}}) ==
        "error: R.nn.layer_norm: the sizes of gamma, beta, etc. must match the data's extents on the normalized axes, but got (768,) and (512,)");
  CHECK(infer("relax.nn.layer_norm", {E(x), E(tvar("gh", {c64(768)}, "float16")), E(g)}, {{"axes", I(-1)}}) == "error: R.nn.layer_norm: gamma has dtype float16 but the data's dtype is float32");
  CHECK(infer("relax.nn.rms_norm", {E(x), E(g)}) == T("(1, n, 768)"));
  auto c = tvar("c", {c64(1), c64(16), c64(32), c64(32)}), v = tvar("v", {c64(16)});
  CHECK(infer("relax.nn.batch_norm", {E(c), E(v), E(v), E(v), E(v)}, {{"axis", I(1)}}) ==
        "R.Tuple(R.Tensor((1, 16, 32, 32), dtype=\"float32\"), R.Tensor((16,), dtype=\"float32\"), R.Tensor((16,), dtype=\"float32\"))");
  CHECK(built("relax.nn.batch_norm", {E(c), E(v), E(v), E(v), E(v)}, {{"axis", I(1)}}) ==
        "R.nn.batch_norm(c, v, v, v, v, axis=1, epsilon=1.0000000000000001e-05, center=True, scale=True, momentum=0.10000000000000001, training=True)");
  CHECK(infer("relax.nn.group_norm", {E(c), E(v), E(v)}, {{"num_groups", I(4)}, {"channel_axis", I(1)}, {"axes", Ints({2, 3})}}) == T("(1, 16, 32, 32)"));
  CHECK(infer("relax.nn.group_norm", {E(c), E(v), E(v)}, {{"num_groups", I(5)}, {"channel_axis", I(1)}, {"axes", Ints({2, 3})}}) ==
        "error: R.nn.group_norm: 16 channels are not divisible into 5 groups");
  CHECK(infer("relax.nn.dropout", {E(x)}) == "R.Tuple(R.Tensor((1, n, 768), dtype=\"float32\"), R.Tensor((1, n, 768), dtype=\"float32\"))");
  CHECK(built("relax.nn.pad", {E(c), Ints({0, 0, 0, 0, 1, 1, 2, 2})}) == "R.nn.pad(c, pad_width=[0, 0, 0, 0, 1, 1, 2, 2], pad_value=0.0, pad_mode=\"constant\")");
  CHECK(infer("relax.nn.pad", {E(c), Ints({0, 0, 0, 0, 1, 1, 2, 2})}) == T("(1, 16, 34, 36)"));
  CHECK(infer("relax.nn.pad", {E(c), Ints({1, 1})}) == "error: R.nn.pad: pad_width must have 2 values per dimension (8), but it has 2");
}

TEST_CASE("attention", "[ops][nn][attention]") {
  auto q = tvar("q", {c64(1), c64(8), c64(4), c64(16)}), kv = tvar("kv", {c64(1), c64(8), c64(4), c64(16)});
  CHECK(infer("relax.nn.attention", {E(q), E(kv), E(kv)}, {{"causal_mask", S("TopLeft")}}) == T("(1, 8, 4, 16)"));
  CHECK(built("relax.nn.attention", {E(q), E(kv), E(kv)}, {{"causal_mask", S("TopLeft")}}) == "R.nn.attention(q, kv, kv, scale=None, causal_mask=\"TopLeft\", window_size=None)");
  CHECK(built("relax.nn.attention", {E(q), E(kv), E(kv)}, {{"scale", F(0.25)}}) == "R.nn.attention(q, kv, kv, scale=T.float32(0.25), causal_mask=None, window_size=None)");
  auto bias = tvar("bias", {c64(1), c64(4), c64(8), c64(8)});
  CHECK(built("relax.nn.attention", {E(q), E(kv), E(kv), E(bias)}) == "R.nn.attention_bias(q, kv, kv, bias, scale=None, causal_mask=None, window_size=None)");
  CHECK(infer("relax.nn.attention", {E(q), E(kv), E(kv), E(bias)}) == T("(1, 8, 4, 16)"));
  auto k2 = tvar("k2", {c64(1), c64(6), c64(4), c64(16)}), v2 = tvar("v2", {c64(1), c64(6), c64(4), c64(32)});
  CHECK(infer("relax.nn.attention", {E(q), E(k2), E(v2)}) == T("(1, 8, 4, 32)"));
  CHECK(infer("relax.nn.attention", {E(q), E(tvar("kb", {c64(1), c64(8), c64(4), c64(8)})), E(kv)}) ==
        "error: R.nn.attention: the head dim of query (16) and of key (8) must be equal");
  CHECK(infer("relax.nn.attention", {E(tvar("q3", {c64(8), c64(4), c64(16)})), E(kv), E(kv)}) ==
        "error: R.nn.attention: the query must be 4-D (batch, sequence, heads, head dim), but it is R.Tensor((8, 4, 16), dtype=\"float32\")");
}

TEST_CASE("call_tir and packed calls", "[ops][structural]") {
  auto x = tvar("x", {c64(2), c64(3)}), y = tvar("y", {c64(2), c64(3)});
  auto f = make<GlobalVar>("add");
  StructInfo out = tensorSInfo({c64(2), c64(3)}, DataType::float32());
  CHECK(built("relax.call_tir", {E(f), Tup({E(x), E(y)})}, {{"out_sinfo", SI(out)}}) == "R.call_tir(add, (x, y), out_sinfo=R.Tensor((2, 3), dtype=\"float32\"))");
  CHECK(infer("relax.call_tir", {E(f), E(x)}, {{"out_sinfo", SI(out)}}) == T("(2, 3)"));
  CHECK(infer("relax.call_tir", {E(f), Tup({E(x)})}, {{"out_sinfo", L({SI(out), SI(out)})}}) ==
        "R.Tuple(R.Tensor((2, 3), dtype=\"float32\"), R.Tensor((2, 3), dtype=\"float32\"))");
  CHECK(infer("relax.call_tir", {E(f), Tup({E(x)})}, {{"out_sinfo", L({SI(out)})}}) == T("(2, 3)"));
  auto n = sym("n");
  CHECK(built("relax.call_tir", {E(f), Tup({E(x)})}, {{"out_sinfo", SI(out)}, {"tir_vars", L({P(n)})}}) == "R.call_tir(add, (x,), out_sinfo=R.Tensor((2, 3), dtype=\"float32\"), tir_vars=R.shape([n]))");
  CHECK(infer("relax.call_tir", {E(x), Tup({E(x)})}, {{"out_sinfo", SI(out)}}) == "error: R.call_tir: expects the callee to be a GlobalVar of a PrimFunc (cls.func)");
  CHECK(built("relax.call_tir", {E(f), Tup({E(x)})}) == "error: R.call_tir missing required argument 'out_sinfo'");
  CHECK(built("relax.call_dps_packed", {S("my_exp"), Tup({E(x)})}, {{"out_sinfo", SI(out)}}) == "R.call_dps_packed(\"my_exp\", (x,), out_sinfo=R.Tensor((2, 3), dtype=\"float32\"))");
  CHECK(infer("relax.call_pure_packed", {S("my_sqrt"), E(x)}, {{"sinfo_args", Tup({SI(out)})}}) == T("(2, 3)"));
  CHECK(built("relax.call_pure_packed", {S("my_sqrt"), E(x)}) == "error: R.call_pure_packed requires sinfo_args");
  CHECK(infer("relax.call_tir_inplace", {E(f), Tup({E(x), E(y)})}, {{"inplace_indices", I(0)}, {"out_sinfo", SI(out)}}) == T("(2, 3)"));
  CHECK(infer("relax.call_tir_inplace", {E(f), Tup({E(x), E(y)})}, {{"inplace_indices", I(-1)}, {"out_sinfo", SI(out)}}) ==
        "error: R.call_tir_inplace: at least one in-place index must differ from -1");
  CHECK(infer("relax.call_builtin_with_ctx", {S("vm.builtin.alloc_shape_heap"), Tup({I(2)})}) == "R.Tuple");
}

TEST_CASE("print, assert, shapes and devices", "[ops][structural]") {
  auto x = tvar("x", {sym("n"), c64(3)});
  auto r = build("relax.print", {E(x)}, {{"format", S("x: {}")}});
  REQUIRE(r.ok());
  auto call = r.value().as<Call>();
  REQUIRE(call->args.size() == 2);
  CHECK(call->args[0].as<StringImm>()->value == "x: {}");
  CHECK(infer("relax.print", {E(x)}) == "R.Tuple");
  auto ok = tvar("ok", {}, "bool");
  auto a = build("relax.assert_op", {E(ok), E(x)}, {{"format", S("bad: {}")}});
  REQUIRE(a.ok());
  CHECK(a.value().as<Call>()->args.size() == 3);
  CHECK(a.value().as<Call>()->args[1].as<StringImm>()->value == "bad: {}");
  CHECK(infer("relax.assert_op", {E(ok)}) == "R.Tuple");
  CHECK(infer("relax.assert_op", {E(x)}) == "error: R.assert_op: the condition must be a boolean scalar, but it is R.Tensor((n, 3), dtype=\"float32\")");
  CHECK(infer("relax.shape_of", {E(x)}) == "R.Shape([n, 3])");
  CHECK(infer("relax.shape_of", {E(tvarNdim("u", 2))}) == "R.Shape(ndim=2)");
  CHECK(infer("relax.shape_to_tensor", {E(var("s", make<ShapeSInfo>(std::nullopt, 3)))}) == T("(3,)", "int64"));
  CHECK(infer("relax.tensor_to_shape", {E(tvar("t", {c64(2)}, "int64"))}) == "R.Shape(ndim=2)");
  CHECK(infer("relax.size", {E(x)}) == T("()", "int64"));
  CHECK(infer("relax.null_value", {}) == "R.Object");
  CHECK(infer("relax.to_vdevice", {E(x)}, {{"dst_vdevice", S("llvm:0:global")}}) == "R.Tensor((n, 3), dtype=\"float32\", vdevice=\"llvm:0:global\")");
  CHECK(infer("relax.hint_on_device", {E(x), I(1)}) == T("(n, 3)"));
  CHECK(infer("relax.inspect.tensor_ndim", {E(x)}) == "R.Prim(value=2)");
  CHECK(infer("relax.inspect.tensor_shape_i", {E(x), I(0)}) == "R.Prim(value=n)");
  CHECK(infer("relax.wrap_param", {E(x)}, {{"dtype", S("float16")}}) == T("(n, 3)", "float16"));
}

TEST_CASE("memory and vm ops", "[ops][memory]") {
  CHECK(built("relax.builtin.alloc_tensor", {Ints({2, 3}), S("float32"), I(0)}) == "R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype(\"float32\"), R.prim_value(0), R.str(\"global\"))");
  CHECK(infer("relax.builtin.alloc_tensor", {Ints({2, 3}), S("float32"), I(0)}) == T("(2, 3)"));
  // VMShapeLower turns a symbolic R.shape into a shape var.
  CHECK(infer("relax.builtin.alloc_tensor", {E(var("s", make<ShapeSInfo>(std::nullopt, 2))), S("float32"), I(0)}) == "R.Tensor(s, dtype=\"float32\")");
  CHECK(built("relax.memory.alloc_storage", {Ints({24})}, {{"virtual_device_index", I(0)}, {"storage_scope", S("global")}, {"dtype", S("float32")}}) ==
        "R.memory.alloc_storage(R.shape([24]), R.prim_value(0), R.str(\"global\"), R.dtype(\"float32\"))");
  CHECK(infer("relax.memory.alloc_storage", {Ints({24}), I(0), S("global"), S("float32")}) == "R.Object");
  auto st = var("storage", objectSInfo());
  CHECK(infer("relax.memory.alloc_tensor", {E(st), I(0), Ints({2, 3}), S("float32"), I(0)}) == T("(2, 3)"));
  CHECK(infer("relax.memory.kill_storage", {E(st)}) == "R.Tuple");
  CHECK(infer("relax.vm.alloc_storage", {Ints({24}), I(0), S("uint8")}) == "R.Object");
  CHECK(infer("relax.vm.kill_object", {E(st)}) == "R.Tuple");
  auto x = tvar("x", {c64(2), c64(3)});
  CHECK(built("relax.memory.view", {E(x)}, {{"shape", Ints({6})}}) == "R.memory.view(x, R.shape([6]), R.tuple(), R.tuple())");
  CHECK(infer("relax.memory.view", {E(x)}, {{"shape", Ints({6})}, {"dtype", S("int32")}}) == T("(6,)", "int32"));
}
