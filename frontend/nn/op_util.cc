// Op-building helpers (see op_util.h).
#include "frontend/nn/op_util.h"

#include "frontend/nn/export_context.h"

namespace rlx::nn::detail {

Expr call(const std::string& name, std::vector<PyValue> args, KwArgs kwargs) {
  const OpInfo* op = findOp("relax." + name);
  RLX_CHECK(op != nullptr, "nn uses an unregistered op relax." + name);
  return orThrow(buildOpCall(*op, std::move(args), std::move(kwargs)));
}

Tensor wrap(const Expr& e, const std::string& name) {
  auto& ctx = ExportContext::current();
  return Tensor(ctx.emit(e, name, /*bindLeaf=*/false));
}

std::vector<Tensor> wrapTuple(const Expr& e, const std::string& name) {
  auto& ctx = ExportContext::current();
  Expr t = ctx.emit(e, name, false);
  auto ts = sinfoOf(t).as<TupleSInfo>();
  if (!ts) fail("expected a tuple result");
  std::vector<Tensor> out;
  for (size_t i = 0; i < ts->fields.size(); ++i) out.emplace_back(ctx.emit(make<TupleGetItem>(t, int(i)), name + "_" + std::to_string(i)));
  return out;
}

PyValue none() { return PyValue::none(); }

PyValue prim(PrimExpr e) {
  PyValue v;
  v.kind = PyValue::Prim;
  v.prim = std::move(e);
  return v;
}

PyValue sinfo(StructInfo s) {
  PyValue v;
  v.kind = PyValue::SInfo;
  v.sinfo = std::move(s);
  return v;
}

PyValue optInts(const std::optional<std::vector<int64_t>>& v) { return v ? build::ints(*v) : none(); }

Expr shapeExpr(const std::vector<PrimExpr>& dims) {
  auto s = make<ShapeExpr>(dims);
  s->sinfo = make<ShapeSInfo>(dims, 0);
  return s;
}

int64_t normalizeAxis(int64_t axis, size_t ndim, const std::string& op) {
  int64_t n = int64_t(ndim);
  if (axis < -n || axis >= n) fail(op + ": axis " + std::to_string(axis) + " out of range for a tensor of rank " + std::to_string(n));
  return axis < 0 ? axis + n : axis;
}

}  // namespace rlx::nn::detail
