// Convolutions (1-3d, transposed 1-2d) and pooling (max/avg 1-3d, adaptive avg 1-3d), registered by
// the nn family. Attrs are normalized like TVM's builders (padding expanded, out_layout filled).
#include <fmt/format.h>

#include "ir/ops/infer_util.h"

namespace rlx::ops {
namespace {

Result<const std::vector<PrimExpr>*> dimsPerLayout(const Call& c, const TensorRef& t, size_t ndim, const char* what) {
  if (t->ndim >= 0 && size_t(t->ndim) != ndim)
    return opError(c, fmt::format("expects the {} to have {} dimensions (its layout), but it has {}", what, ndim, t->ndim));
  return t->dims();
}

// Expands a padding of 1 / n / 2n values to 2n (before..., after...).
Result<std::vector<int64_t>> completePadding(const Call& c, std::vector<int64_t> p, size_t n) {
  if (p.size() == 2 * n) return p;
  if (p.size() == 1) return std::vector<int64_t>(2 * n, p[0]);
  if (p.size() == n && n > 1) {
    std::vector<int64_t> out = p;
    out.insert(out.end(), p.begin(), p.end());
    return out;
  }
  return opError(c, fmt::format("padding must have 1, {}{} values, but got {}", n > 1 ? std::to_string(n) + " or " : "", 2 * n, p.size()));
}

Result<std::vector<int64_t>> expandN(const Call& c, const char* key, size_t n) {
  auto v = attrInts(c, key);
  if (v.size() == 1 && n > 1) v = std::vector<int64_t>(n, v[0]);
  if (v.size() != n) return opError(c, fmt::format("{} must have {} values, but got {}", key, n, v.size()));
  return v;
}

// Normalizes conv/pool attrs in place: strides/dilation/pool_size/output_padding to n values,
// padding to 2n, out_layout defaulting to the data layout.
FixupFn normalizeSpatial(size_t n, std::vector<const char*> perDim, const char* layoutKey) {
  return [=](Call& c) -> Status {
    for (const char* k : perDim) {
      if (!findAttr(c, k)) continue;
      RLX_TRY(v, expandN(c, k, n));
      setAttr(c, k, AttrValue::ints(v));
    }
    if (findAttr(c, "padding")) {
      RLX_TRY(p, completePadding(c, attrInts(c, "padding"), n));
      setAttr(c, "padding", AttrValue::ints(p));
    }
    if (attrIsNone(c, "out_layout")) setAttr(c, "out_layout", AttrValue::str(attrString(c, layoutKey)));
    if (findAttr(c, "groups") && attrInt(c, "groups") <= 0) return opError(c, fmt::format("groups must be positive, but it is {}", attrInt(c, "groups")));
    return okStatus();
  };
}

const char* canonData(size_t n) { return n == 1 ? "NCW" : n == 2 ? "NCHW" : "NCDHW"; }
const char* canonKernel(size_t n) { return n == 1 ? "OIW" : n == 2 ? "OIHW" : "OIDHW"; }

// A computed spatial extent that is a negative constant: the window (or a transposed convolution's
// padding) does not fit the input, which no tensor can express.
Status checkExtent(const Call& c, const PrimExpr& extent, size_t axis, const char* what) {
  auto k = extent.as<IntImm>();
  if (!k || k->value >= 0) return okStatus();
  return opError(c, fmt::format("the {} does not fit spatial axis {}: the output extent would be {}", what, axis, k->value));
}

Result<StructInfo> inferConv(const Call& c, size_t n, bool transpose) {
  RLX_TRY_OK(checkArgCount(c, 2, 2));
  RLX_TRY(x, tensorArg(c, 0, "data"));
  RLX_TRY(w, tensorArg(c, 1, "weight"));
  RLX_TRY(dmap, layoutMap(c, attrString(c, "data_layout"), canonData(n), "data"));
  RLX_TRY(kmap, layoutMap(c, attrString(c, "kernel_layout"), transpose ? std::string("IO") + (canonKernel(n) + 2) : canonKernel(n), "kernel"));
  RLX_TRY(omap, layoutMap(c, attrString(c, "out_layout"), canonData(n), "output"));
  RLX_TRY(xd, dimsPerLayout(c, x, dmap.rank, "data"));
  RLX_TRY(wd, dimsPerLayout(c, w, kmap.rank, "weight"));
  DataType out = attrDType(c, "out_dtype");
  if (out.isVoid()) {
    RLX_TRY(t, binaryDType(c, x->dtype, w->dtype, "data", "weight"));
    out = t;
  }
  RLX_TRY(vdev, unifyVDevice(c, x->vdevice, w->vdevice));
  if (!xd || !wd) return makeTensorNdim(out, int(omap.rank), vdev);
  auto xc = dmap.forward(*xd), wc = kmap.forward(*wd);  // NC<spatial>, O/I I/O <spatial>
  int64_t groups = attrInt(c, "groups", 1);
  auto strides = attrInts(c, "strides"), dil = attrInts(c, "dilation"), pad = attrInts(c, "padding");
  if (strides.size() != n || dil.size() != n || pad.size() != 2 * n) return opError(c, "malformed strides/dilation/padding attrs");
  std::vector<PrimExpr> oc(n + 2);
  oc[0] = xc[0];
  if (!transpose) {
    PrimExpr inCh = mul(wc[1], i64(groups));
    if (provablyDifferent(xc[1], inCh))
      return opError(c, fmt::format("the data has {} channels but the weight expects {} input channels x {} groups", primStr(xc[1]), primStr(wc[1]), groups));
    if (auto oCh = asConst(wc[0]); oCh && *oCh % groups != 0)
      return opError(c, fmt::format("the {} output channels are not divisible by the {} groups", *oCh, groups));
    oc[1] = wc[0];
  } else {
    if (provablyDifferent(xc[1], wc[0]))
      return opError(c, fmt::format("the data has {} channels but the weight's input channels are {}", primStr(xc[1]), primStr(wc[0])));
    if (auto iCh = asConst(wc[0]); iCh && *iCh % groups != 0)
      return opError(c, fmt::format("the {} input channels are not divisible by the {} groups", *iCh, groups));
    oc[1] = mul(wc[1], i64(groups));
  }
  auto opad = transpose ? attrInts(c, "output_padding") : std::vector<int64_t>(n, 0);
  if (opad.size() != n) return opError(c, "malformed output_padding attr");
  for (size_t i = 0; i < n; ++i) {
    PrimExpr in = xc[i + 2], k = wc[i + 2];
    int64_t padSum = pad[i] + pad[i + n];
    if (!transpose) {
      PrimExpr num = sub(sub(add(in, i64(padSum)), mul(i64(dil[i]), sub(k, i64(1)))), i64(1));
      oc[i + 2] = simplify(add(floordiv(num, i64(strides[i])), i64(1)));
    } else {
      if (opad[i] >= strides[i])
        return opError(c, fmt::format("output_padding {} must be smaller than the stride {}", opad[i], strides[i]));
      PrimExpr v = add(sub(mul(sub(in, i64(1)), i64(strides[i])), i64(padSum)), mul(i64(dil[i]), sub(k, i64(1))));
      oc[i + 2] = simplify(add(v, i64(opad[i] + 1)));
    }
    RLX_TRY_STATUS(checkExtent(c, oc[i + 2], i, transpose ? "padding" : "dilated kernel"));
  }
  return makeTensor(omap.backward(oc), out, vdev);
}

Result<StructInfo> inferPool(const Call& c, size_t n) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, "data"));
  RLX_TRY(dmap, layoutMap(c, attrString(c, "layout"), canonData(n), "data"));
  RLX_TRY(omap, layoutMap(c, attrString(c, "out_layout"), canonData(n), "output"));
  RLX_TRY(xd, dimsPerLayout(c, x, dmap.rank, "data"));
  if (!xd) return makeTensorNdim(x->dtype, int(omap.rank), x->vdevice);
  auto xc = dmap.forward(*xd);
  auto pool = attrInts(c, "pool_size"), strides = attrInts(c, "strides"), dil = attrInts(c, "dilation"), pad = attrInts(c, "padding");
  if (pool.size() != n || strides.size() != n || dil.size() != n || pad.size() != 2 * n) return opError(c, "malformed pool_size/strides/dilation/padding attrs");
  bool ceil = attrBool(c, "ceil_mode");
  std::vector<PrimExpr> oc = {xc[0], xc[1]};
  for (size_t i = 0; i < n; ++i) {
    PrimExpr num = sub(sub(add(xc[i + 2], i64(pad[i] + pad[i + n])), i64(dil[i] * (pool[i] - 1))), i64(1));
    if (ceil) num = add(num, i64(strides[i] - 1));
    oc.push_back(simplify(add(floordiv(num, i64(strides[i])), i64(1))));
    RLX_TRY_STATUS(checkExtent(c, oc.back(), i, "pooling window"));
  }
  return makeTensor(omap.backward(oc), x->dtype, x->vdevice);
}

