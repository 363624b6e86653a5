// Tensor creation ops: full/zeros/ones (and *_like), arange, eye, hamming_window, tril/triu.
// Shapes come from ShapeExpr args (kept as the result's shape), ranges from PrimValue args.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "ir/ops/infer_util.h"

namespace rlx {
namespace {
using namespace ops;
using KwArgs = std::vector<std::pair<std::string, PyValue>>;

// TensorSInfo whose shape is the shape argument itself (ShapeExpr → dims, Shape var → that var).
Result<StructInfo> tensorOfShapeArg(const Call& c, size_t i, DataType t, const std::string& vdev) {
  RLX_TRY(s, shapeArg(c, i, "shape"));
  const Expr& e = c.args[i];
  if (auto se = e.as<ShapeExpr>()) return makeTensor(se->values, t, vdev);
  if (s->values && !e.is<Var>()) return makeTensor(*s->values, t, vdev);
  return StructInfo(make<TensorSInfo>(e, t, s->ndim, vdev));
}

Result<TensorRef> scalarFill(const Call& c, size_t i) {
  RLX_TRY(f, tensorArg(c, i, "fill_value"));
  if (f->ndim != 0) return opError(c, fmt::format("expects fill_value to be a 0-d tensor, but it is {}", sinfoStr(f)));
  return f;
}

Result<StructInfo> inferFull(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 2, 2));
  RLX_TRY(fill, scalarFill(c, 1));
  DataType t = attrDType(c, "dtype");
  if (t.isVoid()) t = fill->dtype;
  return tensorOfShapeArg(c, 0, t, fill->vdevice);
}

Result<StructInfo> inferOnesZeros(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  return tensorOfShapeArg(c, 0, attrDType(c, "dtype"), "");
}

Result<StructInfo> inferLike(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 2));
  RLX_TRY(x, tensorArg(c, 0, "x"));
  if (c.args.size() == 2) RLX_TRY_OK(scalarFill(c, 1));
  DataType t = attrDType(c, "dtype");
  return t.isVoid() ? StructInfo(x) : withDType(x, t);
}

Result<PrimExpr> primOfArg(const Call& c, size_t i, const char* name) {
  if (i >= c.args.size()) return opError(c, fmt::format("missing argument {}", name));
  if (auto pv = c.args[i].as<PrimValue>()) return pv->value;
  if (auto ps = sinfoOf(c.args[i]).as<PrimSInfo>(); ps && ps->value) return ps->value;
  return opError(c, fmt::format("expects {} to be a prim value (R.prim_value(..)), but it is {}", name, sinfoStr(sinfoOf(c.args[i]))));
}

// The number of values of a constant integer range: max(0, ceil((end - start) / step)), for either
// sign of step (step != 0), computed without overflow.
int64_t constRangeLength(int64_t start, int64_t end, int64_t step) {
  __int128 span = __int128(end) - start, q = span / step;
  if (span % step != 0 && (span > 0) == (step > 0)) ++q;
  return int64_t(std::clamp<__int128>(q, 0, INT64_MAX));
}

// Integer bounds that are all constants give the exact length, an empty range 0; symbolic integer
// bounds give TVM's floordiv(end - start + step - 1, step). A float bound computes the length as
// TVM does (float32 ceil of (end - start) / step), clamped at 0.
Result<StructInfo> inferArange(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 3, 3));
  RLX_TRY(start, primOfArg(c, 0, "start"));
  RLX_TRY(end, primOfArg(c, 1, "end"));
  RLX_TRY(step, primOfArg(c, 2, "step"));
  DataType t = attrDType(c, "dtype");
  if (start->dtype.isInt() && end->dtype.isInt() && step->dtype.isInt()) {
    if (isConstInt(step, 0)) return opError(c, "step must not be zero");
    auto s = asIntImm(start), e = asIntImm(end), st = asIntImm(step);
    if (s && e && st) return makeTensor({i64(constRangeLength(s->value, e->value, st->value))}, t, "");
    // Symbolic bounds keep TVM's form, which assumes a positive step and a non-empty range.
    return makeTensor({floordiv(add(sub(end, start), sub(step, i64(1))), step)}, t, "");
  }
  auto num = [](const PrimExpr& e) -> std::optional<double> {
    if (auto f = e.as<FloatImm>()) return f->value;
    if (auto i = asIntImm(e)) return double(i->value);
    return std::nullopt;
  };
  auto s = num(start), e = num(end), st = num(step);
  if (s && e && st) {
    if (*st == 0) return opError(c, "step must not be zero");
    double n = std::ceil(float(float(*e - *s) / float(*st)));
    return makeTensor({i64(int64_t(std::max(n, 0.0)))}, t, "");
  }
  return makeTensorNdim(t, 1, "");
}

