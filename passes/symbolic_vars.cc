// Symbolic var analyses (see symbolic_vars.h): one walk over the expression that records uses and
// definitions as it meets binding vars, match_casts, parameters and leaf values.
#include "passes/symbolic_vars.h"

#include <algorithm>
#include <unordered_set>

#include "ir/arith.h"
#include "ir/expr_mutator.h"
#include "ir/expr_walk.h"
#include "ir/struct_info.h"

namespace rlx {

namespace {

void addUnique(std::vector<Ref<PrimVar>>& out, const Ref<PrimVar>& v) {
  if (std::none_of(out.begin(), out.end(), [&](auto& x) { return x.get() == v.get(); })) out.push_back(v);
}

void definable(const StructInfo& s, std::vector<Ref<PrimVar>>& out) {
  if (!s) return;
  auto standalone = [&](const PrimExpr& e) {
    if (auto v = e.as<PrimVar>()) addUnique(out, v);
  };
  if (auto p = s.as<PrimSInfo>()) {
    if (p->value) standalone(p->value);
  } else if (auto sh = s.as<ShapeSInfo>()) {
    if (sh->values)
      for (auto& d : *sh->values) standalone(d);
  } else if (auto t = s.as<TensorSInfo>()) {
    if (auto* dims = t->dims())
      for (auto& d : *dims) standalone(d);
  } else if (auto tu = s.as<TupleSInfo>()) {
    for (auto& f : tu->fields) definable(f, out);
  }
}

struct Collector {
  std::vector<Ref<PrimVar>> used, defined;

  void sinfo(const StructInfo& s) {
    std::vector<Ref<PrimVar>> vars;
    sinfoCollectVars(s, vars);
    for (auto& v : vars) addUnique(used, v);
  }
  void prim(const PrimExpr& e) {
    std::vector<Ref<PrimVar>> vars;
    collectVars(e, vars);
    for (auto& v : vars) addUnique(used, v);
  }

  void run(const Expr& root) {
    walkExpr(root, [&](const Expr& x) {
      if (auto f = x.as<Function>()) {
        for (auto& p : f->params) {
          definable(sinfoOf(p), defined);
          sinfo(sinfoOf(p));
        }
        sinfo(f->retSInfo);
      } else if (auto s = x.as<SeqExpr>()) {
        for (auto& block : s->blocks)
          for (auto& b : block->bindings) {
            if (b->isMatchCast()) definable(b->castSInfo, defined);
            sinfo(sinfoOf(b->var));
          }
      } else if (auto sh = x.as<ShapeExpr>()) {
        for (auto& v : sh->values) prim(v);
      } else if (auto pv = x.as<PrimValue>()) {
        prim(pv->value);
      } else if (auto c = x.as<Call>()) {
        for (auto& s : c->sinfoArgs) sinfo(s);
      }
    });
  }
};

}  // namespace

std::vector<Ref<PrimVar>> definableSymbols(const StructInfo& s) {
  std::vector<Ref<PrimVar>> out;
  definable(s, out);
  return out;
}

std::vector<Ref<PrimVar>> freeSymbols(const Expr& e) {
  Collector c;
  c.run(e);
  std::vector<Ref<PrimVar>> out;
  for (auto& v : c.used)
    if (std::none_of(c.defined.begin(), c.defined.end(), [&](auto& d) { return d.get() == v.get(); })) out.push_back(v);
  return out;
}

std::vector<Ref<PrimVar>> usedSymbols(const Expr& e) {
  Collector c;
  c.run(e);
  return c.used;
}

std::vector<Ref<PrimVar>> definedSymbols(const Expr& e) {
  Collector c;
  c.run(e);
  return c.defined;
}

namespace {

class SymbolSubstituter : public ExprMutator {
 public:
  explicit SymbolSubstituter(const PrimVarMap& map) : map_(map) {}

