// Effects on the VM: the KV cache builtins (create / append in place / view) and the IO effect's
// invoke_debug_func run the modules TVM exports (tests/corpus_nn 19, 20) through the build pipeline.
#include "nn_test_util.h"
#include "frontend/nn/jit.h"
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
        "[[-2. -1.  0.  1.]\n"
        " [ 2.  3.  4.  5.]]\n");
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

// ---------------------------------------------------------------- running exports
TEST_CASE("nn effects: the exported KV cache module runs on the VM", "[nn][vm]") {
  KVNet net;
  checkKVCacheRuns(exportOk(net, kvSpec()).module);
}

TEST_CASE("nn effects: a debug export with op::print runs and prints its source line", "[nn][vm]") {
  DebugNet net;
  net.lineInfo.clear();  // op::print: the location of the call in DebugNet::forward
  auto ex = exportWith(net, debugSpec(), {.debug = true});
  std::string printed;
  auto p = prepare(ex.module, [&](const std::string& s) { printed += s; });
  vmv::Value init = invokeOk(p, "_initialize_effect", {});
  auto w = make<NDArray>(DataType::float32(), std::vector<int64_t>{4, 4});
  for (int64_t i = 0; i < 16; ++i) w->setDouble(i, i / 4 == i % 4 ? 2.0 : 0.0);
  auto b = make<NDArray>(DataType::float32(), std::vector<int64_t>{4});
  for (int64_t i = 0; i < 4; ++i) b->setDouble(i, 0.5);
  vmv::Value r = invokeOk(p, "forward", {vmv::Value::ofTensor(iota({2, 4}, 0)), init.fields()[0], vmv::Value::ofTensor(w), vmv::Value::ofTensor(b)});
  CHECK(r.fields()[0].array->getDouble(7) == 14.5);
  CHECK_THAT(printed, Catch::StartsWith(std::string(__FILE__) + ":"));
  CHECK_THAT(printed, Catch::Contains(": shape = (2, 4), dtype = float32, data =\n[[ 0.5  2.5  4.5  6.5]\n [ 8.5 10.5 12.5 14.5]]\n"));
  // The line is the op::print call's (in DebugNet::forward above), not op_debug.cc's.
  CHECK_THAT(printModule(ex.module), Catch::Contains("R.str(\"" + std::string(__FILE__) + ":"));
  CHECK_THAT(printModule(ex.module), !Catch::Contains("op_debug.cc"));
}

// ---------------------------------------------------------------- unit tests
namespace {

// Two caches, each appended twice in one method: every append rebinds that cache's state.
struct TwoCaches : Module {
  EffectRef<KVCache> k = registerEffect("k", KVCache::create(4, {2}));
  ModuleRef<ModuleList> layers = registerModule("layers", std::make_shared<ModuleList>());
  Tensor step(const Tensor& x) {
    k->append(x);
    k->append(x);
    return x;
  }
};

struct CacheHolder : Module {
  EffectRef<KVCache> v = registerEffect("v", KVCache::create(4, {2}));
};

const Function& functionNamed(const IRModuleRef& mod, const std::string& name) {
  for (auto& e : mod->functions)
    if (e.gvar->name == name) return static_cast<const Function&>(*e.func);
  FAIL("no function " << name);
  throw;
}

int64_t numInput(const Function& f) {
  const Attr* a = f.attrs ? f.attrs->find("num_input") : nullptr;
  REQUIRE(a);
  return (*a)->i;
}

}  // namespace

