// The Relay op -> Relax conversion table (frontend/relay/op_registry.cc, ops_*.cc): Appendix A's 71
// ops covered, the printed Relax of each rewrite, Relay's attribute forms (padding, newshape codes,
// slice modes, exclude, meta entries) and the located errors.
#include <catch2/catch.hpp>

#include <algorithm>

#include "tests/unit/relay_op_harness.h"

using namespace rlx;
using namespace rlx::test;

namespace {

std::string sig(const Expr& e) { return printStructInfo(sinfoOf(e)); }

PrimExpr sym(const char* name) { return make<PrimVar>(name, DataType::int64()); }

relay::MetaValue device(int type, int id = 0) {
  relay::MetaValue m;
  m.kind = relay::MetaValue::VirtualDevice;
  m.typeKey = "VirtualDevice";
  m.deviceType = type;
  m.virtualDeviceId = id;
  return m;
}

}  // namespace

TEST_CASE("relay ops: Appendix A's 71 ops convert or are refused with a reason", "[relay]") {
  const char* converted[] = {
      // same name, arguments 1:1
      "nn.relu", "add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "equal", "not_equal", "less", "less_equal", "greater",
      "greater_equal", "logical_and", "where", "abs", "negative", "sqrt", "tanh", "sigmoid", "log", "erf",
      // same name, attributes converted
      "nn.softmax", "nn.log_softmax", "nn.conv2d", "nn.conv1d", "nn.conv3d", "nn.conv2d_transpose", "nn.batch_norm", "nn.layer_norm", "nn.dropout",
      "nn.max_pool2d", "nn.avg_pool2d", "nn.adaptive_avg_pool3d", "nn.pad", "reshape", "expand_dims", "squeeze", "split", "stack", "strided_slice",
      "take", "mean", "zeros", "zeros_like", "ones_like", "collapse_sum_like", "layout_transform", "shape_of",
      // rewritten
      "nn.dense", "nn.batch_matmul", "nn.bias_add", "nn.batch_flatten", "nn.global_avg_pool2d", "nn.leaky_relu", "nn.upsampling", "transpose",
      "concatenate", "cast", "copy", "reshape_like", "dyn.broadcast_to",
      // device annotations
      "on_device", "device_copy"};
  CHECK(std::size(converted) == 65);
  auto all = relay::convertedOps();
  CHECK(std::is_sorted(all.begin(), all.end()));
  for (const char* op : converted) {
    INFO(op);
    CHECK(relay::findConverter(op) != nullptr);
    CHECK(std::binary_search(all.begin(), all.end(), std::string(op)));
  }
  const char* backend[] = {"memory.alloc_storage", "memory.alloc_tensor", "memory.kill", "vm.shape_of", "vm.reshape_tensor", "call_lowered"};
  for (const char* op : backend) {
    INFO(op);
    std::string why;
    CHECK(relay::findConverter(op, &why) == nullptr);
    CHECK(why.find("is a Relay backend op") != std::string::npos);
  }
  std::string why;
  CHECK(relay::findConverter("memory.alloc_storage", &why) == nullptr);
  CHECK(why == "`memory.alloc_storage` is a Relay backend op (VM lowering output), not an input op");
  why.clear();
  CHECK(relay::findConverter("nn.conv3d_transpose", &why) == nullptr);
  CHECK(why == "`nn.conv3d_transpose` has no Relax v0.23 form (Relax has conv1d_transpose and conv2d_transpose only)");
  why.clear();
  CHECK(relay::findConverter("no.such_op", &why) == nullptr);
  CHECK(why.empty());
}

TEST_CASE("relay ops: dense, batch_matmul and matmul become R.matmul of a transposed operand", "[relay]") {
  {
    RelayHarness h;
    auto x = h.input("x", {2, 3}), w = h.input("w", {4, 3});
    CHECK(printedBody(h, h.convert("nn.dense", {x, w}, {{"units", rInt(4)}})) ==
          "gv: R.Tensor((3, 4), dtype=\"float32\") = R.permute_dims(w, axes=[1, 0])\n"
          "gv1: R.Tensor((2, 4), dtype=\"float32\") = R.matmul(x, gv, out_dtype=\"void\")\n"
          "return gv1");
  }
  {
    // units=None is an absent attribute; out_dtype carries over.
    RelayHarness h;
    auto x = h.input("x", {2, 3}, "float16"), w = h.input("w", {4, 3}, "float16");
    CHECK(sig(h.convert("nn.dense", {x, w}, {{"units", rNone()}, {"out_dtype", rStr("float32")}})) == "R.Tensor((2, 4), dtype=\"float32\")");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {2, 3, 4}), y = h.input("y", {2, 5, 4});
    CHECK(printedBody(h, h.convert("nn.batch_matmul", {x, y}, {{"out_dtype", rStr("float32")}, {"transpose_b", rBool(true)}})) ==
          "gv: R.Tensor((2, 4, 5), dtype=\"float32\") = R.permute_dims(y, axes=[0, 2, 1])\n"
          "gv1: R.Tensor((2, 3, 5), dtype=\"float32\") = R.matmul(x, gv, out_dtype=\"float32\")\n"
          "return gv1");
  }
  {
    // Relay's C++ default is transpose_b=False; transpose_a swaps the first operand.
    RelayHarness h;
    auto x = h.input("x", {2, 4, 3}), y = h.input("y", {2, 4, 5});
    CHECK(printedBody(h, h.convert("nn.batch_matmul", {x, y}, {{"transpose_a", rBool(true)}})) ==
          "gv: R.Tensor((2, 3, 4), dtype=\"float32\") = R.permute_dims(x, axes=[0, 2, 1])\n"
          "gv1: R.Tensor((2, 3, 5), dtype=\"float32\") = R.matmul(gv, y, out_dtype=\"void\")\n"
          "return gv1");
  }
  {
    RelayHarness h;
    auto a = h.input("a", {3, 2}), b2 = h.input("b", {4, 3});
    CHECK(sig(h.convert("nn.matmul", {a, b2}, {{"transpose_a", rBool(true)}, {"transpose_b", rBool(true)}})) == "R.Tensor((2, 4), dtype=\"float32\")");
  }
}

