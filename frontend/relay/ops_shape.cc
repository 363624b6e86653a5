// Relay's shape and data-movement ops: reshape (its special newshape codes resolved against the
// input's shape), transpose, squeeze / expand_dims, concatenate / stack / split, tile / repeat /
// reverse, the broadcast family, shape_of. One function per Relay op.
#include <algorithm>

#include "frontend/relay/ops.h"
#include "ir/arith.h"

namespace rlx::relay::ops {

namespace {

// Relay's newshape resolved against the input dims (the rules of Relay's ReshapeRel):
//   n > 0 that extent; 0 copy the input's extent (a literal 0 under allowzero); -1 inferred (kept as
//   -1 for Relax to infer); -2 copy all remaining input extents; -3 merge the next two input extents;
//   -4 split the next input extent into the two values that follow (one may be -1).
// `reversed` applies the rules right to left (contrib_reverse_reshape): both lists are reversed,
// resolved, and the result reversed back.
std::vector<PrimExpr> resolveNewShape(OpCtx& c, std::vector<int64_t> newshape, bool allowZero, bool reversed = false) {
  bool needsInput = false;
  for (int64_t v : newshape) needsInput |= v < -1 || (v == 0 && !allowZero);
  std::vector<PrimExpr> in;
  if (needsInput) in = c.dims(0);
  if (reversed) {
    std::reverse(in.begin(), in.end());
    std::reverse(newshape.begin(), newshape.end());
  }
  auto next = [&](size_t& src) -> PrimExpr {
    if (src >= in.size()) c.fail("newshape consumes more input dimensions than the input's " + std::to_string(in.size()));
    return in[src++];
  };
  std::vector<PrimExpr> out;
  size_t src = 0;
  int inferred = 0;
  for (size_t k = 0; k < newshape.size(); ++k) {
    int64_t v = newshape[k];
    if (v > 0 || (v == 0 && allowZero)) {
      out.push_back(intImm(v));
      ++src;
    } else if (v == 0) {
      out.push_back(next(src));
    } else if (v == -1) {
      out.push_back(intImm(-1));
      ++inferred;
      ++src;
    } else if (v == -2) {
      while (src < in.size()) out.push_back(in[src++]);
    } else if (v == -3) {
      PrimExpr a = next(src), b2 = next(src);
      out.push_back(rlx::mul(a, b2));
    } else if (v == -4) {
      if (k + 2 >= newshape.size()) c.fail("newshape code -4 must be followed by two values");
      PrimExpr whole = next(src);
      int64_t d1 = newshape[++k], d2 = newshape[++k];
      if (d1 == -1 && d2 == -1) c.fail("newshape code -4 cannot split into two inferred (-1) extents");
      if (d1 < -1 || d1 == 0 || d2 < -1 || d2 == 0) c.fail("newshape code -4 must be followed by positive extents or -1");
      out.push_back(d1 == -1 ? rlx::floordiv(whole, intImm(d2)) : intImm(d1));
      out.push_back(d2 == -1 ? rlx::floordiv(whole, intImm(d1)) : intImm(d2));
    } else {
      c.fail("newshape value " + std::to_string(v) + " is not an extent or one of Relay's codes 0, -1, -2, -3, -4");
    }
  }
  if (inferred > 1) c.fail("newshape may infer (-1) at most one extent");
  if (reversed) std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace

RExpr reshape(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"newshape", "allowzero"});
  if (!c.has("newshape")) c.fail("needs newshape");
  auto shape = resolveNewShape(c, c.ints("newshape"), c.b("allowzero", false));
  return c.call("reshape", {ex(c.arg(0)), primList(shape)});
}

// contrib_reverse_reshape(x, newshape): reshape with Relay's special codes applied from the right
// (newshape (-1, 0) on (10, 5, 4) gives (50, 4): the 0 copies the last extent; reshape gives (40, 5)).
RExpr contrib_reverse_reshape(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"newshape", "allowzero"});
  if (!c.has("newshape")) c.fail("needs newshape");
  auto shape = resolveNewShape(c, c.ints("newshape"), c.b("allowzero", false), true);
  return c.call("reshape", {ex(c.arg(0)), primList(shape)});
}

