// Signature changes (see signature_change.h): new GlobalVars first, then one BindingRewriter sweep
// over every Relax function that replaces the calls of the changed functions.
#include "passes/signature_change.h"

#include "ir/expr_walk.h"
#include "passes/binding_rewriter.h"
#include "passes/registry.h"

namespace rlx {

bool isPublicFunction(const Function& f) { return f.attrs && f.attrs->find("global_symbol"); }

StructInfo functionSInfo(const Function& f) {
  std::vector<StructInfo> params;
  for (auto& p : f.params) params.push_back(sinfoOf(p));
  return make<FuncSInfo>(std::move(params), f.retSInfo, f.isPure);
}

FunctionRef rebuildFunction(const Function& f, std::vector<VarRef> params, Expr body, StructInfo ret) {
  auto out = make<Function>(std::move(params), std::move(body), std::move(ret), f.isPure, f.attrs);
  out->sinfo = functionSInfo(*out);
  out->span = f.span;
  return out;
}

namespace {

class CallSiteRewriter : public BindingRewriter {
 public:
  CallSiteRewriter(const std::map<std::string, CalleeChange>& changes, const std::map<std::string, GlobalVarRef>& gvars) : changes_(changes), gvars_(gvars) {}

 protected:
  Expr rewriteValue(const BindingRef&, const Expr& value) override {
    auto call = value.as<Call>();
    if (!call) return nullptr;
    auto gv = call->op.as<GlobalVar>();
    if (!gv) return nullptr;
    auto it = changes_.find(gv->name);
    if (it == changes_.end() || gv.same(gvars_.at(gv->name))) return nullptr;
    return it->second.rewriteCall(*call, gvars_.at(gv->name), [this](const Expr& e) { return bind(e); });
  }

 private:
  const std::map<std::string, CalleeChange>& changes_;
  const std::map<std::string, GlobalVarRef>& gvars_;
};

}  // namespace

IRModuleRef applyCalleeChanges(const IRModuleRef& mod, const std::map<std::string, CalleeChange>& changes, std::set<std::string>* changedCallers) {
  if (changes.empty()) return mod;
  IRModuleRef out = mod;
  std::map<std::string, GlobalVarRef> gvars;
  for (auto& [name, change] : changes) {
    auto gv = make<GlobalVar>(name);
    gv->sinfo = change.func->sinfo;
    gvars[name] = gv;
    out = withFunction(out, gv, change.func);
  }
  const IRModuleRef updated = out;  // iterated while `out` is replaced
  for (auto& e : updated->functions) {
    if (e.func->kind() != NodeKind::Function) continue;
    CallSiteRewriter rewriter(changes, gvars);
    Expr f = rewriter.mutate(e.func);
    if (f.same(e.func)) continue;
    out = withFunction(out, e.gvar, f);
    if (changedCallers) changedCallers->insert(e.gvar->name);
  }
  return out;
}

AttrsRef withoutDictAttr(const AttrsRef& attrs, const std::string& key) {
  if (!attrs || !attrs->find(key)) return attrs;
  std::vector<std::pair<std::string, Attr>> fields;
  for (auto& [k, v] : attrs->fields)
    if (k != key) fields.push_back({k, v});
  return fields.empty() ? nullptr : makeDictAttrs(std::move(fields));
}

std::set<std::string> referencedByOthers(const IRModule& mod) {
  std::set<std::string> out;
  for (auto& e : mod.functions)
    if (e.func->kind() == NodeKind::Function)
      walkExpr(e.func, [&](const Expr& x) {
        if (auto g = x.as<GlobalVar>(); g && g->name != e.gvar->name) out.insert(g->name);
      });
  return out;
}

Result<IRModuleRef> canonicalizeAndEliminate(const IRModuleRef& mod) {
  RLX_TRY(passes, parsePipeline("CanonicalizeBindings,DeadCodeElimination(entry_functions=[])"));
  PassContext ctx;
  return runSequential(passes, mod, ctx);
}

}  // namespace rlx
