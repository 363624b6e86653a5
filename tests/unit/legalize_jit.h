// The check shared by the legalization tests of kernels that must also compile: a case's kernel
// run by the TIR interpreter and by the LLVM JIT, each compared with the reference evaluator.
#pragma once
#include <functional>
#include <string>

#include "runtime/jit.h"
#include "tests/unit/legalize_cases.h"

namespace rlx::test::legalize {

// "" when both the interpreted and the compiled kernel agree with the evaluator. `beforeRun` may
// rewrite the prepared inputs after the evaluator has run (they are shared with the kernel's args).
inline std::string interpreterAndJitAgree(const Case& c, uint32_t seed, const std::function<void(Prepared&)>& beforeRun = {}) {
  Prepared p;
  if (auto e = prepare(c, seed, p); !e.empty()) return e;
  if (beforeRun) beforeRun(p);
  auto st = runPrimFunc(*p.kernel, p.args);
  if (!st.ok()) return "runPrimFunc: " + st.error().message;
  if (auto e = compareOutputs(c, p.outputs, p.expected, p.inputs, "interpreter", "evaluator"); !e.empty()) return e;
  auto kernel = compileKernel(p.kernel, "case");
  if (!kernel.ok()) return "compileKernel: " + kernel.error().message;
  auto outs = p.freshOutputs();
  auto run = runKernel(**kernel, *p.kernel, p.argsWith(outs));
  if (!run.ok()) return "runKernel: " + run.error().message;
  return compareOutputs(c, outs, p.expected, p.inputs, "jit", "evaluator");
}

}  // namespace rlx::test::legalize