TEST_CASE("relay ops: bias_add, batch_flatten, global_avg_pool2d, leaky_relu, upsampling rewrites", "[relay]") {
  {
    RelayHarness h;
    auto x = h.input("x", {1, 3, 2, 2}), b = h.input("b", {3});
    CHECK(printedBody(h, h.convert("nn.bias_add", {x, b})) ==
          "gv: R.Tensor((3, 1, 1), dtype=\"float32\") = R.reshape(b, R.shape([3, 1, 1]))\n"
          "gv1: R.Tensor((1, 3, 2, 2), dtype=\"float32\") = R.add(x, gv)\n"
          "return gv1");
  }
  {
    // The last axis broadcasts as it is.
    RelayHarness h;
    auto x = h.input("x", {2, 5}), b = h.input("b", {5});
    CHECK(printedBody(h, h.convert("nn.bias_add", {x, b}, {{"axis", rInt(-1)}})) ==
          "gv: R.Tensor((2, 5), dtype=\"float32\") = R.add(x, b)\n"
          "return gv");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {sym("n"), intImm(3), intImm(4)});
    CHECK(printedBody(h, h.convert("nn.batch_flatten", {x})) ==
          "n = T.int64()\n"
          "gv: R.Tensor((n, 12), dtype=\"float32\") = R.reshape(x, R.shape([n, 12]))\n"
          "return gv");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {1, 3, 4, 4});
    CHECK(printedBody(h, h.convert("nn.global_avg_pool2d", {x})) ==
          "gv: R.Tensor((1, 3, 1, 1), dtype=\"float32\") = R.nn.adaptive_avg_pool2d(x, output_size=[1, 1], layout=\"NCHW\", out_layout=\"NCHW\")\n"
          "return gv");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {1, 4, 4, 3});
    CHECK(printedBody(h, h.convert("nn.global_max_pool2d", {x}, {{"layout", rStr("NHWC")}})) ==
          "gv: R.Tensor((1, 1, 1, 3), dtype=\"float32\") = R.max(x, axis=[1, 2], keepdims=True)\n"
          "return gv");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {2});
    CHECK(printedBody(h, h.convert("nn.leaky_relu", {x}, {{"alpha", rFloat(0.5)}})) ==
          "gv: R.Tensor((2,), dtype=\"float32\") = R.nn.leakyrelu(x, alpha=0.5)\n"
          "return gv");
    RelayHarness h2;
    auto y = h2.input("y", {2});
    CHECK(printedBody(h2, h2.convert("nn.leaky_relu", {y})) ==  // Relay's default alpha
          "gv: R.Tensor((2,), dtype=\"float32\") = R.nn.leakyrelu(y, alpha=0.25)\n"
          "return gv");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {1, 1, 2, 3});
    CHECK(printedBody(h, h.convert("nn.upsampling", {x}, {{"scale_h", rFloat(2)}, {"scale_w", rFloat(1.5)}})) ==
          "gv: R.Tensor((1, 1, 4, 4), dtype=\"float32\") = R.image.resize2d(x, R.shape([4, 4]), roi=[T.float32(0.0), T.float32(0.0), T.float32(0.0), T.float32(0.0)], "
          "layout=\"NCHW\", method=\"nearest_neighbor\", coordinate_transformation_mode=\"asymmetric\", rounding_method=\"floor\", cubic_alpha=-0.5, cubic_exclude=0, "
          "extrapolation_value=0.0, out_dtype=\"void\")\n"
          "return gv");
  }
  {
    // A symbolic extent scales by an integral factor; bilinear is Relax's "linear".
    RelayHarness h;
    auto x = h.input("x", {intImm(1), sym("h"), sym("w"), intImm(3)});
    auto r = h.convert("nn.upsampling", {x}, {{"scale_h", rFloat(2)}, {"scale_w", rFloat(3)}, {"layout", rStr("NHWC")}, {"method", rStr("bilinear")}, {"align_corners", rBool(true)}});
    CHECK(sig(r) == "R.Tensor((1, h * 2, w * 3, 3), dtype=\"float32\")");
    CHECK(printedBody(h, r).find("method=\"linear\", coordinate_transformation_mode=\"align_corners\"") != std::string::npos);
  }
}

