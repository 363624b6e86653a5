// FoldConstant: evaluates, at compile time, op calls whose inputs are all known — with the
// reference evaluator (ir/eval.h) instead of TVM's legalize-build-run — and replaces them by
// constants. Why: constant subgraphs (weight preprocessing, shape computations) cost nothing at
// run time once folded, and later passes see plain constants.
// Semantics follow TVM v0.23's relax.transform.FoldConstant:
//  - uses of a var bound to a constant become the constant; a var bound to a ShapeExpr is
//    inlined into the op calls that take it;
//  - inside dataflow blocks only, an op call is folded when every argument is a constant (tensor,
//    shape, prim value, string, dtype, or tuples of them) and the op has an evaluator; R.shape_of
//    of a tensor whose shape is known folds to that shape (symbolic dims included);
//  - an op without tensor inputs whose result would exceed 1024 elements (R.zeros, R.arange, ...)
//    is left alone: it is cheaper to compute at run time than to store (TVM's size heuristic);
//  - finally unused bindings are removed (TVM's RemoveAllUnused), so folded chains disappear.
//  - R.call_tir of a module PrimFunc on constant tensors with a static single-tensor result folds
//    anywhere (not only in dataflow blocks), computed by the TIR interpreter (ir/tir_eval.h);
// Calls the evaluator cannot handle (integer division by zero, ops without evaluator) stay as
// they are. Tuple results fold to tuples of constants; `t[i]` of such a tuple to the field.
// Before: `with R.dataflow(): lv = R.add(c0, c1); gv = R.multiply(lv, x); R.output(gv)`
// After:  `with R.dataflow(): gv = R.multiply(<c0+c1>, x); R.output(gv)`
#include <unordered_map>

#include "ir/eval.h"
#include "ir/expr_mutator.h"
#include "ir/ops/eval_util.h"
#include "ir/tir_eval.h"
#include "passes/fold_constant.h"
#include "passes/registry.h"
#include "passes/remove_all_unused.h"

namespace rlx {

namespace {

constexpr int64_t kMaxCreatedElements = 1024;

bool isConstantLeaf(const Expr& e) {
  switch (e->kind()) {
    case NodeKind::Constant:
    case NodeKind::StringImm:
    case NodeKind::DataTypeImm:
      return true;
    case NodeKind::ShapeExpr:
    case NodeKind::PrimValue:
    case NodeKind::Tuple:
      return constantValue(e).has_value();
    default:
      return false;
  }
}

bool hasTensorInput(const std::vector<Value>& args) {
  for (auto& a : args) {
    if (a.kind == Value::Tensor) return true;
    if (a.kind == Value::Tuple && hasTensorInput(a.fields)) return true;
  }
  return false;
}

int64_t elementCount(const Value& v) {
  if (v.kind == Value::Tensor) return v.tensor->numel();
  int64_t n = 0;
  for (auto& f : v.fields) n += elementCount(f);
  return n;
}

}  // namespace

Expr foldShapeOf(const Ref<Call>& call) {
  if (call->args.size() != 1) return call;
  auto t = sinfoOf(call->args[0]).as<TensorSInfo>();
  if (!t || !t->dims()) return call;
  auto shape = make<ShapeExpr>(*t->dims());
  shape->sinfo = make<ShapeSInfo>(*t->dims(), 0);
  shape->span = call->span;
  return shape;
}

Expr foldOpCall(const Ref<Call>& call) {
  if (!findEval(call->opName())) return call;
  std::vector<Value> args;
  for (auto& a : call->args) {
    auto v = constantValue(a);
    if (!v) return call;
    args.push_back(std::move(*v));
  }
  auto result = evaluateCall(*call, args);
  if (!result.ok()) return call;
  if (!hasTensorInput(args) && elementCount(result.value()) > kMaxCreatedElements) return call;
  Expr folded = valueToExpr(result.value());
  folded->span = call->span;
  return folded;
}

// R.call_tir(cls.f, (constants...), out_sinfo=<static tensor>) runs f with the TIR interpreter.
Expr foldCallTIR(const Ref<Call>& call, const IRModuleRef& mod) {
  if (call->args.size() != 2 || call->sinfoArgs.size() != 1) return call;
  auto gv = call->args[0].as<GlobalVar>();
  auto inputs = call->args[1].as<Tuple>();
  auto out = call->sinfoArgs[0].as<TensorSInfo>();
  if (!gv || !inputs || !out || !out->dims() || out->dtype.isVoid()) return call;
  auto func = mod->lookup(gv->name).as<PrimFunc>();
  if (!func) return call;
  std::vector<TirArg> args;
  bool tensorInput = false;
  for (auto& f : inputs->fields) {
    auto c = f.as<Constant>();
    if (!c) return call;
    args.emplace_back(c->data);
    tensorInput = true;
  }
  ops::Shape dims;
  for (auto& d : *out->dims()) {
    auto v = d.as<IntImm>();
    if (!v) return call;
    dims.push_back(v->value);
  }
  if (!tensorInput && ops::numelOf(dims) > kMaxCreatedElements) return call;
  NDArrayRef result = ops::allocTensor(out->dtype, dims);
  args.emplace_back(result);
  if (!runPrimFunc(*func, args).ok()) return call;
  Expr folded = valueToExpr(Value::ofTensor(result));
  folded->span = call->span;
  return folded;
}

namespace {

class ConstantFolder : public ExprMutator {
 public:
  explicit ConstantFolder(IRModuleRef mod) : mod_(std::move(mod)) {}

