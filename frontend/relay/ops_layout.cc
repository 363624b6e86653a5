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
  // T.index_map(lambda i0, i1, ...: (...)) as the PyValue constructor form the schema reads.
  PyValue vars, results, map;
  vars.kind = results.kind = PyValue::List;
  std::vector<PrimExpr> iv;
  for (size_t k = 0; k < from->size(); ++k) {
    iv.push_back(make<PrimVar>("i" + std::to_string(k), DataType::int32()));
    PyValue p;
    p.kind = PyValue::Prim;
    p.prim = iv.back();
    vars.items.push_back(p);
  }
  for (auto& r : layout::indexMap(src, dst, iv)) {
    PyValue p;
    p.kind = PyValue::Prim;
    p.prim = r;
    results.items.push_back(p);
  }
  map.kind = PyValue::Ctor;
  map.s = "T.index_map";
  map.items = {vars, results};
  return c.call("layout_transform", {ex(c.arg(0))}, {{"index_map", map}});
}

}  // namespace rlx::relay::ops
