// Building op calls inside passes the way TVMScript writes them: positional values and keyword
// attrs go through the op's schema (defaults, attr types, printed order), so rewrites print
// exactly like hand-written calls.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "ir/op.h"

namespace rlx::build {

using KwArgs = std::vector<std::pair<std::string, PyValue>>;

inline PyValue e(Expr x) { return PyValue::ofExpr(std::move(x)); }
inline PyValue i(int64_t v) { return PyValue::ofInt(v); }
inline PyValue s(std::string v) { return PyValue::ofStr(std::move(v)); }
PyValue f(double v);
PyValue b(bool v);
PyValue ints(const std::vector<int64_t>& v);

// The call `R.<name>(args..., key=value...)` (name without "relax."); RLX_CHECKs that the schema
// accepts it — a pass building a malformed call is a bug, not a user error.
Expr call(const std::string& name, std::vector<PyValue> args, KwArgs kwargs = {});
// A 0-d constant of dtype `t` (R.const(v, "t")).
Expr scalar(double v, DataType t);

}  // namespace rlx::build
