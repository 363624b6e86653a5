// Transformer ONNX ops of opset 23: Attention (3-D or 4-D Q/K/V, grouped-query heads, KV cache,
// boolean or additive masks, causal masking, softcap, the qk_matmul output modes) and
// RotaryEmbedding (interleaved or split halves, partial rotary dims, position ids); opset 27's
// LinearAttention (its recurrence unrolled over the sequence); ai.onnx.preview's FlexAttention.
// `com.microsoft`'s contrib Attention is a different op in its own domain (ops_contrib.cc).
#include <cmath>
#include <limits>

#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"
#include "frontend/onnx/tensor.h"

namespace rlx::onnx {

int64_t knownDim(const PrimExpr& e, const char* what) {
  auto imm = e.as<IntImm>();
  if (!imm) fail(std::string(what) + " must be known at import time");
  return imm->value;
}

// (B, S, heads * D) -> (B, heads, S, D).
Expr splitHeads(NodeCtx& c, Expr x, int64_t heads) {
  auto d = *tensorInfo(x)->dims();
  int64_t hidden = knownDim(d[2], "the hidden size");
  if (heads <= 0 || hidden % heads) fail("the hidden size " + std::to_string(hidden) + " is not a multiple of the head count " + std::to_string(heads));
  Expr r = c.op("reshape", {ex(x), ex(shapeExpr({d[0], d[1], intImm(heads), intImm(hidden / heads)}))});
  return c.op("permute_dims", {ex(r)}, {{"axes", ints({0, 2, 1, 3})}});
}

namespace {

// A constant additive bias of shape (rows, cols): -inf where `masked(i, j)`, else 0.
Expr biasConstant(NodeCtx& c, int64_t rows, int64_t cols, DataType t, const std::function<bool(int64_t, int64_t)>& masked) {
  auto a = make<NDArray>(t, std::vector<int64_t>{rows, cols});
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) a->setDouble(i * cols + j, masked(i, j) ? -std::numeric_limits<double>::infinity() : 0.0);
  return c.constant(a);
}

}  // namespace

