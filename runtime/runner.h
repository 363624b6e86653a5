// Running a module as users do: lower a copy with a build pipeline when it is not lowered yet
// (skipping passes the module already went through), compile to bytecode, load a VM.
#pragma once
#include <memory>
#include <set>
#include <string>

#include "ir/diagnostic.h"
#include "ir/module.h"
#include "runtime/executable.h"
#include "runtime/vm.h"

namespace rlx {

// The pipeline text `rlx run --pipeline NAME` / `:set run-pipeline NAME` stands for: `build`
// (TVM's default build, no fusion), `O0`..`O3` (that optimization preset, then the lowering with
// fusion), or any explicit pass list.
std::string runPipelineText(const std::string& name);

struct PreparedModule {
  IRModuleRef lowered;                       // what the VM runs (the input itself when already lowered)
  std::shared_ptr<vm::Executable> exec;
  std::unique_ptr<vm::VirtualMachine> machine;
  std::vector<std::string> passesRun;        // the lowering passes applied to the copy
};

// `applied`: pass names the module already went through (the shell's history); they are skipped.
// `consume`: the caller drops `mod` afterwards and nothing else uses it (PassContext::consumesInput).
Result<PreparedModule> prepareModule(const IRModuleRef& mod, const std::string& pipeline, const std::set<std::string>& applied = {},
                                     vm::VMOptions options = {}, bool consume = false);

}  // namespace rlx
