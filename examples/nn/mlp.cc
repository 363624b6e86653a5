// rlx::nn example: a two-layer MLP classifier exported to mlp.relax + mlp.params.safetensors,
// re-parsed, then run through nn::jit and checked against the reference evaluator.
#include "example_util.h"

using namespace rlx;
using namespace rlx::nn;
using namespace example;

namespace {

struct MLP : Module {
  ModuleRef<Linear> fc1 = registerModule("fc1", std::make_shared<Linear>(8, 32));
  ModuleRef<GELU> act = registerModule("act", std::make_shared<GELU>());
  ModuleRef<Linear> fc2 = registerModule("fc2", std::make_shared<Linear>(32, 4));
  Tensor forward(const Tensor& x) override { return op::softmax(fc2(act(fc1(x))), -1); }
};

}  // namespace

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : ".";
  MLP model;
  fillRandom(model, /*seed=*/42, /*scale=*/0.5f);
  ModuleSpec spec;
  spec.add("forward", {{"x", spec::Tensor({"batch", 8}, "float32")}}, &MLP::forward);

  Exported exported = check(model.exportIR(spec), "export");
  IRModuleRef reparsed = saveAndReload(exported, dir + "/mlp.relax");

  JitModule jitted = check(jit(model, spec), "jit");
  std::mt19937 rng(7);
  NDArrayRef x = uniform(rng, {3, 8}, 1.0f);
  vm::Value y = check(jitted("forward", {x}), "running forward");
  const NDArray& probs = *y.array;
  for (int64_t r = 0; r < probs.shape[0]; ++r) {
    std::printf("row %lld:", (long long)r);
    for (int64_t c = 0; c < probs.shape[1]; ++c) std::printf(" %.5f", probs.getDouble(r * probs.shape[1] + c));
    std::printf("\n");
  }

  std::vector<rlx::Value> args = {rlx::Value::ofTensor(x)};
  for (auto& p : paramValues(exported)) args.push_back(p);
  rlx::Value ref = check(evaluateFunction(*reparsed, "forward", args), "evaluating forward");
  double diff = maxAbsDiff(probs, *ref.tensor);
  std::printf("max |jit - evaluator| = %.3g\n", diff);
  if (diff > 1e-5) die("jit and the reference evaluator disagree");
  std::printf("mlp: OK\n");
  return 0;
}
