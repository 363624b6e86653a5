// The Relax that rlx's further Relay conversions print (dyn.* read as their static twins, QNN,
// annotations, the composite rewrites), their struct info against Relay's type relations, and the
// located errors for the forms that have no exact Relax spelling.
#include <catch2/catch.hpp>

#include "tests/unit/relay_op_harness.h"

using namespace rlx;
using namespace rlx::test;

namespace {

std::string sig(const Expr& e) { return printStructInfo(sinfoOf(e)); }

Expr i64(std::vector<int64_t> shape, std::vector<double> v) { return rConst("int64", std::move(shape), std::move(v)); }

}  // namespace

TEST_CASE("relay ops: annotations that only mark a value are the value", "[relay]") {
  for (const char* op : {"annotation.stop_fusion", "annotation.checkpoint", "annotation.bitpack_start", "annotation.bitpack_end"}) {
    INFO(op);
    RelayHarness h;
    auto x = h.input("x", {2});
    CHECK(printedBody(h, h.convert(op, {x})) == "return x");
  }
  RelayHarness h;
  auto x = h.input("x", {2});
  CHECK(printedBody(h, h.convert("annotation.cast_hint", {x}, {{"dtype", rStr("float16")}})) == "return x");
  std::string why;
  CHECK(relay::findConverter("annotation.compiler_begin", &why) == nullptr);
  CHECK(why == "`annotation.compiler_begin` is a Relay backend op (BYOC AnnotateTarget output; Relax partitions with FuseOpsByPattern), not an input op");
}

TEST_CASE("relay ops: dyn. ops with constant arguments print as their static twins", "[relay]") {
  {
    RelayHarness h;
    auto x = h.input("x", {2, 3});
    CHECK(printedBody(h, h.convert("dyn.reshape", {x, i64({2}, {0, -1})})) ==
          "gv: R.Tensor((2, 3), dtype=\"float32\") = R.reshape(x, R.shape([2, 3]))\n"
          "return gv");
  }
  {
    RelayHarness h;
    CHECK(printedBody(h, h.convert("dyn.zeros", {i64({2}, {2, 2})}, {{"dtype", rStr("int32")}})) ==
          "gv: R.Tensor((2, 2), dtype=\"int32\") = R.zeros(R.shape([2, 2]), dtype=\"int32\")\n"
          "return gv");
  }
  {
    RelayHarness h;
    auto s = h.input("s", {2}, "int64");
    CHECK(printedBody(h, h.convert("dyn.zeros", {s})) ==
          "gv: R.Shape(ndim=2) = R.tensor_to_shape(s)\n"
          "gv1: R.Tensor(gv, dtype=\"float32\") = R.zeros(gv, dtype=\"float32\")\n"
          "return gv1");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {1, 3, 4, 4});
    CHECK(sig(h.convert("dyn.nn.upsampling", {x, rConst("float32", {}, {2}), rConst("float32", {}, {0.5})})) == "R.Tensor((1, 3, 8, 2), dtype=\"float32\")");
    CHECK(sig(h.convert("dyn.image.resize2d", {x, i64({2}, {5, 6}), rConst("float32", {4}, {0, 0, 0, 0})}, {{"method", rStr("nearest_neighbor")}})) ==
          "R.Tensor((1, 3, 5, 6), dtype=\"float32\")");
    CHECK(sig(h.convert("dyn.one_hot", {h.input("i", {3}, "int32"), rConst("float32", {}, {1}), rConst("float32", {}, {0}), i64({}, {5})}, {{"axis", rInt(-1)}, {"dtype", rStr("float32")}})) ==
          "R.Tensor((3, 5), dtype=\"float32\")");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {2, 3}), s = h.input("s", {2}, "int64");
    CHECK(relayError(h, "dyn.reshape", {x, s}) ==
          "dyn.reshape: the new shape must be a constant: Relay resolves its codes (0, -1, -2, -3, -4) at run time, Relax's reshape takes the extents");
    CHECK(relayError(h, "dyn.tile", {x, s}) == "dyn.tile: reps must be a constant: R.tile takes its repeats as an attribute");
    // Errors of the static twin still name the dyn. op.
    CHECK(relayError(h, "dyn.expand_dims", {x, i64({}, {5})}) == "dyn.expand_dims: axis 5 is out of range for a tensor of rank 2");
    std::string why;
    CHECK(relay::findConverter("dyn.nn.upsampling3d", &why) == nullptr);
    CHECK(why == "`dyn.nn.upsampling3d` has no Relax v0.23 form (Relax has no resize3d)");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {4}), b = h.input("b", {1}, "int64");
    CHECK(relayError(h, "dyn.strided_slice", {x, b, b, b}, {{"slice_mode", rStr("size")}}) ==
          "dyn.strided_slice: computed bounds with slice_mode \"size\" have no Relax form (R.dynamic_strided_slice takes ends)");
    CHECK(printedBody(h, h.convert("dyn.strided_slice", {x, b, b, b})) ==
          "gv: R.Tensor(dtype=\"float32\", ndim=1) = R.dynamic_strided_slice(x, b, b, b)\n"
          "return gv");
  }
}

