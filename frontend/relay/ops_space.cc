// Relay's data-rearranging nn ops that Relax v0.23 has no op for, as reshape / permute / pad / slice
// chains: nn.depth_to_space and nn.space_to_depth (TOPI's index maps as a 6-D reshape and
// permutation), nn.space_to_batch_nd / nn.batch_to_space_nd (TF's pad-reshape-permute-reshape and its
// inverse with crops), nn.dilate (each axis interleaved with dilation_value), nn.fifo_buffer (concat,
// then keep the newest buffer-length window).
#include "frontend/relay/ops.h"
#include "ir/arith.h"

namespace rlx::relay::ops {

namespace {

RExpr reshapeTo(OpCtx& c, const RExpr& x, const std::vector<PrimExpr>& shape) { return c.call("reshape", {ex(x), primList(shape)}); }
RExpr permute(OpCtx& c, const RExpr& x, const std::vector<int64_t>& axes) { return c.call("permute_dims", {ex(x)}, {{"axes", ints(axes)}}); }

struct SubPixel {
  int64_t block;
  bool nhwc;
  std::vector<PrimExpr> d;  // N, C, H, W whatever the layout
};

SubPixel subPixel(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"block_size", "layout", "mode"});
  if (c.ndim(0) != 4) c.fail("expects a 4-D input");
  std::string layout = c.s("layout", "NCHW");
  if (layout != "NCHW" && layout != "NHWC") c.fail("layout \"" + layout + "\" is not supported (NCHW or NHWC)");
  SubPixel p{c.i("block_size", 0), layout == "NHWC", {}};
  if (p.block < 1) c.fail("block_size must be positive");
  auto d = c.dims(0);
  p.d = p.nhwc ? std::vector<PrimExpr>{d[0], d[3], d[1], d[2]} : d;
  return p;
}

}  // namespace

// nn.depth_to_space(x, block_size b, layout, mode): TOPI reads output (c, y, x) from input channel
// C'*(b*(y%b) + x%b) + c in mode DCR, c*b*b + b*(y%b) + x%b in mode CRD (C' = C / b^2).
RExpr depth_to_space(OpCtx& c) {
  SubPixel p = subPixel(c);
  std::string mode = c.s("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") c.fail("mode must be DCR or CRD, but it is \"" + mode + "\"");
  PrimExpr b = intImm(p.block), N = p.d[0], C = rlx::floordiv(p.d[1], intImm(p.block * p.block)), H = p.d[2], W = p.d[3];
  bool dcr = mode == "DCR";
  RExpr y;
  if (!p.nhwc) {
    y = reshapeTo(c, c.arg(0), dcr ? std::vector<PrimExpr>{N, b, b, C, H, W} : std::vector<PrimExpr>{N, C, b, b, H, W});
    y = permute(c, y, dcr ? std::vector<int64_t>{0, 3, 4, 1, 5, 2} : std::vector<int64_t>{0, 1, 4, 2, 5, 3});
    return reshapeTo(c, y, {N, C, rlx::mul(H, b), rlx::mul(W, b)});
  }
  y = reshapeTo(c, c.arg(0), dcr ? std::vector<PrimExpr>{N, H, W, b, b, C} : std::vector<PrimExpr>{N, H, W, C, b, b});
  y = permute(c, y, dcr ? std::vector<int64_t>{0, 1, 3, 2, 4, 5} : std::vector<int64_t>{0, 1, 4, 2, 5, 3});
  return reshapeTo(c, y, {N, rlx::mul(H, b), rlx::mul(W, b), C});
}

// nn.space_to_depth(x, block_size b, layout): output channel (b*oy + ox)*C + c holds input
// (c, y*b + oy, x*b + ox) (TOPI; `mode` is not read).
RExpr space_to_depth(OpCtx& c) {
  SubPixel p = subPixel(c);
  PrimExpr b = intImm(p.block), N = p.d[0], C = p.d[1], H = rlx::floordiv(p.d[2], b), W = rlx::floordiv(p.d[3], b);
  PrimExpr C2 = rlx::mul(C, intImm(p.block * p.block));
  if (!p.nhwc) {
    RExpr y = reshapeTo(c, c.arg(0), {N, C, H, b, W, b});
    y = permute(c, y, {0, 3, 5, 1, 2, 4});
    return reshapeTo(c, y, {N, C2, H, W});
  }
  RExpr y = reshapeTo(c, c.arg(0), {N, H, b, W, b, C});
  y = permute(c, y, {0, 1, 3, 2, 4, 5});
  return reshapeTo(c, y, {N, H, W, C2});
}

