// Indexing-style manipulation ops: meshgrid, gather_elements/gather_nd, scatter_elements/scatter_nd,
// index_put, index_tensor, slice_scatter and one_hot (registered with the manipulate family).
#include <fmt/format.h>

#include "ir/ops/infer_util.h"

namespace rlx::ops {
namespace {

Status requireIntTensor(const Call& c, const TensorRef& t, const char* name) {
  if (!t->dtype.isVoid() && !t->dtype.isIntegral())
    return opError(c, fmt::format("expects {} to have an integer dtype, but it is {}", name, t->dtype.str()));
  return okStatus();
}

Result<StructInfo> inferMeshgrid(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(ts, tensorTupleArg(c, 0, "tensors"));
  if (ts.empty()) return opError(c, "expects at least one tensor");
  std::string indexing = attrString(c, "indexing", "ij");
  if (indexing != "ij" && indexing != "xy") return opError(c, fmt::format("indexing must be \"ij\" or \"xy\", but it is \"{}\"", indexing));
  DataType dt = ts[0]->dtype;
  std::vector<PrimExpr> lens;
  bool known = true;
  for (size_t i = 0; i < ts.size(); ++i) {
    auto& t = ts[i];
    if (t->ndim >= 0 && t->ndim != 1) return opError(c, fmt::format("expects 1-D tensors, but tensor {} has {} dimensions", i, t->ndim));
    if (!t->dtype.isVoid() && !dt.isVoid() && t->dtype != dt) return opError(c, fmt::format("all tensors must have the same dtype, but got {} and {}", dt.str(), t->dtype.str()));
    if (auto d = t->dims()) lens.push_back((*d)[0]);
    else known = false;
  }
  int n = int(ts.size());
  if (indexing == "xy" && n >= 2 && known) std::swap(lens[0], lens[1]);
  std::vector<StructInfo> outs;
  for (int i = 0; i < n; ++i) outs.push_back(known ? makeTensor(lens, dt, ts[0]->vdevice) : makeTensorNdim(dt, n, ts[0]->vdevice));
  return StructInfo(make<TupleSInfo>(std::move(outs)));
}

Result<StructInfo> inferGatherElements(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 2, 2));
  RLX_TRY(x, tensorArg(c, 0, "data"));
  RLX_TRY(idx, tensorArg(c, 1, "indices"));
  RLX_TRY_OK(requireIntTensor(c, idx, "indices"));
  if (x->ndim >= 0 && idx->ndim >= 0 && x->ndim != idx->ndim)
    return opError(c, fmt::format("data and indices must have the same number of dimensions, but got {} and {}", x->ndim, idx->ndim));
  int ndim = x->ndim >= 0 ? x->ndim : idx->ndim;
  if (ndim >= 0) {
    RLX_TRY(axis, normalizeAxis(c, ndim, attrInt(c, "axis")));
    (void)axis;
  }
  if (idx->shape) return StructInfo(make<TensorSInfo>(idx->shape, x->dtype, idx->ndim, x->vdevice));
  return makeTensorNdim(x->dtype, idx->ndim, x->vdevice);
}

Result<StructInfo> inferGatherND(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 2, 2));
  RLX_TRY(x, tensorArg(c, 0, "data"));
  RLX_TRY(idx, tensorArg(c, 1, "indices"));
  RLX_TRY_OK(requireIntTensor(c, idx, "indices"));
  int64_t b = attrInt(c, "batch_dims");
  if (b < 0) return opError(c, fmt::format("batch_dims must be non-negative, but it is {}", b));
  auto id = idx->dims();
  std::optional<int64_t> l;
  if (id && !id->empty()) l = asConst(id->back());
  if (x->ndim < 0 || idx->ndim < 0 || !l) return makeTensorNdim(x->dtype, -1, x->vdevice);
  if (b + *l > x->ndim) return opError(c, fmt::format("batch_dims ({}) plus the index depth ({}) exceed the data's {} dimensions", b, *l, x->ndim));
  int outNdim = idx->ndim - 1 + x->ndim - int(b) - int(*l);
  auto xd = x->dims();
  if (!xd) return makeTensorNdim(x->dtype, outNdim, x->vdevice);
  std::vector<PrimExpr> out(id->begin(), id->end() - 1);
  for (size_t i = size_t(b + *l); i < xd->size(); ++i) out.push_back((*xd)[i]);
  return makeTensor(out, x->dtype, x->vdevice);
}

