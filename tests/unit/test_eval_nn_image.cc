// Reference evaluator against hand-computed values: image.resize2d, image.grid_sample,
// all_class_non_max_suppression, quantize and dequantize.
#include <catch2/catch.hpp>

#include <cmath>

#include "tests/unit/eval_nn_test_util.h"

using namespace rlx;
using namespace rlx::test;

namespace {
Evaluated resize(PyValue x, int64_t h, int64_t w, KwArgs kw) { return ev("relax.image.resize2d", {std::move(x), Tup({I(h), I(w)})}, std::move(kw)); }
PyValue img2x2() { return C("float32", {1, 1, 2, 2}, {1, 2, 3, 4}); }
PyValue grid(double x, double y) { return C("float32", {1, 1, 1, 2}, {x, y}); }
}  // namespace

TEST_CASE("eval: resize2d nearest_neighbor rounding", "[eval][nn][image]") {
  auto row3 = [] { return C("float32", {1, 1, 1, 3}, {1, 2, 3}); };
  auto nearest = [&](const char* rounding) {
    return resize(row3(), 1, 2, {{"method", S("nearest_neighbor")}, {"coordinate_transformation_mode", S("asymmetric")}, {"rounding_method", S(rounding)}});
  };
  // source x = 0, 1.5
  checkNear(nearest("round"), {1, 1, 1, 2}, {1, 3});  // half to even
  checkNear(nearest("round_prefer_floor"), {1, 1, 1, 2}, {1, 2});
  checkNear(nearest("round_prefer_ceil"), {1, 1, 1, 2}, {1, 3});
  checkNear(nearest("floor"), {1, 1, 1, 2}, {1, 2});
  checkNear(nearest("ceil"), {1, 1, 1, 2}, {1, 3});
  CHECK(nearest("nearest").error == "error: R.image.resize2d: unknown rounding_method \"nearest\"");
  // an integer upscale with asymmetric coordinates divides exactly (x / 3), whatever the rounding
  checkNear(resize(C("float32", {1, 1, 1, 2}, {1, 2}), 1, 6, {{"method", S("nearest_neighbor")}, {"coordinate_transformation_mode", S("asymmetric")}}), {1, 1, 1, 6},
            {1, 1, 1, 2, 2, 2});
  // half_pixel: source x = 0.5, 2.5
  auto row4 = [] { return C("float32", {1, 1, 1, 4}, {1, 2, 3, 4}); };
  checkNear(resize(row4(), 1, 2, {{"method", S("nearest_neighbor")}}), {1, 1, 1, 2}, {1, 3});
  checkNear(resize(row4(), 1, 2, {{"method", S("nearest_neighbor")}, {"rounding_method", S("round_prefer_ceil")}}), {1, 1, 1, 2}, {2, 4});
  checkNear(resize(row4(), 1, 2, {{"method", S("nearest_neighbor")}, {"rounding_method", S("")}}), {1, 1, 1, 2}, {1, 3});
}

TEST_CASE("eval: resize2d linear", "[eval][nn][image]") {
  auto row = [] { return C("float32", {1, 1, 1, 2}, {0, 10}); };
  checkNear(resize(row(), 1, 4, {}), {1, 1, 1, 4}, {0, 2.5, 7.5, 10});  // half_pixel; the ends clamp
  checkNear(resize(row(), 1, 4, {{"coordinate_transformation_mode", S("align_corners")}}), {1, 1, 1, 4}, {0, 10.0 / 3, 20.0 / 3, 10});
  checkNear(resize(row(), 1, 4, {{"coordinate_transformation_mode", S("asymmetric")}}), {1, 1, 1, 4}, {0, 5, 10, 10});
  checkNear(resize(row(), 1, 4, {{"coordinate_transformation_mode", S("pytorch_half_pixel")}}), {1, 1, 1, 4}, {0, 2.5, 7.5, 10});
  auto sq = C("float32", {1, 1, 2, 2}, {0, 10, 20, 30});
  checkNear(resize(sq, 3, 3, {{"coordinate_transformation_mode", S("align_corners")}}), {1, 1, 3, 3}, {0, 5, 10, 10, 15, 20, 20, 25, 30});
  // NHWC, and an integer out_dtype truncates like a cast
  checkNear(resize(C("float32", {1, 1, 2, 1}, {0, 10}), 1, 4, {{"layout", S("NHWC")}}), {1, 1, 4, 1}, {0, 2.5, 7.5, 10});
  auto i = resize(row(), 1, 4, {{"out_dtype", S("int32")}});
  CHECK(i.dtype == "int32");
  CHECK(i.values == V{0, 2, 7, 10});
  CHECK(resize(row(), 1, 4, {{"coordinate_transformation_mode", S("sideways")}}).error ==
        "error: R.image.resize2d: unknown coordinate_transformation_mode \"sideways\"");
}

