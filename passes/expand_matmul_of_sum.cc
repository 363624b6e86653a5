// ExpandMatmulOfSum: distributes a matmul over a sum in its right operand (TVM's relax
// ExpandMatmulOfSum): matmul(x, A + B) -> matmul(x, A) + matmul(x, B), also through a
// permute_dims of the sum: matmul(x, permute_dims(A + B)) -> matmul(x, permute_dims(A)) + ....
// Why: with A a base weight and B a LoRA delta computed at run time, each product can then be
// reordered or fused on its own (AdjustMatmulOrder turns x @ (U @ V) into (x @ U) @ V).
// Not rewritten: when A and B are both known at compile time (their sum can be precomputed; see
// "num_input"), and when the add broadcasts (A or B not of the sum's shape: the distributed
// products would differ). The matmul's out_dtype is kept on both products. Unused bindings are
// removed afterwards. Before: `w = R.add(A, B); out = R.matmul(x, w)`
// After: `lv = R.matmul(x, A); lv1 = R.matmul(x, B); out = R.add(lv, lv1)`.
#include <unordered_set>

#include "ir/arith.h"
#include "ir/ops/infer_util.h"
#include "ir/struct_info.h"
#include "passes/binding_rewriter.h"
#include "passes/compile_time_vars.h"
#include "passes/op_builder.h"
#include "passes/registry.h"

namespace rlx {

namespace {

using namespace build;

class MatmulOfSumExpander : public BindingRewriter {
 public:
  explicit MatmulOfSumExpander(const Function& f) : compileTime_(computableAtCompileTime(f)) {}

 protected:
  Expr rewriteValue(const BindingRef&, const Expr& value) override {
    auto mm = value.as<Call>();
    if (!mm || mm->opName() != "relax.matmul" || mm->args.size() != 2) return nullptr;
    Expr rhs = boundValue(mm->args[1]);
    CallRef permute;
    if (auto p = rhs.as<Call>(); p && p->opName() == "relax.permute_dims") {
      permute = p;
      rhs = boundValue(p->args[0]);
    }
    auto sum = rhs.as<Call>();
    if (!sum || sum->opName() != "relax.add" || sum->args.size() != 2) return nullptr;
    Expr a = sum->args[0], b = sum->args[1];
    if (known(a) && known(b)) return nullptr;
    if (!sameShape(a, rhs) || !sameShape(b, rhs)) return nullptr;
    if (permute) {
      a = permuteLike(*permute, a);
      b = permuteLike(*permute, b);
    }
    KwArgs kw;
    DataType outDtype = ops::attrDType(*mm, "out_dtype");
    if (!outDtype.isVoid()) kw.push_back({"out_dtype", s(outDtype.str())});
    return call("add", {e(call("matmul", {e(mm->args[0]), e(a)}, kw)), e(call("matmul", {e(mm->args[0]), e(b)}, kw))});
  }

 private:
  bool known(const Expr& x) const {
    auto v = x.as<Var>();
    return v && compileTime_.count(v.get());
  }

  // Whether `x` provably has the shape of `sum` (the add did not broadcast it).
  static bool sameShape(const Expr& x, const Expr& sum) {
    auto a = sinfoOf(x).as<TensorSInfo>(), b = sinfoOf(sum).as<TensorSInfo>();
    if (!a || !b || !a->dims() || !b->dims() || a->dims()->size() != b->dims()->size()) return false;
    for (size_t k = 0; k < a->dims()->size(); ++k)
      if (!proveEqual((*a->dims())[k], (*b->dims())[k])) return false;
    return true;
  }

  static Expr permuteLike(const Call& permute, const Expr& x) {
    auto axes = ops::attrOptInts(permute, "axes");
    return axes ? call("permute_dims", {e(x), ints(*axes)}) : call("permute_dims", {e(x)});
  }

  std::unordered_set<const Var*> compileTime_;
};

}  // namespace

Result<Pass> createExpandMatmulOfSumPass(PassOptions&) {
  return makeRewriteCallPass({"ExpandMatmulOfSum", 1, {}}, [](const Ref<Function>& f) -> std::unique_ptr<BindingRewriter> { return std::make_unique<MatmulOfSumExpander>(*f); });
}

}  // namespace rlx