// R.arange(start, end=None, step=1, dtype=None): one value means (0, value); the default dtype is
// int64 when every bound is an integer, else float32.
Result<Expr> buildArange(const OpInfo& op, std::vector<PyValue>& args, KwArgs& kwargs) {
  std::string label = op.scriptName();
  RLX_TRY(p, bindPy(label, {"start", "end", "step", "dtype"}, 1, args, kwargs));
  PyValue start = *p[0], end, step = PyValue::ofInt(1);
  if (!p[1] || p[1]->kind == PyValue::None) {
    end = start;
    start = PyValue::ofInt(0);
  } else {
    end = *p[1];
  }
  if (p[2] && p[2]->kind != PyValue::None) step = *p[2];
  auto isInt = [](const PyValue& v) {
    if (v.kind == PyValue::Int) return true;
    if (v.kind == PyValue::Prim) return v.prim->dtype.isInt();
    if (v.kind == PyValue::Expr)
      if (auto pv = v.expr.as<PrimValue>()) return pv->value->dtype.isInt();
    return false;
  };
  PyValue dtype = p[3] ? *p[3] : PyValue::none();
  if (dtype.kind == PyValue::None) dtype = PyValue::ofStr(isInt(start) && isInt(end) && isInt(step) ? "int64" : "float32");
  std::vector<PyValue> a = {start, end, step};
  KwArgs kw = {{"dtype", dtype}};
  RLX_TRY(call, buildGeneric(op, a, kw));
  return Expr(call);
}

Result<StructInfo> inferEye(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 3, 3));
  RLX_TRY(n, primOfArg(c, 0, "n"));
  RLX_TRY(m, primOfArg(c, 1, "m"));
  RLX_TRY(k, primOfArg(c, 2, "k"));
  return makeTensor({n, m}, attrDType(c, "dtype"), "");
}

// R.eye(n, m=None, k=0, dtype="float32"): m defaults to n.
Result<Expr> buildEye(const OpInfo& op, std::vector<PyValue>& args, KwArgs& kwargs) {
  RLX_TRY(p, bindPy(op.scriptName(), {"n", "m", "k", "dtype"}, 1, args, kwargs));
  std::vector<PyValue> a = {*p[0], p[1] && p[1]->kind != PyValue::None ? *p[1] : *p[0], p[2] ? *p[2] : PyValue::ofInt(0)};
  KwArgs kw = {{"dtype", p[3] ? *p[3] : PyValue::ofStr("float32")}};
  RLX_TRY(call, buildGeneric(op, a, kw));
  return Expr(call);
}

Result<StructInfo> inferEyeLike(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 2, 2));
  RLX_TRY(x, tensorArg(c, 0, "x"));
  if (x->ndim != 2 && x->ndim != -1) return opError(c, fmt::format("expects a 2-D tensor, but it has {} dimensions", x->ndim));
  RLX_TRY(k, primOfArg(c, 1, "k"));
  DataType t = attrDType(c, "dtype");
  return t.isVoid() ? StructInfo(x) : withDType(x, t);
}

Result<StructInfo> inferHamming(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 4, 4));
  RLX_TRY(n, primOfArg(c, 0, "window_size"));
  if (auto v = asConst(n); v && *v < 1) return opError(c, fmt::format("window_size must be at least 1, but it is {}", *v));
  return makeTensor({n}, attrDType(c, "dtype"), "");
}