TEST_CASE("relay ops: transpose, concatenate, cast, copy, reshape_like, dyn.broadcast_to", "[relay]") {
  {
    RelayHarness h;
    auto x = h.input("x", {1, 3, 4});
    CHECK(printedBody(h, h.convert("transpose", {x}, {{"axes", rInts({0, -1, 1})}})) ==
          "gv: R.Tensor((1, 4, 3), dtype=\"float32\") = R.permute_dims(x, axes=[0, 2, 1])\n"
          "return gv");
    RelayHarness h2;
    auto y = h2.input("y", {1, 3, 4});
    CHECK(sig(h2.convert("transpose", {y})) == "R.Tensor((4, 3, 1), dtype=\"float32\")");  // no axes: reversed
  }
  {
    RelayHarness h;
    auto x = h.input("x", {2, 3}), y = h.input("y", {2, 1});
    CHECK(printedBody(h, h.convert("concatenate", {tupleOf({x, y})}, {{"axis", rInt(1)}})) ==
          "gv: R.Tensor((2, 4), dtype=\"float32\") = R.concat((x, y), axis=1)\n"
          "return gv");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {2});
    CHECK(printedBody(h, h.convert("cast", {x}, {{"dtype", rStr("float16")}})) ==
          "gv: R.Tensor((2,), dtype=\"float16\") = R.astype(x, dtype=\"float16\")\n"
          "return gv");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {2});
    CHECK(printedBody(h, h.convert("copy", {x})) == "return x");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {2, 3}), y = h.input("y", {3, 2});
    CHECK(printedBody(h, h.convert("reshape_like", {x, y})) ==
          "gv: R.Tensor((3, 2), dtype=\"float32\") = R.reshape(x, R.shape([3, 2]))\n"
          "return gv");
    RelayHarness h2;
    auto a = h2.input("a", {2, 3, 4}), b2 = h2.input("b", {6, 5});
    // x's dims [0, 2) replaced by y's dims [0, 1): (2, 3, 4) -> (6, 4).
    CHECK(sig(h2.convert("reshape_like", {a, b2}, {{"lhs_begin", rInt(0)}, {"lhs_end", rInt(2)}, {"rhs_end", rInt(1)}})) == "R.Tensor((6, 4), dtype=\"float32\")");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {1, 3}), s = h.input("s", {2}, "int64");
    CHECK(printedBody(h, h.convert("dyn.broadcast_to", {x, s})) ==
          "gv: R.Shape(ndim=2) = R.tensor_to_shape(s)\n"
          "gv1: R.Tensor(gv, dtype=\"float32\") = R.broadcast_to(x, gv)\n"
          "return gv1");
  }
}

TEST_CASE("relay ops: conv and pool attributes take Relax's form", "[relay]") {
  {
    // padding (1, 1) -> 4 values; channels / kernel_size dropped; out_dtype "" -> "void".
    RelayHarness h;
    auto x = h.input("x", {1, 3, 8, 8}), w = h.input("w", {4, 3, 3, 3});
    CHECK(printedBody(h, h.convert("nn.conv2d", {x, w}, {{"padding", rInts({1, 1})}, {"channels", rInt(4)}, {"kernel_size", rInts({3, 3})}, {"out_dtype", rStr("")}})) ==
          "gv: R.Tensor((1, 4, 8, 8), dtype=\"float32\") = R.nn.conv2d(x, w, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout=\"NCHW\", "
          "kernel_layout=\"OIHW\", out_layout=\"NCHW\", out_dtype=\"void\")\n"
          "return gv");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {1, 8, 8, 3}, "int8"), w = h.input("w", {3, 3, 3, 4}, "int8");
    auto r = h.convert("nn.conv2d", {x, w}, {{"strides", rInts({2, 2})}, {"padding", rInts({1, 0, 1, 0})}, {"data_layout", rStr("NHWC")}, {"kernel_layout", rStr("HWIO")}, {"out_dtype", rStr("int32")}});
    CHECK(sig(r) == "R.Tensor((1, 4, 3, 4), dtype=\"int32\")");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {1, 2, 4, 4, 4}), w = h.input("w", {3, 2, 3, 3, 3});
    auto r = h.convert("nn.conv3d", {x, w}, {{"padding", rInts({1, 1, 1})}});
    CHECK(printedBody(h, r).find("padding=[1, 1, 1, 1, 1, 1]") != std::string::npos);
    CHECK(sig(r) == "R.Tensor((1, 3, 4, 4, 4), dtype=\"float32\")");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {1, 2, 10}), w = h.input("w", {3, 2, 3});
    CHECK(sig(h.convert("nn.conv1d", {x, w}, {{"padding", rInts({1})}})) == "R.Tensor((1, 3, 10), dtype=\"float32\")");
  }
  {
    // Relay's transposed weight is (in, out, kh, kw): kernel_layout IOHW, as in Relax.
    RelayHarness h;
    auto x = h.input("x", {1, 4, 3, 3}), w = h.input("w", {4, 2, 3, 3});
    auto r = h.convert("nn.conv2d_transpose", {x, w}, {{"strides", rInts({2, 2})}, {"padding", rInts({1, 1})}, {"output_padding", rInts({1, 1})}});
    CHECK(sig(r) == "R.Tensor((1, 2, 6, 6), dtype=\"float32\")");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {1, 3, 8, 8});
    CHECK(printedBody(h, h.convert("nn.max_pool2d", {x}, {{"pool_size", rInts({3, 3})}, {"strides", rInts({2, 2})}, {"padding", rInts({1, 1, 1, 1})}})) ==
          "gv: R.Tensor((1, 3, 4, 4), dtype=\"float32\") = R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], dilation=[1, 1], padding=[1, 1, 1, 1], "
          "ceil_mode=False, count_include_pad=False, layout=\"NCHW\", out_layout=\"NCHW\")\n"
          "return gv");
    RelayHarness h2;
    auto y = h2.input("y", {1, 3, 7, 7});
    auto r = h2.convert("nn.avg_pool2d", {y}, {{"pool_size", rInts({2, 2})}, {"strides", rInts({2, 2})}, {"ceil_mode", rBool(true)}, {"count_include_pad", rBool(true)}});
    CHECK(sig(r) == "R.Tensor((1, 3, 4, 4), dtype=\"float32\")");
    CHECK(printedBody(h2, r).find("ceil_mode=True, count_include_pad=True") != std::string::npos);
  }
  {
    RelayHarness h;
    auto x = h.input("x", {1, 2, 4, 6, 8});
    CHECK(sig(h.convert("nn.adaptive_avg_pool3d", {x}, {{"output_size", rInts({1, 2, 2})}})) == "R.Tensor((1, 2, 1, 2, 2), dtype=\"float32\")");
    RelayHarness h2;
    auto y = h2.input("y", {1, 2, 4, 6});  // empty output_size keeps the extents
    CHECK(sig(h2.convert("nn.adaptive_avg_pool2d", {y}, {{"output_size", rInts({})}})) == "R.Tensor((1, 2, 4, 6), dtype=\"float32\")");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {1, 3, 8, 8}), w = h.input("w", {4, 3, 3, 3});
    CHECK(relayError(h, "nn.conv2d", {x, w}, {{"padding", rInts({1, 1, 1})}}) == "nn.conv2d: attribute 'padding' has 3 values; expected 1, 2 or 4");
  }
}

