// Transformer ONNX ops of opset 23: Attention (3-D or 4-D Q/K/V, grouped-query heads, KV cache,
// boolean or additive masks, causal masking, softcap, the qk_matmul output modes) and
// RotaryEmbedding (interleaved or split halves, partial rotary dims, position ids).
// `com.microsoft`'s contrib Attention is a different op in its own domain (ops_contrib.cc).
#include <cmath>
#include <limits>

#include "frontend/onnx/converter.h"
#include "frontend/onnx/tensor.h"

namespace rlx::onnx {

namespace {

int64_t known(const PrimExpr& e, const char* what) {
  auto imm = e.as<IntImm>();
  if (!imm) fail(std::string(what) + " must be known at import time");
  return imm->value;
}

// (B, S, heads * D) -> (B, heads, S, D).
Expr splitHeads(NodeCtx& c, Expr x, int64_t heads) {
  auto d = *tensorInfo(x)->dims();
  int64_t hidden = known(d[2], "the hidden size");
  if (heads <= 0 || hidden % heads) fail("the hidden size " + std::to_string(hidden) + " is not a multiple of the head count " + std::to_string(heads));
  Expr r = c.op("reshape", {ex(x), ex(shapeExpr({d[0], d[1], intImm(heads), intImm(hidden / heads)}))});
  return c.op("permute_dims", {ex(r)}, {{"axes", ints({0, 2, 1, 3})}});
}

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
    int64_t qHeads = known(qd[1], "the query head count"), sq = known(qd[2], "the query length"), headSize = known(qd[3], "the head size");
    int64_t past = 0;
    if (c.has(4)) {
      past = known(c.dims(4)[2], "the past length");
      k = c.op("concat", {ex(make<Tuple>(std::vector<Expr>{c.x(4), k}))}, {{"axis", i(2)}});
    }
    if (c.has(5)) v = c.op("concat", {ex(make<Tuple>(std::vector<Expr>{c.x(5), v}))}, {{"axis", i(2)}});
    Expr presentK = k, presentV = v;
    auto kd = *tensorInfo(k)->dims();
    int64_t kvHeads = known(kd[1], "the key head count"), skv = known(kd[2], "the key length");

    // The additive bias: the mask (padded to the key length), causal masking, padding lengths.
    Expr bias;
    if (c.has(3)) {
      Expr m = c.x(3);
      int64_t mr = c.ndim(3);
      int64_t mcols = known(c.dims(3)[size_t(mr - 1)], "the mask length");
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
      y = c.op("reshape", {ex(y), ex(shapeExpr({yd[0], yd[2], intImm(qHeads * known(yd[3], "the value head size"))}))});
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
      int64_t hidden = known(original[2], "the hidden size");
      if (heads <= 0 || hidden % heads) fail("num_heads must divide the hidden size");
      x = c.op("reshape", {ex(x), ex(shapeExpr({original[0], original[1], intImm(heads), intImm(hidden / heads)}))});
    } else {
      fail("the input must be 3-D or 4-D");
    }
    auto xd = *tensorInfo(x)->dims();
    int64_t head = known(xd[3], "the head size");
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
}

}  // namespace rlx::onnx
