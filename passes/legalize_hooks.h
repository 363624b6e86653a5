// Op-level rewrite hooks for the Relay-named Legalize pass: per table (TVM's legalize_map_attr_name,
// "FTVMLegalize" by default) and per op, a Relax -> Relax rewrite a target needs before LegalizeOps.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ir/expr.h"

namespace rlx {

// Returns the replacement of a call of the hook's op (nested calls allowed; struct info is
// inferred), or null to keep it.
using LegalizeHook = std::function<Expr(const Call& call)>;

// The hook of `op` in `table`, or null.
const LegalizeHook* findLegalizeHook(const std::string& table, const std::string& op);
// The tables that have hooks (for error messages).
std::vector<std::string> legalizeTables();
// Adds (or replaces) a hook: how C++ users register rewrites for their own targets.
void registerLegalizeHook(const std::string& table, const std::string& op, LegalizeHook hook);

}  // namespace rlx