TEST_CASE("relay ops: normalization, softmax, dropout, pad", "[relay]") {
  {
    // Relay's batch_norm is the inference form: training=False keeps the given statistics.
    RelayHarness h;
    auto x = h.input("x", {1, 2, 3, 3}), g = h.input("g", {2}), b = h.input("b", {2}), m = h.input("m", {2}), v = h.input("v", {2});
    auto r = h.convert("nn.batch_norm", {x, g, b, m, v}, {{"epsilon", rFloat(2e-5)}, {"scale", rBool(false)}});
    CHECK(printedBody(h, r).find("R.nn.batch_norm(x, g, b, m, v, axis=1, epsilon=2.0000000000000002e-05, center=True, scale=False, momentum=0.10000000000000001, training=False)") !=
          std::string::npos);
    CHECK(sig(r) == "R.Tuple(R.Tensor((1, 2, 3, 3), dtype=\"float32\"), R.Tensor((2,), dtype=\"float32\"), R.Tensor((2,), dtype=\"float32\"))");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {2, 5}), g = h.input("g", {5}), b = h.input("b", {5});
    CHECK(printedBody(h, h.convert("nn.layer_norm", {x, g, b})).find("R.nn.layer_norm(x, g, b, axes=[-1], epsilon=1.0000000000000001e-05, center=True, scale=True)") != std::string::npos);
  }
  {
    RelayHarness h;
    auto x = h.input("x", {2, 4, 3, 3}), g = h.input("g", {4}), b = h.input("b", {4});
    CHECK(printedBody(h, h.convert("nn.group_norm", {x, g, b}, {{"num_groups", rInt(2)}})).find("num_groups=2, channel_axis=1, axes=[2, 3]") != std::string::npos);
  }
  {
    RelayHarness h;
    auto x = h.input("x", {2, 5});
    CHECK(printedBody(h, h.convert("nn.softmax", {x}, {{"axis", rInt(0)}})) == "gv: R.Tensor((2, 5), dtype=\"float32\") = R.nn.softmax(x, axis=0)\nreturn gv");
    RelayHarness h2;
    auto y = h2.input("y", {2, 5});
    CHECK(sig(h2.convert("nn.dropout", {y})) == "R.Tuple(R.Tensor((2, 5), dtype=\"float32\"), R.Tensor((2, 5), dtype=\"float32\"))");
  }
  {
    // v0.19 passes the pad value as a constant argument.
    RelayHarness h;
    auto x = h.input("x", {2, 2});
    auto value = Expr(make<Constant>(make<NDArray>(DataType::float32(), std::vector<int64_t>{})));
    value.as<Constant>()->data->setDouble(0, 1.5);
    value->sinfo = tensorSInfo({}, DataType::float32());
    CHECK(printedBody(h, h.convert("nn.pad", {x, value}, {{"pad_width", rArr({rInts({0, 0}), rInts({1, 2})})}})) ==
          "gv: R.Tensor((2, 5), dtype=\"float32\") = R.nn.pad(x, pad_width=[0, 0, 1, 2], pad_value=1.5, pad_mode=\"constant\")\n"
          "return gv");
    RelayHarness h2;
    auto y = h2.input("y", {2, 2});
    CHECK(relayError(h2, "nn.pad", {y, y}, {{"pad_width", rArr({rInts({0, 0}), rInts({1, 2})})}}) == "nn.pad: the pad value must be a constant (Relax pads with a number)");
  }
}

