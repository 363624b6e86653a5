// Prepare-for-run: a module that compiles as it is runs as it is; otherwise the build pipeline
// lowers a copy first. The user's module is never changed.
#include "runtime/runner.h"

#include "passes/registry.h"
#include "runtime/codegen.h"

namespace rlx {

// Every lowering starts with LambdaLift: the bytecode compiler only takes module-level functions
// (a module without nested functions comes out of it unchanged).
std::string runPipelineText(const std::string& name) {
  if (name == "build" || name == "build_fused" || name == "build_cpu") return "LambdaLift," + name;
  if (name == "O0") return "LambdaLift,build";
  if (name == "O1" || name == "O2" || name == "O3") return name + ",LambdaLift,build_cpu";
  return name;
}

Result<PreparedModule> prepareModule(const IRModuleRef& mod, const std::string& pipeline, const std::set<std::string>& applied, vm::VMOptions options, bool consume) {
  PreparedModule p;
  auto direct = vm::compileModule(*mod);
  if (direct.ok()) {
    p.lowered = mod;
    p.exec = *direct;
  } else {
    RLX_TRY(passes, parsePipeline(runPipelineText(pipeline)));
    std::vector<Pass> remaining;
    for (auto& pass : passes)
      if (!applied.count(pass.info().name)) remaining.push_back(pass);
    PassContext ctx;
    ctx.optLevel = 3;
    ctx.consumesInput = consume;
    RLX_TRY(lowered, runSequential(remaining, mod, ctx));
    for (auto& pass : remaining) p.passesRun.push_back(pass.info().name);
    p.lowered = lowered;
    auto exec = vm::compileModule(*lowered);
    if (!exec.ok()) {
      // The pipeline ran, so what is left is an op no pass lowers: say that, not "lower first".
      Error e = exec.error();
      if (e.message.find("reached the bytecode compiler") != std::string::npos)
        e.hint = "the " + pipeline + " pipeline ran, but LegalizeOps has no kernel for this op, so the VM cannot run it";
      return e;
    }
    p.exec = *exec;
  }
  RLX_TRY(machine, vm::VirtualMachine::load(p.exec, options));
  p.machine = std::move(machine);
  return p;
}

}  // namespace rlx
