// Relay's tensor creation ops: zeros / ones / full with a static shape attribute, the *_like forms,
// and arange over constant bounds (Relax takes them as prim values).
#include "frontend/relay/ops.h"

namespace rlx::relay::ops {

namespace {

RExpr filled(OpCtx& c, const char* relax) {
  c.expectArgs(0, 0);
  c.allowAttrs({"shape", "dtype"});
  if (!c.has("shape")) c.fail("needs a shape (a tensor-valued shape is the dyn. variant's)");
  return c.call(relax, {ints(c.ints("shape"))}, {{"dtype", s(c.dtypeAttr("dtype", DataType::float32()).str())}});
}

RExpr filledLike(OpCtx& c, const char* relax) {
  c.expectArgs(1, 1);
  c.allowAttrs({});
  return c.call(relax, {ex(c.arg(0))});
}

}  // namespace

RExpr zeros(OpCtx& c) { return filled(c, "zeros"); }
RExpr ones(OpCtx& c) { return filled(c, "ones"); }
RExpr zeros_like(OpCtx& c) { return filledLike(c, "zeros_like"); }
RExpr ones_like(OpCtx& c) { return filledLike(c, "ones_like"); }

// full(fill_value, shape, dtype): the fill value is a 0-d tensor argument; unset dtype = its dtype.
RExpr full(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"shape", "dtype"});
  if (!c.has("shape")) c.fail("needs a shape (a tensor-valued shape is dyn.full's)");
  DataType t = c.dtypeAttr("dtype", c.dtype(0));
  return c.call("full", {ints(c.ints("shape")), ex(c.arg(0))}, {{"dtype", s(t.str())}});
}

RExpr full_like(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({});
  return c.call("full_like", {ex(c.arg(0)), ex(c.arg(1))});
}

// arange(start, stop, step, dtype): Relax needs the bounds as prim values, so they must be
// constants here (Relay's result would have an unknown extent otherwise).
RExpr arange(OpCtx& c) {
  c.expectArgs(3, 3);
  c.allowAttrs({"dtype"});
  DataType t = c.dtypeAttr("dtype", c.dtype(0));
  std::vector<PyValue> bounds;
  for (size_t k = 0; k < 3; ++k) {
    auto v = constScalar(c.arg(k));
    if (!v) c.fail("start, stop and step must be constants (Relax takes them as prim values)");
    PyValue p;
    p.kind = PyValue::Prim;
    p.prim = t.isFloat() ? floatImm(*v, t) : intImm(int64_t(*v), t);
    bounds.push_back(p);
  }
  return c.call("arange", std::move(bounds), {{"dtype", s(t.str())}});
}

}  // namespace rlx::relay::ops
