// Relay's layout_transform(x, src_layout, dst_layout): layout strings ("NCHW", "NCHW4c") become
// R.layout_transform's index map, built the way ConvertLayout builds its own (passes/layout.h).
#include "frontend/relay/ops.h"
#include "passes/layout.h"

namespace rlx::relay::ops {

RExpr layout_transform(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"src_layout", "dst_layout"});
  std::string src = c.s("src_layout", ""), dst = c.s("dst_layout", "");
  if (src.empty() || dst.empty()) c.fail("needs src_layout and dst_layout");
  auto from = layout::parse(src), to = layout::parse(dst);
  if (!from) c.fail("src_layout \"" + src + "\" is not a layout");
  if (!to) c.fail("dst_layout \"" + dst + "\" is not a layout");
  if (int(from->size()) != c.ndim(0)) c.fail("src_layout \"" + src + "\" has " + std::to_string(from->size()) + " axes, the input " + std::to_string(c.ndim(0)));
  if (layout::ndimPrimal(src) != layout::ndimPrimal(dst)) c.fail("layouts \"" + src + "\" and \"" + dst + "\" do not have the same primal axes");
  for (auto& a : *to)
    if (layout::indexOf(src, char(std::toupper(a.letter))) < 0) c.fail("axis " + std::string(1, char(std::toupper(a.letter))) + " of \"" + dst + "\" is not in \"" + src + "\"");
  if (src == dst) return c.arg(0);
  return c.call("layout_transform", {ex(c.arg(0))}, {{"index_map", layout::indexMapArg(src, dst)}});
}

}  // namespace rlx::relay::ops
