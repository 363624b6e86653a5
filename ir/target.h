// Compilation targets as TVM exports them: "cuda -arch=sm_80" or {"kind": "opencl", ...} becomes
// the full attribute dict (kind defaults, keys, parser-filled fields) that I.vdevice prints.
#pragma once
#include "ir/attrs.h"
#include "ir/diagnostic.h"

namespace rlx {

// `spec` is a Str (a target string: kind then -option=value flags) or a Map (a config dict).
// Returns the canonical config Map; unknown kinds, unknown or ill-typed options are errors.
Result<Attr> canonicalTarget(const Attr& spec);

}  // namespace rlx
