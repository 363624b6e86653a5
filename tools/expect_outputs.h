// Comparison of a run's outputs with reference .npy files (`rlx run --expect`), the check the
// end-to-end model tests and users' golden outputs rely on.
#pragma once
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "runtime/value.h"

namespace rlx::tools {

// Prints one line per output (its error relative to the reference's largest magnitude) and fails
// when the count, a shape, a dtype, NaN/inf placement, or an error beyond `tolerance` differs.
Status checkExpected(const vm::Value& result, const std::vector<std::string>& files, double tolerance);

}  // namespace rlx::tools
