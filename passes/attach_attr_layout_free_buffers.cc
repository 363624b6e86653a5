// AttachAttrLayoutFreeBuffers (TVM v0.23's): a PrimFunc called by R.call_tir with model weights
// (parameters after "num_input") or constants as arguments gets a copy carrying
// {"layout_free_buffers": [positions of those arguments]}, so that schedulers may re-layout those
// buffers ahead of time; the call uses the copy (named <kernel>1, ... as TVM names it) and a kernel
// no longer called goes. Before: `R.call_tir(cls.matmul, (x, w), ...)` with w a weight
// After: `R.call_tir(cls.matmul1, (x, w), ...)`, matmul1 = matmul + T.func_attr({"layout_free_buffers": [1]}).
#include <map>
#include <set>

#include "ir/expr_mutator.h"
#include "passes/call_graph.h"
#include "passes/registry.h"

namespace rlx {

namespace {

class LayoutFreeAttacher : public ExprMutator {
 public:
  LayoutFreeAttacher(IRModuleRef mod, std::set<std::string>& names) : mod_(std::move(mod)), names_(names) {}
  IRModuleRef out;                   // the module with the copies added
  std::set<std::string> replaced;    // kernels some call no longer uses

  void setWeights(std::set<const Var*> weights) { weights_ = std::move(weights); }

 protected:
  Expr visitCall(const Ref<Call>& c0) override {
    Expr e = ExprMutator::visitCall(c0);
    auto c = e.as<Call>();
    if (!c || c->opName() != "relax.call_tir" || c->args.size() < 2) return e;
    auto gvar = c->args[0].as<GlobalVar>();
    auto args = c->args[1].as<Tuple>();
    auto* entry = gvar ? out->find(gvar->name) : nullptr;
    auto prim = entry ? entry->func.as<PrimFunc>() : Ref<PrimFunc>();
    if (!prim || !args || (prim->attrs && prim->attrs->find("layout_free_buffers"))) return e;
    std::vector<int64_t> positions;
    for (size_t k = 0; k < args->fields.size(); ++k) {
      auto v = args->fields[k].as<Var>();
      if (args->fields[k].is<Constant>() || (v && weights_.count(v.get()))) positions.push_back(int64_t(k));
    }
    if (positions.empty()) return e;
    auto key = std::make_pair(gvar->name, positions);
    auto it = copies_.find(key);
    if (it == copies_.end()) {
      auto copy = make<GlobalVar>(freshName(gvar->name));
      copy->sinfo = gvar->sinfo;
      out = withFunction(out, copy, withPrimFuncAttrs(*prim, withDictAttr(prim->attrs, "layout_free_buffers", AttrValue::ints(positions))));
      it = copies_.emplace(key, copy).first;
    }
    replaced.insert(gvar->name);
    std::vector<Expr> callArgs = c->args;
    callArgs[0] = it->second;
    auto nc = make<Call>(c->op, callArgs, c->attrs, c->sinfoArgs);
    nc->sinfo = c->sinfo;
    nc->span = c->span;
    return nc;
  }

 private:
  // <name>1, <name>2, ...: the first free one (TVM's global var name supply).
  std::string freshName(const std::string& base) {
    for (int n = 1;; ++n) {
      std::string name = base + std::to_string(n);
      if (!names_.count(name)) {
        names_.insert(name);
        return name;
      }
    }
  }

  IRModuleRef mod_;
  std::set<std::string>& names_;
  std::set<const Var*> weights_;
  std::map<std::pair<std::string, std::vector<int64_t>>, GlobalVarRef> copies_;
};

}  // namespace

Result<Pass> createAttachAttrLayoutFreeBuffersPass(PassOptions&) {
  return Pass({"AttachAttrLayoutFreeBuffers", 0, {}}, [](const IRModuleRef& mod, const PassContext& ctx) -> Result<IRModuleRef> {
    std::set<std::string> names;
    for (auto& e : mod->functions) names.insert(e.gvar->name);
    LayoutFreeAttacher attacher(mod, names);
    attacher.out = mod;
    for (auto& e : mod->functions) {
      auto f = e.func.as<Function>();
      if (!f || !ctx.inScope(e.gvar->name)) continue;
      // Weights: the parameters after num_input (all parameters are inputs when it is absent).
      size_t numInput = f->params.size();
      if (f->attrs)
        if (auto n = attrInt(f->attrs, "num_input"); n && *n >= 0) numInput = std::min(numInput, size_t(*n));
      std::set<const Var*> weights;
      for (size_t k = numInput; k < f->params.size(); ++k) weights.insert(f->params[k].get());
      attacher.setWeights(weights);
      Expr nf = attacher.mutate(e.func);
      if (!nf.same(e.func)) attacher.out = withFunction(attacher.out, e.gvar, nf);
    }
    IRModuleRef out = attacher.out;
    if (out.same(mod)) return mod;
    // Kernels every call of which now uses a copy go (TVM's output holds only the copies).
    std::vector<std::string> relaxFunctions;
    for (auto& e : out->functions)
      if (e.func.is<Function>()) relaxFunctions.push_back(e.gvar->name);
    std::set<std::string> used = reachableFunctions(out, relaxFunctions), keep;
    for (auto& e : out->functions)
      if (!attacher.replaced.count(e.gvar->name) || used.count(e.gvar->name)) keep.insert(e.gvar->name);
    return keepFunctions(out, keep);
  });
}

}  // namespace rlx
