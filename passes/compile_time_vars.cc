// computableAtCompileTime: a forward sweep over the bindings, growing the set of known Relax vars
// and the symbolic vars their struct info defines.
#include <unordered_set>

#include "passes/compile_time_vars.h"

#include "ir/arith.h"
#include "ir/expr_walk.h"
#include "ir/struct_info.h"

namespace rlx {

namespace {

struct Collector {
  std::unordered_set<const Var*> known;
  std::unordered_set<const PrimVar*> knownSym;

  void markKnown(const VarRef& v) {
    known.insert(v.get());
    std::vector<PrimVarRef> syms;
    sinfoCollectVars(v->sinfo, syms);
    for (auto& s : syms) knownSym.insert(s.get());
  }

  // Whether every symbolic var the value names (in shapes, prim values, sinfo_args) is known.
  bool symbolsKnown(const Expr& value) const {
    bool ok = true;
    std::vector<PrimVarRef> syms;
    walkExpr(value, [&](const Expr& e) {
      if (auto s = e.as<ShapeExpr>())
        for (auto& d : s->values) collectVars(d, syms);
      else if (auto p = e.as<PrimValue>())
        collectVars(p->value, syms);
      else if (auto c = e.as<Call>())
        for (auto& sa : c->sinfoArgs) sinfoCollectVars(sa, syms);
    });
    for (auto& s : syms) ok &= knownSym.count(s.get()) > 0;
    return ok;
  }

  void visitSeq(const Expr& e) {
    auto seq = e.as<SeqExpr>();
    if (!seq) return;
    for (auto& block : seq->blocks)
      for (auto& b : block->bindings) {
        bool ok = symbolsKnown(b->value);
        for (auto& fv : freeVars(b->value)) ok &= known.count(fv.get()) > 0;
        if (ok) markKnown(b->var);
      }
  }
};

}  // namespace

std::unordered_set<const Var*> computableAtCompileTime(const Function& f) {
  Collector c;
  if (auto numInput = attrInt(f.attrs, "num_input"))
    for (size_t i = size_t(std::max<int64_t>(*numInput, 0)); i < f.params.size(); ++i) c.markKnown(f.params[i]);
  c.visitSeq(f.body);
  return c.known;
}

}  // namespace rlx
