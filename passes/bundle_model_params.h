// BundleModelParams on one function, shared with LiftTransformParams (which bundles the parameters
// of the transform function it builds).
#pragma once
#include <string>

#include "ir/expr.h"

namespace rlx {

// `f` with its parameters after the first num_input (attr "num_input") replaced by one tuple
// parameter named `tupleName`; each use of an old parameter becomes `<param> = <tuple>[i]` bound
// right before the binding that uses it. Null when `f` has no num_input attr.
FunctionRef bundleModelParams(const FunctionRef& f, const std::string& tupleName);

}  // namespace rlx
