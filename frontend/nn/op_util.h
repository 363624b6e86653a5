// Internal helpers of the op files: building Relax calls through the op schemas (so attrs get
// TVM's defaults and printed order) and binding them the way TVM's wrap_nested does.
#pragma once
#include <string>
#include <vector>

#include "frontend/nn/error.h"
#include "frontend/nn/tensor.h"
#include "passes/op_builder.h"

namespace rlx::nn::detail {

using build::KwArgs;

// `R.<name>(args, kwargs)` (name without "relax."), not yet bound; schema errors throw NNError.
Expr call(const std::string& name, std::vector<PyValue> args, KwArgs kwargs = {});
// Binds `e` (nested non-leaf parts as lv...) under `name` and wraps it; a Var is returned unbound.
Tensor wrap(const Expr& e, const std::string& name);
// Binds a tuple-valued `e` under `name`, then each item as <name>_<i>.
std::vector<Tensor> wrapTuple(const Expr& e, const std::string& name);

inline PyValue ex(const Tensor& t) { return PyValue::ofExpr(t.expr()); }
inline PyValue ex(Expr e) { return PyValue::ofExpr(std::move(e)); }
PyValue none();
PyValue prim(PrimExpr e);
PyValue sinfo(StructInfo s);
PyValue optInts(const std::optional<std::vector<int64_t>>& v);
// R.shape([dims]).
Expr shapeExpr(const std::vector<PrimExpr>& dims);
// axis in [-ndim, ndim) made non-negative (throws otherwise).
int64_t normalizeAxis(int64_t axis, size_t ndim, const std::string& op);

}  // namespace rlx::nn::detail
