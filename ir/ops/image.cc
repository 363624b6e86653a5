// Image, vision and quantization ops: image.resize2d, image.grid_sample,
// vision.all_class_non_max_suppression, quantize and dequantize.
#include <fmt/format.h>

#include "ir/ops/infer_util.h"

namespace rlx {
namespace {
using namespace ops;

// Position of each NCHW letter in a permuted 4-letter layout (error for other layouts).
Result<std::vector<int>> nchwPerm(const Call& c, const std::string& layout) {
  std::vector<int> perm(4, -1);
  bool ok = layout.size() == 4;
  for (size_t i = 0; ok && i < 4; ++i) {
    auto p = std::string("NCHW").find(layout[i]);
    if (p == std::string::npos || perm[p] >= 0) ok = false;
    else perm[p] = int(i);
  }
  if (!ok) return opError(c, fmt::format("the layout \"{}\" is not convertible from NCHW", layout));
  return perm;
}

Result<StructInfo> inferResize2d(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 2, 2));
  RLX_TRY(x, tensorArg(c, 0, "data"));
  RLX_TRY(size, shapeArg(c, 1, "size"));
  if (size->ndim >= 0 && size->ndim != 2) return opError(c, fmt::format("expects size to have 2 values (height, width), but it has {}", size->ndim));
  RLX_TRY(perm, nchwPerm(c, attrString(c, "layout", "NCHW")));
  std::string method = attrString(c, "method", "linear");
  if (method != "nearest_neighbor" && method != "linear" && method != "cubic") return opError(c, fmt::format("unknown method \"{}\"", method));
  if (x->ndim >= 0 && x->ndim != 4) return opError(c, fmt::format("expects 4-D data, but it has {} dimensions", x->ndim));
  DataType out = attrDType(c, "out_dtype");
  if (out.isVoid()) out = x->dtype;
  auto d = x->dims();
  if (!d || !size->values) return makeTensorNdim(out, 4, x->vdevice);
  std::vector<PrimExpr> res = *d;
  res[size_t(perm[2])] = (*size->values)[0];
  res[size_t(perm[3])] = (*size->values)[1];
  return makeTensor(res, out, x->vdevice);
}

Result<StructInfo> inferGridSample(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 2, 2));
  RLX_TRY(x, tensorArg(c, 0, "data"));
  RLX_TRY(g, tensorArg(c, 1, "grid"));
  if (attrString(c, "layout", "NCHW") == "NCDHW") {
    // Volumetric: data (N, C, D, H, W), grid (N, D_out, H_out, W_out, 3) holding (x, y, z).
    if (x->ndim >= 0 && x->ndim != 5) return opError(c, fmt::format("expects 5-D data with layout NCDHW, but it has {} dimensions", x->ndim));
    if (g->ndim >= 0 && g->ndim != 5) return opError(c, fmt::format("expects a 5-D grid (N, D_out, H_out, W_out, 3), but it has {} dimensions", g->ndim));
    auto d = x->dims(), gd = g->dims();
    if (!d || !gd) return makeTensorNdim(x->dtype, 5, x->vdevice);
    if (!isConstInt((*gd)[4], 3) && asConst((*gd)[4])) return opError(c, fmt::format("the grid's last dimension must be 3, but it is {}", primStr((*gd)[4])));
    return makeTensor({(*d)[0], (*d)[1], (*gd)[1], (*gd)[2], (*gd)[3]}, x->dtype, x->vdevice);
  }
  RLX_TRY(perm, nchwPerm(c, attrString(c, "layout", "NCHW")));
  if (x->ndim >= 0 && x->ndim != 4) return opError(c, fmt::format("expects 4-D data, but it has {} dimensions", x->ndim));
  if (g->ndim >= 0 && g->ndim != 4) return opError(c, fmt::format("expects a 4-D grid (N, H_out, W_out, 2), but it has {} dimensions", g->ndim));
  auto d = x->dims(), gd = g->dims();
  if (!d || !gd) return makeTensorNdim(x->dtype, 4, x->vdevice);
  if (!isConstInt((*gd)[3], 2) && asConst((*gd)[3])) return opError(c, fmt::format("the grid's last dimension must be 2, but it is {}", primStr((*gd)[3])));
  std::vector<PrimExpr> res = *d;
  res[size_t(perm[2])] = (*gd)[1];
  res[size_t(perm[3])] = (*gd)[2];
  return makeTensor(res, x->dtype, x->vdevice);
}

