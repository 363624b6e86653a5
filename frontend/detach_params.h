// detachParams: TVM's relax.frontend.detach_params exactly — a fresh module whose functions lose
// their "params" attr, and those arrays keyed by function name (module attrs are not carried over).
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/module.h"

namespace rlx {

using DetachedParams = std::pair<IRModuleRef, std::map<std::string, std::vector<NDArrayRef>>>;
// An Error when a "params" entry is not a tensor (TVM raises ValueError there).
Result<DetachedParams> detachParams(const IRModuleRef& mod);

}  // namespace rlx
