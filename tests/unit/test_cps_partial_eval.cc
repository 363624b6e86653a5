// ToCPS / un_cps and PartialEvaluate beyond their goldens: un_cps gives back what ToCPS took on
// every corpus module, and every golden and worked example of the three computes the same before
// and after, on the reference evaluator (closures included) and on the VM.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/structural_equal.h"
#include "ir/verifier.h"
#include "parser/parser.h"
#include "passes/cps_form.h"
#include "passes/registry.h"
#include "printer/printer.h"
#include "runtime/runner.h"
#include "vm_test_util.h"

using namespace rlx;

namespace {

Result<IRModuleRef> run(const std::string& pipeline, const IRModuleRef& mod) {
  RLX_TRY(passes, parsePipeline(pipeline));
  PassContext ctx;
  return runSequential(passes, mod, ctx);
}

IRModuleRef parseText(const std::string& text, const std::string& name) {
  DiagnosticEngine diag;
  IRModuleRef mod = parseModule(text, name, diag);
  if (!mod) FAIL(diag.render(false));
  return mod;
}

std::vector<std::string> filesIn(const std::vector<std::string>& dirs) {
  std::vector<std::string> out;
  for (auto& dir : dirs)
    for (auto& e : std::filesystem::directory_iterator(std::string(RLX_SOURCE_DIR) + dir))
      if (e.path().extension() == ".relax") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// What function `name` computes: the reference evaluator, or the VM after the build lowering.
Result<Value> evaluate(const IRModuleRef& mod, const std::string& name, const std::vector<Value>& inputs, bool onVM) {
  if (!onVM) return evaluateFunction(*mod, name, inputs);
  return testing::runBuilt(mod, "build", name, inputs);
}

}  // namespace

TEST_CASE("cps: un_cps gives back every corpus module ToCPS converted", "[passes][cps]") {
  int converted = 0;
  for (auto& file : filesIn({"/tests/corpus", "/tests/corpus_lowering", "/tests/corpus_nn"})) {
    INFO(file);
    DiagnosticEngine diag;
    IRModuleRef mod = parseFile(file, diag);
    REQUIRE(mod);
    auto cps = run("ToCPS", mod);
    REQUIRE(cps.ok());
    if (cps.value().same(mod)) continue;
    ++converted;
    CHECK(verifyModule(cps.value()).empty());
    // Read back from its text too: un_cps must recognise CPS as the parser rebuilds it.
    for (IRModuleRef input : {cps.value(), parseText(printModule(cps.value()), file + " (CPS)")}) {
      auto back = run("un_cps", input);
      REQUIRE(back.ok());
      CHECK(verifyModule(back.value()).empty());
      // ToCPS turns the dataflow blocks it cuts into ordinary blocks: compare without dataflow.
      auto a = run("ToNonDataflow", back.value());
      auto b = run("ToNonDataflow", mod);
      REQUIRE(a.ok());
      REQUIRE(b.ok());
      auto eq = structuralEqual(a.value(), b.value());
      INFO(eq.path << ": " << eq.lhs << " vs " << eq.rhs);
      CHECK(eq.equal);
    }
  }
  CHECK(converted > 30);
}

TEST_CASE("cps, partial evaluation: goldens and examples compute the same on the evaluator and the VM", "[passes][cps][numerics]") {
  std::vector<std::string> files = filesIn({"/tests/golden/passes/to_cps", "/tests/golden/passes/un_cps", "/tests/golden/passes/partial_evaluate"});
  for (const char* ex : {"ToCPS", "to_cps", "un_cps", "PartialEvaluate"}) files.push_back(std::string(RLX_SOURCE_DIR) + "/passes/examples/" + ex + ".relax");
  int compared = 0;
  for (auto& file : files) {
    INFO(file);
    std::ifstream in(file);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    std::string input = text.substr(0, text.find("# ---- expected output"));
    std::string expected = text.substr(text.find("# ---- expected output"));
    if (expected.find("@I.ir_module") == std::string::npos) continue;  // an error case
    std::string pipeline = input.substr(input.find("-p ") + 3);
    pipeline = pipeline.substr(0, pipeline.find('\n'));
    IRModuleRef before = parseText(input, file);
    auto after = run(pipeline, before);
    REQUIRE(after.ok());
    for (auto& e : before->functions) {
      auto f = e.func.as<Function>();
      if (!f || !f->attrs || !f->attrs->find("global_symbol") || !f->isPure) continue;  // effects: see the goldens
      bool plainParams = true;
      for (auto& p : f->params) plainParams &= !mentionsCallable(sinfoOf(p));
      if (!plainParams || !after.value()->lookup(e.gvar->name).as<Function>()) continue;
      INFO(e.gvar->name);
      auto inputs = testing::randomInputs(*f, {{"n", 3}}, 7, 0.25);
      for (bool onVM : {false, true}) {
        INFO((onVM ? "VM" : "reference evaluator"));
        auto want = evaluate(before, e.gvar->name, inputs, onVM);
        // The build lowering leaves ops on constants outside dataflow blocks to FoldConstant, which
        // only folds inside them: such an input does not run on the VM (its PartialEvaluate does).
        if (!want.ok() && onVM && want.error().message.find("reached the bytecode compiler") != std::string::npos) continue;
        if (!want.ok()) FAIL(want.error().message);
        auto got = evaluate(after.value(), e.gvar->name, inputs, onVM);
        if (!got.ok()) FAIL(got.error().message);
        CHECK(testing::compareValues(got.value(), want.value(), 1e-5) == "");
        ++compared;
      }
    }
  }
  CHECK(compared >= 40);
}

TEST_CASE("evaluator and VM: closures capture their values last, as LambdaLift lifts them", "[passes][cps]") {
  IRModuleRef mod = parseText(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        @R.function
        def minus_y(v: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            d = R.subtract(v, y)
            return d

        @R.function
        def twice(f: R.Callable((R.Tensor((3,), "float32"),), R.Tensor((3,), "float32")), v: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            a = f(v)
            b = f(a)
            return b

        r = twice(minus_y, x)
        return r
)", "closures.relax");
  auto lifted = run("LambdaLift", mod);
  REQUIRE(lifted.ok());
  auto inputs = testing::randomInputs(*mod->lookup("main").as<Function>(), {}, 3);
  Value want = Value::ofTensor(make<NDArray>(DataType::float32(), std::vector<int64_t>{3}));
  for (int64_t i = 0; i < 3; ++i) want.tensor->setDouble(i, inputs[0].tensor->getDouble(i) - 2 * inputs[1].tensor->getDouble(i));
  for (auto& [m, onVM] : std::vector<std::pair<IRModuleRef, bool>>{{mod, false}, {lifted.value(), false}, {mod, true}, {lifted.value(), true}}) {
    auto got = evaluate(m, "main", inputs, onVM);
    if (!got.ok()) FAIL(got.error().message);
    CHECK(testing::compareValues(got.value(), want) == "");
  }
}
