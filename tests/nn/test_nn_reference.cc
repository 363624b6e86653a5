// One test per nn-reference case (tests/corpus_nn/*.relax, exported by TVM v0.23's nn frontend):
// the same model built with rlx::nn exports a structurally equal module and the same parameters.
// 19_kv_cache, 20_debug_print and 26_subroutine are in test_nn_effects.cc, 24_extern in test_nn_jit.cc.
#include "nn_test_util.h"

using namespace rlx;
using namespace rlx::nn;
using nn_test::checkReference;
using nn_test::exportOk;

TEST_CASE("nn-reference 01_linear", "[nn]") {
  auto model = std::make_shared<Linear>(8, 16);
  ModuleSpec spec;
  spec.add("forward", {{"x", spec::Tensor({"n", 8}, "float32")}}, &Linear::forward);
  checkReference("01_linear", exportOk(*model, spec), {{"weight", {16, 8}, "float32"}, {"bias", {16}, "float32"}});
}

TEST_CASE("nn-reference 02_linear_nobias_f16", "[nn]") {
  struct Net : Module {
    ModuleRef<Linear> proj = registerModule("proj", std::make_shared<Linear>(8, 16, false, DType("float16"), DType("float32")));
    Tensor forward(const Tensor& x) override { return proj(x); }
  };
  Net net;
  checkReference("02_linear_nobias_f16", exportOk(net, nn_test::forwardSpec({{"x", spec::Tensor({"n", 8}, "float16")}})), {{"proj.weight", {16, 8}, "float16"}});
}

namespace {
struct MLP : Module {
  ModuleRef<Linear> fc1, fc2;
  ModuleRef<ReLU> act;
  MLP(int64_t dim, int64_t hidden) {
    fc1 = registerModule("fc1", std::make_shared<Linear>(dim, hidden));
    act = registerModule("act", std::make_shared<ReLU>());
    fc2 = registerModule("fc2", std::make_shared<Linear>(hidden, dim));
  }
  Tensor forward(const Tensor& x) override { return fc2(act(fc1(x))); }
};

struct MLPNet : Module {
  ModuleRef<ModuleList> blocks = registerModule("blocks", std::make_shared<ModuleList>(std::vector<std::shared_ptr<Module>>{std::make_shared<MLP>(8, 16), std::make_shared<MLP>(8, 16)}));
  ModuleRef<ModuleList> layers = registerModule(
      "layers", std::make_shared<ModuleList>(std::vector<std::shared_ptr<Module>>{std::make_shared<Linear>(8, 16), std::make_shared<ReLU>(), std::make_shared<Linear>(16, 8, false)}));
  ModuleRef<ModuleDict> heads = registerModule("heads", std::make_shared<ModuleDict>(std::vector<std::pair<std::string, std::shared_ptr<Module>>>{{"out", std::make_shared<Linear>(8, 4)}}));
  Tensor forward(const Tensor& input) override {
    Tensor x = input;
    for (auto block : *blocks) x = (*block)(x) + x;
    x = layers(x);
    return (*(*heads)["out"])(x);
  }
};
}  // namespace

TEST_CASE("nn-reference 03_mlp_nested", "[nn]") {
  MLPNet net;
  checkReference("03_mlp_nested", exportOk(net, nn_test::forwardSpec({{"x", spec::Tensor({"batch", 8}, "float32")}})),
                 {{"blocks.0.fc1.weight", {16, 8}, "float32"},
                  {"blocks.0.fc1.bias", {16}, "float32"},
                  {"blocks.0.fc2.weight", {8, 16}, "float32"},
                  {"blocks.0.fc2.bias", {8}, "float32"},
                  {"blocks.1.fc1.weight", {16, 8}, "float32"},
                  {"blocks.1.fc1.bias", {16}, "float32"},
                  {"blocks.1.fc2.weight", {8, 16}, "float32"},
                  {"blocks.1.fc2.bias", {8}, "float32"},
                  {"layers.0.weight", {16, 8}, "float32"},
                  {"layers.0.bias", {16}, "float32"},
                  {"layers.2.weight", {8, 16}, "float32"},
                  {"heads.out.weight", {4, 8}, "float32"},
                  {"heads.out.bias", {4}, "float32"}});
}

