// Numerics of layers and functional ops: each small model is exported, bound to data and run on
// the reference evaluator (ir/eval_function.h; call_tir kernels run on the TIR interpreter), and
// compared with a direct computation of what the layer means.
#include <cmath>
#include <random>

#include "passes/op_builder.h"
#include "nn_test_util.h"

using namespace rlx::nn;
using rlx::DataType;
using rlx::NDArray;
using rlx::NDArrayRef;
using rlx::Expr;
using rlx::PrimExpr;
namespace te = rlx::te;

namespace {

NDArrayRef random(std::vector<int64_t> shape, uint32_t seed, double lo = -1, double hi = 1, DataType t = DataType::float32()) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  auto a = rlx::make<NDArray>(t, std::move(shape));
  for (int64_t i = 0; i < a->numel(); ++i) a->setDouble(i, d(g));
  return a;
}

NDArrayRef values(DataType t, std::vector<int64_t> shape, std::vector<double> v) {
  auto a = rlx::make<NDArray>(t, std::move(shape));
  for (int64_t i = 0; i < a->numel(); ++i) a->setDouble(i, v[size_t(i)]);
  return a;
}

// Binds random data to every parameter of `m`.
void randomParams(Module& m, uint32_t seed = 7) {
  for (auto& p : m.parameters()) REQUIRE(p->setData(random(p->shape(), seed++)).ok());
}

// Runs `name` of the export on `inputs` then the bound params; returns the flattened results.
std::vector<std::vector<double>> run(const Exported& ex, const std::string& name, const std::vector<NDArrayRef>& inputs) {
  std::vector<rlx::Value> args;
  for (auto& i : inputs) args.push_back(rlx::Value::ofTensor(i));
  for (auto& p : ex.params) args.push_back(rlx::Value::ofTensor(p.param->data()));
  auto r = rlx::evaluateFunction(*ex.module, name, args);
  if (!r.ok()) FAIL("evaluation failed: " << r.error().message);
  std::vector<std::vector<double>> out;
  auto take = [&](const rlx::Value& v) {
    std::vector<double> d;
    for (int64_t i = 0; i < v.tensor->numel(); ++i) d.push_back(v.tensor->getDouble(i));
    out.push_back(d);
  };
  if (r->isTensor()) take(*r);
  else
    for (auto& f : r->fields) take(f);
  return out;
}

void near(const std::vector<double>& got, const std::vector<double>& want, double tol = 1e-4) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(got[i] == Approx(want[i]).margin(tol));
  }
}

double at(const NDArrayRef& a, std::vector<int64_t> idx) {
  int64_t flat = 0;
  for (size_t i = 0; i < idx.size(); ++i) flat = flat * a->shape[i] + idx[i];
  return a->getDouble(flat);
}

template <typename M>
Exported exportOne(M& m, MethodArgs args, Nested (M::*fn)(const Tensor&)) {
  ModuleSpec s;
  s.add("forward", std::move(args), fn);
  return nn_test::exportOk(m, s);
}


}  // namespace

TEST_CASE("nn numerics: Linear", "[nn][numerics]") {
  Linear lin(3, 4);
  randomParams(lin);
  auto ex = nn_test::exportOk(lin, nn_test::forwardSpec({{"x", spec::Tensor({"n", 3}, "float32")}}));
  auto x = random({2, 3}, 1);
  auto w = lin.weight->data(), b = lin.bias->data();
  std::vector<double> want;
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t o = 0; o < 4; ++o) {
      double s = at(b, {o});
      for (int64_t k = 0; k < 3; ++k) s += at(x, {i, k}) * at(w, {o, k});
      want.push_back(s);
    }
  near(run(ex, "forward", {x})[0], want);
}

TEST_CASE("nn numerics: Conv1D with bias, stride and padding", "[nn][numerics]") {
  Conv1D conv(2, 3, 3, {.stride = 2, .padding = 1});
  randomParams(conv);
  auto ex = nn_test::exportOk(conv, nn_test::forwardSpec({{"x", spec::Tensor({1, 2, 7}, "float32")}}));
  auto x = random({1, 2, 7}, 2);
  auto w = conv.weight->data(), b = conv.bias->data();
  std::vector<double> want;
  for (int64_t o = 0; o < 3; ++o)
    for (int64_t t = 0; t < 4; ++t) {
      double s = at(b, {o});
      for (int64_t c = 0; c < 2; ++c)
        for (int64_t k = 0; k < 3; ++k) {
          int64_t pos = t * 2 - 1 + k;
          if (pos >= 0 && pos < 7) s += at(x, {0, c, pos}) * at(w, {o, c, k});
        }
      want.push_back(s);
    }
  near(run(ex, "forward", {x})[0], want);
}

