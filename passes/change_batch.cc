// ChangeBatch: Relay's pass with Relax semantics (TVM Relax has none). The named parameters'
// R.Tensor struct info gets `batch_size` at the given axis, and the function's bindings, result and
// return struct info are re-inferred from the new shapes (InferType). Why: re-target a model
// exported for one batch size to another without re-importing it.
// Options: params={"x": 0, ...} maps a parameter name to the axis holding its batch (Relay's map of
// vars to axes; 0 for the usual leading batch dim); batch_size (default 1). Every Relax function
// with a parameter of that name changes. A symbolic batch dim (`"n"`) is bound to batch_size
// throughout the function, as BindSymbolicVars would; a dim that is an expression (`n * 2`), a
// name no function has, an axis outside the tensor's known shape or a parameter that is not such
// a tensor is an error. Bindings whose struct info was annotated by hand follow the inferred one;
// an op the new shape does not fit keeps its old struct info (run `rlx check` after).
// Before: `def main(x: R.Tensor((4, 3))): y = R.add(x, x)`   with params={"x": 0}, batch_size=1
// After:  `def main(x: R.Tensor((1, 3))): y: R.Tensor((1, 3)) = R.add(x, x)`.
#include <map>
#include <set>

#include "ir/block_builder.h"
#include "ir/expr_mutator.h"
#include "ir/struct_info.h"
#include "passes/registry.h"
#include "passes/signature_change.h"
#include "passes/symbolic_vars.h"

namespace rlx {

Result<Pass> createChangeBatchPass(PassOptions& options) {
  std::map<std::string, int64_t> axes;
  for (auto& [name, value] : options.dict("params").value_or(std::vector<std::pair<std::string, Attr>>{})) {
    if (!value || value->kind != AttrValue::Int) return Error("ChangeBatch: params maps parameter names to the axis of their batch dim (\"" + name + "\" is not an integer)");
    axes[name] = value->i;
  }
  int64_t batch = options.integer("batch_size").value_or(1);
  if (batch <= 0) return Error("ChangeBatch: batch_size must be positive, not " + std::to_string(batch));
  return Pass({"ChangeBatch", 1, {}}, [axes, batch](const IRModuleRef& mod, const PassContext&) -> Result<IRModuleRef> {
    if (axes.empty()) return mod;
    std::set<std::string> found;
    std::vector<std::string> changed;
    IRModuleRef out = mod;
    for (auto& e : mod->functions) {
      auto f = e.func.as<Function>();
      if (!f) continue;
      std::vector<VarRef> params;
      std::unordered_map<const Var*, Expr> subst;
      PrimVarMap symbols;
      for (auto& p : f->params) {
        auto it = axes.find(p->name);
        if (it == axes.end()) {
          params.push_back(p);
          continue;
        }
        found.insert(p->name);
        auto t = sinfoOf(p).as<TensorSInfo>();
        auto* dims = t ? t->dims() : nullptr;
        if (!dims) return Error("ChangeBatch: parameter '" + p->name + "' of '" + e.gvar->name + "' is not a tensor of known shape");
        if (it->second < 0 || size_t(it->second) >= dims->size())
          return Error("ChangeBatch: axis " + std::to_string(it->second) + " is outside parameter '" + p->name + "' of rank " + std::to_string(dims->size()));
        const PrimExpr& dim = (*dims)[size_t(it->second)];
        auto* old = asIntImm(dim);
        if (old && old->value == batch) {
          params.push_back(p);
          continue;
        }
        if (auto var = dim.as<PrimVar>()) {
          // A symbolic batch: the var is the batch size everywhere in the function.
          symbols[var.get()] = intImm(batch, var->dtype);
          params.push_back(p);
          continue;
        }
        if (!old) return Error("ChangeBatch: dim " + std::to_string(it->second) + " of parameter '" + p->name + "' is an expression, neither a constant nor a symbolic var");
        std::vector<PrimExpr> newDims = *dims;
        newDims[size_t(it->second)] = intImm(batch, (*dims)[size_t(it->second)]->dtype);
        auto np = make<Var>(p->name, tensorSInfo(std::move(newDims), t->dtype, t->vdevice));
        np->span = p->span;
        params.push_back(np);
        subst[p.get()] = np;
      }
      if (subst.empty() && symbols.empty()) continue;
      Expr body = substituteVars(f->body, subst);
      Expr nf = substituteSymbols(rebuildFunction(*f, std::move(params), body, f->retSInfo), symbols);
      out = withFunction(out, e.gvar, nf);
      changed.push_back(e.gvar->name);
    }
    for (auto& [name, axis] : axes)
      if (!found.count(name)) return Error("ChangeBatch: no function has a parameter named '" + name + "'");
    if (changed.empty()) return out;
    // Re-infer what the new shapes imply, in the changed functions only.
    RLX_TRY(infer, parsePipeline("InferType"));
    PassContext ctx;
    ctx.scope = changed;
    RLX_TRY(inferred, runSequential(infer, out, ctx));
    // The return struct info follows the body (InferType keeps an annotation more specific than
    // what it infers, which the old batch size is not).
    IRModuleRef result = inferred;
    for (auto& name : changed) {
      auto* e = result->find(name);
      auto f = e->func.as<Function>();
      auto seq = f->body.as<SeqExpr>();
      StructInfo ret = seq ? eraseToSignature(sinfoOf(seq->body), f->params) : f->retSInfo;
      if (!sinfoEqual(ret, f->retSInfo)) result = withFunction(result, e->gvar, rebuildFunction(*f, f->params, f->body, ret));
    }
    return result;
  });
}

}  // namespace rlx
