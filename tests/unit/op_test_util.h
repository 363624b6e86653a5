// Helpers of the op registry tests: build calls from TVMScript-like values with buildOpCall, run the
// op's inference on them, and render results with the real printer for readable expectations.
#pragma once
#include <string>
#include <vector>

#include "ir/op.h"
#include "printer/printer.h"

namespace rlx::test {

inline PrimExpr sym(const char* name) { return make<PrimVar>(name, DataType::int64()); }
inline PrimExpr c64(int64_t v) { return intImm(v); }

inline DataType dt(const char* s) { return *DataType::parse(s); }

// A variable with tensor struct info (shape given as dims).
inline VarRef tvar(const char* name, std::vector<PrimExpr> dims, const char* dtype = "float32") {
  return make<Var>(name, tensorSInfo(std::move(dims), dt(dtype)));
}
inline VarRef tvarNdim(const char* name, int ndim, const char* dtype = "float32") {
  return make<Var>(name, make<TensorSInfo>(Expr(), dtype[0] ? dt(dtype) : DataType::void_(), ndim));
}
inline VarRef var(const char* name, StructInfo s) { return make<Var>(name, std::move(s)); }

inline PyValue E(Expr e) { return PyValue::ofExpr(std::move(e)); }
inline PyValue I(int64_t v) { return PyValue::ofInt(v); }
inline PyValue S(std::string v) { return PyValue::ofStr(std::move(v)); }
inline PyValue None() { return PyValue::none(); }
inline PyValue F(double v) {
  PyValue p;
  p.kind = PyValue::Float;
  p.d = v;
  return p;
}
inline PyValue B(bool v) {
  PyValue p;
  p.kind = PyValue::Bool;
  p.b = v;
  return p;
}
inline PyValue P(PrimExpr e) {
  PyValue p;
  p.kind = PyValue::Prim;
  p.prim = std::move(e);
  return p;
}
inline PyValue SI(StructInfo s) {
  PyValue p;
  p.kind = PyValue::SInfo;
  p.sinfo = std::move(s);
  return p;
}
inline PyValue L(std::vector<PyValue> items) {
  PyValue p;
  p.kind = PyValue::List;
  p.items = std::move(items);
  return p;
}
inline PyValue Tup(std::vector<PyValue> items) {
  PyValue p = L(std::move(items));
  p.kind = PyValue::Tuple;
  return p;
}
inline PyValue Ints(std::vector<int64_t> v) {
  std::vector<PyValue> items;
  for (auto x : v) items.push_back(I(x));
  return L(std::move(items));
}

using KwArgs = std::vector<std::pair<std::string, PyValue>>;

// Builds the call; "error: <message>" when building fails.
inline Result<Expr> build(const std::string& op, std::vector<PyValue> args, KwArgs kwargs = {}) {
  const OpInfo* info = findOp(op);
  if (!info) return Error("no op " + op);
  return buildOpCall(*info, std::move(args), std::move(kwargs));
}

// The printed call (args and every attr), or "error: ...".
inline std::string built(const std::string& op, std::vector<PyValue> args, KwArgs kwargs = {}) {
  auto r = build(op, std::move(args), std::move(kwargs));
  if (!r.ok()) return "error: " + r.error().message;
  return printExpr(r.value());
}

// Struct info inferred for the call, printed; "error: ..." when building or inference fails.
inline std::string infer(const std::string& op, std::vector<PyValue> args, KwArgs kwargs = {}) {
  auto r = build(op, std::move(args), std::move(kwargs));
  if (!r.ok()) return "error: " + r.error().message;
  auto call = r.value().as<Call>();
  if (!call) return "error: not a call";
  auto s = call.as<Call>()->op.as<Op>()->info->infer(*call);
  if (!s.ok()) return "error: " + s.error().message;
  return printStructInfo(s.value());
}

inline std::string T(const std::string& shape, const char* dtype = "float32") { return "R.Tensor(" + shape + ", dtype=\"" + dtype + "\")"; }

}  // namespace rlx::test
