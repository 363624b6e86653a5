// CanonicalizeCast: Relay's pass with Relax semantics — an R.astype binding with several users
// is duplicated so that each elementwise / broadcast user reads its own copy.
//
// Why: FuseOps puts a cast in the group of its consumer only when the cast has one consumer; a
// cast shared by several elementwise ops becomes its own kernel and materialises the converted
// tensor. With a private copy per consumer, each copy fuses into its consumer's group (the cast
// is cheap to recompute; memory traffic is what costs).
// In dataflow blocks: for `c = R.astype(x, dtype)` used at least twice, every later binding whose
// value is an elementwise or broadcast op call using c gets a fresh `c_k = R.astype(x, dtype)`
// just before it; the first user keeps c. Users that are not elementwise (matmul, tuples,
// outputs) keep sharing c. Relax's FuseOps/FuseTIR make this less important than in Relay.
// Before: `c = R.astype(x, "float32"); a = R.add(c, y); b = R.multiply(c, z)`
// After:  `c = R.astype(x, "float32"); a = R.add(c, y); c1 = R.astype(x, "float32"); b = R.multiply(c1, z)`
#include <unordered_map>

#include "ir/expr_mutator.h"
#include "ir/expr_walk.h"
#include "ir/op.h"
#include "passes/registry.h"

namespace rlx {

namespace {

bool isElementwiseCall(const Expr& e) {
  auto c = e.as<Call>();
  if (!c) return false;
  auto op = c->op.as<Op>();
  return op && op->info && int(op->info->pattern) <= int(OpPattern::Broadcast);
}

bool isCast(const Expr& e) {
  auto c = e.as<Call>();
  return c && c->op.as<Op>() && c->opName() == "relax.astype";
}

// How many times `v` occurs in `e`.
int countUses(const Expr& e, const Var* v) {
  int n = 0;
  walkExpr(e, [&](const Expr& x) {
    if (x.get() == v) ++n;
  });
  return n;
}

Expr canonicalize(const Expr& func) {
  auto fn = func.as<Function>();
  if (!fn) return func;
  auto seq = fn->body.as<SeqExpr>();
  if (!seq) return func;
  std::unordered_map<const Var*, int> uses;
  walkExpr(fn->body, [&](const Expr& e) {
    if (auto v = e.as<Var>()) ++uses[v.get()];
  });
  std::vector<BlockRef> blocks;
  bool changed = false;
  for (auto& blk : seq->blocks) {
    if (!blk->isDataflow()) {
      blocks.push_back(blk);
      continue;
    }
    // Casts seen so far in this block that are shared, and whether their first user was seen (a
    // vector: copies are emitted in binding order, deterministically).
    std::vector<std::pair<const Var*, std::pair<BindingRef, bool>>> casts;
    std::vector<BindingRef> out;
    int fresh = 0;
    for (auto& b : blk->bindings) {
      BindingRef nb = b;
      if (!b->isMatchCast() && isElementwiseCall(b->value)) {
        std::unordered_map<const Var*, Expr> subst;
        for (auto& [var, entry] : casts) {
          if (!countUses(b->value, var)) continue;
          if (!entry.second) {  // the first user keeps the original cast
            entry.second = true;
            continue;
          }
          auto& castBinding = entry.first;
          auto copyVar = make<Var>(castBinding->var->name + "_" + std::to_string(++fresh), castBinding->var->sinfo, true);
          auto castCall = castBinding->value.as<Call>();
          auto copyValue = make<Call>(castCall->op, castCall->args, castCall->attrs, castCall->sinfoArgs);
          copyValue->sinfo = castCall->sinfo;
          out.push_back(make<Binding>(copyVar, copyValue));
          subst[var] = copyVar;
        }
        if (!subst.empty()) {
          nb = make<Binding>(b->var, substituteVars(b->value, subst));
          changed = true;
        }
      } else {
        // Any other user counts as the first use: later elementwise users get copies.
        for (auto& [var, entry] : casts)
          if (countUses(b->value, var)) entry.second = true;
      }
      out.push_back(nb);
      if (!b->isMatchCast() && isCast(b->value) && uses[b->var.get()] >= 2) casts.push_back({b->var.get(), {b, false}});
    }
    blocks.push_back(make<BindingBlock>(std::move(out), true));
  }
  if (!changed) return func;
  auto nseq = make<SeqExpr>(std::move(blocks), seq->body);
  nseq->sinfo = seq->sinfo;
  auto nf = make<Function>(fn->params, nseq, fn->retSInfo, fn->isPure, fn->attrs);
  nf->sinfo = fn->sinfo;
  nf->span = fn->span;
  return nf;
}

}  // namespace

Result<Pass> createCanonicalizeCastPass(PassOptions&) {
  return makeFunctionPass({"CanonicalizeCast", 0, {}}, [](const Expr& func, const GlobalVarRef&, const IRModuleRef&) -> Result<Expr> { return canonicalize(func); });
}

}  // namespace rlx