TEST_CASE("relay ops: reshape resolves Relay's newshape codes against the input shape", "[relay]") {
  auto shapeOf = [](std::vector<PrimExpr> in, std::vector<int64_t> newshape, bool allowZero = false) {
    RelayHarness h;
    auto x = h.input("x", std::move(in));
    relay::Attrs attrs = {{"newshape", rInts(newshape)}};
    if (allowZero) attrs.push_back({"allowzero", rInt(1)});
    try {
      return sig(h.convert("reshape", {x}, attrs));
    } catch (const relay::ImportError& e) {
      return std::string("error: ") + e.what();
    }
  };
  auto dims = [](std::initializer_list<int64_t> v) {
    std::vector<PrimExpr> out;
    for (auto d : v) out.push_back(intImm(d));
    return out;
  };
  CHECK(shapeOf(dims({2, 3, 4}), {0, -1}) == "R.Tensor((2, 12), dtype=\"float32\")");
  CHECK(shapeOf(dims({2, 3, 4}), {-1, 0}) == "R.Tensor((8, 3), dtype=\"float32\")");  // -1 consumes an input dim, 0 copies the next
  CHECK(shapeOf(dims({2, 3, 4}), {-2}) == "R.Tensor((2, 3, 4), dtype=\"float32\")");
  CHECK(shapeOf(dims({2, 3, 4}), {0, -2}) == "R.Tensor((2, 3, 4), dtype=\"float32\")");
  CHECK(shapeOf(dims({2, 3, 4}), {-3, -2}) == "R.Tensor((6, 4), dtype=\"float32\")");
  CHECK(shapeOf(dims({2, 3, 4}), {0, -3}) == "R.Tensor((2, 12), dtype=\"float32\")");
  CHECK(shapeOf(dims({2, 3, 4}), {-4, 1, 2, -2}) == "R.Tensor((1, 2, 3, 4), dtype=\"float32\")");
  CHECK(shapeOf(dims({2, 6, 4}), {0, -4, 2, -1, 0}) == "R.Tensor((2, 2, 3, 4), dtype=\"float32\")");
  CHECK(shapeOf(dims({2, 6, 4}), {0, -4, -1, 3, -2}) == "R.Tensor((2, 2, 3, 4), dtype=\"float32\")");
  // allowzero=1 reads 0 as a literal extent, which Relax's reshape does not take.
  CHECK(shapeOf(dims({6, 1}), {2, 0, 3}, true) == "error: reshape: R.reshape: shape values must be positive except a single -1, but the new shape is (2, 0, 3)");
  CHECK(shapeOf(dims({6, 1}), {2, 3}, true) == "R.Tensor((2, 3), dtype=\"float32\")");
  // Symbolic input dims flow through the codes; Relax infers the one -1.
  PrimExpr n = sym("n");
  CHECK(shapeOf({n, intImm(3), intImm(4)}, {0, -1}) == "R.Tensor((n, 12), dtype=\"float32\")");
  CHECK(shapeOf({n, intImm(3), intImm(4)}, {-3, 0}) == "R.Tensor((n * 3, 4), dtype=\"float32\")");
  CHECK(shapeOf({n, intImm(3), intImm(4)}, {-1, 4}) == "R.Tensor((n * 3, 4), dtype=\"float32\")");
  // Bad codes are located errors.
  CHECK(shapeOf(dims({2, 3}), {-1, -1}) == "error: reshape: newshape may infer (-1) at most one extent");
  CHECK(shapeOf(dims({2, 3}), {-3, -3}) == "error: reshape: newshape consumes more input dimensions than the input's 2");
  CHECK(shapeOf(dims({2, 3}), {-5}) == "error: reshape: newshape value -5 is not an extent or one of Relay's codes 0, -1, -2, -3, -4");
  CHECK(shapeOf(dims({6}), {-4, -1, -1}) == "error: reshape: newshape code -4 cannot split into two inferred (-1) extents");
}

