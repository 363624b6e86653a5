// Helpers of the rlx::nn tests: comparing an export with its nn-reference case (structural
// equality, the printed text, the parameter list) and running an exported method on the evaluator.
#pragma once
#include <catch2/catch.hpp>

#include <string>
#include <tuple>
#include <vector>

#include "frontend/nn/nn.h"
#include "ir/eval_function.h"
#include "ir/file_util.h"
#include "ir/structural_equal.h"
#include "ir/verifier.h"
#include "parser/parser.h"
#include "printer/printer.h"

namespace nn_test {

using ParamList = std::vector<std::tuple<std::string, std::vector<int64_t>, std::string>>;

inline rlx::IRModuleRef loadReference(const std::string& name) {
  rlx::DiagnosticEngine diag;
  auto mod = rlx::parseFile(std::string(RLX_SOURCE_DIR) + "/tests/corpus_nn/" + name + ".relax", diag);
  INFO(diag.render());
  REQUIRE(mod);
  return mod;
}

inline std::string readReferenceText(const std::string& name) {
  rlx::DiagnosticEngine diag;
  std::string text;
  FILE* f = std::fopen((std::string(RLX_SOURCE_DIR) + "/tests/corpus_nn/" + name + ".relax").c_str(), "rb");
  REQUIRE(f);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  std::fclose(f);
  return text;
}

// The module's single-tensor forward as method "forward".
inline rlx::nn::ModuleSpec forwardSpec(rlx::nn::MethodArgs args) {
  rlx::nn::ModuleSpec s;
  s.add("forward", std::move(args), [](rlx::nn::Module& m, const std::vector<rlx::nn::Nested>& a) -> rlx::nn::Nested { return m.forward(a[0].tensor()); });
  return s;
}

inline rlx::nn::Exported exportOk(rlx::nn::Module& m, const rlx::nn::ModuleSpec& spec) {
  auto r = m.exportIR(spec);
  if (!r.ok()) FAIL("export failed: " << r.error().message);
  return std::move(r.value());
}

// The export equals the reference structurally and prints identically; params match exactly.
inline void checkReference(const std::string& name, const rlx::nn::Exported& ex, const ParamList& params, bool checkText = true) {
  auto ref = loadReference(name);
  for (auto& e : rlx::verifyModule(ex.module, {.strictAnnotations = true})) FAIL_CHECK("not well formed: " << e.message);
  auto eq = rlx::structuralEqual(ref, ex.module);
  INFO("ours:\n" << rlx::printModule(ex.module));
  INFO("first mismatch at " << eq.path << ": reference " << eq.lhs << ", ours " << eq.rhs);
  REQUIRE(eq.equal);
  if (checkText) CHECK(rlx::printModule(ex.module) == readReferenceText(name));
  REQUIRE(ex.params.size() == params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    CHECK(ex.params[i].name == std::get<0>(params[i]));
    CHECK(ex.params[i].shape == std::get<1>(params[i]));
    CHECK(ex.params[i].dtype.str() == std::get<2>(params[i]));
  }
}

}  // namespace nn_test
