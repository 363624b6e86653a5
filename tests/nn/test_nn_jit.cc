// nn::jit and extern kernels: 24_extern's export (op::extern_, SourceModule, addExtern), its error
// cases, and jitted methods on the VM, including a SourceModule that g++ compiles and the VM calls.
#include "nn_test_util.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "frontend/nn/extern.h"
#include "frontend/nn/jit.h"

using namespace rlx;
using namespace rlx::nn;
using nn_test::checkReference;
using nn_test::exportOk;

namespace {

NDArrayRef floats(std::vector<int64_t> shape, std::vector<float> values) {
  auto a = make<NDArray>(DataType::float32(), std::move(shape));
  REQUIRE(size_t(a->numel()) == values.size());
  for (size_t i = 0; i < values.size(); ++i) a->as<float>()[i] = values[i];
  return a;
}

Tensor sameAs(const std::vector<ExternArg>& args) {
  auto s = args[0].tensor().shape();
  return Tensor::placeholder(std::vector<Dim>(s.begin(), s.end()), args[0].tensor().dtype());
}

// The kernels of 24_extern's SourceModule, here real: out = a * s (+ a tag check), written with
// the typed-export macro of extern_abi.h.
const char* kScaleSource = R"(
#include "extern_abi.h"
#include <cstring>
namespace {
int scale(DLTensor* a, double s, DLTensor* out) {
  int64_t n = 1;
  for (int i = 0; i < a->ndim; ++i) n *= a->shape[i];
  if (a->dtype.code != kDLFloat || a->dtype.bits != 32) throw std::invalid_argument("ext_scale wants float32");
  for (int64_t i = 0; i < n; ++i) static_cast<float*>(out->data)[i] = static_cast<const float*>(a->data)[i] * float(s);
  return 0;
}
void axpy(DLTensor* x, int64_t a, double b, const char* tag, DLTensor* out) {
  if (std::strcmp(tag, "tag") != 0) throw std::invalid_argument(std::string("bad tag ") + tag);
  int64_t n = x->shape[0] * x->shape[1];
  for (int64_t i = 0; i < n; ++i) static_cast<float*>(out->data)[i] = float(a) * static_cast<const float*>(x->data)[i] + float(b);
}
}
RLX_EXTERN_EXPORT_TYPED_FUNC(ext_scale, scale);
RLX_EXTERN_EXPORT_TYPED_FUNC(ext_axpy, axpy);
)";

}  // namespace

TEST_CASE("nn-reference 24_extern", "[nn][extern]") {
  auto ext = std::make_shared<SourceModule>(ExternSymbols{{"ext_scale", sameAs}}, "/* compiled only when jitted */", std::vector<std::string>{});
  struct Net : Module {
    std::shared_ptr<SourceModule> ext;
    Tensor forward(const Tensor& x) override {
      addExtern(ext);
      Tensor y = op::extern_("my_packed_add_one", {x}, sameAs({x}));
      Tensor z = op::extern_("my_packed_axpy", {y, 3, 0.5, "tag"}, sameAs({x}));
      return (*ext)["ext_scale"]({z, 2.0});
    }
  };
  Net net;
  net.ext = ext;
  ModuleSpec spec;
  spec.add("forward", {{"x", spec::Tensor({"n", 4}, "float32")}}, &Net::forward);
  auto r = net.exportIR(spec, {.allowExtern = true});
  REQUIRE(r.ok());
  checkReference("24_extern", *r, {});
  REQUIRE(r->externModules.size() == 1);
  CHECK(r->externModules[0]->kind() == "SourceModule");
  CHECK(r->externModules[0]->symbolNames() == std::vector<std::string>{"ext_scale"});

  // Without allowExtern the export fails (TVM: "ExternModule(s) exist when they are not allowed").
  auto refused = net.exportIR(spec);
  REQUIRE(!refused.ok());
  CHECK_THAT(refused.error().message, Catch::Contains("allowExtern"));
}

