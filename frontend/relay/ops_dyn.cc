// Relay's dyn. ops take a shape, size or count as a tensor argument. A constant one is read now and
// the call is converted as its static twin (what Relay's DynamicToStatic does); a computed shape
// becomes R.tensor_to_shape where the Relax op takes a shape value (zeros / ones / full), and a
// computed slice R.dynamic_strided_slice. Other computed arguments have no Relax form.
#include "frontend/relay/ops.h"

namespace rlx::relay::ops {

namespace {

std::vector<int64_t> constIntsArg(OpCtx& c, size_t k, const char* what, const char* why) {
  auto v = constInts(c.arg(k));
  if (!v) c.fail(std::string(what) + " must be a constant: " + why);
  return *v;
}

std::vector<double> constDoublesArg(OpCtx& c, size_t k, const char* what, const char* why) {
  auto v = constDoubles(c.arg(k));
  if (!v) c.fail(std::string(what) + " must be a constant: " + why);
  return *v;
}

int64_t constIntArg(OpCtx& c, size_t k, const char* what, const char* why) {
  auto v = constIntsArg(c, k, what, why);
  if (v.size() != 1) c.fail(std::string(what) + " must hold one value");
  return v[0];
}

// dyn.zeros / dyn.ones / dyn.full: the shape tensor read now, or R.tensor_to_shape of it.
PyValue shapeArg(OpCtx& c, size_t k) {
  if (auto v = constInts(c.arg(k))) return ints(*v);
  return ex(c.call("tensor_to_shape", {ex(c.arg(k))}));
}

RExpr dynFilled(OpCtx& c, const char* relax) {
  c.expectArgs(1, 1);
  c.allowAttrs({"shape", "dtype"});
  return c.call(relax, {shapeArg(c, 0)}, {{"dtype", s(c.dtypeAttr("dtype", DataType::float32()).str())}});
}

}  // namespace

RExpr dyn_reshape(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"newshape", "allowzero"});
  auto shape = constIntsArg(c, 1, "the new shape", "Relay resolves its codes (0, -1, -2, -3, -4) at run time, Relax's reshape takes the extents");
  return c.convertAs(reshape, {c.arg(0)}, withAttrs(c, {{"newshape", intsAttr(shape)}}));
}

RExpr dyn_tile(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"reps"});
  auto reps = constIntsArg(c, 1, "reps", "R.tile takes its repeats as an attribute");
  return c.convertAs(tile, {c.arg(0)}, withAttrs(c, {{"reps", intsAttr(reps)}}));
}

RExpr dyn_zeros(OpCtx& c) { return dynFilled(c, "zeros"); }
RExpr dyn_ones(OpCtx& c) { return dynFilled(c, "ones"); }

// dyn.full(fill_value, shape, dtype): unset dtype = the fill value's.
RExpr dyn_full(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"shape", "dtype"});
  DataType t = c.dtypeAttr("dtype", c.dtype(0));
  return c.call("full", {shapeArg(c, 1), ex(c.arg(0))}, {{"dtype", s(t.str())}});
}

RExpr dyn_expand_dims(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"num_newaxis"});
  int64_t axis = constIntArg(c, 1, "axis", "R.expand_dims takes its axes as an attribute");
  return c.convertAs(expand_dims, {c.arg(0)}, withAttrs(c, {{"axis", intAttr(axis)}}));
}

RExpr dyn_squeeze(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"axis"});
  auto axes = constIntsArg(c, 1, "axis", "R.squeeze takes its axes as an attribute");
  return c.convertAs(squeeze, {c.arg(0)}, withAttrs(c, {{"axis", intsAttr(axes)}}));
}

