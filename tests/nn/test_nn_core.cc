// Unit tests of the rlx::nn core: parameters and their checks, registration and naming, state
// dicts (strict / non-strict loads, safetensors round trip), to(dtype), Mutator, export errors.
#include <cstdio>
#include <unistd.h>

#include "nn_test_util.h"

using namespace rlx::nn;
using rlx::DataType;
using rlx::NDArray;
using rlx::NDArrayRef;

namespace {

NDArrayRef filled(DataType t, std::vector<int64_t> shape, double start) {
  auto a = rlx::make<NDArray>(t, std::move(shape));
  for (int64_t i = 0; i < a->numel(); ++i) a->setDouble(i, start + double(i));
  return a;
}

struct Two : Module {
  ModuleRef<Linear> a = registerModule("a", std::make_shared<Linear>(2, 3));
  ModuleRef<Linear> b = registerModule("b", std::make_shared<Linear>(3, 2, false));
  Tensor forward(const Tensor& x) override { return b(a(x)); }
};

ModuleSpec forward2() {
  ModuleSpec s;
  s.add("forward", {{"x", spec::Tensor({"n", 2}, "float32")}}, &Two::forward);
  return s;
}

}  // namespace

TEST_CASE("nn Parameter: dtype default, data checks, to() refused once bound", "[nn]") {
  auto p = Parameter::create({2, 3});
  CHECK(p->dtype() == DataType::float32());
  CHECK(!p->data());
  auto bad = p->setData(filled(DataType::float32(), {3, 2}, 0));
  REQUIRE(!bad.ok());
  CHECK(bad.error().message == "parameter data has shape (3, 2), expected (2, 3)");
  auto badType = p->setData(filled(*DataType::parse("float16"), {2, 3}, 0));
  REQUIRE(!badType.ok());
  CHECK(badType.error().message == "parameter data has dtype float16, expected float32");
  REQUIRE(p->to("float16").ok());
  CHECK(p->dtype().str() == "float16");
  REQUIRE(p->setData(filled(*DataType::parse("float16"), {2, 3}, 0)).ok());
  auto refused = p->to("float32");
  REQUIRE(!refused.ok());
  CHECK(refused.error().message.find("cannot change the dtype of a parameter that has data bound") == 0);

  setDefaultDtype("float16");
  CHECK(Parameter({1}).dtype().str() == "float16");
  setDefaultDtype("float32");
  CHECK(defaultDtype() == DataType::float32());
  CHECK_THROWS_AS(DType("floatx"), NNError);
}

TEST_CASE("nn Module: named parameters, duplicate names, typed replacement", "[nn]") {
  Two m;
  auto named = m.namedParameters();
  REQUIRE(named.size() == 3);
  CHECK(named[0].first == "a.weight");
  CHECK(named[1].first == "a.bias");
  CHECK(named[2].first == "b.weight");
  CHECK(m.namedParameters("model")[0].first == "model.a.weight");
  CHECK(m.parameters().size() == 3);
  CHECK_THROWS_AS(m.registerModule("a", std::make_shared<ReLU>()), NNError);
  auto wrong = m.replaceModule("a", std::make_shared<ReLU>());
  REQUIRE(!wrong.ok());
  CHECK(wrong.error().message.find("cannot replace submodule 'a' (a rlx::nn::Linear) by a rlx::nn::ReLU") == 0);
  REQUIRE(m.replaceModule("a", std::make_shared<Linear>(2, 3, false)).ok());
  CHECK(m.namedParameters().size() == 2);
  CHECK(!m.a->bias);  // the member sees the replacement
}

TEST_CASE("nn state dict: strict and non-strict loads", "[nn]") {
  Two m;
  StateDict full = {{"a.weight", filled(DataType::float32(), {3, 2}, 0)}, {"a.bias", filled(DataType::float32(), {3}, 10)}, {"b.weight", filled(DataType::float32(), {2, 3}, 20)}};
  StateDict partial = {{"a.weight", full["a.weight"]}, {"extra", full["a.bias"]}};

  auto strict = m.loadStateDict(partial);
  REQUIRE(!strict.ok());
  CHECK(strict.error().message == "loading the state dict failed: missing keys [a.bias, b.weight], unexpected keys [extra]");
  CHECK(!m.a->weight->data());  // nothing was loaded

  auto loose = m.loadStateDict(partial, false);
  REQUIRE(loose.ok());
  CHECK(loose->missingKeys == std::vector<std::string>{"a.bias", "b.weight"});
  CHECK(loose->unexpectedKeys == std::vector<std::string>{"extra"});
  CHECK(m.a->weight->data().get() == full["a.weight"].get());

  StateDict wrongShape = full;
  wrongShape["b.weight"] = filled(DataType::float32(), {3, 2}, 0);
  auto shapeErr = m.loadStateDict(wrongShape);
  REQUIRE(!shapeErr.ok());
  CHECK(shapeErr.error().message == "'b.weight': parameter data has shape (3, 2), expected (2, 3)");

  REQUIRE(m.loadStateDict(full).ok());
  auto sd = m.stateDict();
  REQUIRE(sd.size() == 3);
  CHECK(sd["b.weight"].get() == full["b.weight"].get());
}

