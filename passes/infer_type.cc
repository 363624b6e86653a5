// InferType: re-infers the struct info of every binding from its value (after a pass changed
// inputs or op attributes by hand) and propagates it: a var whose struct info changes is replaced
// by a new var everywhere, and the function's return struct info follows its body.
// Before: `y: R.Tensor(ndim=2) = R.add(x, x)` with x (2, 3)   After: `y: R.Tensor((2, 3)) = ...`.
#include "ir/block_builder.h"
#include "ir/expr_mutator.h"
#include "ir/struct_info.h"
#include "passes/registry.h"

namespace rlx {

namespace {

class Reinfer : public ExprMutator {
 protected:
  // Struct info of an ANF value from its (already re-inferred) parts.
  StructInfo infer(const Expr& value) {
    switch (value->kind()) {
      case NodeKind::Call: {
        auto r = inferCallSInfo(static_cast<const Call&>(*value));
        return r.ok() ? r.value() : sinfoOf(value);
      }
      case NodeKind::Tuple: {
        std::vector<StructInfo> fields;
        for (auto& f : static_cast<const Tuple&>(*value).fields) fields.push_back(sinfoOf(f));
        return make<TupleSInfo>(std::move(fields));
      }
      case NodeKind::TupleGetItem: {
        auto& t = static_cast<const TupleGetItem&>(*value);
        auto ts = sinfoOf(t.tuple).as<TupleSInfo>();
        if (ts && t.index >= 0 && size_t(t.index) < ts->fields.size()) return ts->fields[size_t(t.index)];
        return sinfoOf(value);
      }
      case NodeKind::If: {
        auto& i = static_cast<const If&>(*value);
        return sinfoLCA(sinfoOf(i.thenBranch), sinfoOf(i.elseBranch));
      }
      default:
        return sinfoOf(value);
    }
  }

  Expr visitCall(const Ref<Call>& c) override {
    Expr e = ExprMutator::visitCall(c);
    if (e.same(c)) return e;
    auto nc = e.as<Call>();
    nc->sinfo = infer(e);
    return e;
  }

  BindingRef visitBinding(const BindingRef& b) override {
    Expr value = mutate(b->value);
    StructInfo s = b->isMatchCast() ? b->castSInfo : infer(value);
    // Keep the old struct info object when it is equal, so unchanged bindings stay shared.
    return rebind(b, value, sinfoEqual(s, sinfoOf(b->var)) ? b->var->sinfo : s, b->var->isDataflow());
  }

  Expr visitSeqExpr(const Ref<SeqExpr>& s) override {
    Expr e = ExprMutator::visitSeqExpr(s);
    if (!e.same(s)) e->sinfo = sinfoOf(static_cast<const SeqExpr&>(*e).body);
    return e;
  }

  Expr visitFunction(const Ref<Function>& f) override {
    Expr body = mutate(f->body);
    if (body.same(f->body)) return f;
    StructInfo ret = eraseToSignature(sinfoOf(body), f->params);
    if (f->retSInfo && sinfoIsBaseOf(ret, f->retSInfo)) ret = f->retSInfo;  // keep a more specific annotation
    auto nf = make<Function>(f->params, body, ret, f->isPure, f->attrs);
    std::vector<StructInfo> ps;
    for (auto& p : f->params) ps.push_back(sinfoOf(p));
    nf->sinfo = make<FuncSInfo>(std::move(ps), ret, f->isPure);
    nf->span = f->span;
    return nf;
  }
};

}  // namespace

Result<Pass> createInferTypePass(PassOptions&) { return makeMutatorPass<Reinfer>({"InferType", 0, {}}); }

}  // namespace rlx
