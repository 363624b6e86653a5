// Relay's per-sequence ops over a (time, batch) pair of axes, which Relax v0.23 lacks, built from an
// arange of positions compared with the sequence lengths: sequence_mask (R.where) and
// reverse_sequence (the reversed positions gathered with R.gather_elements).
#include "frontend/relay/ops.h"

namespace rlx::relay::ops {

namespace {

// A 1-D tensor put on `axis` of a rank-`rank` broadcast shape: extent there, 1 elsewhere.
RExpr alongAxis(OpCtx& c, const RExpr& v, const PrimExpr& extent, int64_t axis, int64_t rank) {
  std::vector<PrimExpr> shape(size_t(rank), intImm(1));
  shape[size_t(axis)] = extent;
  return c.call("reshape", {ex(v), primList(shape)});
}

// 0, 1, ..., n - 1 in dtype t.
RExpr positions(OpCtx& c, const PrimExpr& n, DataType t) {
  PyValue zero, one, end;
  zero.kind = one.kind = end.kind = PyValue::Prim;
  zero.prim = intImm(0, t);
  one.prim = intImm(1, t);
  end.prim = n;
  return c.call("arange", {zero, end, one}, {{"dtype", s(t.str())}});
}

}  // namespace

// sequence_mask(data, valid_length, mask_value, axis): data is (time, batch, ...) for axis 0 or
// (batch, time, ...) for axis 1; entries at time t >= valid_length[b] become mask_value.
RExpr sequence_mask(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"mask_value", "axis"});
  int64_t axis = c.i("axis", 0), rank = c.ndim(0);
  if (axis != 0 && axis != 1) c.fail("axis must be 0 or 1");
  if (rank < 2) c.fail("expects data with a time and a batch axis");
  std::vector<PrimExpr> d = c.dims(0);
  DataType lt = c.dtype(1);
  RExpr t = alongAxis(c, positions(c, d[size_t(axis)], lt), d[size_t(axis)], axis, rank);
  RExpr len = alongAxis(c, c.arg(1), d[size_t(1 - axis)], 1 - axis, rank);
  RExpr keep = c.call("less", {ex(t), ex(len)});
  return c.call("where", {ex(keep), ex(c.arg(0)), ex(scalarConst(c.f("mask_value", 0.0), c.dtype(0)))});
}

// reverse_sequence(data, seq_lengths, seq_axis, batch_axis): for batch b with length L (clamped to
// the axis extent T), position t < L reads t' = L - 1 - t, the rest read themselves (TOPI's rule,
// which also leaves lengths <= 1 untouched).
RExpr reverse_sequence(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"seq_axis", "batch_axis"});
  int64_t rank = c.ndim(0);
  int64_t seq = normAxis(c, c.i("seq_axis", 1), rank), batch = normAxis(c, c.i("batch_axis", 0), rank);
  if (seq == batch) c.fail("seq_axis and batch_axis must differ");
  std::vector<PrimExpr> d = c.dims(0);
  DataType lt = c.dtype(1);
  RExpr t = alongAxis(c, positions(c, d[size_t(seq)], lt), d[size_t(seq)], seq, rank);
  // The axis extent as a 0-d tensor: a constant, or read from the input's shape.
  RExpr extent;
  if (auto k = asIntImm(d[size_t(seq)])) {
    extent = scalarConst(double(k->value), lt);
  } else {
    RExpr shape = c.call("shape_to_tensor", {ex(c.call("shape_of", {ex(c.arg(0))}))});
    extent = astype(c, c.call("take", {ex(shape), ex(scalarConst(double(seq), DataType::int64()))}, {{"axis", i(0)}}), lt);
  }
  RExpr len = alongAxis(c, c.call("minimum", {ex(c.arg(1)), ex(extent)}), d[size_t(batch)], batch, rank);
  RExpr flipped = c.call("subtract", {ex(c.call("subtract", {ex(len), ex(scalarConst(1, lt))})), ex(t)});
  RExpr from = c.call("where", {ex(c.call("less", {ex(t), ex(len)})), ex(flipped), ex(t)});
  from = c.call("broadcast_to", {ex(from), primList(d)});
  return c.call("gather_elements", {ex(c.arg(0)), ex(astype(c, from, DataType::int64()))}, {{"axis", i(seq)}});
}

}  // namespace rlx::relay::ops