TEST_CASE("nn state dict: safetensors round trip", "[nn]") {
  Two m;
  StateDict full = {{"a.weight", filled(DataType::float32(), {3, 2}, 0)}, {"a.bias", filled(DataType::float32(), {3}, 10)}, {"b.weight", filled(DataType::float32(), {2, 3}, 20)}};
  REQUIRE(m.loadStateDict(full).ok());
  std::string path = "/tmp/rlx_nn_state_" + std::to_string(getpid()) + ".safetensors";
  REQUIRE(saveParams(m, path).ok());
  Two n;
  auto r = loadParams(n, path);
  std::remove(path.c_str());
  REQUIRE(r.ok());
  for (auto& [name, data] : n.stateDict()) {
    REQUIRE(data);
    CHECK(data->sameData(*full[name]));
  }
  Two empty;
  auto unbound = saveParams(empty, path);
  REQUIRE(!unbound.ok());
  CHECK(unbound.error().message == "cannot save parameter 'a.bias': it has no data");
}

TEST_CASE("nn Mutator: visitParam replaces parameters, visitModuleList sees lists", "[nn]") {
  struct ToHalf : Mutator {
    std::vector<std::string> lists, params;
    std::shared_ptr<Parameter> visitParam(const std::string& name, const std::shared_ptr<Parameter>& p) override {
      params.push_back(name);
      return Parameter::create(p->shape(), DType("float16"));
    }
    std::shared_ptr<Module> visitModuleList(const std::string& name, const std::shared_ptr<ModuleList>& l) override {
      lists.push_back(name);
      return visit(name, l);
    }
  };
  struct Net : Module {
    ModuleRef<ModuleList> layers = registerModule("layers", std::make_shared<ModuleList>(std::vector<std::shared_ptr<Module>>{std::make_shared<Linear>(2, 2)}));
    ParamRef scale = registerParameter("scale", Parameter::create({2}));
  };
  auto net = std::make_shared<Net>();
  ToHalf m;
  m.visit("", net);
  CHECK(m.lists == std::vector<std::string>{"layers"});
  CHECK(m.params == std::vector<std::string>{"layers.0.weight", "layers.0.bias", "scale"});
  for (auto& p : net->parameters()) CHECK(p->dtype().str() == "float16");
  CHECK(net->scale->dtype().str() == "float16");
}

TEST_CASE("nn export errors are values", "[nn]") {
  SECTION("an op outside an export") { CHECK_THROWS_WITH(op::relu(Tensor::placeholder({2}, "float32")), "nn ops build IR and can only run while a module is being exported"); }
  SECTION("a method spec with the wrong number of args") {
    Two m;
    ModuleSpec s;
    s.add("forward", {{"x", spec::Tensor({2}, "float32")}, {"y", spec::Tensor({2}, "float32")}}, &Two::forward);
    auto r = m.exportIR(s);
    REQUIRE(!r.ok());
    CHECK(r.error().message == "exporting method 'forward': the method takes 1 argument(s) but its spec lists 2");
  }
  SECTION("a shape mismatch found by struct-info inference") {
    Two m;
    ModuleSpec s;
    s.add("forward", {{"x", spec::Tensor({"n", 5}, "float32")}}, &Two::forward);
    auto r = m.exportIR(s);
    REQUIRE(!r.ok());
    CHECK(r.error().message.find("exporting method 'forward': ") == 0);
    CHECK(!m.a->weight->expr());  // parameters are released after a failed export
  }
  SECTION("a parameter used under param_mode none") {
    Two m;
    ModuleSpec s;
    s.add("forward", {{"x", spec::Tensor({"n", 2}, "float32")}}, &Two::forward, {.paramMode = ParamMode::None});
    auto r = m.exportIR(s);
    REQUIRE(!r.ok());
    CHECK(r.error().message == "exporting method 'forward': parameter 'a.weight' is used by method 'forward', whose param_mode is none");
  }
  SECTION("the same method twice") {
    Two m;
    auto s = forward2();
    s.add("forward", {{"x", spec::Tensor({"n", 2}, "float32")}}, &Two::forward);
    auto r = m.exportIR(s);
    REQUIRE(!r.ok());
    CHECK(r.error().message == "exporting method 'forward': method 'forward' is listed twice in the spec");
  }
  SECTION("a parameter outside an export") {
    Two m;
    CHECK_THROWS_AS(Tensor(m.a->weight), NNError);
  }
}

TEST_CASE("nn detachParams moves function params out", "[nn]") {
  rlx::DiagnosticEngine diag;
  auto mod = rlx::parseModule(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        return x
)",
                              "t", diag);
  REQUIRE(mod);
  auto c = rlx::make<rlx::Constant>(filled(DataType::float32(), {2}, 1));
  auto f = mod->functions[0].func.as<rlx::Function>();
  auto nf = rlx::make<rlx::Function>(f->params, f->body, f->retSInfo, f->isPure,
                                     rlx::withDictAttr(f->attrs, "params", rlx::AttrValue::array_({rlx::AttrValue::exprOf(c)})));
  auto withParams = rlx::withFunction(mod, mod->functions[0].gvar, nf);
  auto [out, params] = detachParams(withParams);
  REQUIRE(params["main"].size() == 1);
  CHECK(params["main"][0].get() == c->data.get());
  CHECK(rlx::structuralEqual(out, mod).equal);
}
