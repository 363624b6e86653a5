// Relay's indexing ops: strided_slice (axes made explicit, slice_mode="size" turned into ends),
// slice_like, take, gather (= R.gather_elements), gather_nd (Relay's index axis first, ONNX's last),
// one_hot (constant on / off values). One function per Relay op.
#include <algorithm>

#include "frontend/relay/ops.h"
#include "ir/arith.h"

namespace rlx::relay::ops {

namespace {

// Relay's nd-indices (M, Y...) as Relax's (Y..., M): argument `arg` with its first axis moved last.
RExpr indexTupleAxisLast(OpCtx& c, size_t arg) {
  int rank = c.ndim(arg);
  if (rank <= 1) return c.arg(arg);
  std::vector<int64_t> axes;
  for (int k = 1; k < rank; ++k) axes.push_back(k);
  axes.push_back(0);
  return c.call("permute_dims", {ex(c.arg(arg))}, {{"axes", ints(axes)}});
}

}  // namespace


// strided_slice(x, begin, end, strides, axes, slice_mode): without axes, begin[k] / end[k] /
// strides[k] apply to axis k (missing ends run to the end of the axis, missing strides are 1).
// slice_mode="size" reads `end` as sizes (-1 = to the end) and ignores strides.
RExpr strided_slice(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"begin", "end", "strides", "axes", "slice_mode"});
  int64_t rank = c.ndim(0);
  std::vector<int64_t> begin = c.ints("begin"), end = c.ints("end"), strides = c.ints("strides");
  std::string mode = c.s("slice_mode", "end");
  if (mode != "end" && mode != "size") c.fail("slice_mode must be \"end\" or \"size\", but it is \"" + mode + "\"");
  std::vector<int64_t> axes;
  if (auto given = c.intsOpt("axes")) {
    axes = normAxes(c, *given, rank);
    if (begin.size() != axes.size() || end.size() != axes.size()) c.fail("with axes, begin, end and axes must have the same length");
  } else {
    if (int64_t(begin.size()) > rank) c.fail("begin has " + std::to_string(begin.size()) + " values for a tensor of rank " + std::to_string(rank));
    for (size_t k = 0; k < begin.size(); ++k) axes.push_back(int64_t(k));
  }
  if (strides.size() > axes.size()) c.fail("strides has more values than begin");
  const std::vector<PrimExpr>* shape = c.tensor(0).dims();
  auto extent = [&](int64_t axis) -> PrimExpr {
    if (!shape) c.fail("the input's shape must be known to slice to the end of an axis");
    return (*shape)[size_t(axis)];
  };
  std::vector<PrimExpr> b, e;
  std::vector<int64_t> st;
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t stride = mode == "size" ? 1 : k < strides.size() ? strides[k] : 1;
    if (stride == 0) c.fail("strides must not be zero");
    st.push_back(stride);
    b.push_back(intImm(begin[k]));
    if (mode == "size") {
      int64_t size = k < end.size() ? end[k] : -1;
      if (size < 0) {
        e.push_back(extent(axes[k]));
      } else {
        // The size counts from the canonical (non-negative) begin.
        PrimExpr start = begin[k] < 0 ? rlx::add(extent(axes[k]), intImm(begin[k])) : intImm(begin[k]);
        e.push_back(rlx::add(start, intImm(size)));
      }
    } else if (k < end.size()) {
      e.push_back(intImm(end[k]));
    } else if (stride > 0) {
      e.push_back(extent(axes[k]));
    } else {
      // Before index 0 when walking backwards: one past the start of the axis.
      e.push_back(rlx::sub(intImm(-1), extent(axes[k])));
    }
  }
  PyValue axesList = ints(axes);
  std::vector<PyValue> args = {ex(c.arg(0)), axesList, primList(b), primList(e)};
  bool unit = std::all_of(st.begin(), st.end(), [](int64_t v) { return v == 1; });
  if (!unit) args.push_back(ints(st));
  return c.call("strided_slice", std::move(args));
}