TEST_CASE("nn extern errors: multi-output, duplicates, unregistered modules", "[nn][extern]") {
  ModuleSpec spec;
  auto exportWith = [&](std::function<Nested(const Tensor&)> body) {
    struct Net : Module {};
    Net net;
    ModuleSpec s;
    s.add("forward", {{"x", spec::Tensor({2, 4}, "float32")}}, [body](Module&, const std::vector<Nested>& a) { return body(a[0].tensor()); });
    return net.exportIR(s, {.allowExtern = true});
  };
  auto multi = exportWith([](const Tensor& x) {
    op::extern_("my_packed_two_out", {x}, std::vector<Tensor>{sameAs({x}), Tensor::placeholder({4}, "int32")});
    return x;
  });
  REQUIRE(!multi.ok());
  CHECK_THAT(multi.error().message, Catch::Contains("my_packed_two_out") && Catch::Contains("list of outputs"));

  auto ext = std::make_shared<SourceModule>(ExternSymbols{{"ext_scale", sameAs}}, "", std::vector<std::string>{});
  auto twice = exportWith([&](const Tensor& x) {
    addExtern(ext);
    addExtern(ext);
    return x;
  });
  REQUIRE(!twice.ok());
  CHECK_THAT(twice.error().message, Catch::Contains("already registered"));

  auto other = std::make_shared<SourceModule>(ExternSymbols{{"ext_scale", sameAs}}, "", std::vector<std::string>{});
  auto clash = exportWith([&](const Tensor& x) {
    addExtern(ext);
    addExtern(other);
    return x;
  });
  REQUIRE(!clash.ok());
  CHECK_THAT(clash.error().message, Catch::Contains("symbol \"ext_scale\" is already registered"));

  auto unregistered = exportWith([&](const Tensor& x) { return (*ext)["ext_scale"]({x, 2.0}); });
  REQUIRE(!unregistered.ok());
  CHECK_THAT(unregistered.error().message, Catch::Contains("not registered"));

  CHECK(!ObjectModule::create({{"f", sameAs}}, "/nonexistent/kernels.o").ok());
}

TEST_CASE("nn jit: a SourceModule compiles, loads and computes", "[nn][extern][jit]") {
  auto ext = std::make_shared<SourceModule>(ExternSymbols{{"ext_scale", sameAs}, {"ext_axpy", sameAs}}, kScaleSource);
  struct Net : Module {
    std::shared_ptr<SourceModule> ext;
    ParamRef bias = registerParameter("bias", Parameter::create({4}));
    Tensor forward(const Tensor& x) {
      addExtern(ext);
      Tensor y = (*ext)["ext_axpy"]({x, 3, 0.5, "tag"});  // 3x + 0.5
      return (*ext)["ext_scale"]({y + bias, 2.0});          // 2 (3x + 0.5 + bias)
    }
  };
  Net net;
  net.ext = ext;
  ModuleSpec spec;
  spec.add("forward", {{"x", spec::Tensor({"n", 4}, "float32")}}, &Net::forward);

  // Unbound parameters are named.
  auto unbound = jit(net, spec);
  REQUIRE(!unbound.ok());
  CHECK_THAT(unbound.error().message, Catch::Contains("not set to any concrete values: bias"));

  REQUIRE(net.bias->setData(floats({4}, {0, 1, 2, 3})).ok());
  auto j = jit(net, spec);
  if (!j.ok()) FAIL(j.error().message);
  auto out = j->call("forward", {floats({2, 4}, {0, 1, 2, 3, -1, -2, 0.5f, 10})});
  if (!out.ok()) FAIL(out.error().message);
  REQUIRE(out->kind == vm::Value::Tensor);
  // 2 * (3x + 0.5 + bias), by hand.
  std::vector<float> want = {1, 9, 17, 25, -5, -9, 8, 67};
  REQUIRE(out->array->shape == std::vector<int64_t>{2, 4});
  for (size_t i = 0; i < want.size(); ++i) CHECK(out->array->as<float>()[i] == Approx(want[i]));

  // Argument checks name the argument and the method.
  auto wrongShape = j->call("forward", {floats({2, 3}, {0, 0, 0, 0, 0, 0})});
  REQUIRE(!wrongShape.ok());
  CHECK_THAT(wrongShape.error().message, Catch::Contains("argument 'x' must be a float32 tensor of shape (n, 4)"));
  CHECK(!j->call("backward", {}).ok());
}

TEST_CASE("nn jit: a compile error is reported with the compiler's output", "[nn][extern][jit]") {
  auto ext = std::make_shared<SourceModule>(ExternSymbols{{"broken", sameAs}}, "this is not C++;\n");
  struct Net : Module {
    std::shared_ptr<SourceModule> ext;
    Tensor forward(const Tensor& x) {
      addExtern(ext);
      return (*ext)["broken"]({x});
    }
  };
  Net net;
  net.ext = ext;
  ModuleSpec spec;
  spec.add("forward", {{"x", spec::Tensor({2}, "float32")}}, &Net::forward);
  auto j = jit(net, spec);
  REQUIRE(!j.ok());
  CHECK_THAT(j.error().message, Catch::Contains("compiling the SourceModule failed") && Catch::Contains("error"));
}