Result<StructInfo> inferAllClassNMS(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 5, 5));
  RLX_TRY(boxes, tensorArg(c, 0, "boxes"));
  RLX_TRY(scores, tensorArg(c, 1, "scores"));
  if (boxes->ndim >= 0 && boxes->ndim != 3) return opError(c, fmt::format("expects boxes of shape (batch, num_boxes, 4), but they have {} dimensions", boxes->ndim));
  if (scores->ndim >= 0 && scores->ndim != 3) return opError(c, fmt::format("expects scores of shape (batch, num_classes, num_boxes), but they have {} dimensions", scores->ndim));
  std::string fmtName = attrString(c, "output_format", "onnx");
  if (fmtName != "onnx" && fmtName != "tensorflow") return opError(c, fmt::format("output_format must be \"onnx\" or \"tensorflow\", but it is \"{}\"", fmtName));
  auto sd = scores->dims();
  DataType i64t = DataType::int64();
  if (fmtName == "onnx") {
    StructInfo sel = sd ? makeTensor({mul(mul((*sd)[0], (*sd)[1]), (*sd)[2]), i64(3)}, i64t, scores->vdevice) : makeTensorNdim(i64t, 2, scores->vdevice);
    return StructInfo(make<TupleSInfo>(std::vector<StructInfo>{sel, makeTensor({i64(1)}, i64t, scores->vdevice)}));
  }
  if (!sd)
    return StructInfo(make<TupleSInfo>(std::vector<StructInfo>{makeTensorNdim(i64t, 3, scores->vdevice), makeTensorNdim(DataType::float32(), 2, scores->vdevice), makeTensorNdim(i64t, 1, scores->vdevice)}));
  PrimExpr n = mul((*sd)[1], (*sd)[2]);
  return StructInfo(make<TupleSInfo>(std::vector<StructInfo>{makeTensor({(*sd)[0], n, i64(2)}, i64t, scores->vdevice), makeTensor({(*sd)[0], n}, DataType::float32(), scores->vdevice),
                                                             makeTensor({(*sd)[0]}, i64t, scores->vdevice)}));
}

Result<StructInfo> inferQDQ(const Call& c, bool quantize) {
  RLX_TRY_OK(checkArgCount(c, 3, 3));
  RLX_TRY(x, tensorArg(c, 0, "data"));
  RLX_TRY(scale, tensorArg(c, 1, "scale"));
  RLX_TRY(zp, tensorArg(c, 2, "zero_point"));
  DataType out = attrDType(c, "out_dtype");
  if (quantize && !x->dtype.isVoid() && !x->dtype.isFloat()) return opError(c, fmt::format("expects float data, but its dtype is {}", x->dtype.str()));
  if (!quantize && !x->dtype.isVoid() && !x->dtype.isIntegral() && !x->dtype.isFloat()) return opError(c, fmt::format("unexpected data dtype {}", x->dtype.str()));
  if (quantize && !out.isIntegral() && !out.isFloat()) return opError(c, fmt::format("unsupported out_dtype {}", out.str()));
  if (!scale->dtype.isVoid() && !scale->dtype.isFloat()) return opError(c, fmt::format("expects a float scale, but its dtype is {}", scale->dtype.str()));
  for (auto [t, n] : {std::pair{scale, "scale"}, std::pair{zp, "zero_point"}})
    if (t->ndim > 1) return opError(c, fmt::format("expects {} to be a scalar or 1-D, but it has {} dimensions", n, t->ndim));
  if (x->ndim >= 0) {
    RLX_TRY(axis, normalizeAxis(c, x->ndim, attrInt(c, "axis", -1)));
    auto d = x->dims();
    for (auto [t, n] : {std::pair{scale, "scale"}, std::pair{zp, "zero_point"}}) {
      auto td = t->dims();
      if (d && td && td->size() == 1 && !isConstInt((*td)[0], 1) && provablyDifferent((*td)[0], (*d)[size_t(axis)]))
        return opError(c, fmt::format("{} has {} entries but axis {} has extent {}", n, primStr((*td)[0]), axis, primStr((*d)[size_t(axis)])));
    }
  }
  return withDType(x, out);
}

}  // namespace

