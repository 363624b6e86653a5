// InlinePrivateFunctions: inlines every private Relax function at all of its call sites and removes
// it (TVM's pass). Why: private helpers (from importers, LambdaLift, RemoveUnused*) hide dataflow
// from fusion and constant folding; after inlining each caller is one graph.
// Recursive functions (direct or mutual) are left alone, as are calls the inliner cannot splice
// (see inline.cc: a callee with branches or impure calls inside a dataflow block, symbolic vars the
// arguments do not determine); a private function goes only once nothing calls it. Callers that
// changed get CanonicalizeBindings (the `y = <result>` aliases go) and lose unused bindings.
// Before: `def sub(b): c = R.concat([b, b]); return c` (private) and `c = sub(b)` in main
// After:  `c = R.concat([b, b])` in main, no `sub`.
#include <map>

#include "ir/expr_walk.h"
#include "passes/call_graph.h"
#include "passes/inline.h"
#include "passes/registry.h"
#include "passes/remove_all_unused.h"
#include "passes/signature_change.h"

namespace rlx {

Result<Pass> createInlinePrivateFunctionsPass(PassOptions&) {
  return Pass({"InlinePrivateFunctions", 0, {}}, [](const IRModuleRef& mod, const PassContext&) -> Result<IRModuleRef> {
    std::set<std::string> callees;
    for (auto& e : mod->functions) {
      auto f = e.func.as<Function>();
      if (f && !isPublicFunction(*f) && !callsItself(mod, e.gvar->name)) callees.insert(e.gvar->name);
    }
    if (callees.empty()) return mod;
    IRModuleRef out = mod;
    std::set<std::string> changed;
    // Each round inlines one level of calls; inlined bodies may call further private functions.
    for (size_t round = 0; round <= callees.size(); ++round) {
      std::set<std::string> now;
      out = inlineCallsOnce(out, callees, now);
      if (now.empty()) break;
      changed.insert(now.begin(), now.end());
    }
    // Private functions nothing refers to any more go.
    std::map<std::string, int> refs;
    for (auto& e : out->functions)
      if (e.func->kind() == NodeKind::Function)
        walkExpr(e.func, [&](const Expr& x) {
          if (auto g = x.as<GlobalVar>(); g && g->name != e.gvar->name) ++refs[g->name];
        });
    std::set<std::string> keep;
    for (auto& e : out->functions)
      if (!callees.count(e.gvar->name) || refs[e.gvar->name] > 0) keep.insert(e.gvar->name);
    out = keepFunctions(out, keep);
    std::vector<std::string> scope;
    for (auto& name : changed)
      if (out->find(name)) scope.push_back(name);
    if (scope.empty()) return out;
    RLX_TRY(canonicalize, parsePipeline("CanonicalizeBindings"));
    PassContext ctx;
    ctx.scope = scope;
    RLX_TRY(canonical, runSequential(canonicalize, out, ctx));
    out = canonical;
    for (auto& name : scope) {
      auto* entry = out->find(name);
      Expr f = removeAllUnused(entry->func);
      if (!f.same(entry->func)) out = withFunction(out, entry->gvar, f);
    }
    return out;
  });
}

}  // namespace rlx
