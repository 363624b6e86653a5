// Module subroutines (TVM's SubroutineMixin, define_subroutine): a module's call becomes a call of a
// private Relax function taking (call arguments, module parameters), emitted once per signature.
#include <optional>
#include <regex>

#include "frontend/nn/export_context.h"
#include "frontend/nn/module.h"
#include "ir/struct_info.h"
#include "ir/structural_equal.h"

namespace rlx::nn {

Tensor Module::operator()(const Tensor& x) {
  if (!defineSubroutine_) return forward(x);
  return callSubroutine({x}, [this](const std::vector<Nested>& a) -> Nested { return forward(a[0].tensor()); }).tensor();
}

void Module::setDefineSubroutine(bool on, std::vector<std::string> argNames) {
  defineSubroutine_ = on;
  subroutineArgNames_ = std::move(argNames);
}

std::string Module::subroutineName() const {
  // "(anonymous namespace)::ns::FeedForward<float>" -> "FeedForward" -> "feed_forward"
  std::string cls = typeName();
  cls = cls.substr(0, cls.find('<'));
  if (auto colon = cls.rfind("::"); colon != std::string::npos) cls = cls.substr(colon + 2);
  cls = std::regex_replace(cls, std::regex("(.)([A-Z][a-z]+)"), "$1_$2");
  cls = std::regex_replace(cls, std::regex("([a-z0-9])([A-Z])"), "$1_$2");
  for (auto& c : cls) c = char(std::tolower(static_cast<unsigned char>(c)));
  return cls;
}

namespace {

// The expression and struct info of a call argument: a tensor, or a tuple of them (kept inline).
std::pair<Expr, StructInfo> argumentOf(const Nested& a, const std::string& what) {
  switch (a.kind()) {
    case Nested::TensorKind: return {a.tensor().expr(), sinfoOf(a.tensor().expr())};
    case Nested::TupleKind: {
      std::vector<Expr> fields;
      std::vector<StructInfo> sinfos;
      for (auto& item : a.items()) {
        auto [e, s] = argumentOf(item, what);
        fields.push_back(e);
        sinfos.push_back(s);
      }
      Expr t = make<Tuple>(std::move(fields));
      StructInfo s = make<TupleSInfo>(std::move(sinfos));
      t->sinfo = s;
      return {t, s};
    }
    case Nested::PrimKind: break;
  }
  fail(what + " is a symbolic int; subroutine arguments are tensors or tuples of tensors");
}

// What the subroutine body sees for a parameter `v` standing for argument `a`: a tensor, or the
// tuple's items bound as <name>_<i>.
Nested innerValue(ExportContext& ctx, const Nested& a, const Expr& v, const std::string& name) {
  if (a.kind() != Nested::TupleKind) return Tensor(v);
  std::vector<Nested> items;
  for (size_t i = 0; i < a.items().size(); ++i) {
    std::string item = name + "_" + std::to_string(i);
    items.push_back(innerValue(ctx, a.items()[i], ctx.emit(make<TupleGetItem>(v, int(i)), item), item));
  }
  return Nested(std::move(items));
}

}  // namespace

Nested Module::callSubroutine(const std::vector<Nested>& args, const std::function<Nested(const std::vector<Nested>&)>& body) {
  ExportContext* ctx = ExportContext::active();
  if (!defineSubroutine_ || !ctx || !ctx->inFunction()) return body(args);
  std::string name = subroutineName();
  if (args.size() != subroutineArgNames_.size())
    fail("subroutine '" + name + "' of " + typeName() + " is called with " + std::to_string(args.size()) + " arguments but setDefineSubroutine named " +
         std::to_string(subroutineArgNames_.size()));

  // The call's arguments and this module's parameters, as they stand in the caller.
  std::vector<Expr> callArgs;
  std::vector<StructInfo> sig;
  for (size_t i = 0; i < args.size(); ++i) {
    auto [e, s] = argumentOf(args[i], "argument '" + subroutineArgNames_[i] + "' of subroutine '" + name + "'");
    callArgs.push_back(e);
    sig.push_back(s);
  }
  auto params = namedParameters();
  for (auto& [pname, p] : params) {
    if (!p->expr()) {
      const std::string& why = p->unavailableReason();
      fail("subroutine '" + name + "' needs parameter '" + pname + "', which " + (why.empty() ? "has no value outside an export" : "is unavailable: " + why));
    }
    callArgs.push_back(p->expr());
    sig.push_back(sinfoOf(p->expr()));
  }
  StructInfo signature = make<TupleSInfo>(sig);
  std::string cls = typeid(*this).name();

  const ExportContext::Subroutine* sub = nullptr;
  for (auto& s : ctx->subroutines())
    if (s.cls == cls && structuralEqual(s.signature, signature, /*mapFreeVars=*/true).equal) sub = &s;
  if (!sub) {
    // The function gets its own symbolic vars (same names) and parameter vars; parameters are named
    // after the caller's vars, so a later instance reusing it shows the first one's names.
    PrimVarMap fresh;
    std::vector<Ref<PrimVar>> vars;
    for (auto& s : sig) sinfoCollectVars(s, vars);
    for (auto& v : vars)
      if (!fresh.count(v.get())) fresh[v.get()] = make<PrimVar>(v->name, v->dtype);
    ctx->beginFunction(ctx->names().fresh(name));
    ctx->markSubroutine();
    std::vector<VarRef> fnParams;
    std::vector<Nested> inner;
    for (size_t i = 0; i < args.size(); ++i) {
      auto v = make<Var>(subroutineArgNames_[i], sinfoSubstitute(sig[i], fresh));
      fnParams.push_back(v);
      inner.push_back(innerValue(*ctx, args[i], v, subroutineArgNames_[i]));
    }
    for (size_t k = 0; k < params.size(); ++k) {
      auto callerVar = params[k].second->expr().as<Var>();
      auto v = make<Var>(callerVar ? callerVar->name : params[k].first, sinfoSubstitute(sig[args.size() + k], fresh));
      fnParams.push_back(v);
      params[k].second->setExpr(v);
    }
    std::optional<Nested> out;
    try {
      out = body(inner);
    } catch (...) {
      for (size_t k = 0; k < params.size(); ++k) params[k].second->setExpr(callArgs[args.size() + k]);
      throw;
    }
    for (size_t k = 0; k < params.size(); ++k) params[k].second->setExpr(callArgs[args.size() + k]);
    bool tensorOutput = out->isTensor();
    VarRef gv = ctx->emitOutput(out->expr());
    GlobalVarRef g = ctx->endFunction(std::move(fnParams), gv, nullptr, /*isPrivate=*/true);
    ctx->subroutines().push_back({cls, signature, g, tensorOutput});
    sub = &ctx->subroutines().back();
  }

  Expr call = make<Call>(sub->gv, std::move(callArgs));
  Expr bound = ctx->emit(call, sub->gv->name + "_output");
  if (sub->tensorOutput) return Tensor(bound);
  auto ts = sinfoOf(bound).as<TupleSInfo>();
  if (!ts) fail("subroutine '" + name + "' returns neither a tensor nor a tuple");
  std::vector<Nested> items;
  for (size_t i = 0; i < ts->fields.size(); ++i) items.emplace_back(Tensor(ctx->emit(make<TupleGetItem>(bound, int(i)), "lv")));
  return Nested(std::move(items));
}

}  // namespace rlx::nn