TEST_CASE("nn-reference 04_conv1d", "[nn]") {
  struct Net : Module {
    ModuleRef<Conv1D> conv = registerModule("conv", std::make_shared<Conv1D>(4, 8, 3, ConvConfig{.stride = 2, .padding = 1}));
    Tensor forward(const Tensor& x) override { return conv(x); }
  };
  Net net;
  checkReference("04_conv1d", exportOk(net, nn_test::forwardSpec({{"x", spec::Tensor({1, 4, 16}, "float32")}})), {{"conv.weight", {8, 4, 3}, "float32"}, {"conv.bias", {8}, "float32"}});
}

TEST_CASE("nn-reference 05_conv_transpose1d", "[nn]") {
  struct Net : Module {
    ModuleRef<ConvTranspose1D> deconv = registerModule("deconv", std::make_shared<ConvTranspose1D>(8, 4, 3, ConvTransposeConfig{.stride = 2, .padding = 1, .outputPadding = 1}));
    Tensor forward(const Tensor& x) override { return deconv(x); }
  };
  Net net;
  checkReference("05_conv_transpose1d", exportOk(net, nn_test::forwardSpec({{"x", spec::Tensor({1, 8, 8}, "float32")}})),
                 {{"deconv.weight", {8, 4, 3}, "float32"}, {"deconv.bias", {4}, "float32"}});
}

TEST_CASE("nn-reference 06_conv2d", "[nn]") {
  struct Net : Module {
    ModuleRef<Conv2D> conv = registerModule("conv", std::make_shared<Conv2D>(3, 8, 3, ConvConfig{.padding = 1}));
    ParamRef w2 = registerParameter("w2", Parameter::create({4, 8, 1, 1}));
    Tensor forward(const Tensor& x) override { return op::conv2d(conv(x), w2, {.stride = {2}, .padding = {0}}); }
  };
  Net net;
  checkReference("06_conv2d", exportOk(net, nn_test::forwardSpec({{"x", spec::Tensor({1, 3, 8, 8}, "float32")}})),
                 {{"conv.weight", {8, 3, 3, 3}, "float32"}, {"conv.bias", {8}, "float32"}, {"w2", {4, 8, 1, 1}, "float32"}});
}

TEST_CASE("nn-reference 07_layer_norm", "[nn]") {
  struct Net : Module {
    ModuleRef<LayerNorm> ln = registerModule("ln", std::make_shared<LayerNorm>(16, 1e-5));
    Tensor forward(const Tensor& x) override { return ln(x); }
  };
  Net net;
  checkReference("07_layer_norm", exportOk(net, nn_test::forwardSpec({{"x", spec::Tensor({"n", 16}, "float32")}})), {{"ln.weight", {16}, "float32"}, {"ln.bias", {16}, "float32"}});
}

TEST_CASE("nn-reference 08_rms_norm", "[nn]") {
  struct Net : Module {
    ModuleRef<RMSNorm> norm1 = registerModule("norm1", std::make_shared<RMSNorm>(16, std::vector<int64_t>{-1}));
    ModuleRef<RMSNorm> norm2 = registerModule("norm2", std::make_shared<RMSNorm>(16, std::vector<int64_t>{-1}, 1e-6, false));
    Tensor forward(const Tensor& x) override { return norm2(norm1(x)); }
  };
  Net net;
  checkReference("08_rms_norm", exportOk(net, nn_test::forwardSpec({{"x", spec::Tensor({"n", 16}, "float32")}})),
                 {{"norm1.weight", {16}, "float32"}, {"norm1.bias", {16}, "float32"}, {"norm2.weight", {16}, "float32"}});
}