// reshape_like(x, y, lhs_begin, lhs_end, rhs_begin, rhs_end): x's dims [lhs_begin, lhs_end)
// replaced by y's dims [rhs_begin, rhs_end) (the whole shapes by default).
RExpr reshape_like(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"lhs_begin", "lhs_end", "rhs_begin", "rhs_end"});
  bool whole = c.i("lhs_begin", 0) == 0 && !c.has("lhs_end") && c.i("rhs_begin", 0) == 0 && !c.has("rhs_end");
  if (whole && !c.tensor(1).dims()) {
    RExpr shape = c.call("shape_of", {ex(c.arg(1))});
    return c.call("reshape", {ex(c.arg(0)), ex(shape)});
  }
  std::vector<PrimExpr> y = c.dims(1);
  if (whole) return c.call("reshape", {ex(c.arg(0)), primList(y)});
  std::vector<PrimExpr> x = c.dims(0);
  auto range = [&](int64_t v, int64_t rank) {
    if (v < 0) v += rank;
    if (v < 0 || v > rank) c.fail("a reshape_like bound is out of range for rank " + std::to_string(rank));
    return size_t(v);
  };
  size_t lb = range(c.i("lhs_begin", 0), int64_t(x.size())), le = range(c.i("lhs_end", int64_t(x.size())), int64_t(x.size()));
  size_t rb = range(c.i("rhs_begin", 0), int64_t(y.size())), re = range(c.i("rhs_end", int64_t(y.size())), int64_t(y.size()));
  if (lb > le || rb > re) c.fail("reshape_like's begin must not pass its end");
  std::vector<PrimExpr> shape(x.begin(), x.begin() + long(lb));
  shape.insert(shape.end(), y.begin() + long(rb), y.begin() + long(re));
  shape.insert(shape.end(), x.begin() + long(le), x.end());
  return c.call("reshape", {ex(c.arg(0)), primList(shape)});
}

RExpr transpose(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"axes"});
  auto axes = c.intsOpt("axes");
  if (!axes || axes->empty()) return c.call("permute_dims", {ex(c.arg(0))});
  return c.call("permute_dims", {ex(c.arg(0))}, {{"axes", ints(normAxes(c, *axes, c.ndim(0)))}});
}

RExpr squeeze(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"axis"});
  auto axes = c.intsOpt("axis");
  if (!axes) return c.call("squeeze", {ex(c.arg(0))});
  return c.call("squeeze", {ex(c.arg(0))}, {{"axis", ints(normAxes(c, *axes, c.ndim(0)))}});
}

// expand_dims(x, axis, num_newaxis): num_newaxis unit axes inserted at `axis` (negative counts
// from the end of the result), i.e. Relax's axis list [a, a + 1, ..., a + num_newaxis - 1].
RExpr expand_dims(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"axis", "num_newaxis"});
  if (!c.has("axis")) c.fail("needs axis");
  int64_t rank = c.ndim(0), axis = c.i("axis", 0), count = c.i("num_newaxis", 1);
  if (count < 0) c.fail("num_newaxis must not be negative");
  if (axis < -rank - 1 || axis > rank) c.fail("axis " + std::to_string(axis) + " is out of range for a tensor of rank " + std::to_string(rank));
  if (axis < 0) axis += rank + 1;
  if (count == 0) return c.arg(0);
  std::vector<int64_t> axes;
  for (int64_t k = 0; k < count; ++k) axes.push_back(axis + k);
  return c.call("expand_dims", {ex(c.arg(0))}, {{"axis", ints(axes)}});
}

// concatenate((a, b, ...), axis): the argument is one tuple-valued Relax expression.
RExpr concatenate(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"axis"});
  return c.call("concat", {ex(c.arg(0))}, {{"axis", i(c.i("axis", 0))}});
}

RExpr stack(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"axis"});
  return c.call("stack", {ex(c.arg(0))}, {{"axis", i(c.i("axis", 0))}});
}

// split(x, indices_or_sections, axis): an int (equal sections) or a list of split points; the
// result is a tuple in both IRs.
RExpr split(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"indices_or_sections", "axis"});
  const AttrValue* a = c.attr("indices_or_sections");
  if (!a) c.fail("needs indices_or_sections");
  PyValue sections = a->kind == AttrValue::Array ? ints(c.ints("indices_or_sections")) : i(c.i("indices_or_sections", 1));
  return c.call("split", {ex(c.arg(0))}, {{"indices_or_sections", sections}, {"axis", i(c.i("axis", 0))}});
}

