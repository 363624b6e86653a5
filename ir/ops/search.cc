// Search, sort and set ops: argmax/argmin, sort/argsort, topk, bucketize, unique, nonzero and
// multinomial_from_uniform (sampling).
#include <fmt/format.h>

#include "ir/ops/infer_util.h"

namespace rlx {
namespace {
using namespace ops;

Result<StructInfo> inferArgReduce(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, "x"));
  bool hasAxis = !attrIsNone(c, "axis"), keep = attrBool(c, "keepdims");
  int axis = -1;
  if (x->ndim >= 0 && hasAxis) {
    RLX_TRY(a, normalizeAxis(c, x->ndim, attrInt(c, "axis")));
    axis = a;
  }
  int ndim = keep ? x->ndim : !hasAxis ? 0 : x->ndim < 0 ? -1 : x->ndim - 1;
  DataType out = DataType::int64();
  auto d = x->dims();
  if (!d) {
    if (!hasAxis && keep && ndim >= 0) return makeTensor(std::vector<PrimExpr>(size_t(ndim), i64(1)), out, x->vdevice);
    return ndim == 0 ? makeTensor({}, out, x->vdevice) : makeTensorNdim(out, ndim, x->vdevice);
  }
  std::vector<PrimExpr> shape;
  for (int i = 0; i < x->ndim; ++i) {
    if (hasAxis && i != axis) shape.push_back((*d)[size_t(i)]);
    else if (keep) shape.push_back(i64(1));
  }
  return makeTensor(shape, out, x->vdevice);
}

Result<TensorRef> axisChecked(const Call& c, const char* name) {
  RLX_TRY(x, tensorArg(c, 0, name));
  if (x->ndim >= 0) {
    RLX_TRY(a, normalizeAxis(c, x->ndim, attrInt(c, "axis", -1)));
    (void)a;
  }
  return x;
}

Result<StructInfo> inferSort(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, axisChecked(c, "x"));
  return StructInfo(x);
}

Result<StructInfo> inferArgsort(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, axisChecked(c, "data"));
  DataType t = attrDType(c, "dtype");
  return withDType(x, t.isVoid() ? x->dtype : t);
}

Result<StructInfo> inferTopK(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, "data"));
  DataType it = attrDType(c, "dtype");
  if (it.isVoid()) it = DataType::int32();
  std::string ret = attrString(c, "ret_type", "both");
  if (ret != "both" && ret != "values" && ret != "indices") return opError(c, fmt::format("ret_type must be \"both\", \"values\" or \"indices\", but it is \"{}\"", ret));
  int64_t k = attrInt(c, "k", 1);
  StructInfo values, indices;
  auto d = x->dims();
  if (x->ndim < 0 || !d) {
    values = makeTensorNdim(x->dtype, x->ndim, x->vdevice);
    indices = makeTensorNdim(it, x->ndim, x->vdevice);
  } else {
    RLX_TRY(axis, normalizeAxis(c, x->ndim, attrInt(c, "axis", -1)));
    std::vector<PrimExpr> shape = *d;
    if (k >= 1) {
      if (auto e = asConst(shape[size_t(axis)]); e && k > *e) return opError(c, fmt::format("k = {} exceeds the extent {} of axis {}", k, *e, axis));
      shape[size_t(axis)] = i64(k);
    }
    values = makeTensor(shape, x->dtype, x->vdevice);
    indices = makeTensor(shape, it, x->vdevice);
  }
  if (ret == "values") return values;
  if (ret == "indices") return indices;
  return StructInfo(make<TupleSInfo>(std::vector<StructInfo>{values, indices}));
}

Result<StructInfo> inferBucketize(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 2, 2));
  RLX_TRY(x, tensorArg(c, 0, "input_tensor"));
  RLX_TRY(b, tensorArg(c, 1, "boundaries"));
  if (b->ndim >= 0 && b->ndim != 1) return opError(c, fmt::format("expects 1-D boundaries, but they have {} dimensions", b->ndim));
  return withDType(x, attrBool(c, "out_int32") ? DataType::int32() : DataType::int64());
}

Result<StructInfo> inferUnique(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 5, 6));
  RLX_TRY(x, tensorArg(c, 0, "x"));
  auto flag = [&](size_t i, const char* name) -> Result<bool> {
    PrimExpr v = primArgValue(c, i);
    auto k = asConst(v);
    if (!k) return opError(c, fmt::format("expects {} to be a constant bool prim value", name));
    return *k != 0;
  };
  RLX_TRY(retIndex, flag(2, "return_index"));
  RLX_TRY(retInverse, flag(3, "return_inverse"));
  RLX_TRY(retCounts, flag(4, "return_counts"));
  int axis = -1;
  bool hasAxis = c.args.size() == 6;
  if (hasAxis && x->ndim >= 0) {
    auto k = asConst(primArgValue(c, 5));
    if (!k) return opError(c, "expects axis to be a constant int prim value");
    RLX_TRY(a, normalizeAxis(c, x->ndim, *k));
    axis = a;
  }
  (void)axis;
  std::vector<StructInfo> outs;
  outs.push_back(hasAxis ? makeTensorNdim(x->dtype, x->ndim, x->vdevice) : makeTensorNdim(x->dtype, 1, x->vdevice));
  for (bool f : {retIndex, retInverse, retCounts})
    if (f) outs.push_back(makeTensorNdim(DataType::int64(), 1, x->vdevice));
  if (outs.size() == 1) return outs[0];
  return StructInfo(make<TupleSInfo>(std::move(outs)));
}

Result<StructInfo> inferNonzero(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, "x"));
  return makeTensorNdim(DataType::int64(), 2, x->vdevice);
}