TEST_CASE("nn-reference 09_group_norm", "[nn]") {
  struct Net : Module {
    ModuleRef<GroupNorm> gn = registerModule("gn", std::make_shared<GroupNorm>(2, 8));
    Tensor forward(const Tensor& x) override { return gn(x); }
  };
  Net net;
  checkReference("09_group_norm", exportOk(net, nn_test::forwardSpec({{"x", spec::Tensor({1, 8, 4, 4}, "float32")}})), {{"gn.weight", {8}, "float32"}, {"gn.bias", {8}, "float32"}});
}

TEST_CASE("nn-reference 10_embedding", "[nn]") {
  struct Net : Module {
    ModuleRef<Embedding> embed = registerModule("embed", std::make_shared<Embedding>(16, 8));
    Tensor forward(const Tensor& ids) override { return embed(ids); }
    Tensor embed1d(const Tensor& ids) { return embed(ids); }
  };
  Net net;
  ModuleSpec spec;
  spec.add("forward", {{"input_ids", spec::Tensor({1, "seq_len"}, "int32")}}, &Net::forward);
  spec.add("embed_1d", {{"ids", spec::Tensor({"seq_len"}, "int32")}}, &Net::embed1d);
  checkReference("10_embedding", exportOk(net, spec), {{"embed.weight", {16, 8}, "float32"}});
}

TEST_CASE("nn-reference 11_activations", "[nn]") {
  struct Net : Module {
    ModuleRef<GELU> gelu = registerModule("gelu", std::make_shared<GELU>());
    ModuleRef<SiLU> silu = registerModule("silu", std::make_shared<SiLU>());
    ModuleRef<ReLU> relu = registerModule("relu", std::make_shared<ReLU>());
    ParamRef alpha = registerParameter("alpha", Parameter::create({8}));
    Nested run(const Tensor& x) {
      Tensor a = gelu(x), b = silu(x), c = relu(x);
      Tensor d = op::gelu(x, "tanh"), e = op::silu(x), f = op::softmax(x, -1), g = op::relu6(x);
      Tensor h = op::softplus(x, 1.0, 20.0), i = op::prelu(x, alpha);
      return std::vector<Tensor>{a, b, c, d, e, f, g, h, i};
    }
  };
  Net net;
  ModuleSpec spec;
  spec.add("forward", {{"x", spec::Tensor({4, 8}, "float32")}}, &Net::run);
  checkReference("11_activations", exportOk(net, spec), {{"alpha", {8}, "float32"}});
}

TEST_CASE("nn-reference 12_elementwise", "[nn]") {
  struct Net : Module {
    Nested run(const Tensor& a, const Tensor& b) {
      std::vector<Tensor> outs;
      outs.push_back(op::add(a, b));
      outs.push_back(op::subtract(a, b));
      outs.push_back(op::multiply(a, b));
      outs.push_back(op::divide(a, b));
      outs.push_back(op::maximum(a, b));
      outs.push_back(op::minimum(a, b));
      outs.push_back(op::negative(a));
      outs.push_back(op::exp(a));
      outs.push_back(op::sqrt(a));
      outs.push_back(op::square(a));
      outs.push_back(op::tanh(a));
      outs.push_back(op::sigmoid(a));
      outs.push_back(op::log(a));
      outs.push_back(op::floor(a));
      outs.push_back(op::equal(a, b));
      outs.push_back(op::notEqual(a, b));
      outs.push_back(op::less(a, b));
      outs.push_back(op::lessEqual(a, b));
      outs.push_back(op::greater(a, b));
      outs.push_back(op::greaterEqual(a, b));
      outs.push_back(op::where(op::greater(a, b), a, b));
      outs.push_back(a + 1.0);
      outs.push_back(2.0 * a);
      outs.push_back(a - b);
      outs.push_back(1.0 - a);
      outs.push_back(a / b);
      outs.push_back(a < 0.5);
      outs.push_back(a >= b);
      outs.push_back(a.maximum(0.0));
      return outs;
    }
  };
  Net net;
  ModuleSpec spec;
  spec.add("forward", {{"a", spec::Tensor({4, 8}, "float32")}, {"b", spec::Tensor({1, 8}, "float32")}}, &Net::run);
  checkReference("12_elementwise", exportOk(net, spec), {});
}

