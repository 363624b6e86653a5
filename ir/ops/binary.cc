// Binary broadcasting ops (arithmetic, comparison, logical, bitwise), ewise_fma and where.
// Numpy broadcasting over symbolic dims; operands may be tensors or R.Prim scalars as in TVM.
#include <fmt/format.h>

#include "ir/ops/infer_util.h"

namespace rlx {
namespace {
using namespace ops;

Result<StructInfo> inferBroadcast(const Call& c, bool compare) {
  RLX_TRY_OK(checkArgCount(c, 2, 2));
  StructInfo l = sinfoOf(c.args[0]), r = sinfoOf(c.args[1]);
  for (auto [s, name] : {std::pair{l, "x1"}, std::pair{r, "x2"}})
    if (!s.is<TensorSInfo>() && !s.is<PrimSInfo>())
      return opError(c, fmt::format("expects {} to be a tensor or a prim value, but it is {}", name, sinfoStr(s)));
  DataType out = DataType::boolean();
  if (!compare) {
    RLX_TRY(t, binaryDType(c, dtypeOfSInfo(l), dtypeOfSInfo(r), "x1", "x2"));
    out = t;
  }
  if (l.is<PrimSInfo>() && r.is<PrimSInfo>()) return StructInfo(make<PrimSInfo>(out));
  auto lt = l.as<TensorSInfo>(), rt = r.as<TensorSInfo>();
  RLX_TRY(vdev, unifyVDevice(c, lt ? lt->vdevice : "", rt ? rt->vdevice : ""));
  auto ndimOf = [](const StructInfo& s) { return s.is<PrimSInfo>() ? 1 : s.as<TensorSInfo>()->ndim; };
  int ln = ndimOf(l), rn = ndimOf(r);
  int ndim = ln < 0 || rn < 0 ? -1 : std::max(ln, rn);
  auto shapeOf = [](const StructInfo& s) -> std::optional<std::vector<PrimExpr>> {
    if (s.is<PrimSInfo>()) return std::vector<PrimExpr>{i64(1)};
    if (auto d = s.as<TensorSInfo>()->dims()) return *d;
    return std::nullopt;
  };
  auto ls = shapeOf(l), rs = shapeOf(r);
  if (ls && rs) {
    RLX_TRY(b, broadcastShapes(c, *ls, *rs, "x1", "x2"));
    if (b) return makeTensor(*b, out, vdev);
  }
  if (lt && rt && lt->shape && lt->shape == rt->shape) return StructInfo(make<TensorSInfo>(lt->shape, out, lt->ndim, vdev));
  return makeTensorNdim(out, ndim, vdev);
}

void binary(const char* name, bool compare) {
  OpDef(std::string("relax.") + name)
      .params({arg("x1", OpParam::ConstArg), arg("x2", OpParam::ConstArg)})
      .infer([compare](const Call& c) { return inferBroadcast(c, compare); })
      .pattern(OpPattern::Broadcast)
      .doc(std::string("broadcasting ") + name)
      .done();
}

Result<StructInfo> inferEwiseFMA(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 3, 3));
  std::vector<TensorRef> t;
  for (size_t i = 0; i < 3; ++i) {
    std::string n = "x" + std::to_string(i + 1);
    RLX_TRY(x, tensorArg(c, i, n.c_str()));
    t.push_back(x);
  }
  int ndim = -1;
  for (auto& x : t) {
    if (x->ndim < 0) continue;
    if (ndim < 0) ndim = x->ndim;
    else if (x->ndim != ndim) return opError(c, "the 3 arguments must have the same number of dimensions");
  }
  DataType out = DataType::void_();
  if (!t[0]->dtype.isVoid() && !t[1]->dtype.isVoid() && !t[2]->dtype.isVoid()) {
    if (t[0]->dtype != t[1]->dtype || t[1]->dtype != t[2]->dtype)
      return opError(c, fmt::format("dtypes {}, {} and {} must be equal", t[0]->dtype.str(), t[1]->dtype.str(), t[2]->dtype.str()));
    out = t[0]->dtype;
  }
  RLX_TRY(v1, unifyVDevice(c, t[0]->vdevice, t[1]->vdevice));
  RLX_TRY(vdev, unifyVDevice(c, v1, t[2]->vdevice));
  auto d0 = t[0]->dims(), d1 = t[1]->dims(), d2 = t[2]->dims();
  if (d0 && d1 && d2) {
    std::vector<PrimExpr> dims;
    for (int i = 0; i < ndim; ++i) {
      if (!proveEqual((*d0)[i], (*d1)[i]) || !proveEqual((*d1)[i], (*d2)[i]))
        return opError(c, fmt::format("the 3 arguments must have the same shape, but got {}, {} and {}", shapeStr(*d0), shapeStr(*d1), shapeStr(*d2)));
      dims.push_back((*d0)[i]);
    }
    return makeTensor(dims, out, vdev);
  }
  if (t[0]->shape && t[0]->shape == t[1]->shape && t[0]->shape == t[2]->shape) return StructInfo(make<TensorSInfo>(t[0]->shape, out, ndim, vdev));
  return makeTensorNdim(out, ndim, vdev);
}