// nn.dilate(x, strides, dilation_value): along each axis with stride s, s - 1 copies of
// dilation_value between neighbours (extent (n - 1) * s + 1). Per axis: append an axis of 1, pad it
// to s, merge the two, and cut the trailing s - 1.
RExpr dilate(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"strides", "dilation_value"});
  int64_t rank = c.ndim(0);
  std::vector<int64_t> strides = c.ints("strides");
  if (int64_t(strides.size()) != rank) c.fail("strides must have one value per axis of the input");
  double value = c.f("dilation_value", 0.0);
  RExpr y = c.arg(0);
  for (int64_t a = 0; a < rank; ++a) {
    int64_t st = strides[size_t(a)];
    if (st < 1) c.fail("strides must be positive");
    if (st == 1) continue;
    std::vector<PrimExpr> d = *sinfoOf(y).as<TensorSInfo>()->dims();
    std::vector<PrimExpr> split(d.begin(), d.begin() + a + 1);
    split.push_back(intImm(1));
    split.insert(split.end(), d.begin() + a + 1, d.end());
    y = reshapeTo(c, y, split);
    std::vector<int64_t> widths(size_t(2 * (rank + 1)), 0);
    widths[size_t(2 * (a + 1) + 1)] = st - 1;
    y = c.call("nn.pad", {ex(y)}, {{"pad_width", ints(widths)}, {"pad_value", f(value)}, {"pad_mode", s("constant")}});
    std::vector<PrimExpr> merged = d;
    merged[size_t(a)] = rlx::mul(d[size_t(a)], intImm(st));
    y = reshapeTo(c, y, merged);
    PrimExpr keep = rlx::add(rlx::mul(rlx::sub(d[size_t(a)], intImm(1)), intImm(st)), intImm(1));
    y = c.call("strided_slice", {ex(y), ints({a}), primList({intImm(0)}), primList({keep})});
  }
  return y;
}

// nn.fifo_buffer(data, buffer, axis): the buffer with `data` pushed in at the end along `axis` and as
// many oldest entries dropped: concat(buffer, data)[len(data):] on that axis.
RExpr fifo_buffer(OpCtx& c) {
  c.expectArgs(2, 2);
  c.allowAttrs({"axis"});
  int64_t axis = normAxis(c, c.i("axis", 0), c.ndim(1));
  PrimExpr n = c.dims(0)[size_t(axis)], len = c.dims(1)[size_t(axis)];
  RExpr both = c.call("concat", {ex(c.emit(make<Tuple>(std::vector<rlx::Expr>{c.arg(1), c.arg(0)})))}, {{"axis", i(axis)}});
  return c.call("strided_slice", {ex(both), ints({axis}), primList({n}), primList({rlx::add(n, len)})});
}

namespace {

// A list-of-pairs attribute ([[a, b], ...]) as pairs; fails on any other shape.
std::vector<std::pair<int64_t, int64_t>> pairsAttr(OpCtx& c, const char* key, size_t n) {
  const AttrValue* a = c.attr(key);
  std::vector<std::pair<int64_t, int64_t>> out;
  if (!a) return std::vector<std::pair<int64_t, int64_t>>(n, {0, 0});
  if (a->kind != AttrValue::Array || a->items.size() != n) c.fail(std::string(key) + " must hold one [before, after] pair per block axis");
  for (auto& p : a->items) {
    if (p.kind != AttrValue::Array || p.items.size() != 2 || p.items[0].kind != AttrValue::Int || p.items[1].kind != AttrValue::Int)
      c.fail(std::string(key) + " must hold [before, after] int pairs");
    out.push_back({p.items[0].i, p.items[1].i});
  }
  return out;
}

}  // namespace

