// The PrimFuncs a fusing pass adds to a module (FuseTransposeMatmul, FuseSoftmaxAttention): one per
// structurally distinct kernel, named `base`, `base1`, ... as the module's free names allow.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "ir/module.h"
#include "ir/structural_equal.h"

namespace rlx {

class KernelTable {
 public:
  // The module function holding `kernel`: an equal one added earlier, else `kernel` added to `mod`
  // under the first free name of `base`, `base1`, ...
  GlobalVarRef add(IRModuleRef& mod, const PrimFuncRef& kernel, const std::string& base) {
    for (auto& [f, gv] : kernels_)
      if (structuralEqual(f, kernel)) return gv;
    std::string name = base;
    for (int n = 1; mod->find(name); ++n) name = base + std::to_string(n);
    auto gv = make<GlobalVar>(name);
    gv->sinfo = kernel->sinfo;
    mod = withFunction(mod, gv, kernel);
    kernels_.push_back({kernel, gv});
    return gv;
  }

 private:
  std::vector<std::pair<PrimFuncRef, GlobalVarRef>> kernels_;
};

}  // namespace rlx