TEST_CASE("nn effects: states are threaded in order and counted in num_input", "[nn]") {
  TwoCaches net;
  net.layers->append(std::make_shared<CacheHolder>());
  CHECK(net.namedEffects().size() == 2);
  CHECK(net.namedEffects()[1].first == "layers.0.v");
  auto spec = [](EffectMode mode) {
    ModuleSpec s;
    s.add("step", {{"x", spec::Tensor({"n", 2}, "float32")}}, &TwoCaches::step, {.effectMode = mode});
    return s;
  };

  SECTION("plain: one param per state, the last append's var is returned") {
    auto ex = exportOk(net, spec(EffectMode::Plain));
    for (auto& e : verifyModule(ex.module, {.strictAnnotations = true})) FAIL_CHECK(e.message);
    const Function& f = functionNamed(ex.module, "step");
    REQUIRE(f.params.size() == 3);
    CHECK(f.params[1]->name == "k");
    CHECK(f.params[2]->name == "layers.0.v");
    CHECK(numInput(f) == 3);
    std::string text = printModule(ex.module);
    INFO(text);
    CHECK_THAT(text, Catch::Contains("lv3: R.Object = R.call_inplace_packed(\"vm.builtin.attention_kv_cache_append\", k, x"));
    CHECK_THAT(text, Catch::Contains("lv4: R.Object = R.call_inplace_packed(\"vm.builtin.attention_kv_cache_append\", lv3, x"));
    CHECK_THAT(text, Catch::Contains("= x, (lv4, layers_0_v)"));  // v is untouched: its input var comes back
    CHECK_THAT(text, Catch::Contains("layers_0_v: R.Object = R.call_pure_packed(\"vm.builtin.attention_kv_cache_create\""));
  }
  SECTION("packed: one packed_effects param (+1), items bound by name") {
    auto ex = exportOk(net, spec(EffectMode::Packed));
    for (auto& e : verifyModule(ex.module, {.strictAnnotations = true})) FAIL_CHECK(e.message);
    const Function& f = functionNamed(ex.module, "step");
    REQUIRE(f.params.size() == 2);
    CHECK(f.params[1]->name == "packed_effects");
    CHECK(numInput(f) == 2);
    CHECK_THAT(printModule(ex.module), Catch::Contains("k1: R.Object = packed_effects[0]"));
  }
  SECTION("none: no state params or outputs; an effectful op is an error") {
    auto r = net.exportIR(spec(EffectMode::None));
    REQUIRE(!r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("exporting method 'step'") && Catch::Contains("KVCache::append needs the cache's state"));
    ModuleSpec s;
    s.add("id", {{"x", spec::Tensor({2}, "float32")}}, [](Module&, const std::vector<Nested>& a) -> Nested { return a[0]; }, {.effectMode = EffectMode::None});
    auto ex = exportOk(net, s);
    const Function& f = functionNamed(ex.module, "id");
    CHECK(f.params.size() == 1);
    CHECK(numInput(f) == 1);
    CHECK(sinfoOf(f.body).is<TensorSInfo>());
  }
  // A failed export leaves no state behind: the next one starts clean.
  CHECK(exportOk(net, spec(EffectMode::Plain)).module);
}

TEST_CASE("nn effects: KVCache checks and dtype conversion", "[nn]") {
  KVNet net;
  CHECK_THROWS_WITH(net.kCache->append(Tensor()), Catch::Contains("exists only while a method is exported"));
  REQUIRE(net.to("float16").ok());
  CHECK(net.kCache->dtype().str() == "float16");
  // The appended tensor (float16 from the converted Linear) matches; the view is float16.
  ModuleSpec spec;
  spec.add("prefill", {{"x", spec::Tensor({"seq_len", 8}, "float16")}, {"total_seq_len", spec::Int()}}, &KVNet::step);
  auto ex = exportOk(net, spec);
  CHECK_THAT(printModule(ex.module), Catch::Contains("R.zeros(R.shape([16, 2, 4]), dtype=\"float16\")"));

  struct Mismatch : Module {
    EffectRef<KVCache> c = registerEffect("c", KVCache::create(4, {2}, DType("float16")));
    Tensor f(const Tensor& x) {
      c->append(x);
      return x;
    }
  } m;
  auto r = m.exportIR(ModuleSpec().add("f", {{"x", spec::Tensor({1, 2}, "float32")}}, &Mismatch::f));
  REQUIRE(!r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("KVCache holds float16, but the appended tensor is float32"));
}

TEST_CASE("nn effects: debug ops need a debug export", "[nn]") {
  DebugNet net;
  auto r = net.exportIR(debugSpec());
  REQUIRE(!r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("need a debug export"));
  // Other debug args: ints are int64 prim values, floats float32 (as TVM), strings R.str.
  struct Args : Module {
    Tensor f(const Tensor& x, PrimExpr n) {
      op::debugFunc("my.debug", {x, n, int64_t(3), 0.5, std::string("s")}, "here:1");
      return x;
    }
  } a;
  auto ex = exportWith(a, ModuleSpec().add("f", {{"x", spec::Tensor({"n"}, "float32")}, {"n", spec::Int()}}, &Args::f), {.debug = true});
  CHECK_THAT(printModule(ex.module),
             Catch::Contains("R.call_pure_packed(\"vm.builtin.invoke_debug_func\", _io, R.str(\"my.debug\"), R.str(\"here:1\"), x, R.prim_value(n), R.prim_value(3), "
                             "R.prim_value(T.float32(0.5)), R.str(\"s\"), sinfo_args=(R.Object,))"));
}

