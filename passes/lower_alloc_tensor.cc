// LowerAllocTensor: each R.builtin.alloc_tensor left after StaticPlanBlockMemory (function outputs,
// sizes not known statically) becomes its own uint8 storage plus a tensor at offset 0 in it, as TVM's
// relax.transform.LowerAllocTensor does. Why: after this the VM only sees memory.* allocations.
// The byte size is dtype bytes times the dims, constant-folded the way TVM's PrimExpr `*=` folds
// (`4 * n * 768`, not canonicalized). Storage vars are named "storage" (the printer disambiguates).
// Before: `alloc = R.builtin.alloc_tensor(R.shape([1, 10]), R.dtype("float32"), R.prim_value(0), R.str("global"))`
// After:  `storage = R.memory.alloc_storage(R.shape([40]), R.prim_value(0), R.str("global"), R.dtype("uint8"))`,
//         `alloc = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([1, 10]), R.dtype("float32"), R.prim_value(0))`.
#include "ir/arith.h"
#include "passes/binding_rewriter.h"
#include "passes/registry.h"

namespace rlx {

namespace {

// a * b with TVM's constant folding only: two constants fold, a factor 1 disappears, 0 absorbs.
PrimExpr foldMul(const PrimExpr& a, const PrimExpr& b) {
  if (PrimExpr folded = foldConstants(NodeKind::Mul, a, b)) return folded;
  auto ca = asIntImm(a), cb = asIntImm(b);
  if (ca && ca->value == 1) return b;
  if (cb && cb->value == 1) return a;
  if ((ca && ca->value == 0) || (cb && cb->value == 0)) return intImm(0, a->dtype);
  return binary(NodeKind::Mul, a, b);
}

class Lowerer : public BindingRewriter {
 protected:
  Expr rewriteValue(const BindingRef&, const Expr& value) override {
    auto c = value.as<Call>();
    if (!c || c->opName() != "relax.builtin.alloc_tensor" || c->args.size() != 4) return nullptr;
    auto dtype = c->args[1].as<DataTypeImm>();
    if (!dtype) return nullptr;
    const std::vector<PrimExpr>* dims = nullptr;
    if (auto s = c->args[0].as<ShapeExpr>()) dims = &s->values;
    else if (auto si = sinfoOf(c->args[0]).as<ShapeSInfo>(); si && si->values) dims = &*si->values;
    if (!dims) return nullptr;
    PrimExpr nbytes = intImm(dtype->value.bytes());
    for (auto& d : *dims) nbytes = foldMul(nbytes, d);
    Expr storage = makeCall("relax.memory.alloc_storage", {make<ShapeExpr>(std::vector<PrimExpr>{nbytes}), c->args[2], c->args[3], make<DataTypeImm>(DataType(DataType::UInt, 8))});
    Expr var = bindNamed(storage, "storage");
    if (!var) return nullptr;
    return makeCall("relax.memory.alloc_tensor", {var, primValue(0), c->args[0], c->args[1], c->args[2]});
  }

 private:
  // TVM's name supply within one function: storage, storage1, ...
  Expr bindNamed(const Expr& e, const std::string& base) {
    std::string name = count_ ? base + std::to_string(count_) : base;
    ++count_;
    auto v = builder().emit(e, name, e->span);
    return v.ok() ? Expr(v.value()) : Expr();
  }
  int count_ = 0;
};

}  // namespace

Result<Pass> createLowerAllocTensorPass(PassOptions&) { return makeMutatorPass<Lowerer>({"LowerAllocTensor", 0, {}}); }

}  // namespace rlx
