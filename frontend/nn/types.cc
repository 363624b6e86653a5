// DType, Dim and the default dtype (see types.h).
#include "frontend/nn/types.h"

#include "frontend/nn/error.h"
#include "frontend/nn/export_context.h"
#include "ir/arith.h"
#include "passes/legalize/te.h"

namespace rlx::nn {

namespace {
DataType& defaultDtypeSlot() {
  static DataType t = DataType::float32();
  return t;
}
}  // namespace

DType::DType(const char* s) {
  auto t = DataType::parse(s ? s : "");
  if (!t) fail(std::string("unknown dtype '") + (s ? s : "") + "'", "dtypes are spelled as in TVM: float32, float16, int32, int64, bool, ...");
  t_ = *t;
}

DataType defaultDtype() { return defaultDtypeSlot(); }
void setDefaultDtype(DType t) { defaultDtypeSlot() = t; }

Dim::Dim(PrimExpr e) : value_(std::move(e)) {
  if (!value_) fail("a shape dimension is null");
  if (!value_->dtype.isInt()) fail("a shape dimension must be an integer expression, not " + value_->dtype.str());
}

PrimExpr Dim::expr() const {
  if (value_) return value_;
  if (auto* ctx = ExportContext::active(); ctx && ctx->inFunction()) return ctx->symbolicVar(name_);
  return make<PrimVar>(name_, DataType::int64());
}

std::vector<PrimExpr> dimExprs(const std::vector<Dim>& dims) {
  std::vector<PrimExpr> out;
  out.reserve(dims.size());
  for (auto& d : dims) out.push_back(d.expr());
  return out;
}

// As TVM's PrimExpr operators: constants fold, x + 0 and x * 1 simplify, nothing else is rewritten.
PrimExpr operator+(const Dim& a, const Dim& b) { return te::idxAdd(a.expr(), b.expr()); }
PrimExpr operator*(const Dim& a, const Dim& b) { return te::idxMul(a.expr(), b.expr()); }
PrimExpr operator-(const Dim& a, const Dim& b) {
  auto f = foldConstants(NodeKind::Sub, a.expr(), b.expr());
  return f ? f : binary(NodeKind::Sub, a.expr(), b.expr());
}
PrimExpr floordiv(const Dim& a, const Dim& b) {
  auto f = foldConstants(NodeKind::FloorDiv, a.expr(), b.expr());
  return f ? f : binary(NodeKind::FloorDiv, a.expr(), b.expr());
}

}  // namespace rlx::nn
