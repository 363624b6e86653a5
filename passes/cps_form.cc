// The CPS convention shared by ToCPS and un_cps (see cps_form.h): continuation struct info, the
// function-type maps between direct style and CPS, and recognition of direct-style wrappers.
#include "passes/cps_form.h"

#include <cctype>

#include "ir/expr_walk.h"
#include "passes/symbolic_vars.h"

namespace rlx {

bool isContinuationSInfo(const StructInfo& s) {
  auto f = s.as<FuncSInfo>();
  return f && f->params && f->params->size() == 1 && f->ret.as<ObjectSInfo>();
}

StructInfo continuationSInfo(const StructInfo& valueSInfo) { return make<FuncSInfo>(std::vector<StructInfo>{valueSInfo}, objectSInfo(), true); }

bool isCpsFunction(const Function& f) {
  return !f.params.empty() && isContinuationSInfo(sinfoOf(f.params.back())) && f.retSInfo && f.retSInfo.as<ObjectSInfo>();
}

namespace {

// Rebuilds function types of `s` with `onFunc`, through tuples; the same object when unchanged.
template <typename F>
StructInfo mapFunctionTypes(const StructInfo& s, const F& onFunc) {
  if (!s) return s;
  if (auto t = s.as<TupleSInfo>()) {
    std::vector<StructInfo> fields;
    bool changed = false;
    for (auto& f : t->fields) {
      fields.push_back(mapFunctionTypes(f, onFunc));
      changed |= !fields.back().same(f);
    }
    return changed ? StructInfo(make<TupleSInfo>(std::move(fields))) : s;
  }
  if (auto f = s.as<FuncSInfo>(); f && f->params) return onFunc(s, *f);
  return s;
}

}  // namespace

StructInfo cpsSInfo(const StructInfo& s) {
  return mapFunctionTypes(s, [](const StructInfo&, const FuncSInfo& f) -> StructInfo {
    std::vector<StructInfo> params;
    for (auto& p : *f.params) params.push_back(cpsSInfo(p));
    params.push_back(continuationSInfo(cpsSInfo(f.ret)));
    return make<FuncSInfo>(std::move(params), objectSInfo(), f.isPure);
  });
}

StructInfo directSInfo(const StructInfo& s) {
  return mapFunctionTypes(s, [](const StructInfo& whole, const FuncSInfo& f) -> StructInfo {
    if (f.params->empty() || !isContinuationSInfo(f.params->back()) || !f.ret.as<ObjectSInfo>()) return whole;
    std::vector<StructInfo> params;
    for (size_t i = 0; i + 1 < f.params->size(); ++i) params.push_back(directSInfo((*f.params)[i]));
    StructInfo ret = directSInfo((*f.params->back().as<FuncSInfo>()->params)[0]);
    return make<FuncSInfo>(std::move(params), ret, f.isPure);
  });
}

bool mentionsCallable(const StructInfo& s) {
  if (!s) return false;
  if (s.as<FuncSInfo>()) return true;
  if (auto t = s.as<TupleSInfo>())
    for (auto& f : t->fields)
      if (mentionsCallable(f)) return true;
  return false;
}

bool signatureMentionsCallable(const Function& f) {
  for (auto& p : f.params)
    if (mentionsCallable(sinfoOf(p))) return true;
  return mentionsCallable(f.retSInfo);
}

std::optional<std::string> cpsWrapperTarget(const IRModule& mod, const Function& f) {
  auto seq = f.body.as<SeqExpr>();
  if (!seq) return std::nullopt;
  std::vector<BindingRef> bindings;
  for (auto& block : seq->blocks) bindings.insert(bindings.end(), block->bindings.begin(), block->bindings.end());
  if (bindings.size() != 2 && bindings.size() != 3) return std::nullopt;
  // k = fn(v) { return v }
  auto id = bindings[0]->value.as<Function>();
  if (bindings[0]->isMatchCast() || !id || id->params.size() != 1) return std::nullopt;
  auto idBody = id->body.as<SeqExpr>();
  if (!idBody || !idBody->blocks.empty() || idBody->body.get() != id->params[0].get()) return std::nullopt;
  // ans = f_cps(params..., k)
  auto call = bindings[1]->value.as<Call>();
  auto callee = call ? call->op.as<GlobalVar>() : Ref<GlobalVar>();
  if (bindings[1]->isMatchCast() || !callee || call->args.size() != f.params.size() + 1) return std::nullopt;
  for (size_t i = 0; i < f.params.size(); ++i)
    if (call->args[i].get() != f.params[i].get()) return std::nullopt;
  if (call->args.back().get() != bindings[0]->var.get()) return std::nullopt;
  auto target = mod.lookup(callee->name).as<Function>();
  if (!target || !isCpsFunction(*target)) return std::nullopt;
  // [r = R.match_cast(ans, T)]; return
  const Var* result = bindings[1]->var.get();
  if (bindings.size() == 3) {
    if (!bindings[2]->isMatchCast() || bindings[2]->value.get() != result) return std::nullopt;
    result = bindings[2]->var.get();
  }
  if (seq->body.get() != result) return std::nullopt;
  return callee->name;
}

std::string freshName(const std::string& base, std::set<std::string>& taken) {
  std::string name = base;
  // x, x1, x2; but x1, x1_1, x1_2 (x11 would read as a name of its own).
  std::string stem = !base.empty() && std::isdigit(static_cast<unsigned char>(base.back())) ? base + "_" : base;
  for (int i = 1; taken.count(name); ++i) name = stem + std::to_string(i);
  taken.insert(name);
  return name;
}

void collectNames(const FunctionRef& f, std::set<std::string>& names) {
  for (auto& v : usedSymbols(f)) names.insert(v->name);
  for (auto& p : f->params) names.insert(p->name);
  walkExpr(f->body, [&](const Expr& e) {
    if (auto fn = e.as<Function>())
      for (auto& p : fn->params) names.insert(p->name);
    if (auto s = e.as<SeqExpr>())
      for (auto& block : s->blocks)
        for (auto& b : block->bindings) names.insert(b->var->name);
  });
}

}  // namespace rlx