 protected:
  StructInfo sub(const StructInfo& s) const {
    if (!s) return s;
    StructInfo out = sinfoSubstitute(remapSInfo(s), map_);
    return sinfoEqual(out, s) ? s : out;
  }
  template <typename T>
  Expr withSInfo(Expr out, const Ref<T>& in) {
    if (!out.same(in)) out->sinfo = sub(in->sinfo);
    return out;
  }
  VarRef define(const VarRef& v) {
    StructInfo s = sub(v->sinfo);
    if (s.same(v->sinfo)) return v;
    auto nv = make<Var>(v->name, s, v->isDataflow());
    nv->span = v->span;
    varMap[v.get()] = nv;
    return nv;
  }

  Expr visitLeaf(const Expr& e) override {
    if (auto sh = e.as<ShapeExpr>()) {
      std::vector<PrimExpr> values;
      bool changed = false;
      for (auto& v : sh->values) {
        values.push_back(primSubstitute(v, map_));
        changed |= !exprDeepEqual(values.back(), v);
      }
      if (!changed) return e;
      auto out = make<ShapeExpr>(values);
      out->sinfo = make<ShapeSInfo>(std::move(values), 0);
      out->span = e->span;
      return out;
    }
    if (auto p = e.as<PrimValue>()) {
      PrimExpr v = primSubstitute(p->value, map_);
      if (exprDeepEqual(v, p->value)) return e;
      auto out = make<PrimValue>(v);
      out->sinfo = make<PrimSInfo>(v->dtype, v);
      out->span = e->span;
      return out;
    }
    return e;
  }

  Expr visitCall(const Ref<Call>& c) override {
    Expr e = ExprMutator::visitCall(c);
    auto call = e.as<Call>();
    std::vector<StructInfo> sargs;
    bool changed = !e.same(c);
    for (auto& s : call->sinfoArgs) {
      sargs.push_back(sub(s));
      changed |= !sargs.back().same(s);
    }
    StructInfo own = sub(c->sinfo);
    changed |= !own.same(c->sinfo);
    if (!changed) return c;
    auto out = make<Call>(call->op, call->args, call->attrs, std::move(sargs));
    out->sinfo = own;
    out->span = c->span;
    return out;
  }

  Expr visitTuple(const Ref<Tuple>& t) override { return withSInfo(ExprMutator::visitTuple(t), t); }
  Expr visitTupleGetItem(const Ref<TupleGetItem>& t) override { return withSInfo(ExprMutator::visitTupleGetItem(t), t); }
  Expr visitIf(const Ref<If>& i) override { return withSInfo(ExprMutator::visitIf(i), i); }
  Expr visitSeqExpr(const Ref<SeqExpr>& s) override { return withSInfo(ExprMutator::visitSeqExpr(s), s); }

  BindingRef visitBinding(const BindingRef& b) override {
    Expr value = mutate(b->value);
    StructInfo cast = sub(b->castSInfo);
    VarRef var = define(b->var);
    if (value.same(b->value) && var.same(b->var) && cast.same(b->castSInfo)) return b;
    auto nb = make<Binding>(var, value, cast);
    nb->span = b->span;
    return nb;
  }

  Expr visitFunction(const Ref<Function>& f) override {
    std::vector<VarRef> params;
    bool changed = false;
    for (auto& p : f->params) {
      params.push_back(define(p));
      changed |= !params.back().same(p);
    }
    Expr body = mutate(f->body);
    StructInfo ret = sub(f->retSInfo);
    if (!changed && body.same(f->body) && ret.same(f->retSInfo)) return f;
    auto out = make<Function>(std::move(params), body, ret, f->isPure, f->attrs);
    std::vector<StructInfo> ps;
    for (auto& p : out->params) ps.push_back(sinfoOf(p));
    out->sinfo = make<FuncSInfo>(std::move(ps), ret, f->isPure);
    out->span = f->span;
    return out;
  }

 private:
  const PrimVarMap& map_;
};

}  // namespace

Expr substituteSymbols(const Expr& e, const PrimVarMap& map) {
  if (map.empty()) return e;
  SymbolSubstituter s(map);
  return s.mutate(e);
}

}  // namespace rlx