TEST_CASE("nn-reference 13_shape_ops", "[nn]") {
  struct Net : Module {
    Nested run(const Tensor& x, const Tensor& y, const Tensor& idx) {
      PrimExpr n = x.dim(0);
      Tensor r1 = op::reshape(x, {n, 32});
      Tensor r2 = op::reshape(x, {-1, 8});
      Tensor r3 = x.reshape({n, 2, 16});
      Tensor p1 = op::permuteDims(x, op::Axes{0, 2, 1});
      Tensor p2 = op::permuteDims(y);
      Tensor p3 = op::permute(x, {2, 0, 1});
      Tensor u = op::unsqueeze(x, 1);
      Tensor s = op::squeeze(u, 1);
      Tensor c = op::concat({x, x}, 1);
      auto sp1 = op::split(x, int64_t(2), 2);
      auto sp2 = op::split(x, op::Axes{1, 3}, 1);
      auto ch = op::chunk(x, 2, 2);
      Tensor rp = op::repeat(x, 2, 1);
      Tensor bc = op::broadcastTo(y, {4, 8});
      Tensor tk = op::take(x, idx, 2);
      Tensor pd = op::pad(x, {0, 0, 1, 1, 2, 2}, "constant", 0.0);
      Tensor tu = op::triu(x, 1);
      Tensor a16 = op::astype(x, "float16");
      Tensor same = op::astype(x, "float32");
      return std::vector<Tensor>{r1, r2, r3, p1, p2, p3, u, s, c, sp1[0], sp1[1], sp2[0], sp2[1], sp2[2], ch[0], ch[1], rp, bc, tk, pd, tu, a16, same};
    }
  };
  Net net;
  ModuleSpec spec;
  spec.add("forward", {{"x", spec::Tensor({"n", 4, 8}, "float32")}, {"y", spec::Tensor({1, 8}, "float32")}, {"idx", spec::Tensor({3}, "int32")}}, &Net::run);
  checkReference("13_shape_ops", exportOk(net, spec), {});
}

TEST_CASE("nn-reference 14_reductions", "[nn]") {
  struct Net : Module {
    Nested run(const Tensor& x, const Tensor& a, const Tensor& b) {
      Tensor s1 = op::sum(x);
      Tensor s2 = op::sum(x, op::Axes{1});
      Tensor s3 = op::sum(x, op::Axes{0, 1}, true);
      Tensor mx = op::max(x, op::Axes{-1}, true);
      Tensor mn = op::min(x, op::Axes{0});
      Tensor c1 = op::cumsum(x, {.axis = 1});
      Tensor c2 = op::cumsum(x);
      Tensor c3 = op::cumsum(x, {.axis = 0, .dtype = DType("float64"), .exclusive = true});
      Tensor m1 = op::matmul(a, b, DType("float32"));
      Tensor m2 = op::matmul(a, b);
      return std::vector<Tensor>{s1, s2, s3, mx, mn, c1, c2, c3, m1, m2};
    }
  };
  Net net;
  ModuleSpec spec;
  spec.add("forward", {{"x", spec::Tensor({4, 8}, "float32")}, {"a", spec::Tensor({2, 4, 8}, "float16")}, {"b", spec::Tensor({8, 4}, "float16")}}, &Net::run);
  checkReference("14_reductions", exportOk(net, spec), {});
}

namespace {
struct SdpaNet : Module {
  bool withMask = false;
  Nested run(const Tensor& q, const Tensor& k, const Tensor& v) {
    if (withMask) return op::scaledDotProductAttention(q, k, v, {.attnMask = op::zeros({1, 4, 1, 1})});
    Tensor causal = op::scaledDotProductAttention(q, k, v, {.isCausal = true});
    Tensor plain = op::scaledDotProductAttention(q, k, v, {.scale = 0.5});
    return std::vector<Tensor>{causal, plain};
  }
};
ModuleSpec sdpaSpec() {
  auto t = spec::Tensor({1, "seq_len", 4, 8}, "float32");
  ModuleSpec spec;
  spec.add("forward", {{"q", t}, {"k", t}, {"v", t}}, &SdpaNet::run);
  return spec;
}
}  // namespace