Result<StructInfo> inferMultinomial(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 3, 3));
  RLX_TRY(prob, tensorArg(c, 0, "prob"));
  RLX_TRY(uni, tensorArg(c, 1, "uniform_sample"));
  RLX_TRY(idx, tensorArg(c, 2, "sample_indices"));
  if (!prob->dtype.isVoid() && !prob->dtype.isFloat()) return opError(c, fmt::format("expects a float prob tensor, but its dtype is {}", prob->dtype.str()));
  if (!uni->dtype.isVoid() && !uni->dtype.isFloat()) return opError(c, fmt::format("expects a float uniform_sample tensor, but its dtype is {}", uni->dtype.str()));
  if (!idx->dtype.isVoid() && !idx->dtype.isInt()) return opError(c, fmt::format("expects integer sample_indices, but their dtype is {}", idx->dtype.str()));
  for (auto [t, n] : {std::pair{prob, "prob"}, std::pair{uni, "uniform_sample"}, std::pair{idx, "sample_indices"}})
    if (t->ndim >= 0 && t->ndim != 2) return opError(c, fmt::format("expects {} to be 2-D, but it has {} dimensions", n, t->ndim));
  DataType out = attrDType(c, "dtype");
  if (auto d = idx->dims()) return makeTensor({(*d)[0], i64(1)}, out, prob->vdevice);
  if (auto d = uni->dims()) return makeTensor({(*d)[0], i64(1)}, out, prob->vdevice);
  return makeTensorNdim(out, 2, prob->vdevice);
}

}  // namespace

void registerSearchOps() {
  for (const char* n : {"argmax", "argmin"})
    OpDef(std::string("relax.") + n)
        .attrs("relax.attrs.ArgmaxArgminAttrs")
        .params({arg("x"), attr("axis", OpParam::OptIntAttr, aNone()), attr("keepdims", OpParam::BoolAttr, aBool(false))})
        .infer(inferArgReduce)
        .pattern(OpPattern::CommReduce)
        .doc(std::string(n) + " along an axis")
        .done();
  OpDef("relax.sort").attrs("relax.attrs.SortAttrs").params({arg("x"), attr("axis", OpParam::IntAttr, aInt(-1)), attr("descending", OpParam::BoolAttr, aBool(false))}).infer(inferSort).pattern(OpPattern::Opaque).doc("sort along an axis").done();
  OpDef("relax.argsort")
      .attrs("relax.attrs.ArgsortAttrs")
      .params({arg("data"), attr("axis", OpParam::IntAttr, aInt(-1)), attr("descending", OpParam::BoolAttr, aBool(false)), attr("dtype", OpParam::DTypeAttr, aDType("int32"))})
      .infer(inferArgsort)
      .pattern(OpPattern::Opaque)
      .doc("indices that sort along an axis")
      .done();
  OpDef("relax.topk")
      .attrs("relax.attrs.TopKAttrs")
      .params({arg("data"), attr("k", OpParam::IntAttr, aInt(1)), attr("axis", OpParam::IntAttr, aInt(-1)), attr("ret_type", OpParam::StrAttr, aStr("both")),
               attr("largest", OpParam::BoolAttr, aBool(true)), attr("dtype", OpParam::DTypeAttr, aDType("int32"))})
      .infer(inferTopK)
      .pattern(OpPattern::Opaque)
      .doc("k largest/smallest values and indices")
      .done();
  OpDef("relax.bucketize")
      .attrs("relax.attrs.BucketizeAttrs")
      .params({arg("input_tensor"), arg("boundaries"), attr("out_int32", OpParam::BoolAttr, aBool(false)), attr("right", OpParam::BoolAttr, aBool(false))})
      .infer(inferBucketize)
      .pattern(OpPattern::Opaque)
      .doc("bucket indices of values")
      .done();
  OpDef("relax.unique")
      .build([](const OpInfo& op, std::vector<PyValue>& args, std::vector<std::pair<std::string, PyValue>>& kwargs) -> Result<Expr> {
        // Every flag is a PrimValue arg with its Python default; axis=None is omitted.
        std::string label = op.scriptName();
        RLX_TRY(p, bindPy(label, {"x", "sorted", "return_index", "return_inverse", "return_counts", "axis"}, 1, args, kwargs));
        RLX_TRY(x, toExpr(*p[0], label + " x"));
        std::vector<Expr> callArgs = {x};
        static const bool defaults[] = {true, false, false, false};
        for (size_t i = 1; i <= 4; ++i) {
          PyValue v = p[i] ? *p[i] : PyValue();
          if (!p[i]) {
            v.kind = PyValue::Bool;
            v.b = defaults[i - 1];
          }
          RLX_TRY(e, toPrimValue(v, label + " flag"));
          callArgs.push_back(e);
        }
        if (p[5] && p[5]->kind != PyValue::None) {
          RLX_TRY(e, toPrimValue(*p[5], label + " axis"));
          callArgs.push_back(e);
        }
        return Expr(make<Call>(opRef(op.name), std::move(callArgs), nullptr, std::vector<StructInfo>{}));
      })
      .infer(inferUnique)
      .pattern(OpPattern::Opaque)
      .doc("unique elements (with optional index/inverse/counts)")
      .done();
  OpDef("relax.nonzero").params({arg("x")}).infer(inferNonzero).pattern(OpPattern::Opaque).doc("indices of non-zero elements").done();
  OpDef("relax.multinomial_from_uniform")
      .attrs("relax.attrs.MultinomialFromUniformAttrs")
      .params({arg("prob"), arg("uniform_sample"), arg("sample_indices"), attr("dtype", OpParam::DTypeAttr, aDType("int64"))})
      .infer(inferMultinomial)
      .pattern(OpPattern::Opaque)
      .doc("sample token ids from probabilities and uniform draws")
      .done();
}

}  // namespace rlx
