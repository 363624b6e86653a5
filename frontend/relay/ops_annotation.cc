// Relay's annotation ops that only mark a value for a Relay pass (no fusion, a checkpoint, a cast
// hint, a bitpacking region): each computes the identity, which is what they become in Relax.
#include "frontend/relay/ops.h"

namespace rlx::relay::ops {

namespace {

RExpr marker(OpCtx& c, std::initializer_list<const char*> attrs) {
  c.expectArgs(1, 1);
  c.allowAttrs(attrs);
  return c.arg(0);
}

}  // namespace

RExpr annotation_stop_fusion(OpCtx& c) { return marker(c, {}); }
RExpr annotation_checkpoint(OpCtx& c) { return marker(c, {}); }
RExpr annotation_bitpack_start(OpCtx& c) { return marker(c, {}); }
RExpr annotation_bitpack_end(OpCtx& c) { return marker(c, {}); }
// annotation.cast_hint(x, dtype): a hint for Relay's mixed-precision pass; the value is x (its type
// relation is the identity).
RExpr annotation_cast_hint(OpCtx& c) { return marker(c, {"dtype"}); }

}  // namespace rlx::relay::ops