TEST_CASE("relay ops: split, strided_slice, take and the other indexing ops", "[relay]") {
  {
    RelayHarness h;
    auto x = h.input("x", {6, 3});
    CHECK(sig(h.convert("split", {x}, {{"indices_or_sections", rInt(3)}})) ==
          "R.Tuple(R.Tensor((2, 3), dtype=\"float32\"), R.Tensor((2, 3), dtype=\"float32\"), R.Tensor((2, 3), dtype=\"float32\"))");
    RelayHarness h2;
    auto y = h2.input("y", {2, 8});
    CHECK(printedBody(h2, h2.convert("split", {y}, {{"indices_or_sections", rInts({3, 5})}, {"axis", rInt(1)}})).find("R.split(y, indices_or_sections=[3, 5], axis=1)") !=
          std::string::npos);
  }
  {
    // indices_or_sections from the meta table (runtime.BoxInt), as TVM prints it.
    RelayHarness h;
    relay::MetaValue two;
    two.kind = relay::MetaValue::Int;
    two.typeKey = "runtime.BoxInt";
    two.value = 2;
    h.meta["runtime.BoxInt"].push_back(two);
    auto x = h.input("x", {1, 4});
    CHECK(sig(h.convert("split", {x}, {{"indices_or_sections", rMeta("runtime.BoxInt", 0)}, {"axis", rInt(1)}})) ==
          "R.Tuple(R.Tensor((1, 2), dtype=\"float32\"), R.Tensor((1, 2), dtype=\"float32\"))");
    CHECK(relayError(h, "split", {x}, {{"indices_or_sections", rMeta("runtime.BoxInt", 4)}}) == "split: no meta table entry meta[runtime.BoxInt][4]");
  }
  {
    // Without axes, begin / end apply to the leading axes; size mode turns sizes into ends.
    RelayHarness h;
    auto x = h.input("x", {4, 5});
    CHECK(printedBody(h, h.convert("strided_slice", {x}, {{"begin", rInts({1, 1})}, {"end", rInts({2, -1})}, {"slice_mode", rStr("size")}})) ==
          "gv: R.Tensor((2, 4), dtype=\"float32\") = R.strided_slice(x, (R.prim_value(0), R.prim_value(1)), (R.prim_value(1), R.prim_value(1)), "
          "(R.prim_value(3), R.prim_value(5)), assume_inbound=False)\n"
          "return gv");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {4, 6});
    auto r = h.convert("strided_slice", {x}, {{"begin", rInts({1})}, {"end", rInts({6})}, {"strides", rInts({2})}, {"axes", rInts({-1})}});
    CHECK(sig(r) == "R.Tensor((4, 3), dtype=\"float32\")");
    CHECK(printedBody(h, r).find("R.strided_slice(x, (R.prim_value(1),), (R.prim_value(1),), (R.prim_value(6),), (R.prim_value(2),)") != std::string::npos);
  }
  {
    // A missing end with a negative stride runs to the start of the axis.
    RelayHarness h;
    auto x = h.input("x", {4, 5});
    CHECK(sig(h.convert("strided_slice", {x}, {{"begin", rInts({2})}, {"end", rInts({})}, {"strides", rInts({-1})}})) == "R.Tensor((3, 5), dtype=\"float32\")");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {5, 3}), idx = h.input("i", {2}, "int32");
    CHECK(printedBody(h, h.convert("take", {x, idx}, {{"axis", rInt(0)}})) == "gv: R.Tensor((2, 3), dtype=\"float32\") = R.take(x, i, axis=0, mode=\"clip\")\nreturn gv");
  }
  {
    // Relay's gather_nd indices are (M, Y...): the index tuple axis moves last for R.gather_nd.
    RelayHarness h;
    auto x = h.input("x", {3, 4, 5}), idx = h.input("i", {2, 7}, "int64");
    auto r = h.convert("gather_nd", {x, idx});
    CHECK(sig(r) == "R.Tensor((7, 5), dtype=\"float32\")");
    CHECK(printedBody(h, r).find("R.permute_dims(i, axes=[1, 0])") != std::string::npos);
  }
  {
    RelayHarness h;
    auto x = h.input("x", {2, 3}), y = h.input("y", {1, 2});
    CHECK(sig(h.convert("slice_like", {x, y})) == "R.Tensor((1, 2), dtype=\"float32\")");
  }
}

TEST_CASE("relay ops: reductions, arg reductions (int32) and scans", "[relay]") {
  {
    RelayHarness h;
    auto x = h.input("x", {2, 3, 4});
    CHECK(printedBody(h, h.convert("mean", {x}, {{"axis", rInts({1})}, {"exclude", rBool(true)}, {"keepdims", rBool(true)}})) ==
          "gv: R.Tensor((1, 3, 1), dtype=\"float32\") = R.mean(x, axis=[0, 2], keepdims=True)\nreturn gv");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {2, 3, 4});
    CHECK(printedBody(h, h.convert("sum", {x})) == "gv: R.Tensor((), dtype=\"float32\") = R.sum(x, axis=None, keepdims=False)\nreturn gv");
    RelayHarness h2;
    auto y = h2.input("y", {2, 3, 4});
    CHECK(sig(h2.convert("max", {y}, {{"axis", rInts({-1, 0})}})) == "R.Tensor((3,), dtype=\"float32\")");
  }
  {
    // Relay's argmax / argmin are int32.
    RelayHarness h;
    auto x = h.input("x", {2, 3});
    CHECK(printedBody(h, h.convert("argmax", {x}, {{"axis", rInts({1})}})) ==
          "gv: R.Tensor((2,), dtype=\"int64\") = R.argmax(x, axis=1, keepdims=False)\n"
          "gv1: R.Tensor((2,), dtype=\"int32\") = R.astype(gv, dtype=\"int32\")\n"
          "return gv1");
    RelayHarness h2;
    auto y = h2.input("y", {2, 3});
    CHECK(sig(h2.convert("argmin", {y}, {{"axis", rInts({0})}, {"keepdims", rBool(true)}})) == "R.Tensor((1, 3), dtype=\"int32\")");
    CHECK(relayError(h2, "argmax", {y}, {{"axis", rInts({0, 1})}}) == "argmax: reduces 2 axes; Relax's arg reductions take one axis or all");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {2, 3}), m = h.input("m", {2, 1});
    CHECK(sig(h.convert("variance", {x, m}, {{"axis", rInts({1})}, {"keepdims", rBool(true)}})) == "R.Tensor((2, 1), dtype=\"float32\")");
    RelayHarness h2;
    auto b = h2.input("b", {2, 3}, "bool");
    CHECK(sig(h2.convert("all", {b}, {{"axis", rInts({1})}})) == "R.Tensor((2,), dtype=\"bool\")");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {2, 3});
    CHECK(printedBody(h, h.convert("cumsum", {x}, {{"axis", rInt(1)}, {"exclusive", rInt(1)}})) ==
          "gv: R.Tensor((2, 3), dtype=\"float32\") = R.cumsum(x, axis=1, dtype=\"void\", exclusive=True)\nreturn gv");
  }
}