TEST_CASE("eval: resize2d cubic and tf_crop_and_resize", "[eval][nn][image]") {
  // source x = 0.5 and 2.5; weights at t = 0.5 with alpha -0.75: (-0.09375, 0.59375, 0.59375, -0.09375)
  auto row = [] { return C("float32", {1, 1, 1, 4}, {0, 1, 4, 9}); };
  checkNear(resize(row(), 1, 2, {{"method", S("cubic")}}), {1, 1, 1, 2}, {0.21875, 6.78125});
  // cubic_exclude drops the taps outside the image and renormalizes
  checkNear(resize(row(), 1, 2, {{"method", S("cubic")}, {"cubic_exclude", I(1)}}), {1, 1, 1, 2}, {0.2, 7.625 / 1.09375});
  // roi [start_h, start_w, end_h, end_w]: source x = -1, 1, 3; outside gets extrapolation_value
  auto crop = resize(C("float32", {1, 1, 1, 3}, {0, 10, 20}), 1, 3,
                     {{"coordinate_transformation_mode", S("tf_crop_and_resize")}, {"roi", L({F(0), F(-0.5), F(0), F(1.5)})}, {"extrapolation_value", F(7)}});
  checkNear(crop, {1, 1, 1, 3}, {7, 10, 7});
}

TEST_CASE("eval: grid_sample", "[eval][nn][image]") {
  auto gs = [](PyValue g, KwArgs kw) { return ev("relax.image.grid_sample", {img2x2(), std::move(g)}, std::move(kw)); };
  checkNear(gs(grid(0, 0), {}), {1, 1, 1, 1}, {2.5});
  checkNear(gs(grid(0, 0), {{"align_corners", B(true)}}), {1, 1, 1, 1}, {2.5});
  // the top-left corner of the top-left pixel: zeros padding weighs in
  checkNear(gs(grid(-1, -1), {}), {1, 1, 1, 1}, {0.25});
  checkNear(gs(grid(-1, -1), {{"padding_mode", S("border")}}), {1, 1, 1, 1}, {1});
  checkNear(gs(grid(-1, -1), {{"padding_mode", S("reflection")}}), {1, 1, 1, 1}, {1});
  // x = 1.25 reflects to 0.75 about the last pixel (aligned corners)
  checkNear(gs(grid(1.5, -1), {{"padding_mode", S("reflection")}, {"align_corners", B(true)}}), {1, 1, 1, 1}, {1.75});
  checkNear(gs(grid(0.2, -0.6), {{"method", S("nearest")}, {"align_corners", B(true)}}), {1, 1, 1, 1}, {2});
  // bicubic: taps outside a 2x2 image are zero; t = 0.5 weights 0.59375 for the inner taps
  checkNear(gs(grid(0, 0), {{"method", S("bicubic")}}), {1, 1, 1, 1}, {0.59375 * (0.59375 * 3 + 0.59375 * 7)});
  auto flat = ev("relax.image.grid_sample", {iota("float32", {1, 1, 3, 3}, 5, 0), grid(0.3, -0.7)}, {{"method", S("bicubic")}, {"padding_mode", S("border")}});
  checkNear(flat, {1, 1, 1, 1}, {5});
  // two output positions and two channels
  auto two = ev("relax.image.grid_sample", {C("float32", {1, 2, 1, 2}, {1, 2, 10, 20}), C("float32", {1, 1, 2, 2}, {-1, 0, 1, 0})}, {{"align_corners", B(true)}});
  checkNear(two, {1, 2, 1, 2}, {1, 2, 10, 20});
}

TEST_CASE("eval: volumetric grid_sample (NCDHW)", "[eval][nn][image]") {
  // A 2x2x2 volume holding 0..7 (z major, x minor); the grid holds (x, y, z).
  auto vol = [] { return iota("float32", {1, 1, 2, 2, 2}, 0, 1); };
  auto at = [&](double x, double y, double z, const char* method) {
    return ev("relax.image.grid_sample", {vol(), C("float32", {1, 1, 1, 1, 3}, {x, y, z})},
              {{"method", S(method)}, {"layout", S("NCDHW")}, {"align_corners", B(true)}});
  };
  checkNear(at(0, 0, 0, "bilinear"), {1, 1, 1, 1, 1}, {3.5});  // the mean of all eight
  checkNear(at(-1, -1, -1, "bilinear"), {1, 1, 1, 1, 1}, {0});
  checkNear(at(1, -1, -1, "bilinear"), {1, 1, 1, 1, 1}, {1});
  checkNear(at(-1, 1, 1, "bilinear"), {1, 1, 1, 1, 1}, {6});
  checkNear(at(0.5, -1, 1, "bilinear"), {1, 1, 1, 1, 1}, {4.75});  // between 4 and 5, x = 0.75
  checkNear(at(0.2, 0.9, -0.8, "nearest"), {1, 1, 1, 1, 1}, {3});  // (z 0, y 1, x 1)
}

