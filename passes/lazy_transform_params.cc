// LazyTransformParams: turns every `*transform_params` function (as LiftTransformParams makes them)
// into one that loads each weight on demand through a packed function and hands each result to
// another as soon as it is computed, freeing loaded weights after their last use (TVM's pass).
// Why: transforming a model's weights then needs memory for a few tensors at a time, not for all
// inputs and all outputs at once.
// Expects a function without dataflow blocks and purity checks (ToNonDataflow, RemovePurityChecking).
// - Inputs (the parameters after num_input, default 0). When they are one tuple, each `params[i]`
//   becomes `R.match_cast(R.call_packed(fget_item, R.prim_value(i)), <its struct info>)`; otherwise
//   the first use of parameter i binds it by that match_cast. Parameters before num_input stay, and
//   each R.Prim / R.Shape among the inputs' struct info stays as a parameter too (symbolic vars).
// - Outputs (the fields of the returned tuple var), with fset_item set: `R.call_packed(fset_item,
//   R.prim_value(i), value)` right after the binding where the value is last used (bound values
//   first, for each index it appears at; constants at the end), and the function returns R.tuple().
// - A var bound to `params[i]` gets `R.vm.kill_object` after its last use.
// The function becomes impure; "relax.force_pure" goes. fset_item=None keeps the outputs; a
// function without inputs is left as it is (so a second run changes nothing).
// extra_get_item_params / extra_set_item_params (lists of names; TVM takes vars) add R.Object
// parameters, after the runtime inputs, that the callbacks receive before the index.
// Before: `def main_transform_params(params: R.Tuple(A)): a = params[0]; b = R.add(a, a); out = (b,); return out`
// After:  `gv = R.call_packed("get_item", R.prim_value(0)); gv1 = R.match_cast(gv, A); a = gv1;
//          b = R.add(a, a); _ = R.vm.kill_object(a); _1 = R.call_packed("set_item", R.prim_value(0), b);
//          out = R.tuple(); return out`.
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "ir/block_builder.h"
#include "ir/expr_walk.h"
#include "ir/op.h"
#include "ir/struct_info.h"
#include "passes/emitting_mutator.h"
#include "passes/registry.h"
#include "passes/signature_change.h"

namespace rlx {

namespace {

Expr packedCall(const std::string& name, std::vector<Expr> args) {
  auto callee = make<ExternFunc>(name);
  callee->sinfo = make<FuncSInfo>(std::nullopt, objectSInfo(), false);
  auto call = make<Call>(callee, std::move(args), nullptr, std::vector<StructInfo>{objectSInfo()});
  call->sinfo = objectSInfo();
  return call;
}

Expr indexValue(int64_t i) {
  auto p = make<PrimValue>(intImm(i));
  p->sinfo = make<PrimSInfo>(DataType::int64(), p->value);
  return p;
}

// For every binding, the vars whose last use it is (in use order), itself included when nothing
// uses it later; the binding of the returned tuple does not count as a use.
std::unordered_map<const Var*, std::vector<const Var*>> lastUses(const SeqExpr& seq, const Var* outputVar) {
  std::unordered_map<const Var*, std::vector<const Var*>> out;
  std::unordered_set<const Var*> ended;
  for (auto bi = seq.blocks.rbegin(); bi != seq.blocks.rend(); ++bi)
    for (auto b = (*bi)->bindings.rbegin(); b != (*bi)->bindings.rend(); ++b) {
      if ((*b)->var.get() == outputVar) continue;
      std::vector<const Var*> ending;
      walkExpr((*b)->value, [&](const Expr& e) {
        if (auto v = e.as<Var>(); v && ended.insert(v.get()).second) ending.push_back(v.get());
      });
      if (ended.insert((*b)->var.get()).second) ending.push_back((*b)->var.get());
      out[(*b)->var.get()] = std::move(ending);
    }
  return out;
}

struct Options {
  std::string getItem = "get_item";
  std::optional<std::string> setItem = "set_item";
  // Names of R.Object parameters the callbacks take before the index (a loader, a setter).
  std::vector<std::string> extraGetParams, extraSetParams;
};

class Lazifier : public EmittingMutator {
 public:
  Lazifier(const Options& opts, const Function& f, size_t numInput) : opts_(opts) {
    for (auto& n : opts.extraGetParams) extraGet_.push_back(make<Var>(n, objectSInfo()));
    for (auto& n : opts.extraSetParams) extraSet_.push_back(make<Var>(n, objectSInfo()));
    std::vector<VarRef> inputs(f.params.begin() + long(numInput), f.params.end());
    if (inputs.size() == 1 && sinfoOf(inputs[0]).is<TupleSInfo>()) tupleParam_ = inputs[0].get();
    else
      for (size_t i = 0; i < inputs.size(); ++i) params_[inputs[i].get()] = int64_t(i);
    auto seq = f.body.as<SeqExpr>();
    outputVar_ = seq->body.as<Var>().get();
    for (auto& block : seq->blocks)
      for (auto& b : block->bindings) {
        if (b->var.get() == outputVar_) {
          if (auto t = b->value.as<Tuple>())
            for (size_t i = 0; i < t->fields.size(); ++i) {
              if (t->fields[i].as<Var>()) outputs_[t->fields[i].as<Var>().get()].push_back(int64_t(i));
              else inlineOutputs_.push_back({int64_t(i), t->fields[i]});
            }
        } else if (auto item = b->value.as<TupleGetItem>(); item && tupleParam_ && item->tuple.get() == tupleParam_) {
          loadedParams_.insert(b->var.get());
        }
      }
    lastUses_ = lastUses(*seq, outputVar_);
  }