// slice_like(x, y, axes): x sliced from 0 to y's extent on `axes` (all of y's axes by default).
RExpr slice_like(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"axes"});
  std::vector<PrimExpr> like = c.dims(1);
  int64_t rank = c.ndim(0);
  std::vector<int64_t> axes = c.ints("axes");
  if (axes.empty())
    for (int64_t k = 0; k < std::min<int64_t>(rank, int64_t(like.size())); ++k) axes.push_back(k);
  axes = normAxes(c, axes, rank);
  std::vector<PrimExpr> b, e;
  for (int64_t a : axes) {
    if (a >= int64_t(like.size())) c.fail("axis " + std::to_string(a) + " is beyond the rank of the shape-like tensor");
    b.push_back(intImm(0));
    e.push_back(like[size_t(a)]);
  }
  return c.call("strided_slice", {ex(c.arg(0)), ints(axes), primList(b), primList(e)});
}

// take(x, indices, axis, mode, batch_dims): Relay's default mode is "clip" (Relax's is "fast").
RExpr take(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"axis", "mode", "batch_dims"});
  if (c.i("batch_dims", 0) != 0) c.fail("batch_dims other than 0 has no Relax form (R.take has none)");
  std::string mode = c.s("mode", "clip");
  KwArgs kw;
  if (c.has("axis")) kw.push_back({"axis", i(c.i("axis", 0))});
  kw.push_back({"mode", s(mode)});
  return c.call("take", {ex(c.arg(0)), ex(c.arg(1))}, std::move(kw));
}

// gather(data, indices, axis): out[i][j][k] = data[i][indices[i][j][k]][k] for axis 1, i.e.
// R.gather_elements.
RExpr gather(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"axis"});
  if (!c.has("axis")) c.fail("needs axis");
  return c.call("gather_elements", {ex(c.arg(0)), ex(c.arg(1))}, {{"axis", i(c.i("axis", 0))}});
}

// gather_nd(data, indices): Relay's indices are (M, Y...) — the index tuple along the first axis —
// where R.gather_nd wants (Y..., M); the indices are transposed to move that axis last.
RExpr gather_nd(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"batch_dims", "index_rank"});
  if (c.i("batch_dims", 0) != 0) c.fail("batch_dims other than 0 is not supported");
  RExpr idx = indexTupleAxisLast(c, 1);
  return c.call("gather_nd", {ex(c.arg(0)), ex(idx)}, {{"batch_dims", i(0)}});
}

// one_hot(indices, on_value, off_value, depth, axis, dtype): Relax takes the on / off values as
// prim values of the output dtype, so they must be constants here.
RExpr one_hot(OpCtx& c) {
  c.expectArgs(3, 3);
  c.allowAttrs({"depth", "axis", "dtype"});
  auto on = constScalar(c.arg(1)), off = constScalar(c.arg(2));
  if (!on || !off) c.fail("on_value and off_value must be constants (Relax takes them as prim values)");
  DataType t = c.dtypeAttr("dtype", c.dtype(1));
  auto prim = [&](double v) {
    PyValue p;
    p.kind = PyValue::Prim;
    p.prim = t.isFloat() ? floatImm(v, t) : intImm(int64_t(v), t);
    return p;
  };
  return c.call("one_hot", {ex(c.arg(0)), prim(*on), prim(*off)}, {{"depth", i(c.i("depth", 1))}, {"axis", i(c.i("axis", -1))}});
}


// scatter_elements(data, indices, updates, axis, reduction): the same op in Relax.
RExpr scatter_elements(OpCtx& c) {
  c.expectArgs(3, 3);
  c.allowAttrs({"axis", "reduction"});
  return c.call("scatter_elements", {ex(c.arg(0)), ex(c.arg(1)), ex(c.arg(2))}, {{"axis", i(c.i("axis", 0))}, {"reduction", s(c.s("reduction", "update"))}});
}

// scatter_nd(data, indices, updates, mode): Relay's indices are (M, Y...), R.scatter_nd's (Y..., M).
RExpr scatter_nd(OpCtx& c) {
  c.expectArgs(3, 3);
  c.allowAttrs({"mode"});
  RExpr idx = indexTupleAxisLast(c, 1);
  return c.call("scatter_nd", {ex(c.arg(0)), ex(idx), ex(c.arg(2))}, {{"reduction", s(c.s("mode", "update"))}});
}

// trilu(data, k, upper): R.triu / R.tril with the diagonal offset k (a constant here).
RExpr trilu(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"upper"});
  auto k = constScalar(c.arg(1));
  if (!k) c.fail("k must be a constant (Relax takes it as a prim value)");
  return c.call(c.b("upper", true) ? "triu" : "tril", {ex(c.arg(0)), i(int64_t(*k))});
}

}  // namespace rlx::relay::ops