Result<StructInfo> inferWhere(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 3, 3));
  RLX_TRY(cond, tensorArg(c, 0, "condition"));
  RLX_TRY(x1, tensorArg(c, 1, "x1"));
  RLX_TRY(x2, tensorArg(c, 2, "x2"));
  if (!cond->dtype.isVoid() && !cond->dtype.isBool())
    return opError(c, fmt::format("expects a bool condition, but its dtype is {}", cond->dtype.str()));
  RLX_TRY(out, binaryDType(c, x1->dtype, x2->dtype, "x1", "x2"));
  int ndim = cond->ndim < 0 || x1->ndim < 0 || x2->ndim < 0 ? -1 : std::max({cond->ndim, x1->ndim, x2->ndim});
  RLX_TRY(v1, unifyVDevice(c, cond->vdevice, x1->vdevice));
  RLX_TRY(vdev, unifyVDevice(c, v1, x2->vdevice));
  if (cond->dims() && x1->dims() && x2->dims()) {
    RLX_TRY(b1, broadcastShapes(c, *x1->dims(), *x2->dims(), "x1", "x2"));
    if (!b1) return makeTensorNdim(out, ndim, vdev);
    RLX_TRY(b2, broadcastShapes(c, *cond->dims(), *b1, "condition", "the broadcast of x1 and x2"));
    if (!b2) return makeTensorNdim(out, ndim, vdev);
    return makeTensor(*b2, out, vdev);
  }
  if (cond->shape && cond->shape == x1->shape && cond->shape == x2->shape) return StructInfo(make<TensorSInfo>(cond->shape, out, ndim, vdev));
  return makeTensorNdim(out, ndim, vdev);
}

}  // namespace

void registerBinaryOps() {
  for (const char* name : {"add", "subtract", "multiply", "divide", "floor_divide", "floor_mod", "mod", "power", "log_add_exp",
                           "maximum", "minimum", "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
                           "bitwise_xor", "left_shift", "right_shift"})
    binary(name, false);
  for (const char* name : {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}) binary(name, true);
  OpDef("relax.ewise_fma")
      .params({arg("x1"), arg("x2"), arg("x3")})
      .infer(inferEwiseFMA)
      .pattern(OpPattern::ElemWise)
      .doc("x1 * x2 + x3 on equal shapes")
      .done();
  OpDef("relax.where")
      .params({arg("condition"), arg("x1", OpParam::ConstArg), arg("x2", OpParam::ConstArg)})
      .infer(inferWhere)
      .pattern(OpPattern::Broadcast)
      .doc("select x1 where condition holds, else x2")
      .done();
}

}  // namespace rlx