TEST_CASE("nn-reference 15_sdpa", "[nn]") {
  SdpaNet net;
  checkReference("15_sdpa", exportOk(net, sdpaSpec()), {});
}

TEST_CASE("nn-reference 15_sdpa_attn_mask is an error", "[nn]") {
  SdpaNet net;
  net.withMask = true;
  auto r = net.exportIR(sdpaSpec());
  REQUIRE(!r.ok());
  CHECK(r.error().message == "exporting method 'forward': scaled_dot_product_attention: attn_mask is not supported");
}

TEST_CASE("nn-reference 16_interpolate_timestep", "[nn]") {
  struct Net : Module {
    Nested run(const Tensor& x, const Tensor& t) {
      Tensor up = op::interpolate(x, {.scaleFactor = std::vector<double>{2.0}, .mode = "nearest"});
      Tensor bl = op::interpolate(x, {.size = std::vector<int64_t>{6, 6}, .mode = "bilinear", .alignCorners = true});
      Tensor e1 = op::getTimestepEmbedding(t, 8);
      Tensor e2 = op::getTimestepEmbedding(t, 7, {.flipSinToCos = true, .downscaleFreqShift = 0, .scale = 2.0});
      return std::vector<Tensor>{up, bl, e1, e2};
    }
  };
  Net net;
  ModuleSpec spec;
  spec.add("forward", {{"x", spec::Tensor({1, 4, 4, 4}, "float32")}, {"t", spec::Tensor({4}, "float32")}}, &Net::run);
  checkReference("16_interpolate_timestep", exportOk(net, spec), {});
}

TEST_CASE("nn-reference 17_sampling", "[nn]") {
  struct Net : Module {
    Nested run(const Tensor& prob, const Tensor& usample, const Tensor& sampleIndices, const Tensor& topP, const Tensor& topK) {
      Tensor srt = op::sort(prob, -1, true);
      Tensor idx = op::argsort(prob, -1, true, "int32");
      auto tk = op::topk(prob, 2, -1, "both", true, "int32");
      Tensor mult = op::multinomialFromUniform(prob, usample, sampleIndices, "int64");
      Tensor renorm = op::renormalizeTopPTopKProb(prob, srt, topP, topK);
      Tensor sampled = op::sampleTopPTopKFromSortedProb(srt, idx, topP, topK, usample, sampleIndices);
      return std::vector<Tensor>{srt, idx, tk[0], tk[1], mult, renorm, sampled};
    }
  };
  Net net;
  ModuleSpec spec;
  spec.add("forward",
           {{"prob", spec::Tensor({2, 8}, "float32")},
            {"usample", spec::Tensor({2, 1}, "float32")},
            {"sample_indices", spec::Tensor({2, 1}, "int64")},
            {"top_p", spec::Tensor({2, 1}, "float32")},
            {"top_k", spec::Tensor({2, 1}, "int32")}},
           &Net::run);
  checkReference("17_sampling", exportOk(net, spec), {});
}

TEST_CASE("nn-reference 18_creation", "[nn]") {
  struct Net : Module {
    Nested run(const Tensor& x, const Tensor& fill) {
      PrimExpr n = x.dim(0);
      Tensor z = op::zeros({n, 8});
      Tensor o = op::ones({4, 8}, "float16");
      Tensor f1 = op::full({n, 8}, 3.0);
      Tensor f2 = op::full({2, 2}, fill, "float32");
      Tensor e = op::empty({4, 8}, "float32");
      Tensor r = op::arange(0, 8, 2, "int32");
      return std::vector<Tensor>{x + z, o, f1, f2, e, r};
    }
  };
  Net net;
  ModuleSpec spec;
  spec.add("forward", {{"x", spec::Tensor({"n", 8}, "float32")}, {"fill", spec::Tensor({}, "float32")}}, &Net::run);
  checkReference("18_creation", exportOk(net, spec), {});
}