Result<StructInfo> inferScatter(const Call& c, bool elements) {
  RLX_TRY_OK(checkArgCount(c, 3, 3));
  RLX_TRY(x, tensorArg(c, 0, "data"));
  RLX_TRY(idx, tensorArg(c, 1, "indices"));
  RLX_TRY(upd, tensorArg(c, 2, "updates"));
  RLX_TRY_OK(requireIntTensor(c, idx, "indices"));
  if (!x->dtype.isVoid() && !upd->dtype.isVoid() && x->dtype != upd->dtype)
    return opError(c, fmt::format("updates must have the data's dtype {}, but it is {}", x->dtype.str(), upd->dtype.str()));
  std::string red = attrString(c, "reduction", "update");
  static const char* ok[] = {"update", "add", "sum", "mul", "mean", "max", "min"};
  if (std::find_if(std::begin(ok), std::end(ok), [&](const char* s) { return red == s; }) == std::end(ok))
    return opError(c, fmt::format("unknown reduction \"{}\"", red));
  if (elements) {
    if (x->ndim >= 0 && idx->ndim >= 0 && x->ndim != idx->ndim)
      return opError(c, fmt::format("data and indices must have the same number of dimensions, but got {} and {}", x->ndim, idx->ndim));
    if (x->ndim >= 0) {
      RLX_TRY(axis, normalizeAxis(c, x->ndim, attrInt(c, "axis")));
      (void)axis;
    }
  }
  return StructInfo(x);
}

Result<StructInfo> inferIndexPut(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 3, 3));
  RLX_TRY(x, tensorArg(c, 0, "data"));
  RLX_TRY(idx, tensorTupleArg(c, 1, "indices"));
  RLX_TRY(v, tensorArg(c, 2, "values"));
  for (auto& t : idx) RLX_TRY_OK(requireIntTensor(c, t, "indices"));
  if (x->ndim >= 0 && int(idx.size()) > x->ndim) return opError(c, fmt::format("{} index tensors given for a {}-D tensor", idx.size(), x->ndim));
  if (!x->dtype.isVoid() && !v->dtype.isVoid() && x->dtype != v->dtype)
    return opError(c, fmt::format("values must have the data's dtype {}, but it is {}", x->dtype.str(), v->dtype.str()));
  return StructInfo(x);
}

Result<StructInfo> inferIndexTensor(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 2, 2));
  RLX_TRY(x, tensorArg(c, 0, "data"));
  RLX_TRY(idx, tensorTupleArg(c, 1, "indices"));
  if (idx.empty()) return opError(c, "expects at least one index tensor");
  for (auto& t : idx) RLX_TRY_OK(requireIntTensor(c, t, "indices"));
  if (x->ndim >= 0 && int(idx.size()) > x->ndim) return opError(c, fmt::format("{} index tensors given for a {}-D tensor", idx.size(), x->ndim));
  std::optional<std::vector<PrimExpr>> b;
  bool known = true;
  int bndim = 0;
  for (auto& t : idx) {
    if (t->ndim < 0) known = false;
    else bndim = std::max(bndim, t->ndim);
    auto d = t->dims();
    if (!d) {
      known = false;
      continue;
    }
    if (!b) b = *d;
    else {
      RLX_TRY(r, broadcastShapes(c, *b, *d, "one index tensor", "another"));
      if (!r) known = false;
      else b = *r;
    }
  }
  if (x->ndim < 0) return makeTensorNdim(x->dtype, -1, x->vdevice);
  bool ndimKnown = std::all_of(idx.begin(), idx.end(), [](const TensorRef& t) { return t->ndim >= 0; });
  int outNdim = ndimKnown ? bndim + x->ndim - int(idx.size()) : -1;
  auto xd = x->dims();
  if (!known || !b || !xd) return makeTensorNdim(x->dtype, outNdim, x->vdevice);
  std::vector<PrimExpr> out = *b;
  for (size_t i = idx.size(); i < xd->size(); ++i) out.push_back((*xd)[i]);
  return makeTensor(out, x->dtype, x->vdevice);
}

Result<StructInfo> inferSliceScatter(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 5, 5));
  RLX_TRY(x, tensorArg(c, 0, "input_tensor"));
  RLX_TRY(src, tensorArg(c, 1, "src"));
  if (x->ndim >= 0 && src->ndim >= 0 && x->ndim != src->ndim)
    return opError(c, fmt::format("input_tensor and src must have the same number of dimensions, but got {} and {}", x->ndim, src->ndim));
  if (!x->dtype.isVoid() && !src->dtype.isVoid() && x->dtype != src->dtype)
    return opError(c, fmt::format("src must have the input's dtype {}, but it is {}", x->dtype.str(), src->dtype.str()));
  if (x->ndim >= 0) {
    RLX_TRY(axis, normalizeAxis(c, x->ndim, attrInt(c, "axis")));
    (void)axis;
  }
  return StructInfo(x);
}

