// The bytecode compiler: a fully lowered IRModule (after VMShapeLower; no op calls other than the
// R.vm.* / builtin ones) becomes an Executable, one VM function per Relax function.
#pragma once
#include <memory>

#include "ir/diagnostic.h"
#include "ir/module.h"
#include "runtime/executable.h"

namespace rlx::vm {

// Constructs that are not lowered yet (an R.add call, a symbolic R.shape, a nested function) are
// errors naming the construct and the pass that lowers it, with the source location when known.
Result<std::shared_ptr<Executable>> compileModule(const IRModule& mod);

}  // namespace rlx::vm