TEST_CASE("nn numerics: Embedding of 2-D ids", "[nn][numerics]") {
  Embedding emb(5, 3);
  randomParams(emb);
  auto ex = nn_test::exportOk(emb, nn_test::forwardSpec({{"ids", spec::Tensor({2, "n"}, "int32")}}));
  auto ids = values(DataType::int32(), {2, 2}, {4, 0, 2, 4});
  std::vector<double> want;
  for (int id : {4, 0, 2, 4})
    for (int64_t j = 0; j < 3; ++j) want.push_back(at(emb.weight->data(), {id, j}));
  near(run(ex, "forward", {ids})[0], want);
}

TEST_CASE("nn numerics: LayerNorm, RMSNorm with bias, GroupNorm", "[nn][numerics]") {
  auto x = random({2, 4}, 3);
  auto rowStats = [&](int64_t r, bool centered) {
    double mean = 0, sq = 0;
    for (int64_t j = 0; j < 4; ++j) mean += at(x, {r, j}) / 4;
    for (int64_t j = 0; j < 4; ++j) {
      double d = at(x, {r, j}) - (centered ? mean : 0);
      sq += d * d / 4;
    }
    return std::pair{centered ? mean : 0.0, sq};
  };
  SECTION("LayerNorm") {
    LayerNorm ln(4);
    randomParams(ln);
    auto ex = nn_test::exportOk(ln, nn_test::forwardSpec({{"x", spec::Tensor({2, 4}, "float32")}}));
    std::vector<double> want;
    for (int64_t r = 0; r < 2; ++r) {
      auto [mean, var] = rowStats(r, true);
      for (int64_t j = 0; j < 4; ++j) want.push_back((at(x, {r, j}) - mean) / std::sqrt(var + 1e-5) * at(ln.weight->data(), {j}) + at(ln.bias->data(), {j}));
    }
    near(run(ex, "forward", {x})[0], want);
  }
  SECTION("RMSNorm") {
    RMSNorm rms(4, {-1});
    randomParams(rms);
    auto ex = nn_test::exportOk(rms, nn_test::forwardSpec({{"x", spec::Tensor({2, 4}, "float32")}}));
    std::vector<double> want;
    for (int64_t r = 0; r < 2; ++r) {
      auto [zero, ms] = rowStats(r, false);
      for (int64_t j = 0; j < 4; ++j) want.push_back(at(x, {r, j}) / std::sqrt(ms + 1e-5) * at(rms.weight->data(), {j}) + at(rms.bias->data(), {j}));
    }
    near(run(ex, "forward", {x})[0], want);
  }
  SECTION("GroupNorm") {
    GroupNorm gn(2, 4);
    randomParams(gn);
    auto ex = nn_test::exportOk(gn, nn_test::forwardSpec({{"x", spec::Tensor({1, 4, 3}, "float32")}}));
    auto xi = random({1, 4, 3}, 5);
    std::vector<double> want;
    for (int64_t g = 0; g < 2; ++g) {
      double mean = 0, var = 0;
      for (int64_t c = 2 * g; c < 2 * g + 2; ++c)
        for (int64_t t = 0; t < 3; ++t) mean += at(xi, {0, c, t}) / 6;
      for (int64_t c = 2 * g; c < 2 * g + 2; ++c)
        for (int64_t t = 0; t < 3; ++t) var += std::pow(at(xi, {0, c, t}) - mean, 2) / 6;
      for (int64_t c = 2 * g; c < 2 * g + 2; ++c)
        for (int64_t t = 0; t < 3; ++t) want.push_back((at(xi, {0, c, t}) - mean) / std::sqrt(var + 1e-5) * at(gn.weight->data(), {c}) + at(gn.bias->data(), {c}));
    }
    near(run(ex, "forward", {xi})[0], want);
  }
}

