// Module::exportIR: `_initialize_effect` when there are effects, then one Relax function per spec
// method with TVM's signature (spec args, then effect states by effect_mode, then params by
// param_mode), num_input, one dataflow block and the result (with the new states) bound to gv.
#include <set>

#include "frontend/nn/export_context.h"
#include "frontend/nn/module.h"
#include "ir/attrs.h"

namespace rlx::nn {

namespace {

StructInfo argSInfo(ExportContext& ctx, const std::string& name, const ArgSpec& spec) {
  switch (spec.kind()) {
    case ArgSpec::TensorKind: return tensorSInfo(dimExprs(spec.shape()), spec.dtype());
    case ArgSpec::IntKind: return make<ShapeSInfo>(std::vector<PrimExpr>{ctx.symbolicVar(name)}, 1);
    case ArgSpec::TupleKind: {
      std::vector<StructInfo> fields;
      for (size_t i = 0; i < spec.items().size(); ++i) fields.push_back(argSInfo(ctx, name + "_" + std::to_string(i), spec.items()[i]));
      return make<TupleSInfo>(std::move(fields));
    }
  }
  return nullptr;
}

// The value a method sees for an argument bound to `expr`: tuples are unpacked item by item into
// bindings named <arg>_<i>.
Nested argValue(ExportContext& ctx, const std::string& name, const ArgSpec& spec, const Expr& expr) {
  switch (spec.kind()) {
    case ArgSpec::TensorKind: return Tensor(expr);
    case ArgSpec::IntKind: return PrimExpr(ctx.symbolicVar(name));
    case ArgSpec::TupleKind: {
      std::vector<Nested> items;
      for (size_t i = 0; i < spec.items().size(); ++i) {
        std::string item = name + "_" + std::to_string(i);
        items.push_back(argValue(ctx, item, spec.items()[i], ctx.emit(make<TupleGetItem>(expr, int(i)), item)));
      }
      return Nested(std::move(items));
    }
  }
  fail("unknown argument spec");
}

// _initialize_effect() -> (states...): every effect's initial state, in signature order.
void emitEffectInit(ExportContext& ctx, const NamedEffects& effects) {
  ctx.beginFunction("_initialize_effect");
  std::vector<Expr> states;
  for (auto& [name, e] : effects)
    for (auto& s : e->emitInit(name)) states.push_back(s);
  VarRef gv = ctx.emitOutput(ctx.emit(make<Tuple>(std::move(states)), "lv"));
  ctx.endFunction({}, gv, nullptr);
}

// Creates the effects' state params of a method and sets their states; returns the params to add.
std::vector<VarRef> effectParams(ExportContext& ctx, const NamedEffects& effects, EffectMode mode) {
  std::vector<std::vector<VarRef>> perEffect;
  std::vector<VarRef> all;
  for (auto& [name, e] : effects) {
    perEffect.push_back(e->create(name));
    for (auto& v : perEffect.back()) all.push_back(v);
  }
  switch (mode) {
    case EffectMode::Plain:
      for (size_t k = 0; k < effects.size(); ++k) effects[k].second->setState(std::vector<Expr>(perEffect[k].begin(), perEffect[k].end()));
      return all;
    case EffectMode::Packed: {
      std::vector<StructInfo> fields;
      for (auto& v : all) fields.push_back(sinfoOf(v));
      auto packed = make<Var>("packed_effects", make<TupleSInfo>(std::move(fields)));
      int index = 0;
      for (size_t k = 0; k < effects.size(); ++k) {
        std::vector<Expr> items;
        for (auto& v : perEffect[k]) items.push_back(ctx.emit(make<TupleGetItem>(packed, index++), v->name));
        effects[k].second->setState(std::move(items));
      }
      return {packed};
    }
    case EffectMode::None:
      // No state: an effectful op in this method is an error naming the mode.
      for (auto& [name, e] : effects) e->setState({});
      return {};
  }
  return {};
}

void emitMethod(ExportContext& ctx, Module& self, const MethodSpec& method, const NamedParameters& params, const NamedEffects& effects) {
  ctx.beginFunction(method.name);
  std::vector<VarRef> fnParams;
  std::set<std::string> argNames;
  for (auto& [name, spec] : method.args) {
    if (!argNames.insert(name).second) fail("argument '" + name + "' is listed twice");
    fnParams.push_back(make<Var>(name, argSInfo(ctx, name, spec)));
  }
  int64_t numInput = int64_t(method.args.size());
  for (auto& v : effectParams(ctx, effects, method.options.effectMode)) {
    fnParams.push_back(v);
    ++numInput;
  }

  auto paramSInfo = [](const Parameter& p) {
    std::vector<PrimExpr> dims;
    for (auto d : p.shape()) dims.push_back(intImm(d));
    return tensorSInfo(std::move(dims), p.dtype());
  };
  switch (method.options.paramMode) {
    case ParamMode::Plain:
      for (auto& [name, p] : params) {
        auto v = make<Var>(name, paramSInfo(*p));
        p->setExpr(v);
        fnParams.push_back(v);
      }
      break;
    case ParamMode::Packed: {
      std::vector<StructInfo> fields;
      for (auto& [name, p] : params) fields.push_back(paramSInfo(*p));
      auto packed = make<Var>("packed_params", make<TupleSInfo>(std::move(fields)));
      fnParams.push_back(packed);
      for (size_t i = 0; i < params.size(); ++i) params[i].second->setExpr(ctx.emit(make<TupleGetItem>(packed, int(i)), params[i].first));
      break;
    }
    case ParamMode::None:
      for (auto& [name, p] : params)
        p->setExpr(nullptr, "parameter '" + name + "' is used by method '" + method.name + "', whose param_mode is none");
      break;
  }

  std::vector<Nested> args;
  for (size_t i = 0; i < method.args.size(); ++i) args.push_back(argValue(ctx, method.args[i].first, method.args[i].second, fnParams[i]));
  if (!method.fn) fail("method '" + method.name + "' has no function");
  Nested result = method.fn(self, args);
  std::vector<Expr> states;
  for (auto& [name, e] : effects)
    for (auto& s : e->finalize())
      if (s) states.push_back(s);
  Expr out = result.expr();
  if (!states.empty() && method.options.effectMode != EffectMode::None) out = make<Tuple>(std::vector<Expr>{out, make<Tuple>(std::move(states))});
  VarRef gv = ctx.emitOutput(out);
  ctx.endFunction(std::move(fnParams), gv, makeDictAttrs({{"num_input", AttrValue::integer(numInput)}}));
}

}  // namespace

Result<Exported> Module::exportIR(const ModuleSpec& spec, const ExportOptions& options) {
  auto params = namedParameters();
  // The IO effect of a debug export comes first, then the module's effects in registration order.
  NamedEffects effects;
  auto io = std::make_shared<IOEffect>();
  if (options.debug) effects.emplace_back("", io);
  for (auto& e : namedEffects()) effects.push_back(e);
  auto clearParams = [&] {
    for (auto& [name, p] : params) p->setExpr(nullptr);
    for (auto& [name, e] : effects) e->setState({});
  };
  ExportContext ctx;
  ExportContext::Scope scope(ctx);
  if (options.debug) ctx.setIOEffect(io.get());
  std::string current;
  try {
    if (!effects.empty()) {
      current = "_initialize_effect";
      emitEffectInit(ctx, effects);
    }
    std::set<std::string> names;
    for (auto& m : spec.methods()) {
      current = m.name;
      if (!names.insert(m.name).second) fail("method '" + m.name + "' is listed twice in the spec");
      emitMethod(ctx, *this, m, params, effects);
    }
  } catch (NNError& e) {
    clearParams();
    Error err = std::move(e.error);
    if (!current.empty()) err.message = "exporting method '" + current + "': " + err.message;
    return err;
  }
  clearParams();
  if (!options.allowExtern && !ctx.externModules().empty())
    return Error("the model registers extern modules (nn::addExtern) but ExportOptions::allowExtern is false", {}, "set allowExtern to get them back in Exported::externModules");
  Exported out;
  out.module = ctx.module();
  out.externModules = ctx.externModules();
  for (auto& [name, p] : params) out.params.push_back({name, p->shape(), p->dtype(), p});
  return out;
}

}  // namespace rlx::nn