TEST_CASE("relay ops: shape_of, layout_transform, creation ops, expand_dims", "[relay]") {
  {
    RelayHarness h;
    auto x = h.input("x", {2, 3});
    CHECK(printedBody(h, h.convert("shape_of", {x})) ==
          "gv: R.Shape([2, 3]) = R.shape_of(x)\n"
          "gv1: R.Tensor((2,), dtype=\"int64\") = R.shape_to_tensor(gv)\n"
          "gv2: R.Tensor((2,), dtype=\"int32\") = R.astype(gv1, dtype=\"int32\")\n"
          "return gv2");
    RelayHarness h2;
    auto y = h2.input("y", {2, 3});
    CHECK(sig(h2.convert("shape_of", {y}, {{"dtype", rStr("int64")}})) == "R.Tensor((2,), dtype=\"int64\")");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {1, 8, 2, 2});
    CHECK(printedBody(h, h.convert("layout_transform", {x}, {{"src_layout", rStr("NCHW")}, {"dst_layout", rStr("NCHW4c")}})) ==
          "gv: R.Tensor((1, 2, 2, 2, 4), dtype=\"float32\") = R.layout_transform(x, index_map=T.index_map(lambda i0, i1, i2, i3: (i0, i1 // 4, i2, i3, i1 % 4)), "
          "pad_value=None, axis_separators=[], input_axis_separators=[])\n"
          "return gv");
    RelayHarness h2;
    auto y = h2.input("y", {4, 3, 2, 2});
    CHECK(sig(h2.convert("layout_transform", {y}, {{"src_layout", rStr("OIHW")}, {"dst_layout", rStr("OHWI")}})) == "R.Tensor((4, 2, 2, 3), dtype=\"float32\")");
    CHECK(relayError(h2, "layout_transform", {y}, {{"src_layout", rStr("NCHW")}, {"dst_layout", rStr("NCDHW")}}) ==
          "layout_transform: layouts \"NCHW\" and \"NCDHW\" do not have the same primal axes");
  }
  {
    RelayHarness h;
    CHECK(printedBody(h, h.convert("zeros", {}, {{"shape", rInts({1, 8})}, {"dtype", rStr("float32")}})) ==
          "gv: R.Tensor((1, 8), dtype=\"float32\") = R.zeros(R.shape([1, 8]), dtype=\"float32\")\nreturn gv");
    RelayHarness h2;
    auto x = h2.input("x", {2, 2}, "int32");
    CHECK(printedBody(h2, h2.convert("ones_like", {x})) == "gv: R.Tensor((2, 2), dtype=\"int32\") = R.ones_like(x, dtype=\"void\")\nreturn gv");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {3});
    CHECK(printedBody(h, h.convert("expand_dims", {x}, {{"axis", rInt(1)}, {"num_newaxis", rInt(2)}})) ==
          "gv: R.Tensor((3, 1, 1), dtype=\"float32\") = R.expand_dims(x, axis=[1, 2])\nreturn gv");
    RelayHarness h2;
    auto y = h2.input("y", {3, 4});
    CHECK(sig(h2.convert("expand_dims", {y}, {{"axis", rInt(-1)}})) == "R.Tensor((3, 4, 1), dtype=\"float32\")");
  }
}

