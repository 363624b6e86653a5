// Legalization of attention / attention_bias (BSNH) as TVM's _te_attention composes topi ops:
// transposes and reshapes to (B*N, S, H), batch_matmul NT, scale, bias, softmax or causal trilu
// masking, batch_matmul NN, and back to (B, S, N, Hv).
#include "ir/arith.h"
#include "ir/ops/infer_util.h"
#include "passes/legalize/legalize.h"

namespace rlx::legalize {

namespace {

using te::Indices;
using te::Tensor;

Tensor transpose0213(te::KernelBuilder& kb, const Tensor& x) {
  std::vector<PrimExpr> s = {x.shape()[0], x.shape()[2], x.shape()[1], x.shape()[3]};
  return kb.compute("T_transpose", s, x.dtype(), [&](const Indices& i) { return x({i[0], i[2], i[1], i[3]}); }, "ax");
}

Tensor reshape(te::KernelBuilder& kb, const Tensor& x, const std::vector<PrimExpr>& shape) {
  return kb.compute("T_reshape", shape, x.dtype(), [&](const Indices& i) { return x(reshapeIndex(i, shape, x.shape())); }, "ax");
}

// topi.nn.batch_matmul of (b, i, k) by (b, j, k) (NT) or (b, k, j) (NN).
Tensor batchMatmul(te::KernelBuilder& kb, const Tensor& a, const Tensor& b, bool transposeB) {
  PrimExpr j = transposeB ? b.shape()[1] : b.shape()[2];
  auto k = kb.reduceAxis(a.shape()[2], "k");
  std::vector<PrimExpr> shape = {a.shape()[0], a.shape()[1], j};
  return kb.reduce(transposeB ? "T_batch_matmul_NT" : "T_batch_matmul_NN", shape, a.dtype(), {k}, te::Combiner::Sum, [&](const Indices& o, const Indices& r) {
    PrimExpr y = transposeB ? b({o[0], o[2], r[0]}) : b({o[0], r[0], o[2]});
    return te::bin(NodeKind::Mul, a({o[0], o[1], r[0]}), y);
  }, std::vector<std::string>{"b", "i", "j"});
}

// topi.trilu(x, offset, upper=False): keeps element (.., r, c) when c <= r + offset.
Tensor lowerTriangle(te::KernelBuilder& kb, const Tensor& x, int64_t offset) {
  return kb.compute("trilu", x.shape(), x.dtype(), [&](const Indices& i) {
    PrimExpr row = i[1], col = i[2];
    PrimExpr bound = offset == 0 ? row : te::bin(NodeKind::Add, row, intImm(offset, row->dtype));
    return PrimExpr(make<Select>(te::bin(NodeKind::LE, col, bound), x(i), te::constant(0, x.dtype())));
  });
}

std::vector<Tensor> attention(Ctx& ctx) {
  auto q = ctx.arg(0), k = ctx.arg(1), v = ctx.arg(2);
  if (!q || !k || !v || q->ndim() != 4 || k->ndim() != 4 || v->ndim() != 4 || !q->dtype().isFloat()) return {};
  std::optional<Tensor> bias;
  if (ctx.call.args.size() > 3 && !(bias = ctx.arg(3))) return {};
  // Sliding-window attention has no legalization in TVM either.
  if (!ops::attrIsNone(ctx.call, "window_size")) return {};
  std::string mask = ops::attrIsNone(ctx.call, "causal_mask") ? "" : ops::attrString(ctx.call, "causal_mask");
  PrimExpr B = q->shape()[0], S = q->shape()[1], N = q->shape()[2], H = q->shape()[3], Skv = v->shape()[1], Hv = v->shape()[3];
  // TVM's BottomRight offset is |S - Skv|; it must be static here.
  int64_t offset = 0;
  if (mask == "BottomRight") {
    auto d = constInt(sub(S, Skv));
    if (!d) return {};
    offset = std::abs(*d);
  } else if (!mask.empty() && mask != "TopLeft") {
    return {};
  }
  DataType t = q->dtype();
  te::KernelBuilder& kb = ctx.kb;
  PrimExpr BN = mul(B, N);
  Tensor qr = reshape(kb, transpose0213(kb, *q), {BN, S, H});
  Tensor kr = reshape(kb, transpose0213(kb, *k), {BN, Skv, H});
  Tensor vr = reshape(kb, transpose0213(kb, *v), {BN, Skv, Hv});
  Tensor p = batchMatmul(kb, qr, kr, true);
  if (ops::attrIsNone(ctx.call, "scale")) {
    PrimExpr root = te::call("tir.sqrt", t, {asIntImm(H) ? te::constant(double(asIntImm(H)->value), t) : PrimExpr(make<Cast>(t, H))});
    p = kb.compute("T_divide", p.shape(), t, [&](const Indices& i) { return te::bin(NodeKind::Div, p(i), root); }, "ax");
  } else {
    PrimExpr sc = te::constant(ops::attrReal(ctx.call, "scale"), t);
    p = kb.compute("T_multiply", p.shape(), t, [&](const Indices& i) { return te::bin(NodeKind::Mul, p(i), sc); }, "ax");
  }
  if (bias) {
    std::vector<PrimExpr> full = {B, N, S, Skv};
    Tensor p4 = reshape(kb, p, full);
    Tensor added = kb.compute("T_add", full, t, [&](const Indices& i) { return te::bin(NodeKind::Add, p4(i), (*bias)(broadcastIndex(*bias, i, full))); }, "ax");
    p = reshape(kb, added, {BN, S, Skv});
  }
  Tensor s = p;
  if (mask.empty()) {
    s = softmaxStages(kb, p, 2, false);
  } else {
    // Masked scores are zeroed (not -inf) before the row max, and their exponentials zeroed after.
    Tensor masked = lowerTriangle(kb, p, offset);
    std::vector<PrimExpr> rowShape = {BN, S, intImm(1)};
    auto rowReduce = [&](const Tensor& x, te::Combiner c) {
      auto r = kb.reduceAxis(Skv, "k2");
      return kb.reduce(x.buf->name + "_red", rowShape, t, {r}, c, [&](const Indices& o, const Indices& rr) { return x({o[0], o[1], rr[0]}); }, "ax");
    };
    Tensor mx = rowReduce(masked, te::Combiner::Max);
    Tensor shifted = kb.compute("T_subtract", masked.shape(), t, [&](const Indices& i) { return te::bin(NodeKind::Sub, masked(i), mx({i[0], i[1], intImm(0)})); }, "ax");
    Tensor e = kb.compute("compute", shifted.shape(), t, [&](const Indices& i) { return te::call("tir.exp", t, {shifted(i)}); });
    Tensor em = lowerTriangle(kb, e, offset);
    Tensor sum = rowReduce(em, te::Combiner::Sum);
    s = kb.compute("T_divide", em.shape(), t, [&](const Indices& i) { return te::bin(NodeKind::Div, em(i), sum({i[0], i[1], intImm(0)})); }, "ax");
  }
  Tensor o = batchMatmul(kb, s, vr, false);
  Tensor o4 = reshape(kb, o, {B, N, S, Hv});
  return {transpose0213(kb, o4)};
}

}  // namespace

void registerAttentionRules() {
  registerRule("relax.nn.attention", "attention", attention);
  registerRule("relax.nn.attention_bias", "attention_bias", attention);
}

}  // namespace rlx::legalize
