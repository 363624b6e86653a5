// Node kind names (for diagnostics and structural-equality paths), generated from ir/nodes.def.
// Kept out of the header so nodes.def changes recompile one file.
#include "ir/object.h"

namespace rlx {

const char* nodeKindName(NodeKind kind) {
  switch (kind) {
#define RLX_NODE(Name, Class, Family) \
  case NodeKind::Name:                \
    return #Name;
#include "ir/nodes.def"
#undef RLX_NODE
  }
  return "?";
}

}  // namespace rlx
