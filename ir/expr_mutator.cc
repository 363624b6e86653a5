// Default ExprMutator traversal: children first, then a new node only when a child changed.
// Struct info is carried over from the old node (passes that change types re-normalize).
#include "ir/expr_mutator.h"

#include "ir/expr_walk.h"
#include "ir/struct_info.h"

namespace rlx {

namespace {
template <typename T>
bool sameList(const std::vector<T>& a, const std::vector<T>& b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (!a[i].same(b[i])) return false;
  return true;
}
template <typename T>
Ref<T> keepInfo(Ref<T> fresh, const Expr& old) {
  fresh->sinfo = old->sinfo;
  fresh->span = old->span;
  return fresh;
}
}  // namespace

Expr ExprMutator::mutate(const Expr& e) {
  if (!e) return e;
  switch (e->kind()) {
    case NodeKind::Var:
    case NodeKind::DataflowVar: return visitVar(e.as<Var>());
    case NodeKind::Call: return visitCall(e.as<Call>());
    case NodeKind::Tuple: return visitTuple(e.as<Tuple>());
    case NodeKind::TupleGetItem: return visitTupleGetItem(e.as<TupleGetItem>());
    case NodeKind::If: return visitIf(e.as<If>());
    case NodeKind::SeqExpr: return visitSeqExpr(e.as<SeqExpr>());
    case NodeKind::Function: return visitFunction(e.as<Function>());
    default: return visitLeaf(e);
  }
}

Expr ExprMutator::visitVar(const Ref<Var>& v) {
  auto it = varMap.find(v.get());
  return it == varMap.end() ? Expr(v) : it->second;
}

StructInfo ExprMutator::remapSInfo(const StructInfo& s) const {
  if (varMap.empty() || !s) return s;
  switch (s->kind()) {
    case NodeKind::TensorSInfo: {
      auto& t = static_cast<const TensorSInfo&>(*s);
      auto v = t.shape.as<Var>();
      auto it = v ? varMap.find(v.get()) : varMap.end();
      if (it == varMap.end()) return s;
      return make<TensorSInfo>(it->second, t.dtype, t.ndim, t.vdevice);
    }
    case NodeKind::TupleSInfo: {
      auto& t = static_cast<const TupleSInfo&>(*s);
      std::vector<StructInfo> fields;
      bool changed = false;
      for (auto& f : t.fields) {
        fields.push_back(remapSInfo(f));
        changed |= !fields.back().same(f);
      }
      return changed ? StructInfo(make<TupleSInfo>(std::move(fields))) : s;
    }
    default: return s;  // function types bind their own vars
  }
}

Expr ExprMutator::visitCall(const Ref<Call>& c) {
  Expr op = mutate(c->op);
  std::vector<Expr> args;
  args.reserve(c->args.size());
  for (auto& a : c->args) args.push_back(mutate(a));
  std::vector<StructInfo> sinfoArgs;
  bool sinfoChanged = false;
  for (auto& s : c->sinfoArgs) {
    sinfoArgs.push_back(remapSInfo(s));
    sinfoChanged |= !sinfoArgs.back().same(s);
  }
  StructInfo own = remapSInfo(c->sinfo);
  if (op.same(c->op) && sameList(args, c->args) && !sinfoChanged && own.same(c->sinfo)) return c;
  auto out = keepInfo(make<Call>(op, std::move(args), c->attrs, std::move(sinfoArgs)), c);
  out->sinfo = own;
  return out;
}

Expr ExprMutator::visitTuple(const Ref<Tuple>& t) {
  std::vector<Expr> fields;
  for (auto& f : t->fields) fields.push_back(mutate(f));
  if (sameList(fields, t->fields)) return t;
  return keepInfo(make<Tuple>(std::move(fields)), t);
}

Expr ExprMutator::visitTupleGetItem(const Ref<TupleGetItem>& t) {
  Expr tuple = mutate(t->tuple);
  if (tuple.same(t->tuple)) return t;
  return keepInfo(make<TupleGetItem>(tuple, t->index), t);
}

Expr ExprMutator::visitIf(const Ref<If>& i) {
  Expr c = mutate(i->cond), a = mutate(i->thenBranch), b = mutate(i->elseBranch);
  if (c.same(i->cond) && a.same(i->thenBranch) && b.same(i->elseBranch)) return i;
  return keepInfo(make<If>(c, a, b), i);
}

BindingRef ExprMutator::visitBinding(const BindingRef& b) {
  Expr value = mutate(b->value);
  // A var whose struct info names a replaced shape var is replaced in turn.
  StructInfo s = remapSInfo(b->var->sinfo);
  if (!s.same(b->var->sinfo)) return rebind(b, value, s, b->var->isDataflow());
  if (value.same(b->value)) return b;
  auto nb = make<Binding>(b->var, value, b->castSInfo);
  nb->span = b->span;
  return nb;
}

BindingRef ExprMutator::rebind(const BindingRef& b, const Expr& value, const StructInfo& givenSInfo, bool dataflow) {
  VarRef var = b->var;
  StructInfo sinfo = remapSInfo(givenSInfo);
  // A recursive local function calls itself through its binding var: that var must stay the one
  // its body refers to, so it is kept (a new var would leave the body calling an unbound name).
  bool recursive = false;
  if (value.is<Function>()) walkExpr(value, [&](const Expr& e) { recursive |= e.get() == var.get(); });
  // An equal struct info keeps the var too: other struct infos may name it (R.Tensor(lv2, ...)),
  // and a new var would leave them pointing at one no longer bound.
  bool sameSInfo = sinfo.same(var->sinfo) || (sinfo && var->sinfo && sinfoEqual(sinfo, var->sinfo));
  if (!recursive && (!sameSInfo || dataflow != var->isDataflow())) {
    auto nv = make<Var>(var->name, sinfo, dataflow);
    nv->span = var->span;
    varMap[var.get()] = nv;
    var = nv;
  }
  if (var.same(b->var) && value.same(b->value)) return b;
  auto nb = make<Binding>(var, value, b->castSInfo);
  nb->span = b->span;
  return nb;
}

BlockRef ExprMutator::visitBlock(const BlockRef& b) {
  std::vector<BindingRef> bindings;
  bool changed = false;
  for (auto& x : b->bindings) {
    BindingRef nb = visitBinding(x);
    if (!nb) {  // a binding removed by the pass
      changed = true;
      continue;
    }
    changed |= !nb.same(x);
    bindings.push_back(nb);
  }
  if (!changed) return b;
  if (bindings.empty()) return nullptr;
  return make<BindingBlock>(std::move(bindings), b->isDataflow());
}

Expr ExprMutator::visitSeqExpr(const Ref<SeqExpr>& s) {
  std::vector<BlockRef> blocks;
  bool changed = false;
  for (auto& b : s->blocks) {
    BlockRef nb = visitBlock(b);
    changed |= !nb.same(b);
    if (nb) blocks.push_back(nb);
  }
  Expr body = mutate(s->body);
  if (!changed && body.same(s->body)) return s;
  return keepInfo(make<SeqExpr>(std::move(blocks), body), s);
}

Expr ExprMutator::visitFunction(const Ref<Function>& f) {
  Expr body = mutate(f->body);
  if (body.same(f->body)) return f;
  return keepInfo(make<Function>(f->params, body, f->retSInfo, f->isPure, f->attrs), f);
}

Expr substituteVars(const Expr& e, const std::unordered_map<const Var*, Expr>& map) {
  struct Substituter : ExprMutator {
    explicit Substituter(const std::unordered_map<const Var*, Expr>& m) { varMap = m; }
  } s(map);
  return s.mutate(e);
}

}  // namespace rlx