TEST_CASE("nn jit: methods by name with params, int and tuple args, packed params", "[nn][jit]") {
  struct Net : Module {
    ModuleRef<Linear> fc = registerModule("fc", std::make_shared<Linear>(3, 2));
    Tensor forward(const Tensor& x) override { return fc(x); }
    Tensor twice(const std::vector<Tensor>& xs) { return fc(xs[0]) + fc(xs[1]); }
  };
  Net net;
  REQUIRE(net.fc->weight->setData(floats({2, 3}, {1, 0, 0, 0, 1, 1})).ok());
  REQUIRE(net.fc->bias->setData(floats({2}, {10, 20})).ok());
  ModuleSpec spec;
  spec.add("forward", {{"x", spec::Tensor({"n", 3}, "float32")}}, &Net::forward);
  spec.add("twice", {{"xs", spec::Tuple({spec::Tensor({1, 3}, "float32"), spec::Tensor({1, 3}, "float32")})}}, &Net::twice, {.paramMode = ParamMode::Packed});
  auto j = jit(net, spec);
  if (!j.ok()) FAIL(j.error().message);
  CHECK(j->methodNames() == std::vector<std::string>{"forward", "twice"});
  auto y = j->call("forward", {floats({1, 3}, {1, 2, 3})});
  REQUIRE(y.ok());
  CHECK(y->array->as<float>()[0] == 11);
  CHECK(y->array->as<float>()[1] == 25);
  auto t = (*j)("twice", {JitArg({floats({1, 3}, {1, 2, 3}), floats({1, 3}, {0, 0, 1})})});
  if (!t.ok()) FAIL(t.error().message);
  CHECK(t->array->as<float>()[0] == 21);
  CHECK(t->array->as<float>()[1] == 46);
  CHECK(j->effects().empty());
}

namespace {
// A model calling ext_axpy(x, 2, 1, tag) of `ext` (any extern module kind).
struct AxpyNet : Module {
  std::shared_ptr<ExternModule> ext;
  std::string tag = "tag";
  Tensor forward(const Tensor& x) override {
    addExtern(ext);
    return (*ext)["ext_axpy"]({x, 2, 1.0, tag});
  }
};
ModuleSpec axpySpec() {
  ModuleSpec spec;
  spec.add("forward", {{"x", spec::Tensor({1, 2}, "float32")}}, &AxpyNet::forward);
  return spec;
}
}  // namespace

TEST_CASE("nn jit: ObjectModule from a prebuilt .so and .o; kernel errors", "[nn][extern][jit]") {
  std::string dir = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/rlx_nn_jit_test_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  SourceModule src({{"ext_axpy", sameAs}, {"ext_scale", sameAs}}, kScaleSource);

  SECTION("a shared object built by SourceModule::compile") {
    REQUIRE(src.compile(dir + "/kernels.so").ok());
    AxpyNet net;
    net.ext = orThrow(ObjectModule::create({{"ext_axpy", sameAs}}, dir + "/kernels.so"));
    auto j = jit(net, axpySpec());
    if (!j.ok()) FAIL(j.error().message);
    auto y = j->call("forward", {floats({1, 2}, {1, -4})});
    REQUIRE(y.ok());
    CHECK(y->array->as<float>()[0] == 3);
    CHECK(y->array->as<float>()[1] == -7);
  }
  SECTION("an object file, linked when jit loads it") {
    std::ofstream(dir + "/kernels.cc") << kScaleSource;
    std::ofstream(dir + "/extern_abi.h") << std::ifstream(std::string(RLX_SOURCE_DIR) + "/frontend/nn/extern_abi.h").rdbuf();
    std::string cmd = "g++ -c -fPIC -O1 -std=c++17 -I " + dir + " -o " + dir + "/kernels.o " + dir + "/kernels.cc";
    REQUIRE(std::system(cmd.c_str()) == 0);
    AxpyNet net;
    net.ext = orThrow(ObjectModule::create({{"ext_axpy", sameAs}}, dir + "/kernels.o"));
    auto j = jit(net, axpySpec());
    if (!j.ok()) FAIL(j.error().message);
    auto y = j->call("forward", {floats({1, 2}, {0.5f, 2})});
    REQUIRE(y.ok());
    CHECK(y->array->as<float>()[0] == 2);
    CHECK(y->array->as<float>()[1] == 5);
  }
  SECTION("an exception in the kernel is a run error; a missing symbol a load error") {
    AxpyNet net;
    net.ext = std::make_shared<SourceModule>(ExternSymbols{{"ext_axpy", sameAs}}, kScaleSource);
    net.tag = "other";
    auto j = jit(net, axpySpec());
    if (!j.ok()) FAIL(j.error().message);
    auto y = j->call("forward", {floats({1, 2}, {0, 0})});
    REQUIRE(!y.ok());
    CHECK_THAT(y.error().message, Catch::Contains("extern function \"ext_axpy\" failed: bad tag other"));

    net.ext = std::make_shared<SourceModule>(ExternSymbols{{"ext_axpy", sameAs}}, "int unrelated() { return 0; }\n");
    auto missing = jit(net, axpySpec());
    REQUIRE(!missing.ok());
    CHECK_THAT(missing.error().message, Catch::Contains("does not define symbol \"ext_axpy\""));
  }
  std::filesystem::remove_all(dir);
}
