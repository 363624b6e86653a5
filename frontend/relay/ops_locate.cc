// Relay's index-computing ops with no Relax op of their own, built from Relax ones: argwhere
// (R.nonzero transposed), invert_permutation (a scatter of positions), unravel_index (div / mod by
// the constant shape's strides), sparse_to_dense (R.scatter_nd into a filled tensor), adv_index
// (R.index_tensor), searchsorted (R.bucketize), ndarray_size (the product of the shape),
// matrix_set_diag (TOPI's diagonal index map folded into constant index and mask grids),
// sliding_window (the window positions folded into a constant gather index).
#include <algorithm>

#include "frontend/relay/ops.h"

namespace rlx::relay::ops {

// argwhere(x): the (n, rank) int32 coordinates of the non-zero elements, row-major order; R.nonzero
// gives them as (rank, n) int64.
RExpr argwhere(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({});
  if (c.ndim(0) < 1) c.fail("expects a tensor of rank 1 or more");
  RExpr nz = c.call("nonzero", {ex(c.arg(0))});
  return astype(c, c.call("permute_dims", {ex(nz)}, {{"axes", ints({1, 0})}}), DataType::int32());
}

// invert_permutation(p): out[p[i]] = i.
RExpr invert_permutation(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({});
  if (c.ndim(0) != 1) c.fail("expects a 1-D permutation");
  DataType t = c.dtype(0);
  PyValue zero, one, end;
  zero.kind = one.kind = end.kind = PyValue::Prim;
  zero.prim = intImm(0, t);
  one.prim = intImm(1, t);
  end.prim = c.dims(0)[0];
  RExpr pos = c.call("arange", {zero, end, one}, {{"dtype", s(t.str())}});
  RExpr base = c.call("zeros_like", {ex(c.arg(0))});
  return c.call("scatter_elements", {ex(base), ex(c.arg(0)), ex(pos)}, {{"axis", i(0)}, {"reduction", s("update")}});
}

// unravel_index(indices, shape): row k of the result is (indices // stride_k) % shape[k], stride_k
// the product of the later extents (TOPI's floor div / mod); the shape must be a constant.
RExpr unravel_index(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({});
  auto shape = constInts(c.arg(1));
  if (!shape) c.fail("the shape must be a constant (its strides are folded into the rewrite)");
  if (c.ndim(0) > 1) c.fail("expects a scalar or 1-D indices");
  DataType t = c.dtype(0);
  std::vector<RExpr> rows(shape->size());
  int64_t stride = 1;
  for (size_t k = shape->size(); k-- > 0;) {
    RExpr q = stride == 1 ? c.arg(0) : c.call("floor_divide", {ex(c.arg(0)), ex(scalarConst(double(stride), t))});
    rows[k] = c.call("floor_mod", {ex(q), ex(scalarConst(double((*shape)[k]), t))});
    stride *= (*shape)[k];
  }
  return c.call("stack", {ex(c.emit(make<Tuple>(std::vector<rlx::Expr>(rows.begin(), rows.end()))))}, {{"axis", i(0)}});
}

// sparse_to_dense(indices, values, default_value, output_shape): default_value everywhere, then
// values[i] (or the scalar values) at indices[i]. Indices are 0-D / 1-D (into a 1-D result) or
// (n, rank); R.scatter_nd wants them as (n, rank).
RExpr sparse_to_dense(OpCtx& c) {
  c.expectArgs(3, 3);
  c.allowAttrs({"output_shape"});
  std::vector<int64_t> shape = c.ints("output_shape");
  if (shape.empty()) c.fail("needs output_shape");
  int rank = c.ndim(0);
  if (rank > 2) c.fail("indices must be 0-D, 1-D or 2-D");
  RExpr idx = c.arg(0);
  if (rank < 2) idx = c.call("reshape", {ex(idx), ints({-1, 1})});
  PrimExpr n = (*sinfoOf(idx).as<TensorSInfo>()->dims())[0];
  RExpr values = c.ndim(1) == 0 ? c.call("broadcast_to", {ex(c.arg(1)), primList({n})}) : c.arg(1);
  RExpr dense = c.call("full", {ints(shape), ex(c.arg(2))}, {{"dtype", s(c.dtype(1).str())}});
  return c.call("scatter_nd", {ex(dense), ex(idx), ex(values)}, {{"reduction", s("update")}});
}

// adv_index((data, i0, i1, ...)): numpy advanced indexing of data's leading axes, which is
// R.index_tensor(data, (i0, i1, ...)).
RExpr adv_index(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({});
  std::vector<RExpr> parts = tupleFields(c, 0, "the argument (data, indices...)");
  if (parts.size() < 2) c.fail("needs data and at least one index tensor");
  std::vector<rlx::Expr> idx(parts.begin() + 1, parts.end());
  return c.call("index_tensor", {ex(parts[0]), ex(c.emit(make<Tuple>(std::move(idx))))});
}

// searchsorted(sorted, values, right, dtype): for a 1-D sorted sequence this is R.bucketize
// (torch's convention: right=False gives the first i with sorted[i] >= v).
RExpr searchsorted(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"right", "dtype"});
  if (c.ndim(0) != 1) c.fail("a sorted sequence of rank " + std::to_string(c.ndim(0)) + " has no Relax form (R.bucketize searches one 1-D sequence)");
  DataType t = c.dtypeAttr("dtype", DataType::int32());
  if (t != DataType::int32() && t != DataType::int64()) c.fail("dtype must be int32 or int64 (R.bucketize's choices)");
  return c.call("bucketize", {ex(c.arg(1)), ex(c.arg(0))}, {{"out_int32", b(t == DataType::int32())}, {"right", b(c.b("right", false))}});
}