namespace {
const char* kAddOne = R"(
@T.prim_func(private=True)
def add_one(a: T.handle, b: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n, 8), "float32")
    B = T.match_buffer(b, (n, 8), "float32")
    for i, j in T.grid(n, 8):
        with T.block("add_one"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)
)";
const char* kAddOffset = R"(
@T.prim_func(private=True)
def add_offset(a: T.handle, b: T.handle, offset: T.int64):
    n = T.int64()
    A = T.match_buffer(a, (n, 8), "float32")
    B = T.match_buffer(b, (n, 8), "float32")
    for i, j in T.grid(n, 8):
        with T.block("add_offset"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.Cast("float32", offset)
)";
const char* kScaleInplace = R"(
@T.prim_func
def scale_inplace(a: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n, 8), "float32")
    for i, j in T.grid(n, 8):
        with T.block("scale"):
            vi, vj = T.axis.remap("SS", [i, j])
            A[vi, vj] = A[vi, vj] * T.float32(2)
)";
}  // namespace

TEST_CASE("nn-reference 22_tensor_ir_op", "[nn]") {
  struct Net : Module {
    Tensor forward(const Tensor& x) override {
      PrimExpr n = x.dim(0);
      Tensor y = op::tensorIrOp(kAddOne, "add_one", {x}, {Tensor::placeholder({n, 8}, "float32")})[0];
      y = op::tensorIrOp(kAddOffset, "add_offset", {y, n}, {Tensor::placeholder({n, 8}, "float32")})[0];
      return op::tensorIrInplaceOp(kScaleInplace, "scale_inplace", {y}, {0}, {Tensor::placeholder({n, 8}, "float32")})[0];
    }
  };
  Net net;
  checkReference("22_tensor_ir_op", exportOk(net, nn_test::forwardSpec({{"x", spec::Tensor({"n", 8}, "float32")}})), {});
}

TEST_CASE("nn-reference 23_tensor_expr_op", "[nn]") {
  struct Net : Module {
    Tensor run(const Tensor& x, const Tensor& y) {
      auto scaledAdd = [](te::KernelBuilder& kb, const std::vector<te::Tensor>& in) -> std::vector<te::Tensor> {
        auto a = in[0], b = in[1];
        return {kb.compute(
            "scaled_add", a.shape(), a.dtype(), [&](const te::Indices& i) { return te::bin(NodeKind::Add, te::bin(NodeKind::Mul, a(i), te::constant(2.0, a.dtype())), b(i)); },
            std::vector<std::string>{"i", "j"})};
      };
      Tensor z = op::tensorExprOp(scaledAdd, "scaled_add", {x, y})[0];
      auto relu = [](te::KernelBuilder& kb, const std::vector<te::Tensor>& in) -> std::vector<te::Tensor> {
        auto t = in[0];
        return {kb.compute(
            "te_relu", t.shape(), t.dtype(), [&](const te::Indices& i) { return te::bin(NodeKind::Max, t(i), te::constant(0.0, t.dtype())); }, std::vector<std::string>{"i", "j"})};
      };
      return op::tensorExprOp(relu, "te_relu", {z})[0];
    }
  };
  Net net;
  ModuleSpec spec;
  spec.add("forward", {{"x", spec::Tensor({"n", 8}, "float32")}, {"y", spec::Tensor({"n", 8}, "float32")}}, &Net::run);
  checkReference("23_tensor_expr_op", exportOk(net, spec), {});
}