TEST_CASE("relay ops: on_device and device_copy become R.hint_on_device", "[relay]") {
  {
    RelayHarness h;
    h.meta["VirtualDevice"] = {device(1), device(2, 1)};
    auto x = h.input("x", {2});
    CHECK(printedBody(h, h.convert("on_device", {x}, {{"virtual_device", rMeta("VirtualDevice", 1)}, {"constrain_result", rBool(true)}})) ==
          "gv: R.Tensor((2,), dtype=\"float32\") = R.hint_on_device(x, R.device(device_type=2, index=1), \"global\")\nreturn gv");
  }
  {
    RelayHarness h;
    h.meta["VirtualDevice"] = {device(1), device(2)};
    auto x = h.input("x", {2});
    CHECK(printedBody(h, h.convert("device_copy", {x}, {{"src_virtual_device", rMeta("VirtualDevice", 0)}, {"dst_virtual_device", rMeta("VirtualDevice", 1)}})) ==
          "gv: R.Tensor((2,), dtype=\"float32\") = R.hint_on_device(x, R.device(device_type=2, index=0), \"global\")\nreturn gv");
  }
  {
    // The older integer form, and an unconstrained device (no placement to keep).
    RelayHarness h;
    auto x = h.input("x", {2});
    CHECK(printedBody(h, h.convert("on_device", {x}, {{"device_type", rInt(1)}})).find("R.hint_on_device(x, R.device(device_type=1, index=0), \"global\")") != std::string::npos);
    // A VirtualDevice giving only its target: the target's device type.
    RelayHarness h3;
    relay::MetaValue gpu = device(-1);
    gpu.target = "cuda";
    h3.meta["VirtualDevice"] = {gpu};
    auto z = h3.input("z", {2});
    CHECK(printedBody(h3, h3.convert("on_device", {z}, {{"virtual_device", rMeta("VirtualDevice", 0)}})).find("R.device(device_type=2, index=0)") != std::string::npos);
    RelayHarness h2;
    h2.meta["VirtualDevice"] = {device(-1)};
    auto y = h2.input("y", {2});
    CHECK(printedBody(h2, h2.convert("on_device", {y}, {{"virtual_device", rMeta("VirtualDevice", 0)}})) == "return y");
  }
  {
    RelayHarness h;
    h.meta["VirtualDevice"] = {device(1)};
    relay::MetaValue box;
    box.kind = relay::MetaValue::Int;
    box.typeKey = "runtime.BoxInt";
    h.meta["runtime.BoxInt"] = {box};
    auto x = h.input("x", {2});
    CHECK(relayError(h, "on_device", {x}, {{"virtual_device", rMeta("VirtualDevice", 3)}}) == "on_device: no meta table entry meta[VirtualDevice][3]");
    CHECK(relayError(h, "on_device", {x}, {{"virtual_device", rMeta("runtime.BoxInt", 0)}}) == "on_device: meta[runtime.BoxInt][0] is a runtime.BoxInt, not a VirtualDevice");
  }
}

TEST_CASE("relay ops: bad calls are located errors naming the op", "[relay]") {
  RelayHarness h;
  auto x = h.input("x", {2, 3});
  CHECK(relayError(h, "nn.softmax", {x}, {{"axes", rInt(1)}}) == "nn.softmax: unknown attribute 'axes' | did you mean 'axis'? nn.softmax takes axis");
  CHECK(relayError(h, "nn.relu", {x}, {{"alpha", rInt(1)}, {"beta", rInt(2)}}) == "nn.relu: unknown attributes 'alpha', 'beta' | nn.relu takes no attributes");
  CHECK(relayError(h, "add", {x}) == "add: takes 2 arguments, but the call has 1");
  CHECK(relayError(h, "nn.softmax", {x}, {{"axis", rStr("last")}}) == "nn.softmax: attribute 'axis' must be an int, but it is a string");
  // (Inference errors come from the emitter, here the test harness's, which adds no prefix.)
  CHECK(relayError(h, "nn.softmax", {tupleOf({x, x})}) == "R.nn.softmax: expected data to be a tensor, but it is R.Tuple(R.Tensor((2, 3), dtype=\"float32\"), R.Tensor((2, 3), dtype=\"float32\"))");
  CHECK(relayError(h, "nn.dense", {x, tupleOf({x})}) == "nn.dense: argument 1 must be a tensor");
  CHECK(relayError(h, "memory.kill", {x}) == "no conversion for memory.kill: `memory.kill` is a Relay backend op (VM lowering output), not an input op");
  // An attribute error points at the attribute's own span.
  relay::AttrValue bad = rStr("x");
  bad.span = Span{1, 3, 7, 2};
  try {
    h.convert("nn.softmax", {x}, {{"axis", bad}});
    FAIL("no error");
  } catch (const relay::ImportError& e) {
    CHECK(e.span.line == 3);
    CHECK(e.span.col == 7);
  }
}

TEST_CASE("relay ops: concatenate and stack take a tuple-typed variable as well as a tuple", "[relay]") {
  RelayHarness h;
  auto t = make<Var>("t", make<TupleSInfo>(std::vector<StructInfo>{tensorSInfo({intImm(2), intImm(3)}, DataType::float32()), tensorSInfo({intImm(1), intImm(3)}, DataType::float32())}));
  h.params.push_back(t);
  CHECK(printedBody(h, h.convert("concatenate", {t})) == "gv: R.Tensor((3, 3), dtype=\"float32\") = R.concat(t, axis=0)\nreturn gv");
  RelayHarness h2;
  auto x = h2.input("x", {2}), y = h2.input("y", {2});
  CHECK(sig(h2.convert("stack", {tupleOf({x, y})}, {{"axis", rInt(1)}})) == "R.Tensor((2, 2), dtype=\"float32\")");
}
