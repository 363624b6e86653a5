// The Relay model zoo (tvm.relay.testing's workloads as TVM v0.19 printed them) imported into Relax,
// run on the VM with compiled kernels, and compared with the reference evaluator on random weights.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "frontend/relay/relay.h"
#include "vm_test_util.h"

using namespace rlx;

namespace {

// Weights at a scale that keeps deep networks finite: He-like uniform weights over their fan-in,
// positive variances and scales near 1, small biases and means; the data in [-1, 1).
std::vector<Value> zooInputs(const Function& func, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Value> out;
  for (auto& p : func.params) {
    auto t = sinfoOf(p).as<TensorSInfo>();
    REQUIRE(t);
    REQUIRE(t->dims());
    std::vector<int64_t> shape;
    for (auto& d : *t->dims()) shape.push_back(*constInt(d));
    auto a = make<NDArray>(t->dtype, shape);
    const std::string& n = p->name;
    auto has = [&](const char* s) { return n.find(s) != std::string::npos; };
    double lo = -1, hi = 1;
    if (has("var") || has("gamma")) lo = 0.5, hi = 1.5;
    else if (has("bias") || has("beta") || has("mean")) lo = -0.1, hi = 0.1;
    else if (has("weight") && shape.size() >= 2) {
      int64_t fanIn = 1;
      for (size_t k = 1; k < shape.size(); ++k) fanIn *= shape[k];
      hi = std::sqrt(3.0 / double(fanIn));
      lo = -hi;
    }
    std::uniform_real_distribution<double> dist(lo, hi);
    for (int64_t i = 0; i < a->numel(); ++i) a->setDouble(i, dist(rng));
    out.push_back(Value::ofTensor(a));
  }
  return out;
}

void checkZooModel(const std::string& name) {
  std::string path = std::string(RLX_SOURCE_DIR) + "/tests/relay/corpus/zoo/" + name + ".relay";
  auto mod = relay::fromRelayFile(path);
  if (!mod) FAIL(renderError(mod.error()));
  auto main = (*mod)->lookup("main").as<Function>();
  REQUIRE(main);
  auto inputs = zooInputs(*main, 7);
  auto reference = evaluateFunction(**mod, "main", inputs);
  if (!reference) FAIL(reference.error().message);
  auto got = testing::runBuilt(*mod, "O2", "main", inputs);
  if (!got) FAIL(got.error().message);
  // Every output is finite: the weights keep the network in range, so a NaN is a bug.
  std::function<void(const Value&)> finite = [&](const Value& v) {
    if (v.kind == Value::Tuple)
      for (auto& f : v.fields) finite(f);
    else if (v.kind == Value::Tensor)
      for (int64_t i = 0; i < v.tensor->numel(); ++i) REQUIRE(std::isfinite(v.tensor->getDouble(i)));
  };
  finite(*reference);
  CHECK(testing::compareValues(*got, *reference, 1e-4) == "");
}

}  // namespace

TEST_CASE("relay zoo: mlp_b1 runs on the VM as the evaluator computes it", "[relay][zoo]") { checkZooModel("mlp_b1"); }
TEST_CASE("relay zoo: lstm_i2_h8 runs on the VM as the evaluator computes it", "[relay][zoo]") { checkZooModel("lstm_i2_h8"); }
TEST_CASE("relay zoo: vgg11_b1 runs on the VM as the evaluator computes it", "[relay][zoo]") { checkZooModel("vgg11_b1"); }
TEST_CASE("relay zoo: squeezenet10_b1 runs on the VM as the evaluator computes it", "[relay][zoo]") { checkZooModel("squeezenet10_b1"); }
TEST_CASE("relay zoo: mobilenet_b1 runs on the VM as the evaluator computes it", "[relay][zoo]") { checkZooModel("mobilenet_b1"); }
TEST_CASE("relay zoo: resnet3d18_b1 runs on the VM as the evaluator computes it", "[relay][zoo]") { checkZooModel("resnet3d18_b1"); }
TEST_CASE("relay zoo: resnet50_b1 runs on the VM as the evaluator computes it", "[relay][zoo]") { checkZooModel("resnet50_b1"); }