TEST_CASE("nn numerics: elementwise, scalars, shapes, reductions", "[nn][numerics]") {
  struct Net : Module {
    Nested run(const Tensor& a) {
      auto parts = op::chunk(a, 2, 1);  // (2, 2) each
      return std::vector<Tensor>{
          op::where(a > 0.0, a, 2.0 * a),                            // leaky
          1.0 - a / 2.0,                                             // reflected scalars
          op::reshape(op::permuteDims(a), {-1}),                     // transpose, flatten
          op::concat({parts[1], parts[0]}, 1),                       // swap halves
          op::cumsum(a, {.axis = 1, .exclusive = true}),             // exclusive prefix sums
          op::sum(op::relu6(a * 10.0), op::Axes{1}, true),           // clip then row sums
          op::softmax(a),                                            // rows
      };
    }
  };
  Net net;
  ModuleSpec s;
  s.add("forward", {{"a", spec::Tensor({2, 4}, "float32")}}, &Net::run);
  auto ex = nn_test::exportOk(net, s);
  auto a = values(DataType::float32(), {2, 4}, {0.5, -1, 0.25, 2, -0.5, 0.1, 1, -2});
  auto r = run(ex, "forward", {a});
  std::vector<double> v = {0.5, -1, 0.25, 2, -0.5, 0.1, 1, -2};
  std::vector<double> leaky, refl, trans, swapped, ex_cumsum, clipped, soft;
  for (double x : v) leaky.push_back(x > 0 ? x : 2 * x);
  for (double x : v) refl.push_back(1 - x / 2);
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 2; ++i) trans.push_back(v[size_t(i * 4 + j)]);
  for (int i = 0; i < 2; ++i)
    for (int j : {2, 3, 0, 1}) swapped.push_back(v[size_t(i * 4 + j)]);
  for (int i = 0; i < 2; ++i) {
    double s = 0, c = 0, m = -1e9, z = 0;
    for (int j = 0; j < 4; ++j) {
      ex_cumsum.push_back(s);
      s += v[size_t(i * 4 + j)];
      c += std::clamp(v[size_t(i * 4 + j)] * 10, 0.0, 6.0);
      m = std::max(m, v[size_t(i * 4 + j)]);
    }
    clipped.push_back(c);
    for (int j = 0; j < 4; ++j) z += std::exp(v[size_t(i * 4 + j)] - m);
    for (int j = 0; j < 4; ++j) soft.push_back(std::exp(v[size_t(i * 4 + j)] - m) / z);
  }
  near(r[0], leaky);
  near(r[1], refl);
  near(r[2], trans);
  near(r[3], swapped);
  near(r[4], ex_cumsum);
  near(r[5], clipped);
  near(r[6], soft);
}

TEST_CASE("nn numerics: timestep embedding", "[nn][numerics]") {
  struct Net : Module {
    Nested run(const Tensor& t) { return std::vector<Tensor>{op::getTimestepEmbedding(t, 6), op::getTimestepEmbedding(t, 6, {.flipSinToCos = true, .downscaleFreqShift = 0, .scale = 2})}; }
  };
  Net net;
  ModuleSpec s;
  s.add("forward", {{"t", spec::Tensor({2}, "float32")}}, &Net::run);
  auto ex = nn_test::exportOk(net, s);
  auto r = run(ex, "forward", {values(DataType::float32(), {2}, {1, 5})});
  for (int variant = 0; variant < 2; ++variant) {
    std::vector<double> want;
    for (double t : {1.0, 5.0}) {
      std::vector<double> sins, coss;
      for (int i = 0; i < 3; ++i) {
        double freq = std::exp(-std::log(10000.0) * i / (3 - (variant ? 0 : 1)));
        double arg = t * freq * (variant ? 2 : 1);
        sins.push_back(std::sin(arg));
        coss.push_back(std::cos(arg));
      }
      auto& first = variant ? coss : sins;
      auto& second = variant ? sins : coss;
      want.insert(want.end(), first.begin(), first.end());
      want.insert(want.end(), second.begin(), second.end());
    }
    near(r[size_t(variant)], want, 1e-3);
  }
}