TEST_CASE("relay ops: shape rewrites print as reshape / permute chains", "[relay]") {
  {
    RelayHarness h;
    auto x = h.input("x", {1, 8, 2, 3});
    CHECK(printedBody(h, h.convert("nn.depth_to_space", {x}, {{"block_size", rInt(2)}})) ==
          "gv: R.Tensor((1, 2, 2, 2, 2, 3), dtype=\"float32\") = R.reshape(x, R.shape([1, 2, 2, 2, 2, 3]))\n"
          "gv1: R.Tensor((1, 2, 2, 2, 3, 2), dtype=\"float32\") = R.permute_dims(gv, axes=[0, 3, 4, 1, 5, 2])\n"
          "gv2: R.Tensor((1, 2, 4, 6), dtype=\"float32\") = R.reshape(gv1, R.shape([1, 2, 4, 6]))\n"
          "return gv2");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {1, 4, 6, 3});
    CHECK(sig(h.convert("nn.space_to_depth", {x}, {{"block_size", rInt(2)}, {"layout", rStr("NHWC")}})) == "R.Tensor((1, 2, 3, 12), dtype=\"float32\")");
    CHECK(relayError(h, "nn.space_to_depth", {x}, {{"block_size", rInt(2)}, {"layout", rStr("HWCN")}}) == "nn.space_to_depth: layout \"HWCN\" is not supported (NCHW or NHWC)");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {10, 5, 4});
    // Relay's docs: newshape (-1, 0) gives (40, 5) by reshape and (50, 4) by reverse_reshape.
    CHECK(sig(h.convert("reshape", {x}, {{"newshape", rInts({-1, 0})}})) == "R.Tensor((40, 5), dtype=\"float32\")");
    CHECK(sig(h.convert("contrib_reverse_reshape", {x}, {{"newshape", rInts({-1, 0})}})) == "R.Tensor((50, 4), dtype=\"float32\")");
  }
  {
    RelayHarness h;
    auto x = h.input("x", {2, 3}), s = h.input("s", {1}, "int64");
    CHECK(sig(h.convert("collapse_sum_to", {x, s})) == "R.Tensor(gv, dtype=\"float32\")");
    CHECK(printedBody(h, h.convert("collapse_sum_to", {x, i64({1}, {3})}, {{"shape", rInts({3})}})).find("R.collapse_sum_to(x, R.shape([3]))") != std::string::npos);
  }
}

TEST_CASE("relay ops: QNN conversions print the shifted integer op or the float round trip", "[relay]") {
  auto i32 = [](double v) { return rConst("int32", {}, {v}); };
  auto f32 = [](double v) { return rConst("float32", {}, {v}); };
  {
    RelayHarness h;
    auto x = h.input("x", {1, 2}, "int8"), w = h.input("w", {3, 2}, "int8");
    Expr r = h.convert("qnn.dense", {x, w, i32(1), i32(2), f32(0.5), f32(0.25)}, {{"units", rInt(3)}, {"out_dtype", rStr("int32")}});
    CHECK(sig(r) == "R.Tensor((1, 3), dtype=\"int32\")");
    std::string text = printedBody(h, r);
    CHECK(text.find("R.astype(x, dtype=\"int32\")") != std::string::npos);
    CHECK(text.find("R.subtract(") != std::string::npos);
    CHECK(text.find("R.matmul(") != std::string::npos);
  }
  {
    RelayHarness h;
    auto x = h.input("x", {1, 3, 4, 4}, "uint8"), w = h.input("w", {8, 3, 3, 3}, "int8");
    Expr r = h.convert("qnn.conv2d", {x, w, i32(1), rConst("int32", {8}, {}), f32(0.5), rConst("float32", {8}, {})},
                       {{"padding", rInts({1, 1})}, {"channels", rInt(8)}, {"kernel_size", rInts({3, 3})}, {"out_dtype", rStr("int32")}});
    CHECK(sig(r) == "R.Tensor((1, 8, 4, 4), dtype=\"int32\")");
    // The per-channel weight zero point lies along the kernel's O axis.
    CHECK(printedBody(h, r).find("R.reshape(") != std::string::npos);
  }
  {
    RelayHarness h;
    auto x = h.input("x", {4}, "int8");
    CHECK(printedBody(h, h.convert("qnn.tanh", {x, f32(0.5), i32(0), f32(0.25), i32(1)})) ==
          "gv: R.Tensor((4,), dtype=\"float32\") = R.dequantize(x, R.const(0.5, \"float32\"), R.const(0, \"int32\"), out_dtype=\"float32\", axis=-1)\n"
          "gv1: R.Tensor((4,), dtype=\"float32\") = R.tanh(gv)\n"
          "gv2: R.Tensor((4,), dtype=\"int8\") = R.quantize(gv1, R.const(0.25, \"float32\"), R.const(1, \"int32\"), out_dtype=\"int8\", axis=-1)\n"
          "return gv2");
  }
  {
    RelayHarness h;
    auto a = h.input("a", {2}, "int8"), b2 = h.input("b", {3}, "int8");
    Expr data = make<Tuple>(std::vector<Expr>{a, b2});
    Expr scales = make<Tuple>(std::vector<Expr>{f32(0.5), f32(0.5)}), zps = make<Tuple>(std::vector<Expr>{i32(0), i32(0)});
    CHECK(sig(h.convert("qnn.concatenate", {data, scales, zps, f32(0.5), i32(0)}, {{"axis", rInt(0)}})) == "R.Tensor((5,), dtype=\"int8\")");
  }
  std::string why;
  CHECK(relay::findConverter("qnn.softmax", &why) == nullptr);
  CHECK(why.find("own QNN canonicalization in fixed-point integer arithmetic") != std::string::npos);
  why.clear();
  CHECK(relay::findConverter("qnn.contrib_dense_pack", &why) == nullptr);
  CHECK(why.find("is a Relay backend op") != std::string::npos);
}

