// The table `rlx run --profile` prints: where a run's time goes, kernel by kernel and builtin by
// builtin, per run and as a share of the wall time.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ir/module.h"
#include "runtime/vm.h"

namespace rlx {

// What the profile says of a kernel beside its time.
struct KernelFacts {
  // Its buffer parameters' shapes in parameter order, outputs last as call_tir passes them:
  // "1x96x14x14 18x96x1x1x32 1x576x14x14" (a dtype other than float32 after a colon, "1x128:int64").
  // Which layer a fused kernel is, and its GEMM's M, N, K, then read off the profile itself.
  std::string shapes;
  // The multiply-adds (stores of c + a * b into c) one call performs as its TIR states them, 0 when
  // it has none or a loop's extent is not a constant. A Winograd convolution's fewer products still
  // count as the direct convolution's, so its rate may pass the machine's peak.
  int64_t multiplyAdds = 0;
};

// Each kernel (PrimFunc) of `lowered` by its name.
std::map<std::string, KernelFacts> kernelFacts(const IRModule& lowered);

// `entries` as VirtualMachine::profile returns them, accumulated over `runs` runs that took
// `wallMs` in total; a kernel named in `kernels` has its multiply-adds per second (GFMA/s: how near
// the machine's peak it runs) and its operands' shapes after its name.
std::string formatProfile(const std::vector<vm::ProfileEntry>& entries, int runs, double wallMs, const std::map<std::string, KernelFacts>& kernels = {});

}  // namespace rlx