  std::vector<VarRef> extraGet_, extraSet_;

  // The constants and other non-var outputs, set at the end of the function.
  std::vector<BindingRef> inlineSets() {
    std::vector<BindingRef> out;
    if (!opts_.setItem) return out;
    for (auto& [i, value] : inlineOutputs_) out.push_back(make<Binding>(make<Var>("_", objectSInfo()), setCall(i, value)));
    return out;
  }

 protected:
  Expr getCall(int64_t i) const {
    std::vector<Expr> args(extraGet_.begin(), extraGet_.end());
    args.push_back(indexValue(i));
    return packedCall(opts_.getItem, std::move(args));
  }
  Expr setCall(int64_t i, const Expr& value) const {
    std::vector<Expr> args(extraSet_.begin(), extraSet_.end());
    args.push_back(indexValue(i));
    args.push_back(value);
    return packedCall(*opts_.setItem, std::move(args));
  }

  Expr visitVar(const Ref<Var>& v) override {
    auto it = params_.find(v.get());
    if (it == params_.end()) return ExprMutator::visitVar(v);
    // The first use loads the parameter and binds the parameter var itself to it.
    VarRef loaded = emit(getCall(it->second), v->name);
    emitBinding(make<Binding>(v, loaded, v->sinfo));
    params_.erase(it);
    return v;
  }

  Expr visitTupleGetItem(const Ref<TupleGetItem>& t) override {
    Expr e = ExprMutator::visitTupleGetItem(t);
    if (!tupleParam_ || t->tuple.get() != tupleParam_) return e;
    VarRef loaded = emit(getCall(t->index), "gv");
    return emit(loaded, "gv", t->sinfo);
  }

  BindingRef visitBinding(const BindingRef& b) override {
    if (opts_.setItem && b->var.get() == outputVar_) {
      // The function now returns an empty tuple; the outputs went out through fset_item.
      auto var = make<Var>(b->var->name, voidSInfo(), b->var->isDataflow());
      varMap[b->var.get()] = var;
      return make<Binding>(var, tupleOf({}));
    }
    return EmittingMutator::visitBinding(b);
  }

  void afterBinding(const BindingRef& original, const BindingRef& rebuilt) override {
    if (!opts_.setItem || original->var.get() == outputVar_) return;
    auto it = lastUses_.find(original->var.get());
    if (it == lastUses_.end()) return;
    for (const Var* v : it->second) {
      Expr use = mutate(Expr(const_cast<Var*>(v)));
      if (auto out = outputs_.find(v); out != outputs_.end())
        for (int64_t i : out->second) emitAfter(setCall(i, use), "_");
      if (loadedParams_.count(v)) {
        Expr kill = makeCall("relax.vm.kill_object", {use});
        kill->sinfo = voidSInfo();
        emitAfter(kill, "_");
      }
    }
  }

