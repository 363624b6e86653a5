// ONNX Runtime's com.microsoft contrib ops that its transformer optimizer writes into models:
// the GELU family, SkipLayerNormalization, EmbedLayerNormalization, FusedMatMul, BiasAdd, and the
// fused Attention / MultiHeadAttention (their own ops, not the opset-23 Attention).
#include <cmath>
#include <limits>

#include "frontend/onnx/converter.h"
#include "ir/arith.h"

namespace rlx::onnx {

namespace {

const std::string kMicrosoft = "com.microsoft";

void msOp(const std::string& opType, Converter fn) { registerConverter(kMicrosoft, opType, {1}, std::move(fn)); }

Expr add(NodeCtx& c, Expr a, Expr b) { return c.op("add", {ex(a), ex(b)}); }
Expr mul(NodeCtx& c, Expr a, Expr b) { return c.op("multiply", {ex(a), ex(b)}); }

// Layer normalization over the last dim with gamma (and beta): the output, mean and 1/std.
struct Normalized {
  Expr y, mean, invStd;
};
Normalized layerNorm(NodeCtx& c, Expr x, Expr gamma, Expr beta, double eps, bool simplified) {
  DataType t = tensorInfo(x)->dtype;
  auto keep = [&](Expr e) { return c.op("mean", {ex(e)}, {{"axis", ints({-1})}, {"keepdims", b(true)}}); };
  Normalized n;
  Expr centered = x;
  if (!simplified) {
    n.mean = keep(x);
    centered = c.op("subtract", {ex(x), ex(n.mean)});
  }
  n.invStd = c.op("rsqrt", {ex(add(c, keep(mul(c, centered, centered)), c.scalar(eps, t)))});
  n.y = mul(c, mul(c, centered, n.invStd), gamma);
  if (beta) n.y = add(c, n.y, beta);
  return n;
}

// softmax(q k^T * scale + bias) v over (B, N, S, D) heads, back to (B, S, N * Dv).
Expr attend(NodeCtx& c, Expr q, Expr k, Expr v, Expr bias, double scale) {
  DataType t = tensorInfo(q)->dtype;
  Expr scores = mul(c, c.op("matmul", {ex(q), ex(c.op("permute_dims", {ex(k)}, {{"axes", ints({0, 1, 3, 2})}}))}), c.scalar(scale, t));
  if (bias) scores = add(c, scores, bias);
  Expr out = c.op("matmul", {ex(c.op("nn.softmax", {ex(scores)}, {{"axis", i(-1)}})), ex(v)});
  auto d = *tensorInfo(out)->dims();
  Expr merged = c.op("permute_dims", {ex(out)}, {{"axes", ints({0, 2, 1, 3})}});
  return c.op("reshape", {ex(merged), ex(shapeExpr({d[0], d[2], simplify(rlx::mul(d[1], d[3]))}))});
}

// The additive bias of a key mask: a raw 0/1 mask (B, L) or (B, S, L), or right-padding lengths
// (B); masked positions get `filter` (ORT's mask_filter_value), broadcast to (B, 1, S, L).
Expr keyMaskBias(NodeCtx& c, size_t input, int64_t keys, DataType t, double filter) {
  Expr m = c.x(input);
  int64_t r = c.ndim(input);
  Expr keep;  // 1 where attended, as t
  if (r == 1) {
    auto a = make<NDArray>(DataType::int64(), std::vector<int64_t>{keys});
    for (int64_t j = 0; j < keys; ++j) a->setInt(j, j);
    Expr len = c.op("expand_dims", {ex(c.cast(m, DataType::int64()))}, {{"axis", ints({1})}});
    keep = c.cast(c.op("less", {ex(c.constant(a)), ex(len)}), t);
    keep = c.op("expand_dims", {ex(keep)}, {{"axis", ints({1, 2})}});
  } else if (r == 2 || r == 3) {
    keep = c.op("expand_dims", {ex(c.cast(m, t))}, {{"axis", ints(r == 2 ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{1})}});
  } else {
    fail("the mask must be 1-D lengths, or a 2-D or 3-D 0/1 mask");
  }
  return mul(c, c.op("subtract", {ex(c.scalar(1.0, t)), ex(keep)}), c.scalar(filter, t));
}

// -inf above the diagonal (a query sees its own and earlier keys; with L > S the extra keys are
// earlier ones).
Expr causalBias(NodeCtx& c, int64_t s, int64_t l, DataType t) {
  auto a = make<NDArray>(t, std::vector<int64_t>{s, l});
  for (int64_t i = 0; i < s; ++i)
    for (int64_t j = 0; j < l; ++j) a->setDouble(i * l + j, j > i + (l - s) ? -std::numeric_limits<double>::infinity() : 0.0);
  return c.constant(a);
}

Expr sumBiases(NodeCtx& c, Expr a, Expr b) { return !a ? b : !b ? a : add(c, a, b); }

// The additive bias of the fused attention ops: the key mask at `maskAt` (masked keys get
// mask_filter_value), attention_bias at `biasAt`, and the causal mask when unidirectional; null
// when there is none.
Expr attentionBias(NodeCtx& c, size_t maskAt, size_t biasAt, int64_t queries, int64_t keys, DataType t) {
  Expr bias;
  if (c.has(maskAt)) bias = keyMaskBias(c, maskAt, keys, t, c.f("mask_filter_value", -10000.0));
  if (c.has(biasAt)) bias = sumBiases(c, bias, c.x(biasAt));
  if (c.i("unidirectional", 0)) bias = sumBiases(c, bias, causalBias(c, queries, keys, t));
  return bias;
}

}  // namespace

void registerContribConverters() {
  msOp("Gelu", [](NodeCtx& c) -> Outputs { return {{c.op("nn.gelu", {ex(c.x(0))})}}; });
  msOp("BiasGelu", [](NodeCtx& c) -> Outputs { return {{c.op("nn.gelu", {ex(add(c, c.x(0), c.x(1)))})}}; });
  msOp("FastGelu", [](NodeCtx& c) -> Outputs {
    Expr x = c.has(1) ? add(c, c.x(0), c.x(1)) : c.x(0);
    return {{c.op("nn.gelu_tanh", {ex(x)})}};
  });
  msOp("QuickGelu", [](NodeCtx& c) -> Outputs {
    double alpha = c.f("alpha", 1.702);
    return {{mul(c, c.x(0), c.op("sigmoid", {ex(mul(c, c.x(0), c.scalar(alpha, c.dtype(0))))}))}};
  });
  msOp("BiasAdd", [](NodeCtx& c) -> Outputs { return {{add(c, add(c, c.x(0), c.x(1)), c.x(2))}}; });
  msOp("FusedMatMul", [](NodeCtx& c) -> Outputs {
    if (c.i("transBatchA", 0) || c.i("transBatchB", 0)) fail("transBatchA/transBatchB are not supported");
    auto last2 = [&](Expr e) {
      int64_t r = tensorInfo(e)->ndim;
      if (r < 2) fail("transposed operands must have at least 2 dims");
      std::vector<int64_t> p;
      for (int64_t k = 0; k < r; ++k) p.push_back(k);
      std::swap(p[size_t(r - 1)], p[size_t(r - 2)]);
      return c.op("permute_dims", {ex(e)}, {{"axes", ints(p)}});
    };
    Expr a = c.i("transA", 0) ? last2(c.x(0)) : c.x(0), bm = c.i("transB", 0) ? last2(c.x(1)) : c.x(1);
    Expr y = c.op("matmul", {ex(a), ex(bm)});
    double alpha = c.f("alpha", 1.0);
    return {{alpha == 1.0 ? y : mul(c, y, c.scalar(alpha, c.dtype(0)))}};
  });
  for (bool simplified : {false, true}) {
    msOp(simplified ? "SkipSimplifiedLayerNormalization" : "SkipLayerNormalization", [simplified](NodeCtx& c) -> Outputs {
      // sum = input + skip (+ bias); output = LayerNorm(sum) * gamma (+ beta); the optional
      // outputs are the mean, 1/std and the sum.
      size_t gammaAt = 2, betaAt = simplified ? 99 : 3, biasAt = simplified ? 3 : 4;
      Expr sum = add(c, c.x(0), c.x(1));
      if (c.has(biasAt)) sum = add(c, sum, c.x(biasAt));
      auto n = layerNorm(c, sum, c.x(gammaAt), c.has(betaAt) ? c.x(betaAt) : Expr(), c.f("epsilon", 1e-12), simplified);
      Outputs outs = {{n.y}, {n.mean}, {n.invStd}, {sum}};
      if (simplified) outs[1] = {c.op("zeros_like", {ex(n.invStd)})};  // no mean is computed
      return outs;
    });
  }
  msOp("EmbedLayerNormalization", [](NodeCtx& c) -> Outputs {
    // LayerNorm(word[ids] + position[position_ids or 0..S-1] + segment[segment_ids]); mask_index
    // is each row's count of mask ones (int32), embedding_sum the sum before normalizing.
    Expr ids = c.cast(c.x(0), DataType::int64());
    auto d = c.dims(0);
    if (d.size() != 2) fail("input_ids must be (batch, sequence)");
    int64_t seqLen = knownDim(d[1], "the sequence length");
    Expr emb = c.op("take", {ex(c.x(2)), ex(ids)}, {{"axis", i(0)}});
    Expr positions;
    if (c.has(8)) {
      positions = c.cast(c.x(8), DataType::int64());
    } else {
      auto a = make<NDArray>(DataType::int64(), std::vector<int64_t>{1, seqLen});
      for (int64_t j = 0; j < seqLen; ++j) a->setInt(j, j);
      positions = c.constant(a);
    }
    emb = add(c, emb, c.op("take", {ex(c.x(3)), ex(positions)}, {{"axis", i(0)}}));
    if (c.has(1) && c.has(4)) emb = add(c, emb, c.op("take", {ex(c.x(4)), ex(c.cast(c.x(1), DataType::int64()))}, {{"axis", i(0)}}));
    auto n = layerNorm(c, emb, c.x(5), c.x(6), c.f("epsilon", 1e-12), false);
    Expr maskIndex = c.has(7) ? c.op("sum", {ex(c.cast(c.x(7), DataType::int32()))}, {{"axis", ints({1})}})
                              : c.op("zeros", {ex(shapeExpr({d[0]}))}, {{"dtype", s("int32")}});
    return {{n.y}, {maskIndex}, {emb}};
  });
  msOp("Attention", [](NodeCtx& c) -> Outputs {
    // input (B, S, D_in) times weights (D_in, Hq + Hk + Hv) (+ bias) gives Q, K, V; each splits
    // into num_heads heads. Masks: mask_index (lengths or a 0/1 mask), attention_bias (additive),
    // unidirectional (causal). A KV cache (past / present) is not supported.
    if (c.has(4)) fail("the past input (KV cache) is not supported");
    if (c.node.output_size() > 1 && !c.node.output(1).empty()) fail("the present output (KV cache) is not supported");
    int64_t n = c.i("num_heads", 0);
    if (c.ndim(0) != 3 || c.ndim(1) != 2) fail("input must be (batch, sequence, hidden) and weights 2-D");
    auto d = c.dims(1);
    int64_t total = knownDim(d[1], "the weights' width");
    auto sizes = c.ints("qkv_hidden_sizes");
    if (sizes.empty()) {
      if (total % 3) fail("the weights' width is not three equal parts (give qkv_hidden_sizes)");
      sizes = {total / 3, total / 3, total / 3};
    }
    if (sizes.size() != 3 || sizes[0] + sizes[1] + sizes[2] != total) fail("qkv_hidden_sizes must be three sizes adding up to the weights' width");
    Expr proj = c.op("matmul", {ex(c.x(0)), ex(c.x(1))});
    if (c.has(2)) proj = add(c, proj, c.x(2));
    auto part = [&](int64_t from, int64_t to) { return c.op("strided_slice", {ex(proj), ints({2}), ints({from}), ints({to})}); };
    Expr q = splitHeads(c, part(0, sizes[0]), n), k = splitHeads(c, part(sizes[0], sizes[0] + sizes[1]), n), v = splitHeads(c, part(sizes[0] + sizes[1], total), n);
    DataType t = c.dtype(0);
    int64_t seq = knownDim(c.dim(0, 1), "the sequence length");
    Expr bias = attentionBias(c, 3, 5, seq, seq, t);
    double scale = c.f("scale", 0.0);
    if (scale == 0) scale = 1.0 / std::sqrt(double(sizes[0] / n));
    return {{attend(c, q, k, v, bias, scale)}};
  });
  msOp("MultiHeadAttention", [](NodeCtx& c) -> Outputs {
    // query (B, S, D), key (B, L, D), value (B, L, Dv) (+ bias (D + D + Dv)), split into
    // num_heads heads; key_padding_mask and attention_bias as in Attention.
    if (!c.has(1) || !c.has(2) || c.ndim(0) != 3 || c.ndim(1) != 3 || c.ndim(2) != 3) fail("only separate 3-D query, key and value are supported");
    if (c.has(6) || c.has(7)) fail("past_key / past_value (KV cache) are not supported");
    int64_t n = c.i("num_heads", 0);
    Expr q = c.x(0), k = c.x(1), v = c.x(2);
    int64_t dq = knownDim(c.dim(0, 2), "the query width"), dk = knownDim(c.dim(1, 2), "the key width"), dv = knownDim(c.dim(2, 2), "the value width");
    if (c.has(3)) {
      auto slice = [&](int64_t from, int64_t to) { return c.op("strided_slice", {ex(c.x(3)), ints({0}), ints({from}), ints({to})}); };
      q = add(c, q, slice(0, dq)), k = add(c, k, slice(dq, dq + dk)), v = add(c, v, slice(dq + dk, dq + dk + dv));
    }
    DataType t = c.dtype(0);
    int64_t seqLen = knownDim(c.dim(0, 1), "the sequence length"), l = knownDim(c.dim(1, 1), "the key length");
    Expr bias = attentionBias(c, 4, 5, seqLen, l, t);
    double scale = c.f("scale", 0.0);
    if (scale == 0) scale = 1.0 / std::sqrt(double(dq / n));
    return {{attend(c, splitHeads(c, q, n), splitHeads(c, k, n), splitHeads(c, v, n), bias, scale)}};
  });
}

}  // namespace rlx::onnx
