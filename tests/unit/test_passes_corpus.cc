// Every registered pass on every corpus module (hand-written, TVM lowering states, nn exports):
// no pass fails or breaks the verifier, every output round-trips through the printer/parser, and a
// second application changes nothing (same object); and what each module's main computes on random
// inputs is the same before and after every pass.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/structural_equal.h"
#include "ir/verifier.h"
#include "parser/parser.h"
#include "passes/registry.h"
#include "printer/printer.h"
#include "runtime/runner.h"
#include "vm_test_util.h"

using namespace rlx;

namespace {

std::vector<std::string> corpusFiles() {
  std::vector<std::string> out;
  for (const char* dir : {"/tests/corpus", "/tests/corpus_lowering", "/tests/corpus_nn"})
    for (auto& e : std::filesystem::directory_iterator(std::string(RLX_SOURCE_DIR) + dir))
      if (e.path().extension() == ".relax") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// The pipeline text that runs pass `name` on its own (options a pass cannot do without).
// Passes that only apply to inputs of their own kind: Gradient needs a function returning a float
// scalar (the corpus models return tensors); tests/unit/test_gradient.cc and its goldens check it.
// UpdateVDevice needs a module declaring vdevices (none of the corpus does); its goldens check it.
// to_cps converts one named function (default main) and fails when it cannot (an impure main,
// as lowered modules have); ToCPS, the same conversion of every function that can, runs here.
bool needsOwnInput(const std::string& name) { return name == "Gradient" || name == "gradient" || name == "UpdateVDevice" || name == "to_cps"; }

std::string pipelineFor(const std::string& name) {
  if (name == "EtaExpand") return "EtaExpand(expand_global_var=True)";
  if (name == "ConvertLayout") return "ConvertLayout(desired_layouts={\"relax.nn.conv2d\": [\"NHWC\", \"OHWI\"]})";
  return name;
}

}  // namespace

TEST_CASE("passes: every pass on every corpus module verifies and round-trips", "[passes][corpus]") {
  PassContext ctx;
  ctx.optLevel = 4;  // FastMath included
  for (auto& file : corpusFiles()) {
    DiagnosticEngine diag;
    IRModuleRef mod = parseFile(file, diag);
    REQUIRE(mod);
    for (auto& entry : passRegistry()) {
      std::string name = entry.name;
      if (name == "BindParams" || name == "PrintIR" || needsOwnInput(name)) continue;  // needs a params file / prints to stdout
      INFO(file << " | " << name);
      auto passes = parsePipeline(pipelineFor(name));
      REQUIRE(passes.ok());
      auto out = runSequential(passes.value(), mod, ctx);
      REQUIRE(out.ok());
      auto problems = verifyModule(out.value());
      CHECK(problems.empty());
      if (!problems.empty()) INFO(problems[0].message);
      std::string text = printModule(out.value());
      DiagnosticEngine diag2;
      IRModuleRef again = parseModule(text, file + " after " + name, diag2);
      if (!again) FAIL(diag2.render(false));
      CHECK(printModule(again) == text);
      // Applied again, the pass finds nothing to do and returns the very same module object.
      auto twice = runSequential(passes.value(), out.value(), ctx);
      REQUIRE(twice.ok());
      CHECK(twice.value().same(out.value()));
    }
  }
}

namespace {

// What a module computes for function `name` on `inputs`: the reference evaluator while the module
// has no TIR kernels, else the VM with compiled kernels after the rest of the default CPU build
// lowering (the TIR interpreter takes minutes on a GPT-2 block; part-lowered modules also hold VM
// builtins the evaluator does not model).
Result<Value> compute(const IRModuleRef& mod, const std::string& name, const std::vector<Value>& inputs) {
  bool hasKernels = false;
  for (auto& e : mod->functions) hasKernels = hasKernels || e.func.as<PrimFunc>();
  if (!hasKernels)
    if (auto direct = evaluateFunction(*mod, name, inputs); direct.ok()) return direct;
  return testing::runBuilt(mod, "build_fused", name, inputs);
}

// Whether `after` takes the same parameters and returns the same kind of value as `before`.
bool sameSignature(const Ref<Function>& before, const Ref<Function>& after) {
  if (!after || after->params.size() != before->params.size()) return false;
  for (size_t i = 0; i < before->params.size(); ++i)
    if (!structuralEqual(sinfoOf(before->params[i]), sinfoOf(after->params[i]), true)) return false;
  return bool(structuralEqual(before->retSInfo, after->retSInfo, true));
}

bool isMixedPrecision(const PassEntry& e) { return std::string(e.aliasOf ? e.aliasOf : e.name) == "ToMixedPrecision"; }

// Relative tolerance of a pass's results: FastMath's approximations are accurate to about 1e-6
// (1e-3 leaves room for the reductions after them); fp16 keeps 11 bits, and its rounding errors
// grow through a few layers of sums.
double toleranceOf(const PassEntry& e) {
  std::string impl = e.aliasOf ? e.aliasOf : e.name;
  if (impl == "FastMath") return 1e-3;
  if (impl == "ToMixedPrecision") return 2e-2;
  return 1e-4;
}

// The inputs with every float tensor multiplied by `factor` (fresh arrays).
std::vector<Value> scaled(const std::vector<Value>& inputs, double factor) {
  std::vector<Value> out;
  for (auto& v : inputs) {
    if (v.kind != Value::Tensor || !v.tensor->dtype.isFloat()) {
      out.push_back(v);
      continue;
    }
    auto a = make<NDArray>(v.tensor->dtype, v.tensor->shape);
    for (int64_t i = 0; i < a->numel(); ++i) a->setDouble(i, v.tensor->getDouble(i) * factor);
    out.push_back(Value::ofTensor(a));
  }
  return out;
}

// Every symbolic dimension of the module's functions is 4 in the random inputs.
std::map<std::string, int64_t> symbolsOf(const Function& f) {
  std::map<std::string, int64_t> syms;
  for (auto& p : f.params)
    if (auto t = sinfoOf(p).as<TensorSInfo>(); t && t->dims())
      for (auto& d : *t->dims())
        if (auto v = d.as<PrimVar>()) syms[v->name] = 4;
  for (auto& p : f.params)
    if (auto s = sinfoOf(p).as<ShapeSInfo>(); s && s->values)
      for (auto& d : *s->values)
        if (auto v = d.as<PrimVar>()) syms[v->name] = 4;
  for (auto& p : f.params)
    if (auto prim = sinfoOf(p).as<PrimSInfo>(); prim && prim->value)
      if (auto v = prim->value.as<PrimVar>()) syms[v->name] = 4;
  return syms;
}

// The lowering pipeline's passes from CallTIRRewrite on assume what the passes before them did
// (StaticPlanBlockMemory, for one, cannot see that a vm.builtin.reshape made by an early
// LowerRuntimeBuiltin aliases its input, as in TVM): they are checked only on corpus_lowering
// states at or after the step before them. Returns whether `pass` may run on `file`.
bool atItsPlace(const std::string& pass, const std::string& file) {
  std::vector<std::string> order;
  std::stringstream ss(presetPipeline("build_fused"));
  for (std::string item; std::getline(ss, item, ',');) order.push_back(item);
  auto at = [&](const std::string& name) { return int(std::find(order.begin(), order.end(), name) - order.begin()); };
  int p = at(pass);
  if (p == int(order.size()) || p < at("CallTIRRewrite")) return true;
  auto sep = file.rfind("__");
  if (sep == std::string::npos) return false;
  std::string stage = file.substr(sep + 5, file.size() - sep - 5 - 6);  // "__NN_Name.relax"
  return at(stage) + 1 >= p && at(stage) != int(order.size());
}

}  // namespace

TEST_CASE("passes: every pass keeps what every corpus module computes", "[passes][corpus][numerics]") {
  PassContext ctx;
  ctx.optLevel = 4;
  int checked = 0;
  for (auto& file : corpusFiles()) {
    DiagnosticEngine diag;
    IRModuleRef mod = parseFile(file, diag);
    REQUIRE(mod);
    auto mainFn = mod->lookup("main").as<Function>();
    if (!mainFn) continue;
    // Inputs in [0.25, 1): variances stay positive and logs finite, integers are valid indices.
    auto inputs = testing::randomInputs(*mainFn, symbolsOf(*mainFn), 11, 0.25);
    auto expected = compute(mod, "main", inputs);
    if (!expected.ok()) continue;  // needs packed functions or externals neither runner models
    auto small = scaled(inputs, 1.0 / 32);
    auto fullExpected = expected;
    for (auto& entry : passRegistry()) {
      std::string name = entry.name;
      // DecomposeOpsForTraining switches batch_norm to batch statistics: a different function by design.
      if (name == "BindParams" || name == "PrintIR" || name == "DecomposeOpsForTraining" || needsOwnInput(name) ||
          !atItsPlace(entry.aliasOf ? entry.aliasOf : name, file))
        continue;
      INFO(file << " | " << name);
      auto passes = parsePipeline(pipelineFor(name));
      REQUIRE(passes.ok());
      auto out = runSequential(passes.value(), mod, ctx);
      REQUIRE(out.ok());
      if (out.value().same(mod)) continue;
      expected = fullExpected;
      // Passes that change main's calling convention (BundleModelParams, LazyGetInput,
      // RemoveUnusedParameters, ...) are checked by their golden tests instead.
      if (!sameSignature(mainFn, out.value()->lookup("main").as<Function>())) continue;
      // fp16 overflows at 65504: ToMixedPrecision is compared on inputs small enough for it.
      auto got = compute(out.value(), "main", isMixedPrecision(entry) ? small : inputs);
      if (isMixedPrecision(entry)) expected = compute(mod, "main", small);
      INFO((got.ok() ? "" : got.error().message));
      REQUIRE(got.ok());
      CHECK(testing::compareValues(got.value(), expected.value(), toleranceOf(entry)) == "");
      ++checked;
    }
  }
  INFO("module/pass pairs compared: " << checked);
  CHECK(checked > 100);
}
