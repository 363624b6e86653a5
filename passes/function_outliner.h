// Outlining groups of bindings into grouped functions (TVM's OperatorFusor and FunctionCreator),
// shared by FuseOps (groups from the dominator partitioner), FuseOpsByPattern (groups from pattern
// matches) and MergeCompositeFunctions (groups of composite calls of one codegen).
#pragma once
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/module.h"
#include "passes/graph_partitioner.h"

namespace rlx::fusion {

// Which group each binding of the module's functions belongs to.
struct Grouping {
  std::unordered_map<const Object*, size_t> index;  // params and binding vars -> graph node
  Partition part;                                   // node -> group representative, group sizes
  // Attrs of the grouped function per representative (Composite, Codegen). A group with attrs is
  // outlined even when it holds one binding. A "Codegen" group's function is not Primitive and
  // its bindings sit in an ordinary block (TVM v0.23's MergeCompositeFunctions output); its name
  // gets "_<codegen>" appended.
  std::map<size_t, std::vector<std::pair<std::string, Attr>>> attrs;
  bool liftConstants = true;  // constants used by a group become parameters (false: stay inside)
};

// Relax functions whose dataflow blocks are grouped: not Primitive, no Codegen.
bool isFusionTarget(const Expr& func);

// Replaces each group of two or more bindings of a dataflow block (or a group with attrs) by a call
// of a new private function holding them (equal functions shared; names fused_<ops>). Returns the
// same module object when no group was outlined.
IRModuleRef outlineGroups(const IRModuleRef& mod, const Grouping& grouping);

}  // namespace rlx::fusion
