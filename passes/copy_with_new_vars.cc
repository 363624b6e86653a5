// copyWithNewVars (see copy_with_new_vars.h): an ExprMutator that makes a new Var at each definition
// and maps uses through varMap; every node on the way is rebuilt, as the vars under it changed.
#include "passes/copy_with_new_vars.h"

#include "ir/expr_mutator.h"

namespace rlx {

namespace {

class Copier : public ExprMutator {
 protected:
  VarRef fresh(const VarRef& v) {
    auto nv = make<Var>(v->name, remapSInfo(v->sinfo), v->isDataflow());
    nv->span = v->span;
    varMap[v.get()] = nv;
    return nv;
  }

  BindingRef visitBinding(const BindingRef& b) override {
    Expr value = mutate(b->value);
    auto nb = make<Binding>(fresh(b->var), value, b->castSInfo);
    nb->span = b->span;
    return nb;
  }

  Expr visitFunction(const Ref<Function>& f) override {
    std::vector<VarRef> params;
    for (auto& p : f->params) params.push_back(fresh(p));
    Expr body = mutate(f->body);
    auto out = make<Function>(std::move(params), body, remapSInfo(f->retSInfo), f->isPure, f->attrs);
    out->sinfo = f->sinfo;
    out->span = f->span;
    return out;
  }
};

}  // namespace

Expr copyWithNewVars(const Expr& e) {
  Copier c;
  return c.mutate(e);
}

}  // namespace rlx
