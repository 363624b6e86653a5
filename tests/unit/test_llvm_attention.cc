// FuseSoftmaxAttention's kernels on the CPU: the schedule runs them as one rlx_attention call
// (runtime/llvm/attention.cc), which agrees with the TIR interpreter running the kernel's stages.
#include "tests/unit/llvm_test_util.h"

using namespace rlx;

namespace {

std::string T(const std::string& shape) { return "R.Tensor(" + shape + ", \"float32\")"; }

// The softmax_attention kernel of matmul(softmax(matmul(q, k)), v) over the given shapes.
PrimFuncRef attentionKernel(const std::string& q, const std::string& k, const std::string& v) {
  auto fs = lower("q: " + T(q) + ", k: " + T(k) + ", v: " + T(v),
                  "            s = R.matmul(q, k)\n            p = R.nn.softmax(s, axis=-1)\n            gv = R.matmul(p, v)\n",
                  "FuseSoftmaxAttention,LegalizeOps,AnnotateTIROpPattern,FuseOps,FuseTIR");
  REQUIRE(fs.size() == 1);
  return fs[0];
}

bool callsAttention(const PrimFuncRef& f) {
  auto ir = emitLLVM(f, "attention");
  return ir.ok() && contains(*ir, "rlx_attention");
}

}  // namespace

TEST_CASE("llvm attention: softmax attention kernels run as one call and agree with the interpreter", "[llvm][attention]") {
  struct S {
    const char *q, *k, *v;
  };
  // Batched heads; no batch dim; two batch dims; a long row (blocks of 8 rows); a last block of a
  // few rows (2000 keys: blocks of 128 of the 300 queries); one query (a decode step).
  for (S s : {S{"(3, 37, 16)", "(3, 16, 45)", "(3, 45, 20)"}, S{"(13, 8)", "(8, 300)", "(300, 5)"}, S{"(2, 2, 9, 4)", "(2, 2, 4, 33)", "(2, 2, 33, 7)"},
              S{"(1, 20, 3)", "(1, 3, 40000)", "(1, 40000, 2)"}, S{"(1, 300, 8)", "(1, 8, 2000)", "(1, 2000, 3)"}, S{"(4, 1, 64)", "(4, 64, 129)", "(4, 129, 64)"}}) {
    INFO(s.q << " " << s.k << " " << s.v);
    PrimFuncRef f = attentionKernel(s.q, s.k, s.v);
    CHECK(callsAttention(f) == (__builtin_cpu_supports("avx512f") != 0));
    CHECK(agree(f, argsFor(*f, 1, 7), 5e-5) == "");
  }
}

TEST_CASE("llvm attention: NaN and infinite scores as the stage-by-stage kernel has them", "[llvm][attention]") {
  PrimFuncRef f = attentionKernel("(2, 5, 4)", "(2, 4, 19)", "(2, 19, 3)");
  auto args = argsFor(*f, 1, 11);
  // q row 0 of batch 0 NaN (its outputs NaN); q row 1 infinite (scores of both signs: the row's
  // max infinite, its exp NaN where a score is infinite too); k column 3 of batch 1 -infinity (its
  // probabilities 0 where the query's element is positive).
  NDArray& q = *args[0].array;
  NDArray& k = *args[1].array;
  q.setDouble(0, NAN);
  q.setDouble(4, INFINITY);
  for (int64_t r = 0; r < 4; ++r) k.setDouble(4 * 19 + r * 19 + 3, -INFINITY);
  CHECK(agree(f, args, 5e-5) == "");
}