 protected:
  BlockRef visitBlock(const BlockRef& b) override {
    bool saved = inDataflow_;
    inDataflow_ = b->isDataflow();
    BlockRef out = ExprMutator::visitBlock(b);
    inDataflow_ = saved;
    return out;
  }

  BindingRef visitBinding(const BindingRef& b) override {
    BindingRef nb = ExprMutator::visitBinding(b);
    if (!nb->isMatchCast()) bound_[nb->var.get()] = nb->value;
    return nb;
  }

  Expr visitVar(const Ref<Var>& v) override {
    Expr e = ExprMutator::visitVar(v);
    if (auto var = e.as<Var>()) {
      auto it = bound_.find(var.get());
      if (it != bound_.end() && it->second->kind() == NodeKind::Constant) return it->second;
    }
    return e;
  }

  Expr visitTupleGetItem(const Ref<TupleGetItem>& t) override {
    Expr e = ExprMutator::visitTupleGetItem(t);
    auto item = e.as<TupleGetItem>();
    if (!item) return e;
    Expr tuple = lookThrough(item->tuple);
    auto lit = tuple.as<Tuple>();
    if (lit && item->index >= 0 && size_t(item->index) < lit->fields.size() && isConstantLeaf(lit->fields[item->index]))
      return lit->fields[item->index];
    return e;
  }

  Expr visitCall(const Ref<Call>& c) override {
    Expr e = ExprMutator::visitCall(c);
    auto call = e.as<Call>();
    if (!call || !call->op.is<Op>()) return e;
    call = inlineShapeArgs(call);
    if (call->opName() == "relax.call_tir") return foldCallTIR(call, mod_);  // anywhere, as TVM does
    if (!inDataflow_) return call;
    if (call->opName() == "relax.shape_of") return foldShapeOf(call);
    return foldOpCall(call);
  }


 private:
  // The value a var is bound to (itself when unbound, e.g. a parameter).
  Expr lookThrough(const Expr& e) const {
    if (auto v = e.as<Var>()) {
      auto it = bound_.find(v.get());
      if (it != bound_.end()) return it->second;
    }
    return e;
  }

  Ref<Call> inlineShapeArgs(const Ref<Call>& call) {
    std::vector<Expr> args = call->args;
    bool changed = false;
    for (auto& a : args) {
      Expr value = lookThrough(a);
      if (!value.same(a) && value->kind() == NodeKind::ShapeExpr) {
        a = value;
        changed = true;
      }
    }
    if (!changed) return call;
    auto out = make<Call>(call->op, std::move(args), call->attrs, call->sinfoArgs);
    out->sinfo = call->sinfo;
    out->span = call->span;
    return out;
  }

  IRModuleRef mod_;
  bool inDataflow_ = false;
  std::unordered_map<const Var*, Expr> bound_;
};

}  // namespace

Result<Pass> createFoldConstantPass(PassOptions&) {
  return makeFunctionPass({"FoldConstant", 0, {}}, [](const Expr& func, const GlobalVarRef&, const IRModuleRef& mod) -> Result<Expr> {
    ConstantFolder folder(mod);
    return removeAllUnused(folder.mutate(func));
  });
}

}  // namespace rlx