TEST_CASE("nn numerics: causal attention", "[nn][numerics]") {
  struct Net : Module {
    Tensor run(const Tensor& q, const Tensor& k, const Tensor& v) { return op::scaledDotProductAttention(q, k, v, {.isCausal = true}); }
  };
  Net net;
  auto t = spec::Tensor({1, 3, 1, 2}, "float32");
  ModuleSpec s;
  s.add("forward", {{"q", t}, {"k", t}, {"v", t}}, &Net::run);
  auto ex = nn_test::exportOk(net, s);
  auto q = random({1, 3, 1, 2}, 11), k = random({1, 3, 1, 2}, 12), v = random({1, 3, 1, 2}, 13);
  std::vector<double> want;
  for (int64_t i = 0; i < 3; ++i) {
    std::vector<double> w;
    double m = -1e9, z = 0;
    for (int64_t j = 0; j <= i; ++j) {
      double dot = (at(q, {0, i, 0, 0}) * at(k, {0, j, 0, 0}) + at(q, {0, i, 0, 1}) * at(k, {0, j, 0, 1})) / std::sqrt(2.0);
      w.push_back(dot);
      m = std::max(m, dot);
    }
    for (auto& x : w) z += (x = std::exp(x - m));
    for (int64_t d = 0; d < 2; ++d) {
      double o = 0;
      for (int64_t j = 0; j <= i; ++j) o += w[size_t(j)] / z * at(v, {0, j, 0, d});
      want.push_back(o);
    }
  }
  near(run(ex, "forward", {q, k, v})[0], want);
}

TEST_CASE("nn numerics: top-p/top-k renormalization and sampling kernels", "[nn][numerics]") {
  struct Net : Module {
    Nested run(const Tensor& prob, const Tensor& usample, const Tensor& indices, const Tensor& topP, const Tensor& topK) {
      Tensor sorted = op::sort(prob, -1, true);
      Tensor order = op::argsort(prob, -1, true, "int32");
      return std::vector<Tensor>{op::renormalizeTopPTopKProb(prob, sorted, topP, topK), op::sampleTopPTopKFromSortedProb(sorted, order, topP, topK, usample, indices)};
    }
  };
  Net net;
  ModuleSpec s;
  s.add("forward",
        {{"prob", spec::Tensor({1, 4}, "float32")},
         {"usample", spec::Tensor({1, 1}, "float32")},
         {"sample_indices", spec::Tensor({1, 1}, "int64")},
         {"top_p", spec::Tensor({1, 1}, "float32")},
         {"top_k", spec::Tensor({1, 1}, "int32")}},
        &Net::run);
  auto ex = nn_test::exportOk(net, s);
  // Sorted: 0.4 (idx 2), 0.3 (idx 0), 0.2 (idx 3), 0.1 (idx 1); top_p 0.6 keeps 0.4 and 0.3.
  auto prob = values(DataType::float32(), {1, 4}, {0.3, 0.1, 0.4, 0.2});
  auto r = run(ex, "forward",
               {prob, values(DataType::float32(), {1, 1}, {0.8}), values(DataType::int64(), {1, 1}, {0}), values(DataType::float32(), {1, 1}, {0.6}),
                values(DataType::int32(), {1, 1}, {3})});
  near(r[0], {0.3 / 0.7, 0, 0.4 / 0.7, 0});
  // 0.8 of the kept mass 0.7 lies past 0.4 / 0.7: the second sorted index, 0.
  near(r[1], {0});
}

TEST_CASE("nn numerics: tensor_ir_op and tensor_expr_op kernels", "[nn][numerics]") {
  struct Net : Module {
    Tensor run(const Tensor& x) {
      PrimExpr n = x.dim(0);
      Tensor y = op::tensorIrOp(R"(
@T.prim_func(private=True)
def add_n(a: T.handle, b: T.handle, k: T.int64):
    n = T.int64()
    A = T.match_buffer(a, (n, 2), "float32")
    B = T.match_buffer(b, (n, 2), "float32")
    for i, j in T.grid(n, 2):
        with T.block("add_n"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.Cast("float32", k)
)",
                                "add_n", {x, n}, {Tensor::placeholder({n, 2}, "float32")})[0];
      auto twice = [](te::KernelBuilder& kb, const std::vector<te::Tensor>& in) -> std::vector<te::Tensor> {
        auto t = in[0];
        return {kb.compute("twice", t.shape(), t.dtype(), [&](const te::Indices& i) { return te::bin(rlx::NodeKind::Mul, t(i), te::constant(2.0, t.dtype())); })};
      };
      return op::tensorExprOp(twice, "twice", {y})[0];
    }
  };
  Net net;
  ModuleSpec s;
  s.add("forward", {{"x", spec::Tensor({"n", 2}, "float32")}}, &Net::run);
  auto ex = nn_test::exportOk(net, s);
  near(run(ex, "forward", {values(DataType::float32(), {3, 2}, {0, 1, 2, 3, 4, 5})})[0], {6, 8, 10, 12, 14, 16});
}