Result<StructInfo> inferTrilu(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 2, 2));
  RLX_TRY(x, tensorArg(c, 0, "x"));
  if (x->ndim >= 0 && x->ndim < 2) return opError(c, fmt::format("expects a tensor of at least 2 dimensions, but it has {}", x->ndim));
  RLX_TRY(k, primOfArg(c, 1, "k"));
  return StructInfo(x);
}

}  // namespace

void registerCreateOps() {
  const char* init = "relax.attrs.InitAttrs";
  OpDef("relax.full")
      .attrs(init)
      .params({arg("shape", OpParam::ShapeArg), arg("fill_value", OpParam::ConstArg), attr("dtype", OpParam::DTypeAttr, aDType("void"))})
      .infer(inferFull)
      .pattern(OpPattern::ElemWise)
      .doc("a tensor filled with a value")
      .done();
  OpDef("relax.full_like")
      .attrs(init)
      .params({arg("x"), arg("fill_value", OpParam::ConstArg), attr("dtype", OpParam::DTypeAttr, aDType("void"))})
      .infer(inferLike)
      .pattern(OpPattern::ElemWise)
      .doc("a tensor shaped like x filled with a value")
      .done();
  for (const char* n : {"zeros", "ones"}) {
    OpDef(std::string("relax.") + n).attrs(init).params({arg("shape", OpParam::ShapeArg), reqAttr("dtype", OpParam::DTypeAttr)}).infer(inferOnesZeros).pattern(OpPattern::ElemWise).doc(std::string("a tensor of ") + n).done();
    OpDef(std::string("relax.") + n + "_like").attrs(init).params({arg("x"), attr("dtype", OpParam::DTypeAttr, aDType("void"))}).infer(inferLike).pattern(OpPattern::ElemWise).doc(std::string("a tensor of ") + n + " shaped like x").done();
  }
  OpDef("relax.arange")
      .attrs(init)
      .params({arg("start", OpParam::PrimArg), arg("end", OpParam::PrimArg), arg("step", OpParam::PrimArg), attr("dtype", OpParam::DTypeAttr, aDType("void"))})
      .build(buildArange)
      .infer(inferArange)
      .pattern(OpPattern::Injective)
      .doc("evenly spaced values in [start, end)")
      .done();
  OpDef("relax.eye")
      .attrs(init)
      .params({arg("n", OpParam::PrimArg), arg("m", OpParam::PrimArg), arg("k", OpParam::PrimArg), attr("dtype", OpParam::DTypeAttr, aDType("float32"))})
      .build(buildEye)
      .infer(inferEye)
      .pattern(OpPattern::Injective)
      .doc("identity-like 2-D tensor")
      .done();
  OpDef("relax.eye_like")
      .attrs(init)
      .params({arg("x"), optArg("k", OpParam::PrimArg), attr("dtype", OpParam::DTypeAttr, aDType("void"))})
      .fixup([](Call& c) -> Status {
        if (c.args.size() == 1) c.args.push_back(primValue(0));
        return okStatus();
      })
      .infer(inferEyeLike)
      .pattern(OpPattern::Injective)
      .doc("identity-like tensor shaped like x")
      .done();
  OpDef("relax.hamming_window")
      .attrs(init)
      .params({arg("window_size", OpParam::PrimArg), arg("periodic", OpParam::PrimArg), arg("alpha", OpParam::PrimArg), arg("beta", OpParam::PrimArg), reqAttr("dtype", OpParam::DTypeAttr)})
      .infer(inferHamming)
      .pattern(OpPattern::Injective)
      .doc("Hamming window")
      .done();
  for (const char* n : {"tril", "triu"})
    OpDef(std::string("relax.") + n)
        .params({arg("x"), optArg("k", OpParam::PrimArg)})
        .fixup([](Call& c) -> Status {
          if (c.args.size() == 1) c.args.push_back(primValue(0));
          return okStatus();
        })
        .infer(inferTrilu)
        .pattern(OpPattern::Injective)
        .doc(std::string(n) + " of a matrix (batched)")
        .done();
}

}  // namespace rlx
