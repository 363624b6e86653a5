// LazySetOutput: a public function stops returning its results and instead hands each one to a
// callback `fset_output(index, value)` as soon as it is computed (TVM's pass). Why: a caller can
// store or copy each output while the rest is still being computed, and its memory can be freed
// early instead of living until the function returns.
// The callback becomes a parameter right after the runtime inputs (num_input grows by one; without
// the attr it is the last parameter); the function returns R.tuple() and is impure (without
// "relax.force_pure"). A result that
// is a parameter is set at the start, one bound in the body right after its binding, one written
// inline (a constant, a prim value) at the end; a value in several outputs is set once per index.
// Calls for values bound in a dataflow block follow that block (impure calls may not sit in one).
// A function already returning an empty tuple has no output to set and is left as it is, and so
// is one that other functions of the module call (they use its results).
// Before: `def f(a): c = R.multiply(a, a); d = R.add(c, a); return (c, d)`
// After:  `def f(a, fset_output): c = ...; fset_output(R.prim_value(0), c); d = ...;
//          fset_output(R.prim_value(1), d); return R.tuple()`.
#include <map>
#include <unordered_map>

#include "passes/emitting_mutator.h"
#include "passes/registry.h"
#include "passes/signature_change.h"

namespace rlx {

namespace {

class OutputSetter : public EmittingMutator {
 public:
  std::unordered_map<const Var*, std::vector<int64_t>> outputs;  // var -> output indices
  VarRef setter;

  Expr setCall(int64_t index, const Expr& value) const {
    auto i = make<PrimValue>(intImm(index));
    i->sinfo = make<PrimSInfo>(DataType::int64(), i->value);
    auto call = make<Call>(setter, std::vector<Expr>{i, value});
    call->sinfo = voidSInfo();
    return call;
  }

 protected:
  void afterBinding(const BindingRef& original, const BindingRef& rebuilt) override {
    auto it = outputs.find(original->var.get());
    if (it == outputs.end() || !rebuilt) return;
    for (int64_t i : it->second) emitAfter(setCall(i, rebuilt->var), "_void");
  }
};

}  // namespace

Result<Pass> createLazySetOutputPass(PassOptions&) {
  return makeFunctionPass({"LazySetOutput", 0, {}}, [](const Expr& func, const GlobalVarRef& gvar, const IRModuleRef& mod) -> Result<Expr> {
    auto f = func.as<Function>();
    // A function the module itself calls keeps its signature (its callers would break).
    if (referencedByOthers(*mod).count(gvar->name)) return func;
    auto seq = f->body.as<SeqExpr>();
    if (!isPublicFunction(*f) || !seq) return func;
    auto numInput = attrInt(f->attrs, "num_input");
    if (numInput && (*numInput < 0 || size_t(*numInput) > f->params.size()))
      return Error("LazySetOutput: function '" + gvar->name + "' has num_input " + std::to_string(*numInput) + " but " + std::to_string(f->params.size()) + " parameters");
    if (isVoidSInfo(sinfoOf(seq->body))) return func;
    OutputSetter setter;
    std::vector<std::pair<int64_t, Expr>> inlineOutputs;
    auto define = [&](int64_t index, const Expr& value) {
      if (auto v = value.as<Var>()) setter.outputs[v.get()].push_back(index);
      else inlineOutputs.push_back({index, value});
    };
    if (auto t = seq->body.as<Tuple>()) {
      for (size_t i = 0; i < t->fields.size(); ++i) define(int64_t(i), t->fields[i]);
    } else {
      define(0, seq->body);
    }
    setter.setter = make<Var>("fset_output", make<FuncSInfo>(std::vector<StructInfo>{make<PrimSInfo>(DataType::int64()), objectSInfo()}, voidSInfo(), false));
    auto setBinding = [&](int64_t index, const Expr& value) { return make<Binding>(make<Var>("_void", voidSInfo()), setter.setCall(index, value)); };
    std::vector<BindingRef> start, end;
    for (auto& p : f->params)
      if (auto it = setter.outputs.find(p.get()); it != setter.outputs.end())
        for (int64_t i : it->second) start.push_back(setBinding(i, p));
    for (auto& [i, value] : inlineOutputs) end.push_back(setBinding(i, value));
    // The body's own bindings get their calls from the mutator; the start and end blocks are added
    // around the result.
    auto inner = setter.mutate(makeSeqExpr(seq->blocks, seq->body)).as<SeqExpr>();
    std::vector<BlockRef> blocks{make<BindingBlock>(std::move(start), false)};
    // An impure call may not sit in a dataflow block: the calls for a dataflow block's outputs
    // follow the block (its outputs live on after it), in the same order.
    for (auto& block : inner->blocks) {
      if (!block->isDataflow()) {
        blocks.push_back(block);
        continue;
      }
      std::vector<BindingRef> kept, moved;
      for (auto& b : block->bindings) {
        auto call = b->value.as<Call>();
        (call && call->op.same(setter.setter) ? moved : kept).push_back(b);
      }
      blocks.push_back(make<BindingBlock>(std::move(kept), true));
      for (auto& b : moved) b = make<Binding>(make<Var>(b->var->name, b->var->sinfo), b->value);
      blocks.push_back(make<BindingBlock>(std::move(moved), false));
    }
    blocks.push_back(make<BindingBlock>(std::move(end), false));
    Expr result = tupleOf({});
    auto body = makeSeqExpr(blocks, result);
    body->span = seq->span;
    std::vector<VarRef> params = f->params;
    params.insert(params.begin() + (numInput ? long(*numInput) : long(params.size())), setter.setter);
    AttrsRef attrs = numInput ? withDictAttr(f->attrs, "num_input", AttrValue::integer(*numInput + 1)) : f->attrs;
    attrs = withoutDictAttr(attrs, "relax.force_pure");  // the function is impure now
    auto nf = make<Function>(std::move(params), body, sinfoOf(result), false, attrs);
    nf->sinfo = functionSInfo(*nf);
    nf->span = f->span;
    return Expr(nf);
  });
}

}  // namespace rlx