void registerImageOps() {
  OpDef("relax.image.resize2d")
      .attrs("relax.attrs.Resize2DAttrs")
      .params({arg("data"), arg("size", OpParam::ShapeArg), attr("roi", OpParam::FloatArrayAttr, aNone()), attr("layout", OpParam::StrAttr, aStr("NCHW")),
               attr("method", OpParam::StrAttr, aStr("linear")), attr("coordinate_transformation_mode", OpParam::StrAttr, aStr("half_pixel")),
               attr("rounding_method", OpParam::StrAttr, aStr("round")), attr("cubic_alpha", OpParam::DoubleAttr, aReal(-0.75)), attr("cubic_exclude", OpParam::IntAttr, aInt(0)),
               attr("extrapolation_value", OpParam::DoubleAttr, aReal(0.0)), attr("out_dtype", OpParam::DTypeAttr, aDType("void"))})
      .build([](const OpInfo& op, std::vector<PyValue>& args, std::vector<std::pair<std::string, PyValue>>& kwargs) -> Result<Expr> {
        auto pairOf = [](const PyValue& x) {
          PyValue t;
          t.kind = PyValue::Tuple;
          t.items = {x, x};
          t.span = x.span;
          return t;
        };
        // size may be an int (square) or a pair; roi may be one float or four, None = zeros.
        for (size_t i = 0; i < args.size(); ++i)
          if (i == 1 && args[i].kind == PyValue::Int) args[i] = pairOf(args[i]);
        for (auto& [k, v] : kwargs)
          if (k == "size" && v.kind == PyValue::Int) v = pairOf(v);
        RLX_TRY(call, buildGeneric(op, args, kwargs));
        auto* roi = findAttr(*call, "roi");
        std::vector<Attr> items;
        if (roi && *roi && (*roi)->array.size() == 1) items = std::vector<Attr>(4, (*roi)->array[0]);
        else if (roi && *roi) items = (*roi)->array;
        else items = std::vector<Attr>(4, AttrValue::primOf(floatImm(0.0, DataType::float32())));
        if (items.size() != 4) return Error(op.scriptName() + ": roi must have 4 values");
        setAttr(*call, "roi", AttrValue::array_(items));
        return Expr(call);
      })
      .infer(inferResize2d)
      .pattern(OpPattern::Injective)
      .doc("resize the spatial dims of an image batch")
      .done();
  OpDef("relax.image.grid_sample")
      .attrs("relax.attrs.GridSampleAttrs")
      .params({arg("data"), arg("grid"), attr("method", OpParam::StrAttr, aStr("bilinear")), attr("layout", OpParam::StrAttr, aStr("NCHW")), attr("padding_mode", OpParam::StrAttr, aStr("zeros")),
               attr("align_corners", OpParam::BoolAttr, aBool(false))})
      .infer(inferGridSample)
      .pattern(OpPattern::Injective)
      .doc("sample an image at grid coordinates")
      .done();
  OpDef("relax.vision.all_class_non_max_suppression")
      .attrs("relax.attrs.AllClassNonMaximumSuppressionAttrs")
      .params({arg("boxes"), arg("scores"), arg("max_output_boxes_per_class"), arg("iou_threshold"), arg("score_threshold"), attr("output_format", OpParam::StrAttr, aStr("onnx"))})
      .infer(inferAllClassNMS)
      .pattern(OpPattern::Opaque)
      .doc("non-maximum suppression over all classes")
      .done();
  OpDef("relax.quantize")
      .attrs("relax.attrs.QuantizeAttrs")
      .params({arg("data"), arg("scale"), arg("zero_point"), attr("axis", OpParam::IntAttr, aInt(-1)), attr("out_dtype", OpParam::DTypeAttr, aDType("int8"))})
      .attrOrder({"out_dtype", "axis"})
      .infer([](const Call& c) { return inferQDQ(c, true); })
      .pattern(OpPattern::ElemWise)
      .doc("quantize with scale and zero point")
      .done();
  OpDef("relax.dequantize")
      .attrs("relax.attrs.QuantizeAttrs")
      .params({arg("data"), arg("scale"), arg("zero_point"), attr("axis", OpParam::IntAttr, aInt(-1)), attr("out_dtype", OpParam::DTypeAttr, aDType("float32"))})
      .attrOrder({"out_dtype", "axis"})
      .infer([](const Call& c) { return inferQDQ(c, false); })
      .pattern(OpPattern::ElemWise)
      .doc("dequantize with scale and zero point")
      .done();
}

}  // namespace rlx
