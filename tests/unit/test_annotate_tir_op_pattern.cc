// AnnotateTIROpPattern on kernels LegalizeOps builds, for the kinds the corpus goldens do not show:
// broadcast, injective, comm-reduce, pooling-like reductions, and an existing attr left alone.
#include <catch2/catch.hpp>

#include "ir/tir.h"
#include "parser/parser.h"
#include "passes/registry.h"

using namespace rlx;

namespace {

// The op_pattern AnnotateTIROpPattern gives the kernel LegalizeOps makes for `call` (-1 on error).
int64_t patternOf(const std::string& params, const std::string& call) {
  std::string text = "@I.ir_module\nclass Module:\n    @R.function\n    def main(" + params + "):\n        gv = " + call + "\n        return gv\n";
  DiagnosticEngine diag;
  auto mod = parseModule(text, "case.relax", diag);
  if (!mod) return -1;
  auto passes = parsePipeline("LegalizeOps, AnnotateTIROpPattern");
  if (!passes.ok()) return -1;
  auto out = runSequential(passes.value(), mod, PassContext());
  if (!out.ok()) return -1;
  for (auto& e : out.value()->functions)
    if (auto p = e.func.as<PrimFunc>()) return attrInt(p->attrs, "op_pattern").value_or(-2);
  return -3;
}

}  // namespace

TEST_CASE("AnnotateTIROpPattern: kinds of legalized kernels", "[passes][annotate_tir_op_pattern]") {
  const std::string x23 = "x: R.Tensor((2, 3), \"float32\")";
  CHECK(patternOf(x23 + ", y: R.Tensor((2, 3), \"float32\")", "R.add(x, y)") == 0);
  // A broadcast load next to an elementwise one counts as elementwise; alone it is broadcast.
  CHECK(patternOf(x23 + ", y: R.Tensor((3,), \"float32\")", "R.add(x, y)") == 0);
  CHECK(patternOf("x: R.Tensor((3,), \"float32\"), y: R.Tensor((2, 1), \"float32\")", "R.add(x, y)") == 1);
  CHECK(patternOf(x23, "R.expand_dims(x, axis=[1])") == 1);
  CHECK(patternOf(x23, "R.permute_dims(x)") == 2);
  CHECK(patternOf(x23, "R.reshape(x, R.shape([3, 2]))") == 2);
  // A symbolic extent in the reshape index is a var the store does not bind: opaque, as in TVM.
  CHECK(patternOf("x: R.Tensor((\"n\", 6), \"float32\")", "R.reshape(x, R.shape([n, 2, 3]))") == 8);
  CHECK(patternOf(x23, "R.sum(x, axis=[1])") == 3);
  CHECK(patternOf(x23, "R.max(x)") == 3);
  // mean: the division after the reduction writes the output.
  CHECK(patternOf(x23, "R.mean(x, axis=[0])") == 4);
  CHECK(patternOf(x23 + ", w: R.Tensor((3, 4), \"float32\")", "R.matmul(x, w)") == 4);
  CHECK(patternOf(x23, "R.nn.softmax(x)") == 4);
}

TEST_CASE("AnnotateTIROpPattern: a nonzero op_pattern is kept, Relax functions are untouched", "[passes][annotate_tir_op_pattern]") {
  DiagnosticEngine diag;
  auto mod = parseModule(R"(@I.ir_module
class Module:
    @T.prim_func(private=True)
    def k(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        T.func_attr({"op_pattern": 8, "tir.noalias": True})
        for i in range(T.int64(4)):
            with T.block("B"):
                v_i = T.axis.spatial(T.int64(4), i)
                T.reads(A[v_i])
                T.writes(B[v_i])
                B[v_i] = A[v_i]

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.k, (x,), out_sinfo=R.Tensor((4,), dtype="float32"))
        return gv
)", "m.relax", diag);
  REQUIRE(mod);
  auto passes = parsePipeline("AnnotateTIROpPattern");
  REQUIRE(passes.ok());
  auto out = runSequential(passes.value(), mod, PassContext());
  REQUIRE(out.ok());
  CHECK(out.value().same(mod));
}