TEST_CASE("eval: quantize", "[eval][nn][image]") {
  auto r = ev("relax.quantize", {C("float32", {4}, {0.5, 1.5, 2.5, -300}), C("float32", {}, {0.5}), C("int8", {}, {1})});
  CHECK(r.dtype == "int8");
  CHECK(r.values == V{2, 4, 6, -128});
  CHECK(ev("relax.quantize", {C("float32", {3}, {0.25, 0.75, -0.25}), C("float32", {}, {0.5}), C("int8", {}, {0})}).values == V{0, 2, 0});
  // per-channel along the last axis
  CHECK(ev("relax.quantize", {C("float32", {2, 2}, {1, 2, 3, 4}), C("float32", {2}, {1, 2}), C("int8", {2}, {0, 10})}).values == V{1, 11, 3, 12});
  auto u = ev("relax.quantize", {C("float32", {2}, {-5, 1000}), C("float32", {1}, {1}), C("int32", {1}, {0})}, {{"out_dtype", S("uint8")}});
  CHECK(u.dtype == "uint8");
  CHECK(u.values == V{0, 255});
}

TEST_CASE("eval: dequantize", "[eval][nn][image]") {
  checkNear(ev("relax.dequantize", {C("int8", {3}, {-128, 0, 127}), C("float32", {}, {0.5}), C("int8", {}, {1})}), {3}, {-64.5, -0.5, 63});
  checkNear(ev("relax.dequantize", {C("int8", {2, 1}, {10, 10}), C("float32", {2}, {1, 0.5}), C("int8", {2}, {0, 2})}, {{"axis", I(0)}}), {2, 1}, {10, 4});
  auto h = ev("relax.dequantize", {C("int32", {1}, {100000}), C("float32", {}, {1}), C("int32", {}, {0})}, {{"out_dtype", S("float16")}});
  CHECK(h.dtype == "float16");
  CHECK(h.values == V{65504});
  auto bad = Value::ofTensor(nd("float32", {3}, {1, 1, 1}));
  CHECK(evalOn("relax.dequantize", {C("int8", {2}, {}), C("float32", {2}, {}), C("int8", {}, {})}, {},
               {TV("int8", {2}, {}), bad, TV("int8", {}, {})}) == "error: R.dequantize: scale has 3 entries but axis 0 has extent 2");
}

TEST_CASE("eval: non-finite coordinates do not crash the image evaluators", "[eval][nn][image]") {
  auto r = ev("relax.image.grid_sample", {img2x2(), grid(NAN, INFINITY)}, {{"method", S("nearest")}});
  REQUIRE(r.ok);
  CHECK(r.values == V{0});
  for (const char* method : {"bilinear", "bicubic"})
    for (const char* pad : {"zeros", "border", "reflection"})
      CHECK(ev("relax.image.grid_sample", {img2x2(), grid(1e300, NAN)}, {{"method", S(method)}, {"padding_mode", S(pad)}}).ok);
  CHECK(resize(img2x2(), 2, 2, {{"coordinate_transformation_mode", S("tf_crop_and_resize")}, {"roi", L({F(NAN), F(0), F(1e300), F(1)})}, {"method", S("cubic")}}).ok);
}

TEST_CASE("eval: all_class_non_max_suppression", "[eval][nn][image]") {
  // box 1 overlaps box 0 with IoU 0.9 / 1.1; box 2 is apart. Boxes are (y1, x1, y2, x2).
  auto boxes = [] { return C("float32", {1, 3, 4}, {0, 0, 1, 1, 0, 0.1, 1, 1.1, 2, 2, 3, 3}); };
  auto scores = [] { return C("float32", {1, 2, 3}, {0.9, 0.8, 0.7, 0.1, 0.6, 0.95}); };
  auto nms = [&](double maxOut, double iou, KwArgs kw, size_t field) {
    return evField("relax.vision.all_class_non_max_suppression",
                   {boxes(), scores(), C("int64", {1}, {maxOut}), C("float32", {1}, {iou}), C("float32", {1}, {0.2})}, std::move(kw), field);
  };
  // class 0 keeps boxes 0 and 2 (1 is suppressed); class 1 keeps 2 then 1 (0 scores below 0.2)
  auto sel = nms(2, 0.5, {}, 0);
  checkNear(sel, {6, 3}, {0, 0, 0, 0, 0, 2, 0, 1, 2, 0, 1, 1, 0, 0, 0, 0, 0, 0});
  CHECK(sel.dtype == "int64");
  CHECK(nms(2, 0.5, {}, 1).values == V{4});
  checkNear(nms(1, 0.5, {}, 0), {6, 3}, {0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  CHECK(nms(3, 0.9, {}, 1).values == V{5});  // IoU 0.82 no longer suppresses
  CHECK(nms(3, 0, {}, 1).values == V{0});    // TVM's kernel selects nothing for iou_threshold <= 0
  KwArgs tf = {{"output_format", S("tensorflow")}};
  checkNear(nms(2, 0.5, tf, 0), {1, 6, 2}, {0, 0, 0, 2, 1, 2, 1, 1, 0, 0, 0, 0});
  checkNear(nms(2, 0.5, tf, 1), {1, 6}, {0.9, 0.7, 0.95, 0.6, 0, 0});
  CHECK(nms(2, 0.5, tf, 2).values == V{4});
}
