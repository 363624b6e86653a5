// rlx::nn example: a small GPT-2-style decoder (token + position embeddings, pre-RMSNorm blocks with
// causal self-attention and a GELU MLP, an LM head) over a symbolic sequence length. `prefill` and
// `decode` keep keys and values in nn::KVCache effects, which nn::jit holds between calls; the
// model is exported to gpt2.relax + gpt2.params.safetensors, re-parsed, and generates 8 tokens
// greedily through jit.
//
// The reference evaluator has no VM builtins, so it cannot run the KV cache ops. The same export
// therefore also has `prefill_explicit` / `decode_explicit` (effect_mode none), which return every
// layer's keys and values and take the past ones as a tuple: the evaluator runs those on the
// re-parsed module, and every step's logits from jit's cached decode are checked against them.
#include "example_util.h"

using namespace rlx;
using namespace rlx::nn;
using namespace example;

namespace {

struct Config {
  int64_t vocab = 64, dim = 32, heads = 4, layers = 2, maxPos = 64, hidden = 64;
  int64_t headDim() const { return dim / heads; }
};

struct Attention : Module {
  Config c;
  ModuleRef<Linear> q, k, v, o;
  EffectRef<KVCache> kCache, vCache;
  explicit Attention(const Config& cfg) : c(cfg) {
    q = registerModule("q_proj", std::make_shared<Linear>(c.dim, c.dim, false));
    k = registerModule("k_proj", std::make_shared<Linear>(c.dim, c.dim, false));
    v = registerModule("v_proj", std::make_shared<Linear>(c.dim, c.dim, false));
    o = registerModule("o_proj", std::make_shared<Linear>(c.dim, c.dim, false));
    kCache = registerEffect("k_cache", KVCache::create(c.maxPos, {c.heads, c.headDim()}));
    vCache = registerEffect("v_cache", KVCache::create(c.maxPos, {c.heads, c.headDim()}));
  }
  // x (1, s, dim); causal for a prefill (from empty caches), not for a one-token decode step.
  // Cached (`total` given): the new keys/values go into the caches and the `total` rows cached so
  // far are attended. Explicit: they are appended to pastK / pastV (undefined: none). Returns the
  // output and the keys/values attended.
  std::vector<Tensor> attend(const Tensor& x, bool causal, const std::optional<Dim>& total, const Tensor& pastK = {}, const Tensor& pastV = {}) {
    Dim s = x.shape()[1];
    auto heads = [&](const Tensor& t, const Dim& n) { return t.reshape({1, n, c.heads, c.headDim()}); };
    Tensor qs = heads(q(x), s), ks = heads(k(x), s), vs = heads(v(x), s);
    if (total) {
      kCache->append(ks.reshape({s, c.heads, c.headDim()}));
      vCache->append(vs.reshape({s, c.heads, c.headDim()}));
      ks = heads(kCache->view(*total), *total);
      vs = heads(vCache->view(*total), *total);
    } else if (pastK.defined()) {
      ks = op::concat({pastK, ks}, 1);
      vs = op::concat({pastV, vs}, 1);
    }
    Tensor a = op::scaledDotProductAttention(qs, ks, vs, {.isCausal = causal});
    return {o(a.reshape({1, s, c.dim})), ks, vs};
  }
};

struct Block : Module {
  ModuleRef<RMSNorm> ln1, ln2;
  ModuleRef<Attention> attn;
  ModuleRef<Linear> fc1, fc2;
  explicit Block(const Config& c) {
    ln1 = registerModule("ln_1", std::make_shared<RMSNorm>(c.dim, std::vector<int64_t>{-1}, 1e-5, false));
    attn = registerModule("attn", std::make_shared<Attention>(c));
    ln2 = registerModule("ln_2", std::make_shared<RMSNorm>(c.dim, std::vector<int64_t>{-1}, 1e-5, false));
    fc1 = registerModule("fc1", std::make_shared<Linear>(c.dim, c.hidden));
    fc2 = registerModule("fc2", std::make_shared<Linear>(c.hidden, c.dim));
  }
  std::vector<Tensor> step(const Tensor& x, bool causal, const std::optional<Dim>& total, const Tensor& pastK, const Tensor& pastV) {
    auto r = attn->attend(ln1(x), causal, total, pastK, pastV);
    Tensor h = x + r[0];
    return {h + fc2(op::gelu(fc1(ln2(h)))), r[1], r[2]};
  }
};

struct GPT : Module {
  Config c;
  ModuleRef<Embedding> wte, wpe;
  ModuleRef<ModuleList> blocks;
  ModuleRef<RMSNorm> lnf;
  ModuleRef<Linear> head;
  explicit GPT(const Config& cfg) : c(cfg) {
    wte = registerModule("wte", std::make_shared<Embedding>(c.vocab, c.dim));
    wpe = registerModule("wpe", std::make_shared<Embedding>(c.maxPos, c.dim));
    auto list = std::make_shared<ModuleList>();
    for (int64_t i = 0; i < c.layers; ++i) list->append(std::make_shared<Block>(c));
    blocks = registerModule("blocks", list);
    lnf = registerModule("ln_f", std::make_shared<RMSNorm>(c.dim, std::vector<int64_t>{-1}, 1e-5, false));
    head = registerModule("lm_head", std::make_shared<Linear>(c.dim, c.vocab, false));
  }
  // The logits (1, s, vocab) and every layer's attended keys and values (k0, v0, k1, v1, ...).
  std::pair<Tensor, std::vector<Tensor>> run(const Tensor& tokens, const Tensor& positions, bool causal, const std::optional<Dim>& total,
                                             const std::vector<Tensor>& past = {}) {
    Tensor x = wte(tokens) + wpe(positions);
    std::vector<Tensor> kv;
    for (size_t i = 0; i < blocks->size(); ++i) {
      Tensor pk = past.empty() ? Tensor() : past[2 * i], pv = past.empty() ? Tensor() : past[2 * i + 1];
      auto r = blocks->at<Block>(i)->step(x, causal, total, pk, pv);
      x = r[0];
      kv.push_back(r[1]);
      kv.push_back(r[2]);
    }
    return {head(lnf(x)), kv};
  }
  // With the KV caches (total = the cached length after this call).
  Tensor prefill(const Tensor& tokens, const Tensor& positions, PrimExpr total) { return run(tokens, positions, true, Dim(total)).first; }
  Tensor decode(const Tensor& token, const Tensor& position, PrimExpr total) { return run(token, position, false, Dim(total)).first; }
  // With explicit keys and values: (logits, (k0, v0, ...)).
  Nested prefillExplicit(const Tensor& tokens, const Tensor& positions) {
    auto [logits, kv] = run(tokens, positions, true, std::nullopt);
    return Nested(std::vector<Nested>{logits, Nested(kv)});
  }
  Nested decodeExplicit(const Tensor& token, const Tensor& position, const std::vector<Tensor>& past) {
    auto [logits, kv] = run(token, position, false, std::nullopt, past);
    return Nested(std::vector<Nested>{logits, Nested(kv)});
  }
};

NDArrayRef ids(const std::vector<int32_t>& v) {
  auto a = make<NDArray>(DataType::int32(), std::vector<int64_t>{1, int64_t(v.size())});
  for (size_t i = 0; i < v.size(); ++i) a->as<int32_t>()[i] = v[i];
  return a;
}
std::vector<int32_t> range(int32_t from, int32_t to) {
  std::vector<int32_t> r;
  for (int32_t i = from; i < to; ++i) r.push_back(i);
  return r;
}

// The greedy choice at the last position of logits (1, s, vocab).
int32_t argmaxLast(const NDArray& logits) {
  int64_t vocab = logits.shape[2], base = (logits.shape[1] - 1) * vocab;
  int32_t best = 0;
  for (int64_t i = 1; i < vocab; ++i)
    if (logits.getDouble(base + i) > logits.getDouble(base + best)) best = int32_t(i);
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : ".";
  Config c;
  GPT model(c);
  fillRandom(model, /*seed=*/2024, /*scale=*/0.3f);

  ArgSpec cache = spec::Tensor({1, "past", c.heads, c.headDim()}, "float32");
  std::vector<ArgSpec> past(size_t(2 * c.layers), cache);
  ArgSpec tokens1 = spec::Tensor({1, 1}, "int32"), tokensN = spec::Tensor({1, "seq"}, "int32");
  MethodOptions explicitKV{.effectMode = EffectMode::None};
  ModuleSpec spec;
  spec.add("prefill", {{"tokens", tokensN}, {"positions", tokensN}, {"total_seq_len", spec::Int()}}, &GPT::prefill);
  spec.add("decode", {{"token", tokens1}, {"position", tokens1}, {"total_seq_len", spec::Int()}}, &GPT::decode);
  spec.add("prefill_explicit", {{"tokens", tokensN}, {"positions", tokensN}}, &GPT::prefillExplicit, explicitKV);
  spec.add("decode_explicit", {{"token", tokens1}, {"position", tokens1}, {"cache", spec::Tuple(past)}}, &GPT::decodeExplicit, explicitKV);

  Exported exported = check(model.exportIR(spec), "export");
  IRModuleRef reparsed = saveAndReload(exported, dir + "/gpt2.relax");
  std::vector<rlx::Value> params = paramValues(exported);
  auto evaluate = [&](const std::string& fn, std::vector<rlx::Value> args) {
    args.insert(args.end(), params.begin(), params.end());
    return check(evaluateFunction(*reparsed, fn, args), "evaluating " + fn);
  };

  JitModule jitted = check(jit(model, spec), "jit");
  std::vector<int32_t> tokens = {3, 14, 15, 9, 26};
  std::printf("prompt:");
  for (int32_t t : tokens) std::printf(" %d", t);
  std::printf("\n");

  // jit prefills its KV caches; the evaluator keeps explicit keys and values.
  int32_t n = int32_t(tokens.size());
  vm::Value logits = check(jitted("prefill", {ids(tokens), ids(range(0, n)), n}), "prefill");
  rlx::Value ref = evaluate("prefill_explicit", {rlx::Value::ofTensor(ids(tokens)), rlx::Value::ofTensor(ids(range(0, n)))});
  double worst = maxAbsDiff(*logits.array, *ref.fields[0].tensor);
  std::printf("prefill: %d tokens, max |jit - evaluator| = %.3g\n", n, worst);
  rlx::Value cacheRef = ref.fields[1];

  const int steps = 8;
  std::vector<int32_t> generated;
  for (int step = 0; step < steps; ++step) {
    int32_t next = argmaxLast(*logits.array);
    generated.push_back(next);
    int32_t pos = int32_t(tokens.size());
    tokens.push_back(next);
    logits = check(jitted("decode", {ids({next}), ids({pos}), pos + 1}), "decode");
    ref = evaluate("decode_explicit", {rlx::Value::ofTensor(ids({next})), rlx::Value::ofTensor(ids({pos})), cacheRef});
    double d = maxAbsDiff(*logits.array, *ref.fields[0].tensor);
    worst = std::max(worst, d);
    std::printf("decode step %d: token %d at position %d, max |jit - evaluator| = %.3g\n", step, next, pos, d);
    cacheRef = ref.fields[1];
  }
  std::printf("generated:");
  for (int32_t t : generated) std::printf(" %d", t);
  std::printf("\n");
  std::printf("jit's KV caches: %s\n", jitted.effects()[0].describe().c_str());

  // The caches are right: prefilling the whole sequence into fresh ones gives the last decode step's logits.
  check(jitted.resetEffects(), "resetting the caches");
  int32_t all = int32_t(tokens.size());
  vm::Value full = check(jitted("prefill", {ids(tokens), ids(range(0, all)), all}), "prefill of the whole sequence");
  const NDArray& fl = *full.array;
  int64_t vocab = fl.shape[2];
  double consistency = 0;
  for (int64_t i = 0; i < vocab; ++i) consistency = std::max(consistency, std::fabs(fl.getDouble((fl.shape[1] - 1) * vocab + i) - logits.array->getDouble(i)));
  std::printf("prefill of all %d tokens vs the last decode step: max diff %.3g\n", all, consistency);
  if (worst > 1e-4) die("jit and the reference evaluator disagree");
  if (consistency > 1e-4) die("decode with the caches disagrees with a full prefill");
  std::printf("gpt2: OK\n");
  return 0;
}