namespace {
struct Block : Module {
  ModuleRef<Linear> up = registerModule("up", std::make_shared<Linear>(8, 16));
  ModuleRef<Linear> down = registerModule("down", std::make_shared<Linear>(16, 8));
  Tensor forward(const Tensor& x) override { return down(op::silu(up(x))); }
};
struct MutNet : Module {
  ModuleRef<Linear> inp = registerModule("inp", std::make_shared<Linear>(4, 8));
  ModuleRef<ModuleList> blocks = registerModule("blocks", std::make_shared<ModuleList>(std::vector<std::shared_ptr<Module>>{std::make_shared<Block>(), std::make_shared<Block>()}));
  Tensor forward(const Tensor& input) override {
    Tensor x = inp(input);
    for (auto b : *blocks) x = (*b)(x);
    return x;
  }
};
struct DropBias : Mutator {
  std::shared_ptr<Module> visitModule(const std::string& name, const std::shared_ptr<Module>& node) override {
    if (auto lin = std::dynamic_pointer_cast<Linear>(node)) {
      std::optional<DType> out;
      if (lin->outDtype) out = DType(*lin->outDtype);
      return std::make_shared<Linear>(lin->inFeatures, lin->outFeatures, false, DType(lin->weight->dtype()), out);
    }
    return visit(name, node);
  }
};
}  // namespace

TEST_CASE("nn-reference 25_mutator", "[nn]") {
  auto net = std::make_shared<MutNet>();
  DropBias().visit("", net);
  checkReference("25_mutator", exportOk(*net, nn_test::forwardSpec({{"x", spec::Tensor({"n", 4}, "float32")}})),
                 {{"inp.weight", {8, 4}, "float32"},
                  {"blocks.0.up.weight", {16, 8}, "float32"},
                  {"blocks.0.down.weight", {8, 16}, "float32"},
                  {"blocks.1.up.weight", {16, 8}, "float32"},
                  {"blocks.1.down.weight", {8, 16}, "float32"}});
}

TEST_CASE("nn-reference 27_to_float16", "[nn]") {
  struct Net : Module {
    ModuleRef<Embedding> embed = registerModule("embed", std::make_shared<Embedding>(16, 8));
    ModuleRef<LayerNorm> norm = registerModule("norm", std::make_shared<LayerNorm>(8));
    ModuleRef<Linear> fc = registerModule("fc", std::make_shared<Linear>(8, 8));
    ModuleRef<Linear> head = registerModule("head", std::make_shared<Linear>(8, 4, true, std::nullopt, DType("float32")));
    Tensor forward(const Tensor& ids) override { return head(fc(norm(embed(ids)))); }
  };
  Net net;
  REQUIRE(net.to("float16").ok());
  checkReference("27_to_float16", exportOk(net, nn_test::forwardSpec({{"ids", spec::Tensor({1, "seq_len"}, "int32")}})),
                 {{"embed.weight", {16, 8}, "float16"},
                  {"norm.weight", {8}, "float16"},
                  {"norm.bias", {8}, "float16"},
                  {"fc.weight", {8, 8}, "float16"},
                  {"fc.bias", {8}, "float16"},
                  {"head.weight", {4, 8}, "float16"},
                  {"head.bias", {4}, "float32"}});
}

TEST_CASE("nn-reference 28_spec_modes", "[nn]") {
  struct Net : Module {
    ModuleRef<Linear> fc = registerModule("fc", std::make_shared<Linear>(4, 4));
    Tensor forward(const Tensor& x) override { return fc(x); }
    Tensor pairSum(const std::vector<Tensor>& xs, PrimExpr k) { return op::reshape(xs[0] + xs[1], {2 * Dim(k)}); }
    Tensor noParams(const Tensor& x) { return op::exp(x); }
  };
  Net net;
  ModuleSpec spec;
  spec.add("forward", {{"x", spec::Tensor({"n", 4}, "float32")}}, &Net::forward, {.paramMode = ParamMode::Packed});
  spec.add("pair_sum", {{"xs", spec::List({spec::Tensor({"k", 2}, "float32"), spec::Tensor({"k", 2}, "float32")})}, {"k", spec::Int()}}, &Net::pairSum,
           {.paramMode = ParamMode::None});
  spec.add("no_params", {{"x", spec::Tensor({4}, "float32")}}, &Net::noParams, {.paramMode = ParamMode::None, .effectMode = EffectMode::None});
  checkReference("28_spec_modes", exportOk(net, spec), {{"fc.weight", {4, 4}, "float32"}, {"fc.bias", {4}, "float32"}});
}
