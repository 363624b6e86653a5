// LegalizeOps kernels checked numerically: each op is legalized from a one-call module, its kernel
// run by the TIR interpreter on random inputs and compared with the reference evaluator.
#include <catch2/catch.hpp>

#include "tests/unit/legalize_cases.h"

using namespace rlx;
using namespace rlx::test::legalize;

namespace {

// "" when the kernel agrees with the evaluator, else a description of the first difference.
std::string compare(const Case& c, uint32_t seed = 1) {
  Prepared p;
  if (auto e = prepare(c, seed, p); !e.empty()) return e;
  auto st = runPrimFunc(*p.kernel, p.args);
  if (!st.ok()) return "runPrimFunc: " + st.error().message;
  return compareOutputs(c, p.outputs, p.expected, p.inputs, "kernel", "evaluator");
}

void check(const Case& c) {
  for (uint32_t seed : {1u, 2u}) {
    INFO(c.params << " -> " << c.call << " (seed " << seed << ")");
    CHECK(compare(c, seed) == "");
  }
}

}  // namespace

TEST_CASE("legalize numerics: binary arithmetic with broadcasting and symbolic dims", "[legalize]") { binaryArithmeticCases(check); }

TEST_CASE("legalize numerics: division, floor division, floor_mod and power", "[legalize]") { divisionCases(check); }

TEST_CASE("legalize numerics: integer divide (truncates, as tir Div)", "[legalize]") { integerDivideCases(check); }

TEST_CASE("legalize numerics: comparisons and logical ops", "[legalize]") { comparisonCases(check); }

TEST_CASE("legalize numerics: unary math", "[legalize]") { unaryMathCases(check); }

TEST_CASE("legalize numerics: round on exact halves, predicates on NaN and infinities", "[legalize]") { roundingAndPredicateCases(check); }

TEST_CASE("legalize numerics: clip, astype, where", "[legalize]") { clipAstypeWhereCases(check); }

TEST_CASE("legalize numerics: matmul", "[legalize]") { matmulCases(check); }

TEST_CASE("legalize numerics: activations, softmax, layer_norm", "[legalize]") { activationCases(check); }

TEST_CASE("legalize numerics: reshape, permute_dims, expand_dims, squeeze", "[legalize]") { layoutCases(check); }

TEST_CASE("legalize numerics: layout_transform (splits with and without padding, fusions, permutations)", "[legalize]") { layoutTransformCases(check); }

TEST_CASE("legalize numerics: grad.* backward kernels (take, nll_loss, max/avg_pool2d)", "[legalize]") { gradCases(check); }

TEST_CASE("legalize numerics: split and concat", "[legalize]") { splitConcatCases(check); }

TEST_CASE("legalize numerics: creation and tril/triu", "[legalize]") { creationCases(check); }

TEST_CASE("legalize numerics: reductions", "[legalize]") { reductionCases(check); }

TEST_CASE("legalize numerics: conv1d/2d/3d and pad", "[legalize]") { convCases(check); }

TEST_CASE("legalize numerics: max/avg/adaptive pooling", "[legalize]") { poolCases(check); }

TEST_CASE("legalize numerics: batch_norm, rms_norm, group_norm, leakyrelu", "[legalize]") { normCases(check); }

TEST_CASE("legalize numerics: arange, take, strided_slice, broadcast_to, flatten", "[legalize]") { indexingCases(check); }

TEST_CASE("legalize numerics: attention", "[legalize]") { attentionCases(check); }

TEST_CASE("legalize numerics: variance, std, argmax, argmin", "[legalize]") { statisticCases(check); }