TEST_CASE("relay ops: struct info of the further rewrites agrees with Relay's type relations", "[relay]") {
  RelayHarness h;
  auto x = h.input("x", {2, 3, 4, 4});
  CHECK(sig(h.convert("nn.lrn", {x})) == "R.Tensor((2, 3, 4, 4), dtype=\"float32\")");
  CHECK(sig(h.convert("nn.dilate", {x}, {{"strides", rInts({1, 1, 2, 3})}})) == "R.Tensor((2, 3, 7, 10), dtype=\"float32\")");
  CHECK(sig(h.convert("nn.adaptive_max_pool2d", {x}, {{"output_size", rInts({2})}})) == "R.Tensor((2, 3, 2, 2), dtype=\"float32\")");
  CHECK(relayError(h, "nn.adaptive_max_pool2d", {x}, {{"output_size", rInts({3, 3})}}) ==
        "nn.adaptive_max_pool2d: output size 3 does not divide the input extent 4 (Relax v0.23 has no adaptive max pool for overlapping windows)");
  // argwhere: Relay's (?, rank) int32.
  CHECK(sig(h.convert("argwhere", {x})) == "R.Tensor(dtype=\"int32\", ndim=2)");
  auto len = h.input("len", {2}, "int32");
  auto seq = h.input("seq", {2, 3});
  CHECK(sig(h.convert("sequence_mask", {seq, len}, {{"axis", rInt(1)}})) == "R.Tensor((2, 3), dtype=\"float32\")");
  CHECK(sig(h.convert("reverse_sequence", {seq, len})) == "R.Tensor((2, 3), dtype=\"float32\")");
  CHECK(sig(h.convert("ndarray_size", {x})) == "R.Tensor((), dtype=\"int32\")");
  auto idx = h.input("idx", {3}, "int64");
  CHECK(sig(h.convert("unravel_index", {idx, i64({3}, {2, 3, 4})})) == "R.Tensor((3, 3), dtype=\"int64\")");
  CHECK(relayError(h, "unravel_index", {idx, idx}) == "unravel_index: the shape must be a constant (its strides are folded into the rewrite)");
  auto sorted2 = h.input("s2", {2, 3});
  CHECK(relayError(h, "searchsorted", {sorted2, seq}) == "searchsorted: a sorted sequence of rank 2 has no Relax form (R.bucketize searches one 1-D sequence)");
  auto boxes = h.input("boxes", {1, 5, 4}), scores = h.input("scores", {1, 2, 5});
  CHECK(sig(h.convert("vision.all_class_non_max_suppression", {boxes, scores, i64({}, {3}), rConst("float32", {}, {0.5}), rConst("float32", {}, {0.1})})) ==
        "R.Tuple(R.Tensor((10, 3), dtype=\"int64\"), R.Tensor((1,), dtype=\"int64\"))");
  auto img = h.input("img", {1, 3, 5});
  CHECK(sig(h.convert("image.resize1d", {img}, {{"size", rInts({9})}})) == "R.Tensor((1, 3, 9), dtype=\"float32\")");
  auto g = h.input("g", {2, 2, 6, 7});
  CHECK(sig(h.convert("image.grid_sample", {x, g})) == "R.Tensor((2, 3, 6, 7), dtype=\"float32\")");
  auto grad = h.input("grad", {2, 3, 2, 2});
  CHECK(sig(h.convert("nn.avg_pool2d_grad", {grad, x}, {{"pool_size", rInts({2, 2})}, {"strides", rInts({2, 2})}})) == "R.Tensor((2, 3, 4, 4), dtype=\"float32\")");
  std::string why;
  CHECK(relay::findConverter("unique", &why) == nullptr);
  CHECK(why == "`unique` has no Relax v0.23 form (Relay pads its outputs to the input's length and returns the count; R.unique returns exact-size tensors)");
}