// nn.space_to_batch_nd(x, block_shape b (M values), paddings, pad_value): x (B, S1..SM, R...) padded
// on S1..SM, reshaped to (B, P1/b1, b1, ..., PM/bM, bM, R...), permuted to
// (b1, ..., bM, B, P1/b1, ..., PM/bM, R...), and merged to (B * prod(b), P1/b1, ..., R...).
RExpr space_to_batch_nd(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"block_shape", "paddings", "pad_value"});
  std::vector<int64_t> block = c.ints("block_shape");
  int64_t rank = c.ndim(0), m = int64_t(block.size());
  if (m < 1 || m >= rank) c.fail("block_shape must have between 1 and rank - 1 values");
  auto pads = pairsAttr(c, "paddings", size_t(m));
  std::vector<int64_t> widths(size_t(2 * rank), 0);
  for (int64_t k = 0; k < m; ++k) widths[size_t(2 * (k + 1))] = pads[size_t(k)].first, widths[size_t(2 * (k + 1) + 1)] = pads[size_t(k)].second;
  RExpr y = c.call("nn.pad", {ex(c.arg(0))}, {{"pad_width", ints(widths)}, {"pad_value", f(c.f("pad_value", 0.0))}, {"pad_mode", s("constant")}});
  std::vector<PrimExpr> d = *sinfoOf(y).as<TensorSInfo>()->dims();
  std::vector<PrimExpr> split = {d[0]}, merged;
  std::vector<int64_t> perm;
  int64_t product = 1;
  for (int64_t k = 0; k < m; ++k) {
    if (block[size_t(k)] < 1) c.fail("block_shape must be positive");
    product *= block[size_t(k)];
    split.push_back(rlx::floordiv(d[size_t(k + 1)], intImm(block[size_t(k)])));
    split.push_back(intImm(block[size_t(k)]));
    perm.push_back(2 * k + 2);
  }
  perm.push_back(0);
  merged.push_back(rlx::mul(d[0], intImm(product)));
  for (int64_t k = 0; k < m; ++k) {
    perm.push_back(2 * k + 1);
    merged.push_back(split[size_t(2 * k + 1)]);
  }
  for (int64_t k = m + 1; k < rank; ++k) {
    perm.push_back(int64_t(split.size()));
    split.push_back(d[size_t(k)]);
    merged.push_back(d[size_t(k)]);
  }
  y = reshapeTo(c, y, split);
  y = permute(c, y, perm);
  return reshapeTo(c, y, merged);
}

// nn.batch_to_space_nd(x, block_shape b, crops): the inverse: x (B, D1..DM, R...) split to
// (b1, ..., bM, B / prod(b), D1..DM, R...), permuted to (B', D1, b1, ..., DM, bM, R...), merged to
// (B', D1*b1, ..., R...), and cropped by crops[k] on each block axis.
RExpr batch_to_space_nd(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"block_shape", "crops"});
  std::vector<int64_t> block = c.ints("block_shape");
  int64_t rank = c.ndim(0), m = int64_t(block.size());
  if (m < 1 || m >= rank) c.fail("block_shape must have between 1 and rank - 1 values");
  auto crops = pairsAttr(c, "crops", size_t(m));
  std::vector<PrimExpr> d = c.dims(0);
  int64_t product = 1;
  for (int64_t b : block) {
    if (b < 1) c.fail("block_shape must be positive");
    product *= b;
  }
  PrimExpr batch = rlx::floordiv(d[0], intImm(product));
  std::vector<PrimExpr> split;
  for (int64_t b : block) split.push_back(intImm(b));
  split.push_back(batch);
  for (int64_t k = 1; k < rank; ++k) split.push_back(d[size_t(k)]);
  std::vector<int64_t> perm = {m};
  std::vector<PrimExpr> merged = {batch};
  for (int64_t k = 0; k < m; ++k) {
    perm.push_back(m + 1 + k);
    perm.push_back(k);
    merged.push_back(rlx::mul(d[size_t(k + 1)], intImm(block[size_t(k)])));
  }
  for (int64_t k = m + 1; k < rank; ++k) {
    perm.push_back(m + k);
    merged.push_back(d[size_t(k)]);
  }
  RExpr y = reshapeTo(c, c.arg(0), split);
  y = permute(c, y, perm);
  y = reshapeTo(c, y, merged);
  std::vector<int64_t> axes;
  std::vector<PrimExpr> begin, end;
  for (int64_t k = 0; k < m; ++k) {
    auto [lo, hi] = crops[size_t(k)];
    if (lo == 0 && hi == 0) continue;
    axes.push_back(k + 1);
    begin.push_back(intImm(lo));
    end.push_back(rlx::sub(merged[size_t(k + 1)], intImm(hi)));
  }
  if (axes.empty()) return y;
  return c.call("strided_slice", {ex(y), ints(axes), primList(begin), primList(end)});
}

}  // namespace rlx::relay::ops
