// Helpers the Relay op conversions share: axis normalization, Relay's padding and per-axis
// attribute forms, constant arguments read at import time, and dtype handling.
#include "frontend/relay/ops.h"
#include "ir/ops/infer_util.h"

namespace rlx::relay::ops {

int64_t normAxis(OpCtx& c, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) c.fail("axis " + std::to_string(axis) + " is out of range for a tensor of rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> normAxes(OpCtx& c, const std::vector<int64_t>& axes, int64_t rank) {
  std::vector<int64_t> out;
  for (int64_t a : axes) out.push_back(normAxis(c, a, rank));
  return out;
}

PyValue primList(const std::vector<PrimExpr>& v) {
  PyValue list;
  list.kind = PyValue::List;
  for (auto& e : v) {
    if (auto k = asIntImm(e)) {
      list.items.push_back(PyValue::ofInt(k->value));
      continue;
    }
    PyValue p;
    p.kind = PyValue::Prim;
    p.prim = e;
    list.items.push_back(p);
  }
  return list;
}

PyValue floatList(const std::vector<double>& v) {
  PyValue list;
  list.kind = PyValue::List;
  for (double x : v) list.items.push_back(build::f(x));
  return list;
}

DataType dtypeOf(const RExpr& e) {
  auto t = e && e->sinfo ? e->sinfo.as<TensorSInfo>() : nullptr;
  return t ? t->dtype : DataType::void_();
}

RExpr astype(OpCtx& c, const RExpr& x, DataType t) {
  if (dtypeOf(x) == t) return x;
  return c.call("astype", {ex(x)}, {{"dtype", s(t.str())}});
}

std::string outDType(OpCtx& c, const char* key) { return c.dtypeAttr(key, DataType::void_()).str(); }

std::optional<double> constScalar(const RExpr& e) {
  auto k = e.as<Constant>();
  if (!k || !k->data || k->data->numel() != 1) return std::nullopt;
  return k->data->getDouble(0);
}

std::optional<std::vector<int64_t>> constInts(const RExpr& e) {
  auto k = e.as<Constant>();
  if (!k || !k->data || !k->data->dtype.isIntegral()) return std::nullopt;
  std::vector<int64_t> out;
  for (int64_t i = 0; i < k->data->numel(); ++i) out.push_back(k->data->getInt(i));
  return out;
}

std::vector<int64_t> spatialPadding(OpCtx& c, size_t n, const char* key) {
  std::vector<int64_t> p = c.ints(key, std::vector<int64_t>(n, 0));
  if (p.size() == 1) return std::vector<int64_t>(2 * n, p[0]);
  if (p.size() == n) {
    // n values: the same padding before and after each spatial axis.
    std::vector<int64_t> out = p;
    out.insert(out.end(), p.begin(), p.end());
    return out;
  }
  if (p.size() == 2 * n) return p;
  c.fail("attribute '" + std::string(key) + "' has " + std::to_string(p.size()) + " values; expected 1, " + std::to_string(n) + " or " + std::to_string(2 * n));
}

std::vector<int64_t> spatialInts(OpCtx& c, size_t n, const char* key, int64_t def) {
  std::vector<int64_t> v = c.ints(key, std::vector<int64_t>(n, def));
  if (v.size() == 1 && n > 1) return std::vector<int64_t>(n, v[0]);
  if (v.size() != n) c.fail("attribute '" + std::string(key) + "' has " + std::to_string(v.size()) + " values; expected " + std::to_string(n));
  return v;
}

void requireNoTuningLayout(OpCtx& c) {
  // Set only by TVM's auto-scheduler / meta-schedule layout rewrite: the weight is then stored in a
  // tuned layout Relax has no name for.
  if (!c.s("auto_scheduler_rewritten_layout", "").empty()) c.fail("the weight is in an auto-scheduler rewritten layout (a tuning artifact), which Relax cannot express");
  if (!c.ints("meta_schedule_original_shape").empty()) c.fail("the weight is in a meta-schedule rewritten layout (a tuning artifact), which Relax cannot express");
}

std::optional<std::vector<double>> constDoubles(const RExpr& e) {
  auto k = e.as<Constant>();
  if (!k || !k->data) return std::nullopt;
  std::vector<double> out;
  for (int64_t i = 0; i < k->data->numel(); ++i) out.push_back(k->data->getDouble(i));
  return out;
}

RExpr scalarConst(double v, DataType t) { return rlx::ops::makeScalarConst(v, t); }

RExpr intsConst(const std::vector<int64_t>& values, const std::vector<int64_t>& shape, DataType t) {
  auto arr = make<NDArray>(t, shape);
  for (size_t k = 0; k < values.size(); ++k) arr->setInt(int64_t(k), values[k]);
  auto c = make<Constant>(arr);
  std::vector<PrimExpr> dims;
  for (int64_t d : shape) dims.push_back(intImm(d));
  c->sinfo = tensorSInfo(std::move(dims), t);
  return c;
}

AttrValue intAttr(int64_t v) {
  AttrValue a;
  a.kind = AttrValue::Int;
  a.i = v;
  a.dtype = "int64";
  return a;
}

AttrValue floatAttr(double v) {
  AttrValue a;
  a.kind = AttrValue::Float;
  a.f = v;
  a.dtype = "float64";
  return a;
}

AttrValue intsAttr(const std::vector<int64_t>& v) {
  AttrValue a;
  a.kind = AttrValue::Array;
  for (int64_t x : v) a.items.push_back(intAttr(x));
  return a;
}

AttrValue floatsAttr(const std::vector<double>& v) {
  AttrValue a;
  a.kind = AttrValue::Array;
  for (double x : v) a.items.push_back(floatAttr(x));
  return a;
}

Attrs withAttrs(const OpCtx& c, const Attrs& extra) {
  Attrs out;
  for (auto& kv : c.attrs()) {
    bool replaced = false;
    for (auto& e : extra) replaced |= e.first == kv.first;
    if (!replaced) out.push_back(kv);
  }
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

std::vector<RExpr> tupleFields(OpCtx& c, size_t arg, const char* what) {
  const RExpr& e = c.arg(arg);
  if (auto t = e.as<Tuple>()) return std::vector<RExpr>(t->fields.begin(), t->fields.end());
  auto ts = e && e->sinfo ? e->sinfo.as<TupleSInfo>() : nullptr;
  if (!ts) c.fail(std::string(what) + " must be a tuple");
  std::vector<RExpr> out;
  for (size_t k = 0; k < ts->fields.size(); ++k) out.push_back(c.emit(make<TupleGetItem>(e, int(k))));
  return out;
}

}  // namespace rlx::relay::ops