Result<StructInfo> inferAdaptivePool(const Call& c, size_t n) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, "data"));
  RLX_TRY(dmap, layoutMap(c, attrString(c, "layout"), canonData(n), "data"));
  RLX_TRY(omap, layoutMap(c, attrString(c, "out_layout"), canonData(n), "output"));
  RLX_TRY(xd, dimsPerLayout(c, x, dmap.rank, "data"));
  if (!xd) return makeTensorNdim(x->dtype, int(omap.rank), x->vdevice);
  auto oc = dmap.forward(*xd);
  if (auto os = attrOptInts(c, "output_size")) {
    if (os->size() != n) return opError(c, fmt::format("output_size must have {} values, but got {}", n, os->size()));
    for (size_t i = 0; i < n; ++i) oc[i + 2] = i64((*os)[i]);
  }
  return makeTensor(omap.backward(oc), x->dtype, x->vdevice);
}

std::vector<int64_t> ones(size_t n) { return std::vector<int64_t>(n, 1); }
std::vector<int64_t> zeros(size_t n) { return std::vector<int64_t>(n, 0); }

}  // namespace

void registerConvPoolOps() {
  static const char* convAttrs[] = {"relax.attrs.Conv1DAttrs", "relax.attrs.Conv2DAttrs", "relax.attrs.Conv3DAttrs"};
  for (size_t n = 1; n <= 3; ++n) {
    OpDef(fmt::format("relax.nn.conv{}d", n))
        .attrs(convAttrs[n - 1])
        .params({arg("data"), arg("weight"), attr("strides", OpParam::IntArrayAttr, aInts(ones(n))), attr("padding", OpParam::IntArrayAttr, aInts(zeros(n == 1 ? 2 : n))),
                 attr("dilation", OpParam::IntArrayAttr, aInts(ones(n))), attr("groups", OpParam::IntAttr, aInt(1)), attr("data_layout", OpParam::StrAttr, aStr(canonData(n))),
                 attr("kernel_layout", OpParam::StrAttr, aStr(canonKernel(n))), attr("out_layout", OpParam::OptStrAttr, aNone()), attr("out_dtype", OpParam::DTypeAttr, aDType("void"))})
        .fixup(normalizeSpatial(n, {"strides", "dilation"}, "data_layout"))
        .infer([n](const Call& c) { return inferConv(c, n, false); })
        .pattern(OpPattern::OutEWiseFusable)
        .doc(fmt::format("{}-D convolution", n))
        .done();
  }
  static const char* convTAttrs[] = {"relax.attrs.Conv1DTransposeAttrs", "relax.attrs.Conv2DTransposeAttrs"};
  for (size_t n = 1; n <= 2; ++n) {
    OpDef(fmt::format("relax.nn.conv{}d_transpose", n))
        .attrs(convTAttrs[n - 1])
        .params({arg("data"), arg("weight"), attr("strides", OpParam::IntArrayAttr, aInts(ones(n))), attr("padding", OpParam::IntArrayAttr, aInts(zeros(2))),
                 attr("output_padding", OpParam::IntArrayAttr, aInts(zeros(n))), attr("dilation", OpParam::IntArrayAttr, aInts(ones(n))), attr("groups", OpParam::IntAttr, aInt(1)),
                 attr("data_layout", OpParam::StrAttr, aStr(canonData(n))), attr("kernel_layout", OpParam::StrAttr, aStr(std::string("IO") + (canonKernel(n) + 2))),
                 attr("out_layout", OpParam::OptStrAttr, aNone()), attr("out_dtype", OpParam::DTypeAttr, aDType("void"))})
        .fixup(normalizeSpatial(n, {"strides", "dilation", "output_padding"}, "data_layout"))
        .infer([n](const Call& c) { return inferConv(c, n, true); })
        .pattern(OpPattern::OutEWiseFusable)
        .doc(fmt::format("{}-D transposed convolution", n))
        .done();
  }
  static const char* poolAttrs[] = {"relax.attrs.Pool1DAttrs", "relax.attrs.Pool2DAttrs", "relax.attrs.Pool3DAttrs"};
  for (size_t n = 1; n <= 3; ++n) {
    for (const char* kind : {"max", "avg"}) {
      OpDef(fmt::format("relax.nn.{}_pool{}d", kind, n))
          .attrs(poolAttrs[n - 1])
          .params({arg("data"), attr("pool_size", OpParam::IntArrayAttr, aInts(ones(n))), attr("strides", OpParam::IntArrayAttr, aInts(ones(n))),
                   attr("padding", OpParam::IntArrayAttr, aInts(zeros(n == 1 ? 2 : n))), attr("dilation", OpParam::IntArrayAttr, aInts(ones(n))),
                   attr("ceil_mode", OpParam::BoolAttr, aBool(false)), attr("count_include_pad", OpParam::BoolAttr, aBool(false)),
                   attr("layout", OpParam::StrAttr, aStr(canonData(n))), attr("out_layout", OpParam::OptStrAttr, aNone())})
          .attrOrder({"pool_size", "strides", "dilation", "padding", "ceil_mode", "count_include_pad", "layout", "out_layout"})
          .fixup(normalizeSpatial(n, {"pool_size", "strides", "dilation"}, "layout"))
          .infer([n](const Call& c) { return inferPool(c, n); })
          .pattern(OpPattern::OutEWiseFusable)
          .doc(fmt::format("{}-D {} pooling", n, kind))
          .done();
    }
    OpDef(fmt::format("relax.nn.adaptive_avg_pool{}d", n))
        .attrs(fmt::format("relax.attrs.AdaptivePool{}DAttrs", n))
        .params({arg("data"), attr("output_size", OpParam::OptIntArrayAttr, aNone()), attr("layout", OpParam::StrAttr, aStr(canonData(n))), attr("out_layout", OpParam::OptStrAttr, aNone())})
        .fixup([n](Call& c) -> Status {
          if (auto os = attrOptInts(c, "output_size"); os && os->size() == 1 && n > 1) setAttr(c, "output_size", AttrValue::ints(std::vector<int64_t>(n, (*os)[0])));
          if (attrIsNone(c, "out_layout")) setAttr(c, "out_layout", AttrValue::str(attrString(c, "layout")));
          return okStatus();
        })
        .infer([n](const Call& c) { return inferAdaptivePool(c, n); })
        .pattern(OpPattern::OutEWiseFusable)
        .doc(fmt::format("{}-D adaptive average pooling", n))
        .done();
  }
}

}  // namespace rlx::ops
