// Effects on the VM: the KV cache builtins (create / append in place / view) and the IO effect's
// invoke_debug_func run the modules TVM exports (tests/corpus_nn 19, 20) through the build pipeline.
#include "nn_test_util.h"
#include "runtime/runner.h"

using namespace rlx;
namespace vmv = rlx::vm;

namespace {

NDArrayRef iota(std::vector<int64_t> shape, double start) {
  auto a = make<NDArray>(DataType::float32(), std::move(shape));
  for (int64_t i = 0; i < a->numel(); ++i) a->setDouble(i, start + double(i));
  return a;
}

NDArrayRef identity8() {
  auto w = make<NDArray>(DataType::float32(), std::vector<int64_t>{8, 8});
  for (int64_t i = 0; i < 64; ++i) w->setDouble(i, i / 8 == i % 8 ? 1.0 : 0.0);
  return w;
}

PreparedModule prepare(const IRModuleRef& mod, std::function<void(const std::string&)> sink = nullptr) {
  vmv::VMOptions opts;
  opts.printSink = std::move(sink);
  auto r = prepareModule(mod, "build", {}, opts);
  if (!r.ok()) FAIL("prepare failed: " << r.error().message);
  return std::move(r.value());
}

vmv::Value invokeOk(PreparedModule& p, const std::string& fn, std::vector<vmv::Value> args) {
  auto r = p.machine->invoke(fn, std::move(args));
  if (!r.ok()) FAIL(fn << " failed: " << r.error().message);
  return std::move(r.value());
}

}  // namespace

// prefill(x: (seq_len, 8), total_seq_len, cache, proj_weight) appends x @ W.T reshaped to
// (seq_len, 2, 4) and views every filled row; with W = I the view is the rows appended so far.
void checkKVCacheRuns(const IRModuleRef& mod) {
  auto p = prepare(mod);
  vmv::Value init = invokeOk(p, "_initialize_effect", {});
  REQUIRE(init.kind == vmv::Value::Tuple);
  REQUIRE(init.fields().size() == 1);
  vmv::Value cache = init.fields()[0];
  CHECK(cache.describe() == "a float32 KV cache of 0 rows");

  auto w = vmv::Value::ofTensor(identity8());
  auto x1 = iota({3, 8}, 0);  // rows 0..2
  vmv::Value r1 = invokeOk(p, "prefill", {vmv::Value::ofTensor(x1), vmv::Value::ofShape({3}), cache, w});
  REQUIRE(r1.kind == vmv::Value::Tuple);
  const NDArray& v1 = *r1.fields()[0].array;
  CHECK(v1.shape == std::vector<int64_t>{3, 2, 4});
  for (int64_t i = 0; i < 24; ++i) CHECK(v1.getDouble(i) == double(i));
  cache = r1.fields()[1].fields()[0];
  CHECK(cache.describe() == "a float32 KV cache of 3 rows");

  // Decode steps: one row each, past the initial 16-row capacity (the cache grows in place).
  for (int64_t step = 0; step < 15; ++step) {
    auto x = iota({1, 8}, 100.0 * double(step + 1));
    vmv::Value r = invokeOk(p, "decode", {vmv::Value::ofTensor(x), vmv::Value::ofShape({4 + step}), cache, w});
    const NDArray& v = *r.fields()[0].array;
    REQUIRE(v.shape == std::vector<int64_t>{4 + step, 2, 4});
    for (int64_t i = 0; i < 24; ++i) CHECK(v.getDouble(i) == double(i));  // the prefill rows stay
    for (int64_t j = 0; j < 8; ++j) CHECK(v.getDouble((3 + step) * 8 + j) == 100.0 * double(step + 1) + double(j));
    cache = r.fields()[1].fields()[0];
  }
  CHECK(cache.describe() == "a float32 KV cache of 18 rows");

  // A view whose length is not the fill count is an error, as in TVM.
  auto bad = p.machine->invoke("decode", {vmv::Value::ofTensor(iota({1, 8}, 0)), vmv::Value::ofShape({5}), cache, w});
  REQUIRE(!bad.ok());
  CHECK_THAT(bad.error().message, Catch::Contains("does not match the cache") && Catch::Contains("19 filled rows"));
}

