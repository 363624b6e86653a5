// BindSymbolicVars: replaces symbolic vars, named in binding_map, by constants throughout a function
// (TVM's pass): its signature, every struct info, shape and prim value, simplified (2 * m * n with
// n = 16 becomes m * 32). Why: specializing a dynamic model to known sizes lets shape checks fold
// and kernels be generated for static shapes.
// Options: binding_map={"name": int, ...} (a name must be defined by exactly one symbolic var of
// the function: a parameter's or a match_cast's); func_name="f" binds in f only, else in every
// function that defines the name, and a name no function defines is an error.
// Before: `def main(x: R.Tensor(("m", "n")))` with binding_map={"n": 16}
// After:  `def main(x: R.Tensor(("m", 16)))`.
#include <map>
#include <set>

#include "ir/block_builder.h"
#include "passes/registry.h"
#include "passes/signature_change.h"
#include "passes/symbolic_vars.h"

namespace rlx {

namespace {

using Bindings = std::vector<std::pair<std::string, int64_t>>;

// The function with the named vars bound; names it does not define are errors when `strict`,
// otherwise skipped and not recorded in `used`.
Result<Expr> bindIn(const FunctionRef& f, const std::string& fname, const Bindings& bindings, bool strict, std::set<std::string>& used) {
  std::map<std::string, std::vector<Ref<PrimVar>>> byName;
  for (auto& v : definedSymbols(f)) byName[v->name].push_back(v);
  PrimVarMap map;
  for (auto& [name, value] : bindings) {
    auto it = byName.find(name);
    if (it == byName.end()) {
      if (!strict) continue;
      std::string known;
      for (auto& [n, vs] : byName) known += (known.empty() ? "" : ", ") + n;
      return Error("BindSymbolicVars: function '" + fname + "' defines no symbolic var named '" + name + "'" + (known.empty() ? "" : " (it defines " + known + ")"));
    }
    if (it->second.size() > 1) return Error("BindSymbolicVars: function '" + fname + "' defines several symbolic vars named '" + name + "'");
    used.insert(name);
    map[it->second[0].get()] = intImm(value, it->second[0]->dtype);
  }
  Expr out = substituteSymbols(f, map);
  // A return struct info the vars made vague (ndim only, a match_cast's var) becomes what the body
  // now returns when that is more precise, as the parser would infer it.
  if (auto nf = out.as<Function>(); nf && !nf.same(f)) {
    auto seq = nf->body.as<SeqExpr>();
    StructInfo ret = seq ? eraseToSignature(sinfoOf(seq->body), nf->params) : nf->retSInfo;
    if (!sinfoEqual(ret, nf->retSInfo) && sinfoIsBaseOf(nf->retSInfo, ret)) {
      auto refined = make<Function>(nf->params, nf->body, ret, nf->isPure, nf->attrs);
      refined->sinfo = functionSInfo(*refined);
      refined->span = nf->span;
      out = refined;
    }
  }
  auto left = freeSymbols(out);
  if (!left.empty()) return Error("BindSymbolicVars: binding leaves symbolic var '" + left[0]->name + "' of function '" + fname + "' undefined");
  return out;
}

}  // namespace

Result<Pass> createBindSymbolicVarsPass(PassOptions& options) {
  Bindings bindings;
  for (auto& [name, value] : options.dict("binding_map").value_or(std::vector<std::pair<std::string, Attr>>{})) {
    if (!value || value->kind != AttrValue::Int) return Error("BindSymbolicVars: binding_map values are integers (\"" + name + "\" is not)");
    bindings.emplace_back(name, value->i);
  }
  std::optional<std::string> funcName = options.string("func_name");
  return Pass({"BindSymbolicVars", 1, {}}, [bindings, funcName](const IRModuleRef& mod, const PassContext&) -> Result<IRModuleRef> {
    if (bindings.empty()) return mod;
    std::set<std::string> used;
    if (funcName) {
      auto* e = mod->find(*funcName);
      if (!e) return Error("BindSymbolicVars: the module has no function '" + *funcName + "'");
      auto f = e->func.as<Function>();
      if (!f) return Error("BindSymbolicVars: '" + *funcName + "' is not a Relax function");
      RLX_TRY(nf, bindIn(f, *funcName, bindings, true, used));
      return nf.same(f) ? mod : withFunction(mod, e->gvar, nf);
    }
    IRModuleRef out = mod;
    for (auto& e : mod->functions) {
      auto f = e.func.as<Function>();
      if (!f) continue;
      RLX_TRY(nf, bindIn(f, e.gvar->name, bindings, false, used));
      if (!nf.same(f)) out = withFunction(out, e.gvar, nf);
    }
    for (auto& [name, value] : bindings)
      if (!used.count(name)) return Error("BindSymbolicVars: no function defines a symbolic var named '" + name + "'");
    return out;
  });
}

}  // namespace rlx