Result<StructInfo> inferOneHot(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 3, 3));
  RLX_TRY(idx, tensorArg(c, 0, "indices"));
  RLX_TRY_OK(requireIntTensor(c, idx, "indices"));
  DataType on = dtypeOfSInfo(sinfoOf(c.args[1])), off = dtypeOfSInfo(sinfoOf(c.args[2]));
  if (!on.isVoid() && !off.isVoid() && on != off) return opError(c, fmt::format("on_value ({}) and off_value ({}) must have the same dtype", on.str(), off.str()));
  int64_t depth = attrInt(c, "depth");
  if (depth <= 0) return opError(c, fmt::format("depth must be positive, but it is {}", depth));
  if (idx->ndim < 0) return makeTensorNdim(on, -1, idx->vdevice);
  RLX_TRY(axis, normalizeAxis(c, idx->ndim + 1, attrInt(c, "axis", -1)));
  auto d = idx->dims();
  if (!d) return makeTensorNdim(on, idx->ndim + 1, idx->vdevice);
  std::vector<PrimExpr> out = *d;
  out.insert(out.begin() + axis, i64(depth));
  return makeTensor(out, on, idx->vdevice);
}

}  // namespace

void registerGatherScatterOps() {
  OpDef("relax.meshgrid").attrs("relax.attrs.MeshgridAttrs").params({arg("tensors", OpParam::TupleOfExpr), attr("indexing", OpParam::OptStrAttr, aStr("ij"))}).infer(inferMeshgrid).pattern(OpPattern::Injective).doc("coordinate grids").done();
  OpDef("relax.gather_elements").attrs("relax.attrs.GatherElementsAttrs").params({arg("data"), arg("indices"), attr("axis", OpParam::IntAttr, aInt(0))}).infer(inferGatherElements).pattern(OpPattern::Injective).doc("gather along an axis").done();
  OpDef("relax.gather_nd").attrs("relax.attrs.GatherNDAttrs").params({arg("data"), arg("indices"), attr("batch_dims", OpParam::IntAttr, aInt(0))}).infer(inferGatherND).pattern(OpPattern::Injective).doc("gather slices by index tuples").done();
  OpDef("relax.scatter_elements")
      .attrs("relax.attrs.ScatterElementsAttrs")
      .params({arg("data"), arg("indices"), arg("updates"), attr("axis", OpParam::IntAttr, aInt(0)), attr("reduction", OpParam::StrAttr, aStr("update"))})
      .infer([](const Call& c) { return inferScatter(c, true); })
      .pattern(OpPattern::Opaque)
      .doc("scatter along an axis")
      .done();
  OpDef("relax.scatter_nd")
      .attrs("relax.attrs.ScatterNDAttrs")
      .params({arg("data"), arg("indices"), arg("updates"), attr("reduction", OpParam::StrAttr, aStr("update"))})
      .infer([](const Call& c) { return inferScatter(c, false); })
      .pattern(OpPattern::Opaque)
      .doc("scatter slices by index tuples")
      .done();
  OpDef("relax.index_put")
      .attrs("relax.attrs.IndexPutAttrs")
      .params({arg("data"), arg("indices", OpParam::TupleOfExpr), arg("values"), attr("accumulate", OpParam::BoolAttr, aBool(false))})
      .infer(inferIndexPut)
      .pattern(OpPattern::Opaque)
      .doc("write values at advanced indices")
      .done();
  OpDef("relax.index_tensor").params({arg("data"), arg("indices", OpParam::TupleOfExpr)}).infer(inferIndexTensor).pattern(OpPattern::Injective).doc("advanced indexing by index tensors").done();
  OpDef("relax.slice_scatter")
      .attrs("relax.attrs.SliceScatterAttrs")
      .params({arg("input_tensor"), arg("src"), arg("start", OpParam::PrimArg), arg("end", OpParam::PrimArg), optArg("step", OpParam::PrimArg), attr("axis", OpParam::IntAttr, aInt(0))})
      .fixup([](Call& c) -> Status {
        if (c.args.size() == 4) c.args.push_back(primValue(1));
        return okStatus();
      })
      .infer(inferSliceScatter)
      .pattern(OpPattern::Opaque)
      .doc("write src into a strided slice")
      .done();
  OpDef("relax.one_hot")
      .attrs("relax.attrs.OneHotAttrs")
      .params({arg("indices"), arg("on_value", OpParam::PrimArg), arg("off_value", OpParam::PrimArg), reqAttr("depth", OpParam::IntAttr), attr("axis", OpParam::IntAttr, aInt(-1))})
      .infer(inferOneHot)
      .pattern(OpPattern::Injective)
      .doc("one-hot encoding")
      .done();
}

}  // namespace rlx::ops