void registerAttentionConverters() {
  onnxOp("Attention", {23, 24}, [](NodeCtx& c) -> Outputs {
    Expr q = c.x(0), k = c.x(1), v = c.x(2);
    bool threeD = c.ndim(0) == 3;
    DataType t = c.dtype(0);
    if (threeD) {
      q = splitHeads(c, q, c.i("q_num_heads", 0));
      k = splitHeads(c, k, c.i("kv_num_heads", 0));
      v = splitHeads(c, v, c.i("kv_num_heads", 0));
    } else if (c.ndim(0) != 4) {
      fail("Q must be 3-D or 4-D");
    }
    auto qd = *tensorInfo(q)->dims();
    int64_t qHeads = knownDim(qd[1], "the query head count"), sq = knownDim(qd[2], "the query length"), headSize = knownDim(qd[3], "the head size");
    int64_t past = 0;
    if (c.has(4)) {
      past = knownDim(c.dim(4, 2), "the past length");
      k = c.op("concat", {ex(make<Tuple>(std::vector<Expr>{c.x(4), k}))}, {{"axis", i(2)}});
    }
    if (c.has(5)) v = c.op("concat", {ex(make<Tuple>(std::vector<Expr>{c.x(5), v}))}, {{"axis", i(2)}});
    Expr presentK = k, presentV = v;
    auto kd = *tensorInfo(k)->dims();
    int64_t kvHeads = knownDim(kd[1], "the key head count"), skv = knownDim(kd[2], "the key length");

    // The additive bias: the mask (padded to the key length), causal masking, padding lengths.
    Expr bias;
    if (c.has(3)) {
      Expr m = c.x(3);
      int64_t mr = c.ndim(3);
      int64_t mcols = knownDim(c.dim(3, mr - 1), "the mask length");
      if (c.dtype(3).isBool()) m = c.op("where", {ex(m), ex(c.scalar(0, t)), ex(c.scalar(-std::numeric_limits<double>::infinity(), t))});
      else m = c.cast(m, t);
      if (mcols < skv) {
        std::vector<int64_t> width(size_t(2 * mr), 0);
        width.back() = skv - mcols;
        m = c.op("nn.pad", {ex(m)}, {{"pad_width", ints(width)}, {"pad_value", f(-std::numeric_limits<double>::infinity())}, {"pad_mode", s("constant")}});
      }
      bias = m;
    }
    if (c.i("is_causal", 0)) {
      Expr causal = biasConstant(c, sq, skv, t, [&](int64_t i, int64_t j) { return j - past > i; });
      bias = bias ? c.op("add", {ex(bias), ex(causal)}) : causal;
    }
    if (c.numInputs() > 6 && c.has(6)) {
      // nonpad_kv_seqlen (opset 24): keys at or past a batch's length are masked out.
      auto iota = make<NDArray>(DataType::int64(), std::vector<int64_t>{skv});
      for (int64_t j = 0; j < skv; ++j) iota->setInt(j, j);
      Expr lens = c.op("expand_dims", {ex(c.cast(c.x(6), DataType::int64()))}, {{"axis", ints({1})}});
      Expr keep = c.op("less", {ex(c.constant(iota)), ex(lens)});
      Expr pad = c.op("where", {ex(keep), ex(c.scalar(0, t)), ex(c.scalar(-std::numeric_limits<double>::infinity(), t))});
      pad = c.op("expand_dims", {ex(pad)}, {{"axis", ints({1, 2})}});
      bias = bias ? c.op("add", {ex(bias), ex(pad)}) : pad;
    }
    // Grouped-query attention: each key/value head serves q_heads / kv_heads query heads.
    if (qHeads != kvHeads) {
      if (qHeads % kvHeads) fail("the query head count is not a multiple of the key/value head count");
      k = c.op("repeat", {ex(k)}, {{"repeats", i(qHeads / kvHeads)}, {"axis", i(1)}});
      v = c.op("repeat", {ex(v)}, {{"repeats", i(qHeads / kvHeads)}, {"axis", i(1)}});
    }
    // Q and K are each scaled by sqrt(scale), as the reference does, for the same rounding.
    double scale = c.hasAttr("scale") ? c.f("scale", 1.0) : 1.0 / std::sqrt(double(headSize));
    Expr rootScale = c.scalar(std::sqrt(scale), t);
    Expr kT = c.op("permute_dims", {ex(c.op("multiply", {ex(k), ex(rootScale)}))}, {{"axes", ints({0, 1, 3, 2})}});
    Expr qk = c.op("matmul", {ex(c.op("multiply", {ex(q), ex(rootScale)})), ex(kT)});
    double softcap = c.f("softcap", 0.0);
    if (softcap > 0) qk = c.op("multiply", {ex(c.op("tanh", {ex(c.op("divide", {ex(qk), ex(c.scalar(softcap, t))}))})), ex(c.scalar(softcap, t))});
    Expr withBias = bias ? c.op("add", {ex(qk), ex(bias)}) : qk;
    Expr sm = withBias;
    if (c.hasAttr("softmax_precision")) {
      auto p = dtypeOf(int32_t(c.i("softmax_precision", 1)));
      if (!p) fail(p.error().message);
      sm = c.cast(sm, *p);
    }
    Expr probs = c.cast(c.op("nn.softmax", {ex(sm)}, {{"axis", i(-1)}}), t);
    Expr y = c.op("matmul", {ex(probs), ex(v)});
    if (threeD) {
      auto yd = *tensorInfo(y)->dims();
      y = c.op("permute_dims", {ex(y)}, {{"axes", ints({0, 2, 1, 3})}});
      y = c.op("reshape", {ex(y), ex(shapeExpr({yd[0], yd[2], intImm(qHeads * knownDim(yd[3], "the value head size"))}))});
    }
    int64_t mode = c.i("qk_matmul_output_mode", 0);
    Expr qkOut = mode == 2 ? withBias : mode == 3 ? probs : qk;
    return {{y}, {presentK}, {presentV}, {qkOut}};
  });

  onnxOp("RotaryEmbedding", {23}, [](NodeCtx& c) -> Outputs {
    Expr x = c.x(0);
    int64_t r = c.ndim(0);
    auto original = c.dims(0);
    // Work on (B, S, heads, D).
    if (r == 4) x = c.op("permute_dims", {ex(x)}, {{"axes", ints({0, 2, 1, 3})}});
    else if (r == 3) {
      int64_t heads = c.i("num_heads", 0);
      int64_t hidden = knownDim(original[2], "the hidden size");
      if (heads <= 0 || hidden % heads) fail("num_heads must divide the hidden size");
      x = c.op("reshape", {ex(x), ex(shapeExpr({original[0], original[1], intImm(heads), intImm(hidden / heads)}))});
    } else {
      fail("the input must be 3-D or 4-D");
    }
    auto xd = *tensorInfo(x)->dims();
    int64_t head = knownDim(xd[3], "the head size");
    int64_t rot = c.i("rotary_embedding_dim", 0);
    if (rot == 0) rot = head;
    if (rot % 2 || rot > head) fail("rotary_embedding_dim must be even and at most the head size");
    Expr cosC = c.x(1), sinC = c.x(2);
    if (c.has(3)) {
      cosC = c.op("take", {ex(cosC), ex(c.x(3))}, {{"axis", i(0)}});
      sinC = c.op("take", {ex(sinC), ex(c.x(3))}, {{"axis", i(0)}});
    }
    cosC = c.op("expand_dims", {ex(cosC)}, {{"axis", ints({2})}});
    sinC = c.op("expand_dims", {ex(sinC)}, {{"axis", ints({2})}});
    auto sl = [&](Expr e, int64_t from, int64_t to, int64_t step) { return c.op("strided_slice", {ex(e), ints({3}), ints({from}), ints({to}), ints({step})}); };
    Expr rotated = sl(x, 0, rot, 1);
    bool interleaved = c.i("interleaved", 0) != 0;
    Expr x1 = interleaved ? sl(rotated, 0, rot, 2) : sl(rotated, 0, rot / 2, 1);
    Expr x2 = interleaved ? sl(rotated, 1, rot, 2) : sl(rotated, rot / 2, rot, 1);
    auto mul = [&](Expr a, Expr b) { return c.op("multiply", {ex(a), ex(b)}); };
    Expr real = c.op("subtract", {ex(mul(cosC, x1)), ex(mul(sinC, x2))});
    Expr imag = c.op("add", {ex(mul(sinC, x1)), ex(mul(cosC, x2))});
    Expr out;
    if (interleaved) {
      Expr pairs = c.op("stack", {ex(make<Tuple>(std::vector<Expr>{real, imag}))}, {{"axis", i(4)}});
      out = c.op("reshape", {ex(pairs), ex(shapeExpr({xd[0], xd[1], xd[2], intImm(rot)}))});
    } else {
      out = c.op("concat", {ex(make<Tuple>(std::vector<Expr>{real, imag}))}, {{"axis", i(3)}});
    }
    if (rot < head) out = c.op("concat", {ex(make<Tuple>(std::vector<Expr>{out, sl(x, rot, head, 1)}))}, {{"axis", i(3)}});
    if (r == 4) out = c.op("permute_dims", {ex(out)}, {{"axes", ints({0, 2, 1, 3})}});
    else out = c.op("reshape", {ex(out), ex(shapeExpr(original))});
    return {{out}};
  });
  onnxOp("LinearAttention", {27}, [](NodeCtx& c) -> Outputs {
    // Per step t and kv head: S = exp(g_t) S (gated rules), then S += k_t (x) v_t, or for the
    // delta rules S += beta_t k_t (x) (v_t - S^T k_t); o_t = scale * q_t^T S. Query heads share
    // their group's kv head. The recurrence is unrolled over the (static) sequence length.
    std::string rule = c.s("update_rule", "gated_delta");
    bool gated = rule == "gated" || rule == "gated_delta", delta = rule == "delta" || rule == "gated_delta";
    if (!gated && !delta && rule != "linear") fail("unknown update_rule '" + rule + "'");
    int64_t hq = c.i("q_num_heads", 0), hkv = c.i("kv_num_heads", 0);
    if (hq <= 0 || hkv <= 0 || hq % hkv) fail("q_num_heads must be a positive multiple of kv_num_heads");
    auto qd = c.dims(0), kd = c.dims(1), vd = c.dims(2);
    if (qd.size() != 3 || kd.size() != 3 || vd.size() != 3) fail("query, key and value must be 3-D (B, T, heads * dim)");
    int64_t steps = knownDim(qd[1], "the sequence length"), dk = knownDim(qd[2], "the query width") / hq, dv = knownDim(vd[2], "the value width") / hkv;
    if (gated && !c.has(4)) fail("update_rule '" + rule + "' needs the decay input");
    if (delta && !c.has(5)) fail("update_rule '" + rule + "' needs the beta input");
    if (steps > 4096) fail("sequences over 4096 steps are too long to unroll");
    DataType t = c.dtype(0);
    PrimExpr batch = qd[0];
    double scale = c.f("scale", 0.0);
    if (scale == 0) scale = 1.0 / std::sqrt(double(dk));
    auto reshape = [&](Expr e, std::vector<PrimExpr> shape) { return c.op("reshape", {ex(e), ex(shapeExpr(shape))}); };
    auto step = [&](Expr e, int64_t at) {  // (B, T, X) -> (B, X) at t
      return c.op("squeeze", {ex(c.op("strided_slice", {ex(e), ints({1}), ints({at}), ints({at + 1})}))}, {{"axis", ints({1})}});
    };
    auto mm = [&](Expr a, Expr b2) { return c.op("matmul", {ex(a), ex(b2)}); };
    auto add = [&](Expr a, Expr b2) { return c.op("add", {ex(a), ex(b2)}); };
    auto mul = [&](Expr a, Expr b2) { return c.op("multiply", {ex(a), ex(b2)}); };
    // A per-head gate (B, H or 1) or per-key-dim gate (B, H * dk) as (B, H or 1, dk or 1, 1).
    auto gate = [&](Expr g) {
      int64_t w = knownDim(tensorInfo(g)->dims()->at(1), "the gate width");
      if (w == hkv * dk) return reshape(g, {batch, intImm(hkv), intImm(dk), intImm(1)});
      if (w == hkv || w == 1) return reshape(g, {batch, intImm(w), intImm(1), intImm(1)});
      fail("a gate must have kv_num_heads, kv_num_heads * d_k or 1 values per step");
    };
    Expr state = c.has(3) ? c.x(3) : c.op("zeros", {ex(shapeExpr({batch, intImm(hkv), intImm(dk), intImm(dv)}))}, {{"dtype", s(t.str())}});
    std::vector<Expr> outs;
    for (int64_t at = 0; at < steps; ++at) {
      Expr kt = reshape(step(c.x(1), at), {batch, intImm(hkv), intImm(dk), intImm(1)});
      Expr vt = reshape(step(c.x(2), at), {batch, intImm(hkv), intImm(1), intImm(dv)});
      if (gated) state = mul(state, c.op("exp", {ex(gate(step(c.x(4), at)))}));
      if (delta) {
        Expr recalled = mm(c.op("permute_dims", {ex(kt)}, {{"axes", ints({0, 1, 3, 2})}}), state);  // (B, H, 1, dv) = S^T k
        Expr update = mul(gate(step(c.x(5), at)), c.op("subtract", {ex(vt), ex(recalled)}));
        state = add(state, mm(kt, update));
      } else {
        state = add(state, mm(kt, vt));
      }
      Expr qt = reshape(step(c.x(0), at), {batch, intImm(hkv), intImm(hq / hkv), intImm(dk)});
      Expr ot = mul(mm(qt, state), c.scalar(scale, t));  // (B, Hkv, G, dv)
      outs.push_back(reshape(ot, {batch, intImm(hq * dv)}));
    }
    Expr out = c.op("stack", {ex(make<Tuple>(outs))}, {{"axis", i(1)}});
    return {{out}, {state}};
  });
  registerConverter("ai.onnx.preview", "FlexAttention", {1}, [](NodeCtx& c) -> Outputs {
    // softmax(score_mod(Q K^T * scale)) -> prob_mod -> @ V over (B, H, L, D) heads; query head h
    // reads kv head h / (Hq / Hkv). The modifier graphs run inline on the (B, Hq, L, S) tensor in
    // softmax_precision.
    auto qd = c.dims(0), kd = c.dims(1), vd = c.dims(2);
    if (qd.size() != 4 || kd.size() != 4 || vd.size() != 4) fail("Q, K and V must be rank 4");
    int64_t hq = knownDim(qd[1], "q_num_heads"), hkv = knownDim(kd[1], "kv_num_heads"), dh = knownDim(qd[3], "the head size");
    if (hkv <= 0 || hq % hkv) fail("q_num_heads must be a multiple of kv_num_heads");
    DataType t = c.dtype(0);
    DataType prec = t == DataType::float64() ? t : DataType::float32();
    if (auto p = c.iOpt("softmax_precision")) {
      auto d = dtypeOf(int32_t(*p));
      if (!d || !d->isFloat()) fail("softmax_precision must be a float type");
      prec = *d;
    }
    Expr k = c.x(1), v = c.x(2);
    if (hq != hkv) {
      k = c.op("repeat", {ex(k)}, {{"repeats", i(hq / hkv)}, {"axis", i(1)}});
      v = c.op("repeat", {ex(v)}, {{"repeats", i(hq / hkv)}, {"axis", i(1)}});
    }
    double scale = c.f("scale", 1.0 / std::sqrt(double(dh)));
    Expr scores = c.op("matmul", {ex(c.cast(c.x(0), prec)), ex(c.op("permute_dims", {ex(c.cast(k, prec))}, {{"axes", ints({0, 1, 3, 2})}}))});
    scores = c.op("multiply", {ex(scores), ex(c.scalar(scale, prec))});
    auto modify = [&](const char* name, Expr e) {
      auto* a = c.attr(name);
      if (!a) return e;
      auto outs = c.graph().inlineSubgraph(a->g(), {OValue{e}});
      if (outs.size() != 1) fail(std::string(name) + " must have one output");
      return outs[0];
    };
    scores = modify("score_mod", scores);
    Expr probs = modify("prob_mod", c.op("nn.softmax", {ex(scores)}, {{"axis", i(-1)}}));
    return {{c.cast(c.op("matmul", {ex(probs), ex(c.cast(v, prec))}), t)}};
  });
}

}  // namespace rlx::onnx
