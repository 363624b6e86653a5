// oneDNN peer of the execution benchmark (bench/run_bench.py): each workload as oneDNN primitives
// with fused post-ops (matmul+bias+relu, conv+bias+relu, conv+bias+residual+relu, ...), timed.
//
//   rlx_bench_onednn WORKLOAD --inputs DIR [--out FILE.npy] [--reps N] [--budget S]
// Reads DIR/<param>.npy, prints one JSON line like bench/peers.py. Threads: OMP_NUM_THREADS.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "oneapi/dnnl/dnnl.hpp"

using namespace dnnl;
using Dims = memory::dims;
using dt = memory::data_type;
using tag = memory::format_tag;

namespace {

struct Array {
  Dims shape;
  std::vector<float> data;
};

// Minimal .npy (float32, C order) reader and writer.
bool readNpy(const std::string& path, Array& a) {
  std::ifstream f(path, std::ios::binary);
  char magic[8];
  if (!f.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) return false;
  uint32_t len = 0;
  if (magic[6] == 1) {
    uint16_t l16;
    f.read(reinterpret_cast<char*>(&l16), 2);
    len = l16;
  } else {
    f.read(reinterpret_cast<char*>(&len), 4);
  }
  std::string header(len, ' ');
  f.read(header.data(), len);
  if (header.find("'<f4'") == std::string::npos || header.find("'fortran_order': False") == std::string::npos) return false;
  size_t open = header.find('(', header.find("'shape'")), close = header.find(')', open);
  std::stringstream ss(header.substr(open + 1, close - open - 1));
  std::string tok;
  a.shape.clear();
  int64_t n = 1;
  while (std::getline(ss, tok, ','))
    if (tok.find_first_of("0123456789") != std::string::npos) a.shape.push_back(std::stoll(tok)), n *= a.shape.back();
  a.data.resize(size_t(n));
  return bool(f.read(reinterpret_cast<char*>(a.data.data()), n * 4));
}

void writeNpy(const std::string& path, const Dims& shape, const float* data) {
  std::string dims;
  int64_t n = 1;
  for (auto d : shape) dims += std::to_string(d) + ", ", n *= d;
  if (shape.size() > 1) dims.resize(dims.size() - 2);
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
  while ((10 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::ofstream f(path, std::ios::binary);
  uint16_t len = uint16_t(header.size());
  f.write("\x93NUMPY\x01\x00", 8);
  f.write(reinterpret_cast<const char*>(&len), 2);
  f << header;
  f.write(reinterpret_cast<const char*>(data), n * 4);
}

Dims strides(const Dims& d) {
  Dims s(d.size(), 1);
  for (int i = int(d.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * d[i + 1];
  return s;
}
memory::desc plain(const Dims& d) { return memory::desc(d, dt::f32, strides(d)); }

struct Bench {
  engine eng{engine::kind::cpu, 0};
  stream strm{eng};
  std::map<std::string, Array> in;
  std::vector<std::vector<float>> buffers;  // intermediate and output storage
  std::vector<std::function<void()>> steps;
  float* out = nullptr;
  Dims outShape;

  float* buffer(int64_t n) {
    buffers.emplace_back(size_t(n));
    return buffers.back().data();
  }
  memory mem(const memory::desc& md, float* p) { return memory(md, eng, p); }
  void add(primitive p, std::unordered_map<int, memory> args) {
    steps.push_back([this, p, args]() { p.execute(strm, args); });
  }

  // dst = src x wei (+ bias) with post-ops; src/wei/dst may be strided views.
  void matmul(const memory::desc& s, float* sp, const memory::desc& w, float* wp, const float* bias, const memory::desc& d, float* dp,
              const post_ops& po = post_ops(), std::vector<std::pair<memory::desc, float*>> binaries = {}) {
    primitive_attr attr;
    attr.set_post_ops(po);
    Dims bd(d.dims().size(), 1);
    bd.back() = d.dims().back();
    auto bmd = bias ? plain(bd) : memory::desc();
    auto pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(s, w, bmd, d), attr, eng);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, mem(s, sp)}, {DNNL_ARG_WEIGHTS, mem(w, wp)}, {DNNL_ARG_DST, mem(d, dp)}};
    if (bias) args[DNNL_ARG_BIAS] = mem(bmd, const_cast<float*>(bias));
    for (size_t i = 0; i < binaries.size(); ++i)
      args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(int(i + (po.len() - binaries.size()))) | DNNL_ARG_SRC_1] = mem(binaries[i].first, binaries[i].second);
    add(dnnl::matmul(pd), args);
  }

  void layerNorm(float* src, float* w, float* b, float* dst, const Dims& d) {
    auto md = plain(d);
    auto pd = layer_normalization_forward::primitive_desc(
        layer_normalization_forward::desc(prop_kind::forward_inference, md, 1e-5f, normalization_flags::use_scale | normalization_flags::use_shift), eng);
    Dims c{d.back()};
    add(layer_normalization_forward(pd),
        {{DNNL_ARG_SRC, mem(md, src)}, {DNNL_ARG_DST, mem(md, dst)}, {DNNL_ARG_SCALE, mem(plain(c), w)}, {DNNL_ARG_SHIFT, mem(plain(c), b)}});
  }

  void softmax(float* src, float* dst, const Dims& d) {
    auto md = plain(d);
    auto pd = softmax_forward::primitive_desc(softmax_forward::desc(prop_kind::forward_inference, md, int(d.size()) - 1), eng);
    add(softmax_forward(pd), {{DNNL_ARG_SRC, mem(md, src)}, {DNNL_ARG_DST, mem(md, dst)}});
  }

  float* p(const std::string& name) { return in.at(name).data.data(); }
};

post_ops eltwise(algorithm a, float alpha = 0.f) {
  post_ops po;
  po.append_eltwise(1.f, a, alpha, 0.f);
  return po;
}

int chainLength() {
  std::ifstream f(std::string(RLX_BENCH_DIR) + "/workloads/add_chain.relax");
  std::stringstream ss;
  ss << f.rdbuf();
  std::string t = ss.str();
  int n = 0;
  for (size_t i = t.find("R.add("); i != std::string::npos; i = t.find("R.add(", i + 1)) ++n;
  return n;
}

bool build(Bench& b, const std::string& w) {
  if (w.rfind("mlp", 0) == 0) {
    int64_t m = b.in["x"].shape[0];
    float *h1 = b.buffer(m * 512), *h2 = b.buffer(m * 512), *l = b.buffer(m * 10), *o = b.buffer(m * 10);
    b.matmul(plain({m, 784}), b.p("x"), plain({784, 512}), b.p("w1"), b.p("b1"), plain({m, 512}), h1, eltwise(algorithm::eltwise_relu));
    b.matmul(plain({m, 512}), h1, plain({512, 512}), b.p("w2"), b.p("b2"), plain({m, 512}), h2, eltwise(algorithm::eltwise_relu));
    b.matmul(plain({m, 512}), h2, plain({512, 10}), b.p("w3"), b.p("b3"), plain({m, 10}), l);
    b.softmax(l, o, {m, 10});
    b.out = o, b.outShape = {m, 10};
  } else if (w.rfind("sgemm", 0) == 0) {
    int64_t m = b.in["a"].shape[0], k = b.in["a"].shape[1], n = b.in["b"].shape[1];
    float* o = b.buffer(m * n);
    b.matmul(plain({m, k}), b.p("a"), plain({k, n}), b.p("b"), nullptr, plain({m, n}), o);
    b.out = o, b.outShape = {m, n};
  } else if (w.rfind("add_chain", 0) == 0) {
    auto md = plain({4});
    auto pd = binary::primitive_desc(binary::desc(algorithm::binary_add, md, md, md), b.eng);
    binary add(pd);
    float *v0 = b.buffer(4), *v1 = b.buffer(4);
    int n = chainLength();
    float* src = b.p("x");
    for (int i = 0; i < n; ++i) {
      float* dst = i % 2 ? v1 : v0;
      b.add(add, {{DNNL_ARG_SRC_0, b.mem(md, src)}, {DNNL_ARG_SRC_1, b.mem(md, b.p("y"))}, {DNNL_ARG_DST, b.mem(md, dst)}});
      src = dst;
    }
    b.out = src, b.outShape = {4};
  } else if (w.rfind("resnet", 0) == 0) {
    // Activations in the layout the convolution picks (blocked, e.g. nChw16c): x is reordered in and
    // the result out to NCHW on every run; weights are reordered once, as an inference engine does.
    Dims act{1, 64, 56, 56};
    auto nchw = memory::desc(act, dt::f32, tag::nchw);
    auto anyAct = memory::desc(act, dt::f32, tag::any);
    auto anyW = memory::desc({64, 64, 3, 3}, dt::f32, tag::any);
    auto bias = plain({64});
    auto convPd = [&](const memory::desc& src, const memory::desc& dst, const post_ops& po) {
      primitive_attr attr;
      attr.set_post_ops(po);
      return convolution_forward::primitive_desc(
          convolution_forward::desc(prop_kind::forward_inference, algorithm::convolution_direct, src, anyW, bias, dst, {1, 1}, {1, 1}, {1, 1}), attr,
          b.eng);
    };
    auto pd1 = convPd(anyAct, anyAct, eltwise(algorithm::eltwise_relu));
    // Residual: x is reordered straight into conv2's destination, which accumulates (sum post-op).
    post_ops residual;
    residual.append_sum(1.f);
    residual.append_eltwise(1.f, algorithm::eltwise_relu, 0.f, 0.f);
    auto pd2 = convPd(pd1.dst_desc(), anyAct, residual);
    auto weights = [&](const convolution_forward::primitive_desc& pd, const char* wn) {
      memory user(memory::desc({64, 64, 3, 3}, dt::f32, tag::oihw), b.eng, b.p(wn)), prim(pd.weights_desc(), b.eng);
      reorder(user, prim).execute(b.strm, user, prim);
      b.strm.wait();
      return prim;
    };
    memory w1 = weights(pd1, "w1"), w2 = weights(pd2, "w2");
    memory xIn = b.mem(nchw, b.p("x")), xBlk(pd1.src_desc(), b.eng), hBlk(pd1.dst_desc(), b.eng), oBlk(pd2.dst_desc(), b.eng);
    float* o = b.buffer(64 * 56 * 56);
    memory oOut = b.mem(nchw, o);
    b.add(reorder(xIn, xBlk), {{DNNL_ARG_FROM, xIn}, {DNNL_ARG_TO, xBlk}});
    b.add(reorder(xIn, oBlk), {{DNNL_ARG_FROM, xIn}, {DNNL_ARG_TO, oBlk}});
    b.add(convolution_forward(pd1), {{DNNL_ARG_SRC, xBlk}, {DNNL_ARG_WEIGHTS, w1}, {DNNL_ARG_BIAS, b.mem(bias, b.p("b1"))}, {DNNL_ARG_DST, hBlk}});
    b.add(convolution_forward(pd2), {{DNNL_ARG_SRC, hBlk}, {DNNL_ARG_WEIGHTS, w2}, {DNNL_ARG_BIAS, b.mem(bias, b.p("b2"))}, {DNNL_ARG_DST, oBlk}});
    b.add(reorder(oBlk, oOut), {{DNNL_ARG_FROM, oBlk}, {DNNL_ARG_TO, oOut}});
    b.out = o, b.outShape = act;
  } else if (w.rfind("gpt2", 0) == 0) {
    int64_t s = b.in["x"].shape[1];
    float *ln1 = b.buffer(s * 768), *qkv = b.buffer(s * 2304), *scores = b.buffer(12 * s * s), *probs = b.buffer(12 * s * s);
    float *ctx = b.buffer(s * 768), *h = b.buffer(s * 768), *ln2 = b.buffer(s * 768), *act = b.buffer(s * 3072), *o = b.buffer(s * 768);
    float* mask = b.buffer(s * s);
    for (int64_t i = 0; i < s; ++i)
      for (int64_t j = 0; j < s; ++j) mask[i * s + j] = j > i ? -1e9f : 0.f;
    b.layerNorm(b.p("x"), b.p("ln1_w"), b.p("ln1_b"), ln1, {s, 768});
    b.matmul(plain({s, 768}), ln1, plain({768, 2304}), b.p("attn_w"), b.p("attn_b"), plain({s, 2304}), qkv);
    // Heads are strided views of qkv: q[h][i][d] = qkv[i][h*64+d], k^T[h][d][j] = qkv[j][768+h*64+d];
    // reordered into dense buffers first (oneDNN's fast matmul wants dense operands).
    auto q = memory::desc({12, s, 64}, dt::f32, Dims{64, 2304, 1});
    auto kt = memory::desc({12, 64, s}, dt::f32, Dims{64, 1, 2304});
    float *qd = b.buffer(12 * s * 64), *ktd = b.buffer(12 * 64 * s), *vd = b.buffer(12 * s * 64), *ctxd = b.buffer(12 * s * 64);
    auto copy = [&](const memory::desc& from, float* fp, const memory::desc& to, float* tp) {
      auto src = b.mem(from, fp), dst = b.mem(to, tp);
      b.add(reorder(src, dst), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}});
    };
    copy(q, qkv, plain({12, s, 64}), qd);
    copy(kt, qkv + 768, plain({12, 64, s}), ktd);
    copy(q, qkv + 1536, plain({12, s, 64}), vd);
    // Scale as a post-op; the broadcast mask as a post-op would send oneDNN 2.6 to its reference
    // matmul (100x slower), so it is a separate in-place binary add.
    b.matmul(plain({12, s, 64}), qd, plain({12, 64, s}), ktd, nullptr, plain({12, s, s}), scores, eltwise(algorithm::eltwise_linear, 0.125f));
    auto smd = plain({12, s, s}), mmd = plain({1, s, s});
    binary::primitive_desc addMask(binary::desc(algorithm::binary_add, smd, mmd, smd), b.eng);
    b.add(binary(addMask), {{DNNL_ARG_SRC_0, b.mem(smd, scores)}, {DNNL_ARG_SRC_1, b.mem(mmd, mask)}, {DNNL_ARG_DST, b.mem(smd, scores)}});
    b.softmax(scores, probs, {12, s, s});
    b.matmul(plain({12, s, s}), probs, plain({12, s, 64}), vd, nullptr, plain({12, s, 64}), ctxd);
    copy(plain({12, s, 64}), ctxd, memory::desc({12, s, 64}, dt::f32, Dims{64, 768, 1}), ctx);  // into [s, 768]
    post_ops res;
    res.append_binary(algorithm::binary_add, plain({s, 768}));
    b.matmul(plain({s, 768}), ctx, plain({768, 768}), b.p("proj_w"), b.p("proj_b"), plain({s, 768}), h, res, {{plain({s, 768}), b.p("x")}});
    b.layerNorm(h, b.p("ln2_w"), b.p("ln2_b"), ln2, {s, 768});
    b.matmul(plain({s, 768}), ln2, plain({768, 3072}), b.p("fc_w"), b.p("fc_b"), plain({s, 3072}), act, eltwise(algorithm::eltwise_gelu_tanh));
    b.matmul(plain({s, 3072}), act, plain({3072, 768}), b.p("out_w"), b.p("out_b"), plain({s, 768}), o, res, {{plain({s, 768}), h}});
    b.out = o, b.outShape = {1, s, 768};
  } else {
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return std::fprintf(stderr, "usage: rlx_bench_onednn WORKLOAD --inputs DIR [--out F] [--reps N] [--budget S]\n"), 2;
  std::string workload = argv[1], inputs, out;
  int reps = 10;
  double budget = 2.0;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--inputs") inputs = v;
    else if (a == "--out") out = v;
    else if (a == "--reps") reps = std::atoi(v.c_str());
    else if (a == "--budget") budget = std::atof(v.c_str());
  }
  Bench b;
  static const char* names[] = {"x", "y", "a", "b", "w1", "b1", "w2", "b2", "w3", "b3", "ln1_w", "ln1_b", "attn_w", "attn_b", "proj_w",
                                "proj_b", "ln2_w", "ln2_b", "fc_w", "fc_b", "out_w", "out_b"};
  for (auto* n : names) {
    Array a;
    if (readNpy(inputs + "/" + n + ".npy", a)) b.in[n] = std::move(a);
  }
  try {
    if (!build(b, workload)) return std::printf("{\"skip\": \"no oneDNN version of %s\"}\n", workload.c_str()), 0;
  } catch (const dnnl::error& e) {
    return std::printf("{\"skip\": \"oneDNN: %s\"}\n", e.what()), 0;
  }
  auto run = [&] {
    for (auto& s : b.steps) s();
    b.strm.wait();
  };
  run();
  if (!out.empty()) writeNpy(out, b.outShape, b.out);
  std::vector<double> ms;
  auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    run();
    auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    if (std::chrono::duration<double>(t1 - start).count() > budget && ms.size() >= 3) break;
  }
  std::sort(ms.begin(), ms.end());
  std::printf("{\"median_ms\": %.6f, \"min_ms\": %.6f, \"runs\": %zu}\n", ms[ms.size() / 2], ms[0], ms.size());
  return 0;
}