TEST_CASE("nn effects: Mutator::visitEffect replaces effects", "[nn]") {
  struct Resize : Mutator {
    std::vector<std::string> seen;
    std::shared_ptr<Effect> visitEffect(const std::string& name, const std::shared_ptr<Effect>& e) override {
      seen.push_back(name);
      return KVCache::create(32, {2, 4});
    }
  };
  TwoCaches two;
  two.layers->append(std::make_shared<CacheHolder>());
  Resize resize;
  resize.visit("", std::shared_ptr<Module>(&two, [](Module*) {}));
  CHECK(resize.seen == std::vector<std::string>{"k", "layers.0.v"});
  CHECK(two.k->initSeqLen() == 32);

  // A replacement the member's static type cannot hold is refused.
  struct Wrong : Mutator {
    std::shared_ptr<Effect> visitEffect(const std::string&, const std::shared_ptr<Effect>&) override { return std::make_shared<IOEffect>(); }
  } wrong;
  KVNet net;
  CHECK_THROWS_WITH(wrong.visit("", std::shared_ptr<Module>(&net, [](Module*) {})), Catch::Contains("cannot replace effect 'k_cache'"));
  CHECK(net.kCache->initSeqLen() == 16);
}

TEST_CASE("nn subroutines: signatures, names, containers and errors", "[nn]") {
  struct FeedForwardBlock : Module {
    ParamRef w = registerParameter("w", Parameter::create({8, 8}));
    FeedForwardBlock() { setDefineSubroutine(true); }
    Tensor forward(const Tensor& x) override { return op::matmul(x, w); }
  };
  CHECK(FeedForwardBlock().subroutineName() == "feed_forward_block");
  auto list = std::make_shared<ModuleList>(std::vector<std::shared_ptr<Module>>{std::make_shared<FeedForwardBlock>(), std::make_shared<FeedForwardBlock>()});
  struct Net : Module {
    ModuleRef<ModuleList> blocks;
    ModuleRef<FeedForwardBlock> single = registerModule("single", std::make_shared<FeedForwardBlock>());
    Tensor forward(const Tensor& x) override { return blocks(x); }
    Tensor fixed(const Tensor& x) { return single(x); }
  } net;
  net.blocks = net.registerModule("blocks", list);
  ModuleSpec spec;
  spec.add("forward", {{"x", spec::Tensor({"n", 8}, "float32")}}, &Net::forward);
  spec.add("fixed", {{"x", spec::Tensor({3, 8}, "float32")}}, &Net::fixed);
  auto ex = exportOk(net, spec);
  for (auto& e : verifyModule(ex.module, {.strictAnnotations = true})) FAIL_CHECK(e.message);
  std::string text = printModule(ex.module);
  INFO(text);
  // ModuleList chaining goes through the subroutine; a (3, 8) argument needs a second function.
  CHECK_THAT(text, Catch::Contains("feed_forward_block_output: R.Tensor((n, 8), dtype=\"float32\") = cls.feed_forward_block(x, blocks_0_w)"));
  CHECK_THAT(text, Catch::Contains("cls.feed_forward_block(feed_forward_block_output, blocks_1_w)"));
  CHECK_THAT(text, Catch::Contains("= cls.feed_forward_block1(x, single_w)"));
  CHECK_THAT(text, Catch::Contains("def feed_forward_block1(x: R.Tensor((3, 8), dtype=\"float32\"), single_w: R.Tensor((8, 8), dtype=\"float32\"))"));

  // Runs: two chained x @ W with W = 2I.
  auto w2 = make<NDArray>(DataType::float32(), std::vector<int64_t>{8, 8});
  for (int64_t i = 0; i < 64; ++i) w2->setDouble(i, i / 8 == i % 8 ? 2.0 : 0.0);
  auto p = prepare(ex.module);
  auto r = invokeOk(p, "forward", {vmv::Value::ofTensor(iota({2, 8}, 1)), vmv::Value::ofTensor(w2), vmv::Value::ofTensor(w2), vmv::Value::ofTensor(w2)});
  CHECK(r.array->getDouble(9) == 40.0);

  // A parameter the method does not receive (param_mode none) is named in the error.
  ModuleSpec none;
  none.add("fixed", {{"x", spec::Tensor({3, 8}, "float32")}}, &Net::fixed, {.paramMode = ParamMode::None});
  auto bad = net.exportIR(none);
  REQUIRE(!bad.ok());
  CHECK_THAT(bad.error().message, Catch::Contains("subroutine 'feed_forward_block' needs parameter 'w'") && Catch::Contains("param_mode is none"));
  // Outside an export the module just runs its forward (which, as any op, needs an export).
  CHECK_THROWS_WITH(FeedForwardBlock()(Tensor()), Catch::Contains("used outside an export"));
}

