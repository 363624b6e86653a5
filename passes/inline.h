// The call-site inliner behind Inline, shared with InlinePrivateFunctions: fresh copies of callee
// bodies spliced before the calling binding (see inline.cc for what it skips).
#pragma once
#include <set>
#include <string>

#include "ir/module.h"

namespace rlx {

// Whether function `name` reaches itself through GlobalVar references (direct or mutual recursion).
bool callsItself(const IRModuleRef& mod, const std::string& name);
// One round: inlines every call of a function in `callees` in every Relax function of the module
// (not a function into itself); bodies inlined this round are not searched again. Adds the names
// of the functions that changed to `changed`.
IRModuleRef inlineCallsOnce(const IRModuleRef& mod, const std::set<std::string>& callees, std::set<std::string>& changed);

}  // namespace rlx