TEST_CASE("nn numerics: ConvTranspose1D and Conv2D with bias", "[nn][numerics]") {
  SECTION("ConvTranspose1D") {
    ConvTranspose1D deconv(2, 3, 3, {.stride = 2, .padding = 1, .outputPadding = 1});
    randomParams(deconv);
    auto ex = nn_test::exportOk(deconv, nn_test::forwardSpec({{"x", spec::Tensor({1, 2, 3}, "float32")}}));
    auto x = random({1, 2, 3}, 21);
    auto w = deconv.weight->data(), b = deconv.bias->data();
    std::vector<double> want(3 * 6);
    for (int64_t o = 0; o < 3; ++o)
      for (int64_t t = 0; t < 6; ++t) want[size_t(o * 6 + t)] = at(b, {o});
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t s = 0; s < 3; ++s)
        for (int64_t o = 0; o < 3; ++o)
          for (int64_t k = 0; k < 3; ++k) {
            int64_t t = s * 2 - 1 + k;
            if (t >= 0 && t < 6) want[size_t(o * 6 + t)] += at(x, {0, c, s}) * at(w, {c, o, k});
          }
    near(run(ex, "forward", {x})[0], want);
  }
  SECTION("Conv2D") {
    Conv2D conv(2, 2, 3, {.padding = 1});
    randomParams(conv);
    auto ex = nn_test::exportOk(conv, nn_test::forwardSpec({{"x", spec::Tensor({1, 2, 3, 3}, "float32")}}));
    auto x = random({1, 2, 3, 3}, 22);
    auto w = conv.weight->data(), b = conv.bias->data();
    std::vector<double> want;
    for (int64_t o = 0; o < 2; ++o)
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 3; ++j) {
          double s = at(b, {o});
          for (int64_t c = 0; c < 2; ++c)
            for (int64_t di = 0; di < 3; ++di)
              for (int64_t dj = 0; dj < 3; ++dj) {
                int64_t y = i - 1 + di, z = j - 1 + dj;
                if (y >= 0 && y < 3 && z >= 0 && z < 3) s += at(x, {0, c, y, z}) * at(w, {o, c, di, dj});
              }
          want.push_back(s);
        }
    near(run(ex, "forward", {x})[0], want);
  }
}

TEST_CASE("nn numerics: creation, indexing and search ops", "[nn][numerics]") {
  struct Net : Module {
    Nested run(const Tensor& a, const Tensor& idx) {
      auto top = op::topk(a, 2, -1, "both", true, "int32");
      return std::vector<Tensor>{
          op::full({2, 2}, 1.5) + op::ones({2, 2}) - op::zeros({2, 2}),  // 2.5 everywhere
          op::arange(1, 7, 2, "int32"),                                     // 1 3 5
          op::repeat(op::take(a, idx, 1), 2, 1),                            // columns idx, each twice
          op::triu(op::broadcastTo(op::unsqueeze(op::sum(a, op::Axes{1}), 1), {2, 2}), 0),
          op::pad(a, {0, 0, 1, 0}, "constant", 9.0),
          top[0],
          top[1],
          op::interpolate(op::reshape(a, {1, 1, 2, 3}), {.scaleFactor = std::vector<double>{2.0}}),
      };
    }
  };
  Net net;
  ModuleSpec s;
  s.add("forward", {{"a", spec::Tensor({2, 3}, "float32")}, {"idx", spec::Tensor({2}, "int64")}}, &Net::run);
  auto ex = nn_test::exportOk(net, s);
  auto r = run(ex, "forward", {values(DataType::float32(), {2, 3}, {3, 1, 2, -1, 5, 0}), values(DataType::int64(), {2}, {2, 0})});
  near(r[0], {2.5, 2.5, 2.5, 2.5});
  near(r[1], {1, 3, 5});
  near(r[2], {2, 2, 3, 3, 0, 0, -1, -1});
  near(r[3], {6, 6, 0, 4});
  near(r[4], {9, 3, 1, 2, 9, -1, 5, 0});
  near(r[5], {3, 2, 5, 0});
  near(r[6], {0, 2, 1, 2});
  near(r[7], {3, 3, 1, 1, 2, 2, 3, 3, 1, 1, 2, 2, -1, -1, 5, 5, 0, 0, -1, -1, 5, 5, 0, 0});
}

