// Helpers the Relay op conversions share: axis normalization, Relay's padding and per-axis
// attribute forms, constant arguments read at import time, and dtype handling.
#include "frontend/relay/ops.h"

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

}  // namespace rlx::relay::ops