// dyn.strided_slice(x, begin, end, strides, slice_mode): constant bounds are strided_slice's; computed
// ones over every axis (slice_mode "end") are R.dynamic_strided_slice's, which clamps the same way.
RExpr dyn_strided_slice(OpCtx& c) {
  c.expectArgs(4, 4);
  c.allowAttrs({"slice_mode", "begin", "end", "strides", "axes"});
  auto b = constInts(c.arg(1)), e = constInts(c.arg(2)), st = constInts(c.arg(3));
  if (b && e && st)
    return c.convertAs(strided_slice, {c.arg(0)}, withAttrs(c, {{"begin", intsAttr(*b)}, {"end", intsAttr(*e)}, {"strides", intsAttr(*st)}}));
  if (c.s("slice_mode", "end") != "end") c.fail("computed bounds with slice_mode \"size\" have no Relax form (R.dynamic_strided_slice takes ends)");
  int64_t rank = c.ndim(0);
  for (size_t k = 1; k < 4; ++k) {
    const std::vector<PrimExpr>* d = c.tensor(k).dims();
    auto n = d && d->size() == 1 ? asIntImm((*d)[0]) : nullptr;
    if (!n || n->value != rank) c.fail("computed begin, end and strides must give one value per axis of the input (R.dynamic_strided_slice's form)");
  }
  auto i64 = [&](size_t k) { return ex(astype(c, c.arg(k), DataType::int64())); };
  return c.call("dynamic_strided_slice", {ex(c.arg(0)), i64(1), i64(2), i64(3)});
}

RExpr dyn_one_hot(OpCtx& c) {
  c.expectArgs(4, 4);
  c.allowAttrs({"depth", "axis", "dtype"});
  int64_t depth = constIntArg(c, 3, "depth", "R.one_hot takes its depth as an attribute");
  return c.convertAs(one_hot, {c.arg(0), c.arg(1), c.arg(2)}, withAttrs(c, {{"depth", intAttr(depth)}}));
}

RExpr dyn_topk(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"k", "axis", "ret_type", "is_ascend", "dtype"});
  int64_t k = constIntArg(c, 1, "k", "R.topk takes k as an attribute");
  return c.convertAs(topk, {c.arg(0)}, withAttrs(c, {{"k", intAttr(k)}}));
}

// dyn.sparse_to_dense(indices, output_shape, values, default_value).
RExpr dyn_sparse_to_dense(OpCtx& c) {
  c.expectArgs(4, 4);
  c.allowAttrs({"output_shape"});
  auto shape = constIntsArg(c, 1, "output_shape", "the dense result needs a static shape here");
  return c.convertAs(sparse_to_dense, {c.arg(0), c.arg(2), c.arg(3)}, withAttrs(c, {{"output_shape", intsAttr(shape)}}));
}

// dyn.nn.pad(x, pad_width, pad_value, pad_mode): pad_width a (rank, 2) tensor.
RExpr dyn_pad(OpCtx& c) {
  c.expectArgs(3, 3);
  c.allowAttrs({"pad_mode", "pad_width"});
  auto flat = constIntsArg(c, 1, "pad_width", "R.nn.pad takes its widths as an attribute");
  if (flat.size() % 2) c.fail("pad_width must hold [before, after] pairs");
  AttrValue pairs;
  pairs.kind = AttrValue::Array;
  for (size_t k = 0; k < flat.size(); k += 2) pairs.items.push_back(intsAttr({flat[k], flat[k + 1]}));
  return c.convertAs(pad, {c.arg(0), c.arg(2)}, withAttrs(c, {{"pad_width", pairs}}));
}

// dyn.nn.upsampling(x, scale_h, scale_w, layout, method, align_corners).
RExpr dyn_upsampling(OpCtx& c) {
  c.expectArgs(3, 3);
  c.allowAttrs({"layout", "method", "align_corners", "scale_h", "scale_w"});
  const char* why = "the resized extents must be known to R.image.resize2d";
  auto h = constDoublesArg(c, 1, "scale_h", why), w = constDoublesArg(c, 2, "scale_w", why);
  if (h.size() != 1 || w.size() != 1) c.fail("scale_h and scale_w must hold one value each");
  return c.convertAs(upsampling, {c.arg(0)}, withAttrs(c, {{"scale_h", floatAttr(h[0])}, {"scale_w", floatAttr(w[0])}}));
}

// dyn.image.resize2d(x, size, roi, ...): size and roi as tensors.
RExpr dyn_resize2d(OpCtx& c) {
  c.expectArgs(3, 3);
  c.allowAttrs({"size", "roi", "layout", "method", "coordinate_transformation_mode", "rounding_method", "cubic_alpha", "cubic_exclude", "extrapolation_value", "out_dtype"});
  auto size = constIntsArg(c, 1, "size", "R.image.resize2d's result extents must be known here");
  auto roi = constDoublesArg(c, 2, "roi", "R.image.resize2d takes the roi as an attribute");
  return c.convertAs(resize2d, {c.arg(0)}, withAttrs(c, {{"size", intsAttr(size)}, {"roi", floatsAttr(roi)}}));
}

}  // namespace rlx::relay::ops
