// Op-call construction for passes through the schema-driven builder (see op_builder.h).
#include "passes/op_builder.h"

#include "ir/ops/infer_util.h"

namespace rlx::build {

PyValue f(double v) {
  PyValue p;
  p.kind = PyValue::Float;
  p.d = v;
  return p;
}

PyValue b(bool v) {
  PyValue p;
  p.kind = PyValue::Bool;
  p.b = v;
  return p;
}

PyValue ints(const std::vector<int64_t>& v) {
  PyValue p;
  p.kind = PyValue::List;
  for (auto x : v) p.items.push_back(i(x));
  return p;
}

Expr call(const std::string& name, std::vector<PyValue> args, KwArgs kwargs) {
  const OpInfo* op = findOp("relax." + name);
  RLX_CHECK(op != nullptr, "unknown op");
  auto r = buildOpCall(*op, std::move(args), std::move(kwargs));
  RLX_CHECK(r.ok(), "a pass built an invalid call");
  return r.value();
}

Expr scalar(double v, DataType t) { return ops::makeScalarConst(v, t); }

}  // namespace rlx::build