 private:
  const Options& opts_;
  const Var* tupleParam_ = nullptr;
  std::unordered_map<const Var*, int64_t> params_;
  const Var* outputVar_ = nullptr;
  std::map<const Var*, std::vector<int64_t>> outputs_;
  std::vector<std::pair<int64_t, Expr>> inlineOutputs_;
  std::unordered_set<const Var*> loadedParams_;
  std::unordered_map<const Var*, std::vector<const Var*>> lastUses_;
};

bool endsWith(const std::string& s, const std::string& suffix) { return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0; }

// The R.Prim and R.Shape parts of a struct info, tuples unpacked: symbolic vars a caller supplies.
void symbolHolders(const StructInfo& s, std::vector<VarRef>& out) {
  if (auto t = s.as<TupleSInfo>()) {
    for (auto& f : t->fields) symbolHolders(f, out);
  } else if (s && (s.is<PrimSInfo>() || s.is<ShapeSInfo>())) {
    out.push_back(make<Var>("symbolic_var_holder", s));
  }
}

Result<Expr> lazify(const Options& opts, const FunctionRef& f, const std::string& name) {
  auto seq = f->body.as<SeqExpr>();
  int64_t numInput = attrInt(f->attrs, "num_input").value_or(0);
  if (numInput < 0 || size_t(numInput) > f->params.size())
    return Error("LazyTransformParams: function '" + name + "' has num_input " + std::to_string(numInput) + " but " + std::to_string(f->params.size()) + " parameters");
  if (!seq || size_t(numInput) == f->params.size()) return Expr(f);
  for (auto& block : seq->blocks)
    if (block->isDataflow()) return Error("LazyTransformParams: '" + name + "' has a dataflow block; run ToNonDataflow first");
  Lazifier lazifier(opts, *f, size_t(numInput));
  auto body = lazifier.mutate(seq).as<SeqExpr>();
  std::vector<BlockRef> blocks = body->blocks;
  blocks.push_back(make<BindingBlock>(lazifier.inlineSets(), false));
  Expr result = body->body;
  auto newBody = makeSeqExpr(blocks, result);
  newBody->span = seq->span;
  std::vector<VarRef> params(f->params.begin(), f->params.begin() + numInput);
  params.insert(params.end(), lazifier.extraGet_.begin(), lazifier.extraGet_.end());
  if (opts.setItem) params.insert(params.end(), lazifier.extraSet_.begin(), lazifier.extraSet_.end());
  std::vector<Ref<PrimVar>> symbols;
  for (auto& p : f->params) sinfoCollectVars(sinfoOf(p), symbols);
  if (!symbols.empty())
    for (size_t i = size_t(numInput); i < f->params.size(); ++i) symbolHolders(sinfoOf(f->params[i]), params);
  AttrsRef attrs = withoutDictAttr(f->attrs, "relax.force_pure");
  StructInfo ret = eraseToSignature(sinfoOf(result), params);
  auto nf = make<Function>(std::move(params), newBody, ret, false, attrs);
  nf->sinfo = functionSInfo(*nf);
  nf->span = f->span;
  return Expr(nf);
}

}  // namespace

Result<Pass> createLazyTransformParamsPass(PassOptions& options) {
  Options opts;
  if (options.isNone("fget_item")) return Error("LazyTransformParams: fget_item cannot be None (only setting outputs lazily is not supported)");
  opts.getItem = options.string("fget_item").value_or("get_item");
  opts.extraGetParams = options.strings("extra_get_item_params").value_or(std::vector<std::string>{});
  opts.extraSetParams = options.strings("extra_set_item_params").value_or(std::vector<std::string>{});
  bool noSetItem = options.isNone("fset_item");
  opts.setItem = options.string("fset_item").value_or("set_item");
  if (noSetItem) opts.setItem.reset();
  return makeFunctionPass({"LazyTransformParams", 0, {}}, [opts](const Expr& func, const GlobalVarRef& gvar, const IRModuleRef&) -> Result<Expr> {
    if (!endsWith(gvar->name, "transform_params")) return func;
    return lazify(opts, func.as<Function>(), gvar->name);
  });
}

}  // namespace rlx