TEST_CASE("nn subroutines: several arguments through callSubroutine, tuple results", "[nn]") {
  struct Pair : Module {
    Pair() { setDefineSubroutine(true, {"a", "b"}); }
    std::vector<Tensor> call(const Tensor& a, const Tensor& b) {
      Nested out = callSubroutine({a, b}, [](const std::vector<Nested>& v) -> Nested { return std::vector<Tensor>{v[0].tensor() + v[1].tensor(), v[0].tensor() * v[1].tensor()}; });
      std::vector<Tensor> items;
      for (auto& i : out.items()) items.push_back(i.tensor());
      return items;
    }
  };
  struct Net : Module {
    ModuleRef<Pair> pair = registerModule("pair", std::make_shared<Pair>());
    Tensor f(const Tensor& a, const Tensor& b) {
      auto r = pair->call(a, b);
      return r[0] - r[1];
    }
  } net;
  auto ex = exportOk(net, ModuleSpec().add("f", {{"a", spec::Tensor({4}, "float32")}, {"b", spec::Tensor({4}, "float32")}}, &Net::f));
  for (auto& e : verifyModule(ex.module, {.strictAnnotations = true})) FAIL_CHECK(e.message);
  std::string text = printModule(ex.module);
  INFO(text);
  CHECK_THAT(text, Catch::Contains("def pair(a: R.Tensor((4,), dtype=\"float32\"), b: R.Tensor((4,), dtype=\"float32\"))"));
  CHECK_THAT(text, Catch::Contains("pair_output: R.Tuple(R.Tensor((4,), dtype=\"float32\"), R.Tensor((4,), dtype=\"float32\")) = cls.pair(a, b)"));
  auto p = prepare(ex.module);
  auto r = invokeOk(p, "f", {vmv::Value::ofTensor(iota({4}, 1)), vmv::Value::ofTensor(iota({4}, 2))});
  CHECK(r.array->getDouble(3) == (4.0 + 5.0) - 4.0 * 5.0);
}

TEST_CASE("nn effects: jit threads KV cache states between calls", "[nn][vm]") {
  KVNet net;
  REQUIRE(net.proj->weight->setData(identity8()).ok());
  auto jr = jit(net, kvSpec());
  if (!jr.ok()) FAIL("jit failed: " << jr.error().message);
  auto& m = jr.value();
  auto r1 = m("prefill", {iota({2, 8}, 0), 2});
  REQUIRE(r1.ok());
  CHECK(r1->array->shape == std::vector<int64_t>{2, 2, 4});
  auto r2 = m("decode", {iota({1, 8}, 50), 3});
  if (!r2.ok()) FAIL(r2.error().message);
  CHECK(r2->array->shape == std::vector<int64_t>{3, 2, 4});
  CHECK(r2->array->getDouble(15) == 15.0);
  CHECK(r2->array->getDouble(16) == 50.0);
  REQUIRE(m.resetEffects().ok());
  CHECK(m.effects()[0].describe() == "a float32 KV cache of 0 rows");
}

TEST_CASE("nn subroutines: effects inside a subroutine are refused", "[nn]") {
  struct Inner : Module {
    EffectRef<KVCache> cache = registerEffect("cache", KVCache::create(4, {2}));
    Inner() { setDefineSubroutine(true); }
    Tensor forward(const Tensor& x) override {
      cache->append(x);
      return x;
    }
  };
  struct Outer : Module {
    ModuleRef<Inner> inner = registerModule("inner", std::make_shared<Inner>());
    Tensor forward(const Tensor& x) override { return inner(x); }
  } net;
  auto r = net.exportIR(ModuleSpec().add("forward", {{"x", spec::Tensor({1, 2}, "float32")}}, &Outer::forward));
  REQUIRE(!r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("KVCache::append is used inside subroutine 'inner'"));
  // Without the subroutine the same model exports.
  net.inner->setDefineSubroutine(false);
  CHECK(exportOk(net, ModuleSpec().add("forward", {{"x", spec::Tensor({1, 2}, "float32")}}, &Outer::forward)).module);
}
