// ExpandTupleArguments: a private function taking tuple parameters takes their fields as separate
// parameters instead, recursively (TVM's pass). Why: tuples across calls hide which fields are
// used; flat parameters let RemoveUnusedParameters, lifting and fusion see each one.
// The callee rebuilds each tuple from its new parameters (`args = (args_0, args_1)`) at the top of
// its body; calls pass the fields (`t[i]`, or the field itself when the argument is a tuple
// literal). CanonicalizeBindings plus DeadCodeElimination then fold `args[i]` to the parameter.
// Before: `def f(args: R.Tuple(A, B)): return args[0]` and `f((x, y))`
// After:  `def f(args_0: A, args_1: B): return args_0` and `f(x, y)`.
#include <algorithm>
#include <functional>

#include "passes/registry.h"
#include "passes/signature_change.h"

namespace rlx {

namespace {

FunctionRef expandParams(const FunctionRef& f) {
  std::vector<VarRef> params;
  std::vector<BindingRef> rebuilds;  // inner tuples first, so each field is bound before its use
  std::function<void(const VarRef&)> expand = [&](const VarRef& p) {
    auto t = sinfoOf(p).as<TupleSInfo>();
    if (!t) {
      params.push_back(p);
      return;
    }
    std::vector<Expr> fields;
    for (size_t i = 0; i < t->fields.size(); ++i) {
      auto field = make<Var>(p->name + "_" + std::to_string(i), t->fields[i]);
      fields.push_back(field);
      expand(field);
    }
    rebuilds.push_back(make<Binding>(p, tupleOf(fields)));
  };
  for (auto& p : f->params) expand(p);
  auto seq = f->body.as<SeqExpr>();
  std::vector<BlockRef> blocks;
  if (!seq->blocks.empty() && !seq->blocks.front()->isDataflow()) {
    rebuilds.insert(rebuilds.end(), seq->blocks.front()->bindings.begin(), seq->blocks.front()->bindings.end());
    blocks.push_back(make<BindingBlock>(std::move(rebuilds), false));
    blocks.insert(blocks.end(), seq->blocks.begin() + 1, seq->blocks.end());
  } else {
    blocks.push_back(make<BindingBlock>(std::move(rebuilds), false));
    blocks.insert(blocks.end(), seq->blocks.begin(), seq->blocks.end());
  }
  auto body = make<SeqExpr>(std::move(blocks), seq->body);
  body->sinfo = seq->sinfo;
  body->span = seq->span;
  return rebuildFunction(*f, std::move(params), body, f->retSInfo);
}

// The argument list with every tuple-typed argument replaced by its fields, recursively.
void expandArg(const Expr& arg, std::vector<Expr>& out) {
  auto t = sinfoOf(arg).as<TupleSInfo>();
  if (!t) {
    out.push_back(arg);
    return;
  }
  auto literal = arg.as<Tuple>();
  for (size_t i = 0; i < t->fields.size(); ++i) {
    if (literal) {
      expandArg(literal->fields[i], out);
      continue;
    }
    auto item = make<TupleGetItem>(arg, int(i));
    item->sinfo = t->fields[i];
    expandArg(item, out);
  }
}

}  // namespace

Result<Pass> createExpandTupleArgumentsPass(PassOptions&) {
  return Pass({"ExpandTupleArguments", 0, {}}, [](const IRModuleRef& mod, const PassContext&) -> Result<IRModuleRef> {
    std::map<std::string, CalleeChange> changes;
    for (auto& e : mod->functions) {
      auto f = e.func.as<Function>();
      if (!f || isPublicFunction(*f) || !f->body.is<SeqExpr>()) continue;
      if (std::none_of(f->params.begin(), f->params.end(), [](auto& p) { return sinfoOf(p).template is<TupleSInfo>(); })) continue;
      CalleeChange change;
      change.func = expandParams(f);
      change.rewriteCall = [](const Call& call, const GlobalVarRef& gvar, const CalleeChange::Bind&) -> Expr {
        std::vector<Expr> args;
        for (auto& a : call.args) expandArg(a, args);
        return make<Call>(gvar, std::move(args), call.attrs, call.sinfoArgs);
      };
      changes[e.gvar->name] = std::move(change);
    }
    if (changes.empty()) return mod;
    return canonicalizeAndEliminate(applyCalleeChanges(mod, changes));
  });
}

}  // namespace rlx