// ndarray_size(x, dtype): the element count as a 0-d tensor; a constant when the shape is.
RExpr ndarray_size(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"dtype"});
  DataType t = c.dtypeAttr("dtype", DataType::int32());
  int64_t count = 1;
  bool known = c.tensor(0).dims() != nullptr;
  if (known)
    for (auto& d : c.dims(0)) {
      auto k = asIntImm(d);
      if (!k) known = false;
      else count *= k->value;
    }
  if (known) return scalarConst(double(count), t);
  RExpr shape = c.call("shape_to_tensor", {ex(c.call("shape_of", {ex(c.arg(0))}))});
  return astype(c, c.call("prod", {ex(shape)}), t);
}

// matrix_set_diag(x (..., M, N), diagonal, k1, k2, super_diag_right_align, sub_diag_right_align):
// TOPI sets x[..., i, j] for k1 <= d = j - i <= k2 to diagonal[..., c] with c = (d >= 0 ? i : j)
// (one diagonal, k1 == k2), or diagonal[..., k2 - d, c + offset(d)] where a right-aligned diagonal is
// offset by L - (its length). With M, N and L known, the flat positions and the mask are constants;
// the values come from R.take on the flattened diagonals.
RExpr matrix_set_diag(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"k1", "k2", "super_diag_right_align", "sub_diag_right_align"});
  int64_t k1 = c.i("k1", 0), k2 = c.i("k2", 0);
  if (k2 < k1) c.fail("k2 must not be below k1");
  bool superRight = c.b("super_diag_right_align", true), subRight = c.b("sub_diag_right_align", false);
  std::vector<PrimExpr> xd = c.dims(0), dd = c.dims(1);
  if (xd.size() < 2) c.fail("expects a matrix or a batch of them");
  auto M = asIntImm(xd[xd.size() - 2]), N = asIntImm(xd.back()), L = asIntImm(dd.back());
  if (!M || !N || !L) c.fail("the matrix and diagonal extents must be known (the index map is folded into constants)");
  int64_t m = M->value, n = N->value, l = L->value;
  std::vector<int64_t> index(size_t(m * n), 0), mask(size_t(m * n), 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t d = j - i, at = i * n + j;
      if (d < k1 || d > k2) continue;
      mask[size_t(at)] = 1;
      if (k1 == k2) {
        index[size_t(at)] = k1 >= 0 ? i : j;
        continue;
      }
      int64_t offset = d >= 0 ? (superRight ? l - std::min(n - d, m) : 0) : (subRight ? l - std::min(n, m + d) : 0);
      index[size_t(at)] = (k2 - d) * l + (d >= 0 ? i : j) + offset;
    }
  // The diagonals flattened to one last axis: (..., L) or (..., K, L) -> (..., K * L).
  RExpr diag = c.arg(1);
  if (k1 != k2) {
    std::vector<PrimExpr> flat(dd.begin(), dd.end() - 2);
    flat.push_back(intImm((k2 - k1 + 1) * l));
    diag = c.call("reshape", {ex(diag), primList(flat)});
  }
  RExpr picked = c.call("take", {ex(diag), ex(intsConst(index, {m * n}, DataType::int64()))}, {{"axis", i(-1)}, {"mode", s("clip")}});
  picked = c.call("reshape", {ex(picked), primList(xd)});
  RExpr keep = c.call("not_equal", {ex(intsConst(mask, {m, n}, DataType::int32())), ex(scalarConst(0, DataType::int32()))});
  return c.call("where", {ex(keep), ex(picked), ex(c.arg(0))});
}

