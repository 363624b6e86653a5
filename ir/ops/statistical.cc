// Reductions (sum, mean, max, min, prod, variance, std, median) and scans (cumsum, cumprod).
// axis=None reduces everything; keepdims keeps reduced axes as extent 1; median over one axis
// also returns int64 indices, as TVM's StatisticalExtension rule does.
#include <fmt/format.h>

#include <algorithm>

#include "ir/ops/infer_util.h"

namespace rlx {
namespace {
using namespace ops;

struct ReduceShape {
  std::optional<std::vector<PrimExpr>> dims;
  int ndim = -1;
  size_t naxes = 0;
};

Result<ReduceShape> reduceShape(const Call& c, const TensorRef& x) {
  auto axisAttr = attrOptInts(c, "axis");
  bool keep = attrBool(c, "keepdims");
  std::vector<int> axes;
  if (x->ndim >= 0 && axisAttr) {
    RLX_TRY(n, normalizeAxes(c, x->ndim, *axisAttr));
    axes = n;
  }
  ReduceShape r;
  r.naxes = axes.size();
  if (keep) r.ndim = x->ndim;
  else if (!axisAttr) r.ndim = 0;
  else if (x->ndim < 0) r.ndim = -1;
  else r.ndim = x->ndim - int(axes.size());
  auto d = x->dims();
  if (!d) {
    if (!axisAttr && keep && r.ndim >= 0) r.dims = std::vector<PrimExpr>(size_t(r.ndim), i64(1));
    else if (r.ndim == 0) r.dims = std::vector<PrimExpr>{};
    return r;
  }
  std::vector<PrimExpr> out;
  for (int i = 0; i < x->ndim; ++i) {
    bool reduced = !axisAttr || std::find(axes.begin(), axes.end(), i) != axes.end();
    if (!reduced) out.push_back((*d)[size_t(i)]);
    else if (keep) out.push_back(i64(1));
  }
  r.dims = out;
  return r;
}

Result<StructInfo> inferReduce(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, "x"));
  RLX_TRY(r, reduceShape(c, x));
  return likeTensor(x, r.dims, x->dtype, r.ndim);
}

Result<StructInfo> inferMedian(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, "x"));
  RLX_TRY(r, reduceShape(c, x));
  bool noAxis = attrIsNone(c, "axis");
  if (!x->dims()) {
    if (r.dims) return makeTensor(*r.dims, x->dtype, x->vdevice);
    return StructInfo(make<TupleSInfo>(std::vector<StructInfo>{makeTensorNdim(x->dtype, r.ndim, x->vdevice), makeTensorNdim(DataType::int64(), r.ndim, x->vdevice)}));
  }
  if (noAxis || r.naxes > 1) return makeTensor(*r.dims, x->dtype, x->vdevice);
  return StructInfo(make<TupleSInfo>(std::vector<StructInfo>{makeTensor(*r.dims, x->dtype, x->vdevice), makeTensor(*r.dims, DataType::int64(), x->vdevice)}));
}

Result<StructInfo> inferScan(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, "data"));
  DataType t = attrDType(c, "dtype");
  if (t.isVoid()) t = x->dtype;
  if (attrIsNone(c, "axis")) {
    auto d = x->dims();
    if (!d) return makeTensorNdim(t, x->ndim, x->vdevice);
    return makeTensor({shapeProduct(*d)}, t, x->vdevice);
  }
  if (x->ndim >= 0) {
    RLX_TRY(axis, normalizeAxis(c, x->ndim, attrInt(c, "axis")));
    (void)axis;
  }
  if (x->shape) return StructInfo(make<TensorSInfo>(x->shape, t, x->ndim, x->vdevice));
  return makeTensorNdim(t, x->ndim, x->vdevice);
}

}  // namespace

void registerStatisticalOps() {
  for (const char* n : {"sum", "mean", "max", "min", "prod", "variance", "std"})
    OpDef(std::string("relax.") + n)
        .attrs("relax.attrs.StatisticalAttrs")
        .params({arg("x"), attr("axis", OpParam::OptIntArrayAttr, aNone()), attr("keepdims", OpParam::BoolAttr, aBool(false))})
        .infer(inferReduce)
        .pattern(OpPattern::CommReduce)
        .doc(std::string("reduce by ") + n)
        .done();
  OpDef("relax.median")
      .attrs("relax.attrs.StatisticalAttrs")
      .params({arg("x"), attr("axis", OpParam::OptIntArrayAttr, aNone()), attr("keepdims", OpParam::BoolAttr, aBool(false))})
      .infer(inferMedian)
      .pattern(OpPattern::Opaque)
      .doc("median (with indices over a single axis)")
      .done();
  for (const char* n : {"cumsum", "cumprod"})
    OpDef(std::string("relax.") + n)
        .attrs("relax.attrs.ScanopAttrs")
        .params({arg("data"), attr("axis", OpParam::OptIntAttr, aNone()), attr("dtype", OpParam::DTypeAttr, aDType("void")), attr("exclusive", OpParam::BoolAttr, aBool(false))})
        .infer(inferScan)
        .pattern(OpPattern::Opaque)
        .doc(std::string("inclusive/exclusive ") + n)
        .done();
}

}  // namespace rlx