TEST_CASE("nn numerics: ccl ops are the identity with one worker; wrapNested", "[nn][numerics]") {
  struct Net : Module {
    Nested run(const Tensor& a) {
      Tensor s = op::cclBroadcastFromWorker0(op::cclAllgather(op::cclAllreduce(a), 1));
      Expr pair = rlx::make<rlx::Tuple>(std::vector<Expr>{rlx::build::call("exp", {rlx::build::e(s.expr())}), s.expr()});
      Nested wrapped = op::wrapNested(pair, "pair");
      return std::vector<Tensor>{s, wrapped.items()[0].tensor()};
    }
  };
  Net net;
  ModuleSpec s;
  s.add("forward", {{"a", spec::Tensor({2}, "float32")}}, &Net::run);
  auto ex = nn_test::exportOk(net, s);
  auto r = run(ex, "forward", {values(DataType::float32(), {2}, {1, -2})});
  near(r[0], {1, -2});
  near(r[1], {std::exp(1.0), std::exp(-2.0)});
  std::string text = rlx::printModule(ex.module);
  CHECK(text.find("pair_0: R.Tensor((2,), dtype=\"float32\") = pair[0]") != std::string::npos);
  CHECK(text.find("R.ccl.allreduce(a, op_type=\"sum\", in_group=True)") != std::string::npos);
}

namespace {
// A GPT-2-style decoder block: pre-norm causal self-attention and a GELU MLP, with residuals.
struct SelfAttention : Module {
  int64_t heads, dim;
  ModuleRef<Linear> qkv, proj;
  SelfAttention(int64_t d, int64_t h) : heads(h), dim(d) {
    qkv = registerModule("c_attn", std::make_shared<Linear>(d, 3 * d));
    proj = registerModule("c_proj", std::make_shared<Linear>(d, d));
  }
  Tensor forward(const Tensor& x) override {
    PrimExpr b = x.dim(0), s = x.dim(1);
    auto parts = op::split(qkv(x), int64_t(3), 2);
    auto heads4 = [&](const Tensor& t) { return op::reshape(t, {b, s, heads, dim / heads}); };
    Tensor o = op::scaledDotProductAttention(heads4(parts[0]), heads4(parts[1]), heads4(parts[2]), {.isCausal = true});
    return proj(op::reshape(o, {b, s, dim}));
  }
};
struct DecoderBlock : Module {
  ModuleRef<LayerNorm> ln1 = registerModule("ln_1", std::make_shared<LayerNorm>(8));
  ModuleRef<SelfAttention> attn = registerModule("attn", std::make_shared<SelfAttention>(8, 2));
  ModuleRef<LayerNorm> ln2 = registerModule("ln_2", std::make_shared<LayerNorm>(8));
  ModuleRef<ModuleList> mlp = registerModule(
      "mlp", std::make_shared<ModuleList>(std::vector<std::shared_ptr<Module>>{std::make_shared<Linear>(8, 32), std::make_shared<GELU>(), std::make_shared<Linear>(32, 8)}));
  Tensor forward(const Tensor& input) override {
    Tensor x = input + attn(ln1(input));
    return x + mlp(ln2(x));
  }
};
}  // namespace

TEST_CASE("nn: a GPT-2-style block exports, verifies and runs with symbolic batch and length", "[nn][numerics]") {
  DecoderBlock block;
  randomParams(block);
  auto ex = nn_test::exportOk(block, nn_test::forwardSpec({{"x", spec::Tensor({"batch", "seq_len", 8}, "float32")}}));
  CHECK(rlx::verifyModule(ex.module).empty());
  CHECK(ex.params.size() == 12);
  CHECK(ex.params[2].name == "attn.c_attn.weight");
  CHECK(ex.params[10].name == "mlp.2.weight");
  auto x = random({2, 3, 8}, 31);
  auto out = run(ex, "forward", {x});
  REQUIRE(out[0].size() == 2 * 3 * 8);
  for (double v : out[0]) CHECK(std::isfinite(v));
  // Causality: the first position does not depend on later ones.
  auto x2 = random({2, 3, 8}, 31);
  for (int64_t i = 8; i < 24; ++i) x2->setDouble(i, 5.0);  // batch 0, positions 1 and 2
  auto out2 = run(ex, "forward", {x2});
  near(std::vector<double>(out2[0].begin(), out2[0].begin() + 8), std::vector<double>(out[0].begin(), out[0].begin() + 8));
}
