// The table `rlx run --profile` prints: where a run's time goes, kernel by kernel and builtin by
// builtin, per run and as a share of the wall time.
#pragma once
#include <string>
#include <vector>

#include "runtime/vm.h"

namespace rlx {

// `entries` as VirtualMachine::profile returns them, accumulated over `runs` runs that took
// `wallMs` in total.
std::string formatProfile(const std::vector<vm::ProfileEntry>& entries, int runs, double wallMs);

}  // namespace rlx
