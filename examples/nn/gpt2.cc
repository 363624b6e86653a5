// rlx::nn example: a small GPT-2-style decoder (token + position embeddings, pre-RMSNorm blocks with
// causal self-attention and a GELU MLP, tied-free LM head) with `prefill` and `decode` methods over
// a symbolic sequence length. It is exported to gpt2.relax + gpt2.params.safetensors, re-parsed,
// and generates 8 tokens greedily through nn::jit, each step's logits checked against the
// reference evaluator running the re-parsed functions.
//
// The KV cache is explicit: prefill returns every layer's keys and values, and decode takes the
// past ones as a tuple argument and returns them extended by one position. (nn's KVCache effect
// would keep them inside the jitted module instead; the explicit form also lets the reference
// evaluator, which has no VM builtins, run the very same functions.)
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
  explicit Attention(const Config& cfg) : c(cfg) {
    q = registerModule("q_proj", std::make_shared<Linear>(c.dim, c.dim, false));
    k = registerModule("k_proj", std::make_shared<Linear>(c.dim, c.dim, false));
    v = registerModule("v_proj", std::make_shared<Linear>(c.dim, c.dim, false));
    o = registerModule("o_proj", std::make_shared<Linear>(c.dim, c.dim, false));
  }
  // x (1, s, dim); past keys/values (1, p, heads, headDim) or undefined. Returns the output and
  // the keys/values of every position seen so far.
  std::vector<Tensor> attend(const Tensor& x, const Tensor& pastK, const Tensor& pastV) {
    Dim s = x.shape()[1];
    auto heads = [&](const Tensor& t) { return t.reshape({1, s, c.heads, c.headDim()}); };
    Tensor qs = heads(q(x)), ks = heads(k(x)), vs = heads(v(x));
    if (pastK.defined()) {
      ks = op::concat({pastK, ks}, 1);
      vs = op::concat({pastV, vs}, 1);
    }
    // Prefill (no past): causal over the prompt. Decode: one query sees every cached position.
    Tensor a = op::scaledDotProductAttention(qs, ks, vs, {.isCausal = !pastK.defined()});
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
  std::vector<Tensor> step(const Tensor& x, const Tensor& pastK, const Tensor& pastV) {
    auto r = attn->attend(ln1(x), pastK, pastV);
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
  // (logits (1, s, vocab), (k0, v0, k1, v1, ...)); `past` is empty for prefill.
  Nested run(const Tensor& tokens, const Tensor& positions, const std::vector<Tensor>& past) {
    Tensor x = wte(tokens) + wpe(positions);
    std::vector<Tensor> kv;
    for (size_t i = 0; i < blocks->size(); ++i) {
      Tensor pk = past.empty() ? Tensor() : past[2 * i], pv = past.empty() ? Tensor() : past[2 * i + 1];
      auto r = blocks->at<Block>(i)->step(x, pk, pv);
      x = r[0];
      kv.push_back(r[1]);
      kv.push_back(r[2]);
    }
    return Nested(std::vector<Nested>{head(lnf(x)), Nested(kv)});
  }
  Nested prefill(const Tensor& tokens, const Tensor& positions) { return run(tokens, positions, {}); }
  Nested decode(const Tensor& token, const Tensor& position, const std::vector<Tensor>& past) { return run(token, position, past); }
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
  ModuleSpec spec;
  spec.add("prefill", {{"tokens", spec::Tensor({1, "seq"}, "int32")}, {"positions", spec::Tensor({1, "seq"}, "int32")}}, &GPT::prefill);
  spec.add("decode", {{"token", spec::Tensor({1, 1}, "int32")}, {"position", spec::Tensor({1, 1}, "int32")}, {"cache", spec::Tuple(past)}}, &GPT::decode);

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

  // Prefill on both sides; each keeps its own cache from then on.
  int32_t n = int32_t(tokens.size());
  vm::Value out = check(jitted("prefill", {ids(tokens), ids(range(0, n))}), "prefill");
  rlx::Value ref = evaluate("prefill", {rlx::Value::ofTensor(ids(tokens)), rlx::Value::ofTensor(ids(range(0, n)))});
  double worst = maxAbsDiff(*out.fields()[0].array, *ref.fields[0].tensor);
  std::printf("prefill: %d tokens, max |jit - evaluator| = %.3g\n", n, worst);
  vm::Value cacheJit = out.fields()[1];
  rlx::Value cacheRef = ref.fields[1];
  NDArrayRef lastLogits = out.fields()[0].array;

  const int steps = 8;
  std::vector<int32_t> generated;
  for (int step = 0; step < steps; ++step) {
    int32_t next = argmaxLast(*lastLogits);
    generated.push_back(next);
    int32_t pos = int32_t(tokens.size());
    tokens.push_back(next);
    out = check(jitted("decode", {ids({next}), ids({pos}), JitArg(cacheJit)}), "decode");
    ref = evaluate("decode", {rlx::Value::ofTensor(ids({next})), rlx::Value::ofTensor(ids({pos})), cacheRef});
    double d = maxAbsDiff(*out.fields()[0].array, *ref.fields[0].tensor);
    worst = std::max(worst, d);
    std::printf("decode step %d: token %d at position %d, max |jit - evaluator| = %.3g\n", step, next, pos, d);
    cacheJit = out.fields()[1];
    cacheRef = ref.fields[1];
    lastLogits = out.fields()[0].array;
  }
  std::printf("generated:");
  for (int32_t t : generated) std::printf(" %d", t);
  std::printf("\n");

  // The cache is right: prefilling the whole sequence gives the last decode step's logits.
  std::vector<int32_t> all(tokens.begin(), tokens.end());
  vm::Value full = check(jitted("prefill", {ids(all), ids(range(0, int32_t(all.size())))}), "prefill of the whole sequence");
  const NDArray& fl = *full.fields()[0].array;
  int64_t vocab = fl.shape[2];
  double consistency = 0;
  for (int64_t i = 0; i < vocab; ++i)
    consistency = std::max(consistency, std::fabs(fl.getDouble((fl.shape[1] - 1) * vocab + i) - lastLogits->getDouble(i)));
  std::printf("prefill of all %zu tokens vs the last decode step: max diff %.3g\n", all.size(), consistency);
  if (worst > 1e-4) die("jit and the reference evaluator disagree");
  if (consistency > 1e-4) die("decode with the cache disagrees with a full prefill");
  std::printf("gpt2: OK\n");
  return 0;
}
