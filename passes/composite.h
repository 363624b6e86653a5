// Shared by the BYOC passes (FuseOpsByPattern, AnnotateTarget, MergeCompositeFunctions): the
// pattern table option, pattern fusion itself, and composite functions made local functions.
#pragma once
#include <string>
#include <vector>

#include "passes/pattern.h"
#include "passes/registry.h"

namespace rlx {

struct NamedPattern {
  std::string name;  // the Composite attr: "<codegen>.<what>" ("cutlass.conv2d")
  PatternRef pattern;
};

// Reads option `key` (a list of ("name", "PATTERN") tuples) and parses every pattern; an error
// points into the bad pattern text. Absent or None: an empty table.
Result<std::vector<NamedPattern>> readPatternTable(PassOptions& options, const std::string& key);

// The codegen of a composite name: the part before the first dot, or "" when there is no dot.
std::string codegenOfComposite(const std::string& composite);

// TVM's FuseOpsByPattern on `mod`: patterns applied in table order, each match outlined into a
// private function {Composite: name, Primitive: True}; annotateCodegen wraps each composite
// function as TVM does (see fuse_ops_by_pattern.cc). The same module object when nothing matched.
IRModuleRef fuseOpsByPattern(const IRModuleRef& mod, const std::vector<NamedPattern>& patterns, bool bindConstants, bool annotateCodegen);

// `f` as a local function: fresh vars, without its Primitive attr.
FunctionRef localCompositeCopy(const FunctionRef& f);

}  // namespace rlx
