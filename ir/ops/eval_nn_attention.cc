// Reference evaluators of attention, attention_bias and attention_var_len (BSNH; bias, scale and
// causal masks as TVM's legalization builds them) and of cross_entropy_with_logits and nll_loss.
#include <fmt/format.h>

#include <cmath>
#include <functional>

#include "ir/ops/eval_nn.h"

namespace rlx {
namespace {
using namespace ops;

struct AttnDims {
  int64_t b, s, n, h, skv, hv;
};

Result<AttnDims> attnDims(const Call& call, const NDArray& q, const NDArray& k, const NDArray& v) {
  if (q.shape.size() != 4 || k.shape.size() != 4 || v.shape.size() != 4) return evalError(call, "expects 4-D query, key and value (batch, seq, heads, head dim)");
  AttnDims d{q.shape[0], q.shape[1], q.shape[2], q.shape[3], k.shape[1], v.shape[3]};
  if (k.shape[0] != d.b || v.shape[0] != d.b || k.shape[2] != d.n || v.shape[2] != d.n || k.shape[3] != d.h || v.shape[1] != d.skv)
    return evalError(call, "query, key and value shapes do not agree");
  return d;
}

// Offset of the causal diagonal: key j is visible from query i when j <= i + offset. TVM uses
// |seq - seq_kv| for BottomRight (the absolute value included); no mask shows every key.
Result<int64_t> causalOffset(const Call& call, int64_t seq, int64_t seqKv) {
  if (attrIsNone(call, "causal_mask")) return seqKv;
  std::string mask = attrString(call, "causal_mask");
  if (mask == "TopLeft") return int64_t(0);
  if (mask == "BottomRight") return std::abs(seq - seqKv);
  return evalError(call, fmt::format("unknown causal_mask \"{}\" (TopLeft or BottomRight)", mask));
}

// The inputs of one attention call as doubles, with their (batch, seq, heads, dim) extents.
struct AttnData {
  AttnDims d;
  std::vector<double> q, k, v, out;
  double scale;
  const double* qRow(int64_t b, int64_t i, int64_t n) const { return q.data() + ((b * d.s + i) * d.n + n) * d.h; }
  const double* kRow(int64_t b, int64_t j, int64_t n) const { return k.data() + ((b * d.skv + j) * d.n + n) * d.h; }
  const double* vRow(int64_t b, int64_t j, int64_t n) const { return v.data() + ((b * d.skv + j) * d.n + n) * d.hv; }
  double* outRow(int64_t b, int64_t i, int64_t n) { return out.data() + ((b * d.s + i) * d.n + n) * d.hv; }
};

// One head of one sequence: queries [q0, q0 + sq) attend keys [k0, k0 + skv) with the causal
// `offset` (relative to the block) and an optional additive bias(i, j) of block positions.
struct AttnBlock {
  int64_t b, n, q0, sq, k0, skv, offset;
};

void attendBlock(AttnData& a, const AttnBlock& blk, const std::function<double(int64_t, int64_t)>& bias) {
  std::vector<double> p(size_t(blk.skv));
  for (int64_t i = 0; i < blk.sq; ++i) {
    int64_t visible = std::min(blk.skv, i + blk.offset + 1);
    const double* qrow = a.qRow(blk.b, blk.q0 + i, blk.n);
    double mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j < visible; ++j) {
      const double* krow = a.kRow(blk.b, blk.k0 + j, blk.n);
      double dot = 0;
      for (int64_t e = 0; e < a.d.h; ++e) dot += qrow[e] * krow[e];
      p[size_t(j)] = dot * a.scale + (bias ? bias(i, j) : 0.0);
      mx = std::max(mx, p[size_t(j)]);
    }
    for (int64_t j = 0; j < visible; ++j) sum += (p[size_t(j)] = std::exp(p[size_t(j)] - mx));
    double* orow = a.outRow(blk.b, blk.q0 + i, blk.n);
    for (int64_t j = 0; j < visible; ++j) {
      const double* vrow = a.vRow(blk.b, blk.k0 + j, blk.n);
      for (int64_t e = 0; e < a.d.hv; ++e) orow[e] += p[size_t(j)] / sum * vrow[e];
    }
  }
}

Result<AttnData> attnData(const Call& call, const std::vector<Value>& args, const NDArray& out) {
  RLX_TRY(q, tensorValue(call, args, 0, "query"));
  RLX_TRY(k, tensorValue(call, args, 1, "key"));
  RLX_TRY(v, tensorValue(call, args, 2, "value"));
  RLX_TRY(d, attnDims(call, *q, *k, *v));
  RLX_TRY_STATUS(expectShape(call, out, {d.b, d.s, d.n, d.hv}, "the result"));
  if (!attrIsNone(call, "window_size")) return evalError(call, "sliding-window attention (window_size) has no reference semantics");
  double scale = attrIsNone(call, "scale") ? 1.0 / std::sqrt(double(d.h)) : attrReal(call, "scale");
  return AttnData{d, loadAs<double>(*q), loadAs<double>(*k), loadAs<double>(*v), std::vector<double>(size_t(out.numel()), 0.0), scale};
}

Result<Value> evalAttention(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(out, allocResult(call));
  RLX_TRY(a, attnData(call, args, *out));
  const AttnDims& d = a.d;
  NDArrayRef bias;
  if (args.size() > 3) {
    RLX_TRY(b, tensorValue(call, args, 3, "bias"));
    bias = b;
    RLX_TRY(full, broadcastShape(call, b->shape, {d.b, d.n, d.s, d.skv}));
    if (full != Shape{d.b, d.n, d.s, d.skv}) return evalError(call, "the bias does not broadcast to (batch, heads, seq_len, seq_len_kv)");
  }
  RLX_TRY(offset, causalOffset(call, d.s, d.skv));
  Shape biasStrides = bias ? stridesOf(bias->shape) : Shape{};
  for (int64_t b = 0; b < d.b; ++b)
    for (int64_t n = 0; n < d.n; ++n) {
      auto biasAt = [&](int64_t i, int64_t j) { return bias->getDouble(broadcastOffset({b, n, i, j}, bias->shape, biasStrides)); };
      attendBlock(a, {b, n, 0, d.s, 0, d.skv, offset}, bias ? std::function<double(int64_t, int64_t)>(biasAt) : nullptr);
    }
  storeAs(*out, a.out);
  return Value::ofTensor(out);
}

// Sequence boundaries (a cumulative sum starting at 0) as int64, checked against `total`.
Result<std::vector<int64_t>> seqStarts(const Call& call, const std::vector<Value>& args, size_t i, const char* name, int64_t total) {
  RLX_TRY(t, tensorValue(call, args, i, name));
  std::vector<int64_t> s;
  for (int64_t k = 0; k < t->numel(); ++k) s.push_back(t->getInt(k));
  bool ok = t->shape.size() == 1 && !s.empty() && s[0] == 0;
  for (size_t k = 1; ok && k < s.size(); ++k) ok = s[k] >= s[k - 1] && s[k] <= total;
  if (!ok) return evalError(call, fmt::format("{} must be a 1-D cumulative sum of sequence lengths starting at 0 and ending within {}", name, total));
  return s;
}

// Packed sequences: sequence i's queries [seqstart_q[i], seqstart_q[i + 1]) attend its keys
// [seqstart_k[i], seqstart_k[i + 1]), with the scale and causal mask of plain attention applied
// per sequence. max_seqlen_q/k only size the kernels' workspaces and do not change the result.
Result<Value> evalAttentionVarLen(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(out, allocResult(call));
  RLX_TRY(a, attnData(call, args, *out));
  RLX_TRY(sq, seqStarts(call, args, 3, "seqstart_q", a.d.s));
  RLX_TRY(sk, seqStarts(call, args, 4, "seqstart_k", a.d.skv));
  if (sq.size() != sk.size()) return evalError(call, "seqstart_q and seqstart_k describe different numbers of sequences");
  for (int64_t b = 0; b < a.d.b; ++b)
    for (size_t i = 0; i + 1 < sq.size(); ++i) {
      int64_t lenQ = sq[i + 1] - sq[i], lenK = sk[i + 1] - sk[i];
      RLX_TRY(offset, causalOffset(call, lenQ, lenK));
      for (int64_t n = 0; n < a.d.n; ++n) attendBlock(a, {b, n, sq[i], lenQ, sk[i], lenK, offset}, nullptr);
    }
  storeAs(*out, a.out);
  return Value::ofTensor(out);
}

// TVM's definition: -sum(predictions * labels), divided by the batch size (dim 0) when the inputs
// have more than one dimension. The predictions are used as given (no log_softmax is applied).
Result<Value> evalCrossEntropy(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(p, tensorValue(call, args, 0, "predictions"));
  RLX_TRY(l, tensorValue(call, args, 1, "labels"));
  RLX_TRY(out, allocResult(call));
  if (p->shape != l->shape) return evalError(call, "predictions and labels must have the same shape");
  RLX_TRY_STATUS(expectShape(call, *out, {}, "the result"));
  int64_t batch = p->shape.size() > 1 ? p->shape[0] : 1;
  if (out->dtype.isFloat()) {
    double s = 0;
    for (int64_t i = 0; i < p->numel(); ++i) s += p->getDouble(i) * l->getDouble(i);
    out->setDouble(0, -s / double(batch));
  } else {
    uint64_t s = 0;
    for (int64_t i = 0; i < p->numel(); ++i) s += uint64_t(p->getInt(i)) * uint64_t(l->getInt(i));
    if (batch == 0) return evalError(call, "integer division by a zero batch size");
    out->setInt(0, int64_t(0 - s) / batch);
  }
  return Value::ofTensor(out);
}

// loss = -predictions[n, t, ...] * weights[t] for target t (0 where t == ignore_index); "mean"
// divides the summed loss by the summed weights of the targets that count.
Result<Value> evalNLLLoss(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(pred, tensorValue(call, args, 0, "predictions"));
  RLX_TRY(tgt, tensorValue(call, args, 1, "targets"));
  RLX_TRY(out, allocResult(call));
  NDArrayRef weights;
  if (args.size() > 2) {
    RLX_TRY(w, tensorValue(call, args, 2, "weights"));
    weights = w;
  }
  bool single = pred->shape.size() == 1;  // (C,) predictions with a 0-d target
  int64_t classes = single ? pred->shape[0] : (pred->shape.size() > 1 ? pred->shape[1] : 0);
  Shape expectTgt = single ? Shape{} : Shape{pred->shape[0]};
  for (size_t d = 2; d < pred->shape.size(); ++d) expectTgt.push_back(pred->shape[d]);
  if (pred->shape.empty() || tgt->shape != expectTgt) return evalError(call, "targets must have the predictions' shape without the class dimension");
  if (weights && weights->numel() != classes) return evalError(call, fmt::format("weights have {} entries for {} classes", weights->numel(), classes));
  int64_t ignore = attrInt(call, "ignore_index", -100);
  std::string reduction = attrString(call, "reduction", "mean");
  int64_t inner = 1;
  for (size_t d = 2; d < pred->shape.size(); ++d) inner *= pred->shape[d];
  std::vector<double> loss(size_t(tgt->numel()), 0.0);
  double lossSum = 0, weightSum = 0;
  for (int64_t i = 0; i < tgt->numel(); ++i) {
    int64_t t = tgt->getInt(i);
    if (t == ignore) continue;
    if (t < 0 || t >= classes) return evalError(call, fmt::format("target {} is out of range for {} classes", t, classes));
    int64_t n = i / inner, r = i % inner;
    double w = weights ? weights->getDouble(t) : 1.0;
    loss[size_t(i)] = -pred->getDouble((n * classes + t) * inner + r) * w;
    lossSum += loss[size_t(i)];
    weightSum += w;
  }
  RLX_TRY_STATUS(expectShape(call, *out, reduction == "none" ? tgt->shape : Shape{}, "the result"));
  if (reduction == "none") {
    storeAs(*out, loss);
  } else if (reduction == "sum") {
    out->setDouble(0, lossSum);
  } else if (reduction == "mean") {
    out->setDouble(0, lossSum / weightSum);
  } else {
    return evalError(call, fmt::format("unknown reduction \"{}\"", reduction));
  }
  return Value::ofTensor(out);
}

}  // namespace

void registerAttentionEvals() {
  registerEval("relax.nn.attention", evalAttention);
  registerEval("relax.nn.attention_bias", evalAttention);
  registerEval("relax.nn.attention_var_len", evalAttentionVarLen);
  registerEval("relax.nn.cross_entropy_with_logits", evalCrossEntropy);
  registerEval("relax.nn.nll_loss", evalNLLLoss);
}

}  // namespace rlx