RExpr tile(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"reps"});
  if (!c.has("reps")) c.fail("needs reps");
  return c.call("tile", {ex(c.arg(0))}, {{"repeats", ints(c.ints("reps"))}});
}

RExpr repeat(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"repeats", "axis"});
  if (!c.has("repeats")) c.fail("needs repeats");
  KwArgs kw = {{"repeats", i(c.i("repeats", 1))}};
  if (c.has("axis")) kw.push_back({"axis", i(c.i("axis", 0))});
  return c.call("repeat", {ex(c.arg(0))}, std::move(kw));
}

RExpr reverse(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"axis"});
  if (!c.has("axis")) c.fail("needs axis");
  return c.call("flip", {ex(c.arg(0))}, {{"axis", i(c.i("axis", 0))}});
}

RExpr broadcast_to(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"shape", "dtype"});
  if (!c.has("shape")) c.fail("needs shape");
  return c.call("broadcast_to", {ex(c.arg(0)), ints(c.ints("shape"))});
}

RExpr broadcast_to_like(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({});
  if (c.tensor(1).dims()) return c.call("broadcast_to", {ex(c.arg(0)), primList(c.dims(1))});
  RExpr shape = c.call("shape_of", {ex(c.arg(1))});
  return c.call("broadcast_to", {ex(c.arg(0)), ex(shape)});
}

// dyn.broadcast_to(x, shape): the target shape is a 1-D int tensor; a constant one is read now,
// any other becomes a Relax shape through R.tensor_to_shape.
RExpr dyn_broadcast_to(OpCtx& c) {
  c.expectArgs(2, 2);
  // Relay's InitOpAttrs: `shape` is there (None for the dyn form) and unused; the shape is argument 1.
  c.allowAttrs({"shape", "dtype"});
  if (auto known = constInts(c.arg(1))) return c.call("broadcast_to", {ex(c.arg(0)), ints(*known)});
  RExpr shape = c.call("tensor_to_shape", {ex(c.arg(1))});
  return c.call("broadcast_to", {ex(c.arg(0)), ex(shape)});
}

RExpr collapse_sum_like(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({});
  return c.call("collapse_sum_like", {ex(c.arg(0)), ex(c.arg(1))});
}

// collapse_sum_to(x, shape): the target shape is a tensor argument (Relay also records a constant
// one as the `shape` attribute); a computed one becomes a Relax shape through R.tensor_to_shape.
RExpr collapse_sum_to(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"shape", "dtype"});
  if (auto known = c.intsOpt("shape")) return c.call("collapse_sum_to", {ex(c.arg(0)), ints(*known)});
  if (auto known = constInts(c.arg(1))) return c.call("collapse_sum_to", {ex(c.arg(0)), ints(*known)});
  RExpr shape = c.call("tensor_to_shape", {ex(c.arg(1))});
  return c.call("collapse_sum_to", {ex(c.arg(0)), ex(shape)});
}

// shape_of(x, dtype): Relax's shape_of is a Shape value; Relay's is a 1-D tensor of `dtype`
// (int32 unless given), so the shape becomes a tensor and is cast.
RExpr shape_of(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"dtype"});
  DataType t = c.dtypeAttr("dtype", DataType::int32());
  RExpr shape = c.call("shape_of", {ex(c.arg(0))});
  RExpr tensor = c.call("shape_to_tensor", {ex(shape)});
  return astype(c, tensor, t);
}

}  // namespace rlx::relay::ops

namespace rlx::relay::ops {

// einsum((a, b, ...), equation): R.einsum with the equation as its subscripts.
RExpr einsum(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"equation"});
  if (!c.has("equation")) c.fail("needs an equation");
  return c.call("einsum", {ex(c.arg(0))}, {{"subscripts", s(c.s("equation", ""))}});
}

RExpr meshgrid(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"indexing"});
  return c.call("meshgrid", {ex(c.arg(0))}, {{"indexing", s(c.s("indexing", "ij"))}});
}

}  // namespace rlx::relay::ops
