// Reductions over an empty domain: TVM runs a block's T.init only at the first reduction iteration,
// so a reduction of zero iterations (R.sum over a 0-size axis, a matmul with K = 0) leaves its output
// unwritten. Both executors (the TIR interpreter and the LLVM kernels) write the init there instead.
#pragma once
#include <string>

#include "ir/tir.h"

namespace rlx {

// `body` (a PrimFunc's body) with each reduction nest of its root block whose reduction loops may
// have no iteration (an extent that is not a positive constant) preceded by
//   if (one of those extents <= 0): for each spatial loop: the block's init
// (the spatial loops around the `if` when the extents depend on them). Nests whose reduction extents
// are positive constants, the usual case, are left alone; so is `body` when no nest changes.
Stmt initEmptyReductions(const Stmt& body);

// The init of the block `r` realizes as a block of its own, `name`, over its data-parallel iter vars
// (bound as in `r`, under r's predicate): what runs before a reduction's loops once it is taken out.
Ref<BlockRealize> initRealize(const BlockRealize& r, const std::string& name);

}  // namespace rlx