// sliding_window(x, axis, window_shape, strides): the axes from `axis` on are windowed:
// out[p..., o_1..o_k, w_1..w_k] = x[p..., o_1 * s_1 + w_1, ..., o_k * s_k + w_k] with
// o_i < (n_i - w_i) / s_i + 1. Those axes are flattened and gathered with a constant index.
RExpr sliding_window(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"axis", "window_shape", "strides"});
  int64_t rank = c.ndim(0), axis = c.i("axis", 0);
  std::vector<int64_t> win = c.ints("window_shape"), st = c.ints("strides");
  if (axis < 0 || axis >= rank) c.fail("axis must be in [0, rank)");
  size_t k = size_t(rank - axis);
  if (win.size() != k || st.size() != k) c.fail("window_shape and strides must cover the axes from `axis` to the last");
  std::vector<PrimExpr> d = c.dims(0);
  std::vector<int64_t> n, count;
  for (size_t a = 0; a < k; ++a) {
    auto e = asIntImm(d[size_t(axis) + a]);
    if (!e) c.fail("the windowed extents must be known (the window positions are folded into constants)");
    if (win[a] < 1 || st[a] < 1 || win[a] > e->value) c.fail("windows must be positive and fit the axis; strides positive");
    n.push_back(e->value);
    count.push_back((e->value - win[a]) / st[a] + 1);
  }
  // Row-major walk over (o_1..o_k, w_1..w_k), each mapped to its flat position in the windowed axes.
  std::vector<int64_t> shape(count);
  shape.insert(shape.end(), win.begin(), win.end());
  int64_t total = 1;
  for (int64_t s2 : shape) total *= s2;
  std::vector<int64_t> from(static_cast<size_t>(total), 0);
  std::vector<int64_t> pos(shape.size(), 0);
  for (int64_t f = 0; f < total; ++f) {
    int64_t flat = 0;
    for (size_t a = 0; a < k; ++a) flat = flat * n[a] + pos[a] * st[a] + pos[k + a];
    from[size_t(f)] = flat;
    for (size_t a = shape.size(); a-- > 0;) {
      if (++pos[a] < shape[a]) break;
      pos[a] = 0;
    }
  }
  std::vector<PrimExpr> flatShape(d.begin(), d.begin() + axis), outShape(d.begin(), d.begin() + axis);
  int64_t inner = 1;
  for (int64_t e : n) inner *= e;
  flatShape.push_back(intImm(inner));
  for (int64_t s2 : shape) outShape.push_back(intImm(s2));
  RExpr flat = c.call("reshape", {ex(c.arg(0)), primList(flatShape)});
  RExpr picked = c.call("take", {ex(flat), ex(intsConst(from, {total}, DataType::int64()))}, {{"axis", i(axis)}, {"mode", s("fast")}});
  return c.call("reshape", {ex(picked), primList(outShape)});
}

}  // namespace rlx::relay::ops