TEST_CASE("nn effects: the 19_kv_cache reference module runs on the VM", "[nn][vm]") { checkKVCacheRuns(nn_test::loadReference("19_kv_cache")); }

TEST_CASE("nn effects: the 20_debug_print reference module runs and prints", "[nn][vm]") {
  std::string printed;
  auto p = prepare(nn_test::loadReference("20_debug_print"), [&](const std::string& s) { printed += s; });
  vmv::Value init = invokeOk(p, "_initialize_effect", {});
  REQUIRE(init.fields().size() == 1);
  CHECK(init.fields()[0].kind == vmv::Value::Null);
  auto w = make<NDArray>(DataType::float32(), std::vector<int64_t>{4, 4});
  for (int64_t i = 0; i < 16; ++i) w->setDouble(i, i / 4 == i % 4 ? 1.0 : 0.0);
  auto b = make<NDArray>(DataType::float32(), std::vector<int64_t>{4});
  for (int64_t i = 0; i < 4; ++i) b->setDouble(i, -2.0);
  vmv::Value r = invokeOk(p, "forward", {vmv::Value::ofTensor(iota({2, 4}, 0)), init.fields()[0], vmv::Value::ofTensor(w), vmv::Value::ofTensor(b)});
  // relu(x - 2) and the printed pre-activation x - 2.
  const NDArray& out = *r.fields()[0].array;
  for (int64_t i = 0; i < 8; ++i) CHECK(out.getDouble(i) == std::max(0.0, double(i) - 2.0));
  CHECK(r.fields()[1].fields()[0].kind == vmv::Value::Null);
  CHECK(printed ==
        "20_debug_print.py:15: shape = (2, 4), dtype = float32, data =\n"
        "array([[-2., -1.,  0.,  1.],\n"
        "       [ 2.,  3.,  4.,  5.]], dtype=float32)\n");
}

TEST_CASE("nn effects: builtin misuse is a clear run error", "[nn][vm]") {
  DiagnosticEngine diag;
  auto mod = parseModule(R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Object:
        with R.dataflow():
            c: R.Object = R.call_pure_packed("vm.builtin.attention_kv_cache_create", x, R.shape([4, 4]), R.prim_value(0), sinfo_args=(R.Object,))
            R.output(c)
        return c

    @R.function
    def append_tensor(x: R.Tensor((2, 3), dtype="float32")) -> R.Object:
        with R.dataflow():
            c: R.Object = R.call_inplace_packed("vm.builtin.attention_kv_cache_append", x, x, inplace_indices=[0], sinfo_args=(R.Object,))
            R.output(c)
        return c

    @R.function
    def debug_unknown(x: R.Tensor((2, 3), dtype="float32")) -> R.Object:
        with R.dataflow():
            io: R.Object = R.null_value()
            io1: R.Object = R.call_pure_packed("vm.builtin.invoke_debug_func", io, R.str("no.such.func"), R.str("f.cc:1"), x, sinfo_args=(R.Object,))
            R.output(io1)
        return io1
)",
                         "misuse.relax", diag);
  INFO(diag.render());
  REQUIRE(mod);
  auto p = prepare(mod);
  auto x = vmv::Value::ofTensor(iota({2, 3}, 0));
  auto r = p.machine->invoke("main", {x});
  REQUIRE(!r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("dim 1 of the value is 3, the cache's is 4"));
  r = p.machine->invoke("append_tensor", {x});
  REQUIRE(!r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("the first argument must be a KV cache"));
  r = p.machine->invoke("debug_unknown", {x});
  REQUIRE(!r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("no debug function named \"no.such.func\""));
}

