// RemovePurityChecking: marks every pure function "relax.force_pure" (its body may now call impure
// builtins that lowering introduces) and unwraps pure-override calls into their plain forms:
// R.call_pure_packed(f, ...) -> R.call_packed(f, ...), R.invoke_pure_closure -> R.invoke_closure,
// R.call_inplace_packed(f, ..., inplace_indices=..) -> R.call_packed(f, ...) (the callee writes in place).
#include "ir/expr_mutator.h"
#include "ir/op.h"
#include "passes/registry.h"

namespace rlx {

namespace {

class Unwrap : public ExprMutator {
 protected:
  Expr visitCall(const Ref<Call>& c) override {
    Expr e = ExprMutator::visitCall(c);
    auto call = e.as<Call>();
    const std::string& op = call->opName();
    bool inplace = op == "relax.call_inplace_packed";
    if ((op == "relax.call_pure_packed" || inplace) && !call->args.empty()) {
      std::vector<Expr> rest(call->args.begin() + 1, call->args.end());
      // inplace_indices only describe the call to the purity analysis; the packed call has no attrs.
      Expr out = make<Call>(call->args[0], std::move(rest), inplace ? AttrsRef() : call->attrs, call->sinfoArgs);
      out->sinfo = call->sinfo;
      out->span = call->span;
      return out;
    }
    if (op == "relax.invoke_pure_closure" && findOp("relax.invoke_closure")) {
      Expr out = make<Call>(opRef("relax.invoke_closure"), call->args, call->attrs, call->sinfoArgs);
      out->sinfo = call->sinfo;
      out->span = call->span;
      return out;
    }
    return e;
  }
  Expr visitFunction(const Ref<Function>& f) override {
    Expr body = mutate(f->body);
    if (!f->isPure) return body.same(f->body) ? Expr(f) : Expr(make<Function>(f->params, body, f->retSInfo, f->isPure, f->attrs));
    // Already marked and nothing to unwrap: the same function (a second run changes nothing).
    const Attr* marked = f->attrs ? f->attrs->find("relax.force_pure") : nullptr;
    if (marked && *marked && (*marked)->kind == AttrValue::Bool && (*marked)->b && body.same(f->body)) return f;
    auto attrs = withDictAttr(f->attrs, "relax.force_pure", AttrValue::boolean(true));
    auto nf = make<Function>(f->params, body, f->retSInfo, f->isPure, attrs);
    nf->sinfo = f->sinfo;
    nf->span = f->span;
    return nf;
  }
};

}  // namespace

Result<Pass> createRemovePurityCheckingPass(PassOptions&) { return makeMutatorPass<Unwrap>({"RemovePurityChecking", 0, {}}); }

}  // namespace rlx