// ---------------------------------------------------------------- exports (nn-reference 19, 20, 26)
using namespace rlx::nn;
using nn_test::checkReference;
using nn_test::exportOk;

namespace {

struct KVNet : Module {
  ModuleRef<Linear> proj = registerModule("proj", std::make_shared<Linear>(8, 8, false));
  EffectRef<KVCache> kCache = registerEffect("k_cache", KVCache::create(16, {2, 4}));
  Tensor step(const Tensor& x, PrimExpr totalSeqLen) {
    Tensor k = op::reshape(proj(x), {x.dim(0), 2, 4});
    kCache->append(k);
    return kCache->view(totalSeqLen);
  }
};

ModuleSpec kvSpec() {
  ModuleSpec spec;
  spec.add("prefill", {{"x", spec::Tensor({"seq_len", 8}, "float32")}, {"total_seq_len", spec::Int()}}, &KVNet::step);
  spec.add("decode", {{"x", spec::Tensor({1, 8}, "float32")}, {"total_seq_len", spec::Int()}}, &KVNet::step);
  return spec;
}

struct DebugNet : Module {
  ModuleRef<Linear> fc = registerModule("fc", std::make_shared<Linear>(4, 4));
  std::string lineInfo = "20_debug_print.py:15";  // what TVM recorded for the reference's print_
  Tensor forward(const Tensor& x) override {
    Tensor y = fc(x);
    if (lineInfo.empty()) op::print(y);
    else op::debugFunc("vm.builtin.debug_print", {y}, lineInfo);
    return op::relu(y);
  }
};

ModuleSpec debugSpec() {
  ModuleSpec spec;
  spec.add("forward", {{"x", spec::Tensor({2, 4}, "float32")}}, &DebugNet::forward);
  return spec;
}

struct Activation : Module {
  Activation() { setDefineSubroutine(true, {"state"}); }
  Tensor forward(const Tensor& state) override { return op::silu(state); }
};

struct Layer : Module {
  ParamRef weights;
  ModuleRef<Activation> activation;
  Layer(int64_t in, int64_t out) {
    setDefineSubroutine(true, {"input"});
    weights = registerParameter("weights", Parameter::create({in, out}));
    activation = registerModule("activation", std::make_shared<Activation>());
  }
  Tensor forward(const Tensor& input) override { return activation(op::matmul(input, weights)); }
};

struct SubNet : Module {
  ModuleRef<Layer> layer1 = registerModule("layer1", std::make_shared<Layer>(8, 8));
  ModuleRef<Layer> layer2 = registerModule("layer2", std::make_shared<Layer>(8, 8));
  Tensor forward(const Tensor& x) override { return layer2(layer1(x)); }
};

Exported exportWith(Module& m, const ModuleSpec& spec, ExportOptions opts) {
  auto r = m.exportIR(spec, opts);
  if (!r.ok()) FAIL("export failed: " << r.error().message);
  return std::move(r.value());
}

}  // namespace

TEST_CASE("nn-reference 19_kv_cache", "[nn]") {
  KVNet net;
  checkReference("19_kv_cache", exportOk(net, kvSpec()), {{"proj.weight", {8, 8}, "float32"}});
}

TEST_CASE("nn-reference 20_debug_print", "[nn]") {
  DebugNet net;
  checkReference("20_debug_print", exportWith(net, debugSpec(), {.debug = true}), {{"fc.weight", {4, 4}, "float32"}, {"fc.bias", {4}, "float32"}});
}

TEST_CASE("nn-reference 26_subroutine", "[nn]") {
  SubNet net;
  checkReference("26_subroutine", exportOk(net, ModuleSpec().add("forward", {{"x", spec::Tensor({"batch", 8}, "float32")}}, &SubNet::forward)),
                 {{"layer1.weights", {8, 8}, "float32"}, {"layer2.weights", {8, 8}, "float32"}});
}
