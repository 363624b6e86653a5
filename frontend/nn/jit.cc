// nn::jit (see jit.h): export, extern loading, build and VM load, then calls that check arguments
// against the method's spec and thread effects and parameters the way the exporter laid them out.
#include "frontend/nn/jit.h"

#include <fmt/format.h>

#include "frontend/nn/extern.h"
#include "frontend/nn/parameter.h"
#include "printer/printer.h"

namespace rlx::nn {

namespace {

// A dim's static size; nullopt for a named (symbolic) one.
std::optional<int64_t> staticDim(const Dim& d) {
  if (d.isName()) return std::nullopt;
  if (auto* imm = asIntImm(d.expr())) return imm->value;
  return std::nullopt;
}

// The VM value of argument `name` for `spec`, or an error saying what was expected.
Result<vm::Value> toVMValue(const std::string& name, const ArgSpec& spec, const JitArg& arg) {
  if (arg.isRawValue()) return arg.value();
  switch (spec.kind()) {
    case ArgSpec::TensorKind: {
      if (arg.isTuple() || arg.value().kind != vm::Value::Tensor) return Error(fmt::format("argument '{}' must be a tensor", name));
      const NDArray& a = *arg.value().array;
      bool ok = a.dtype == spec.dtype() && a.shape.size() == spec.shape().size();
      std::string want, got;
      for (size_t i = 0; i < spec.shape().size(); ++i) {
        auto fixed = staticDim(spec.shape()[i]);
        want += (i ? ", " : "") + (fixed ? std::to_string(*fixed) : spec.shape()[i].isName() ? spec.shape()[i].name() : printPrimExpr(spec.shape()[i].expr()));
        if (ok && fixed && *fixed != a.shape[i]) ok = false;
      }
      for (size_t i = 0; i < a.shape.size(); ++i) got += (i ? ", " : "") + std::to_string(a.shape[i]);
      if (!ok) return Error(fmt::format("argument '{}' must be a {} tensor of shape ({}), got a {} tensor of shape ({})", name, spec.dtype().str(), want, a.dtype.str(), got));
      return arg.value();
    }
    case ArgSpec::IntKind:
      if (arg.isTuple() || arg.value().kind != vm::Value::Int) return Error(fmt::format("argument '{}' must be an int", name));
      return vm::Value::ofShape({arg.value().i});  // spec.Int is an R.Shape([n]) parameter
    case ArgSpec::TupleKind: {
      if (!arg.isTuple() || arg.items().size() != spec.items().size())
        return Error(fmt::format("argument '{}' must be a tuple of {} items", name, spec.items().size()));
      std::vector<vm::Value> fields;
      for (size_t i = 0; i < spec.items().size(); ++i) {
        RLX_TRY(v, toVMValue(name + "[" + std::to_string(i) + "]", spec.items()[i], arg.items()[i]));
        fields.push_back(std::move(v));
      }
      return vm::Value::ofTuple(std::move(fields));
    }
  }
  return Error("unknown argument spec");
}

// Appends `values` as the mode says: one argument each, one tuple, or nothing.
template <typename Mode>
void appendByMode(std::vector<vm::Value>& out, const std::vector<vm::Value>& values, Mode mode) {
  if (mode == Mode::Plain) out.insert(out.end(), values.begin(), values.end());
  else if (mode == Mode::Packed) out.push_back(vm::Value::ofTuple(values));
}

}  // namespace

Result<JitModule> jit(Module& module, const ModuleSpec& spec, const JitOptions& options) {
  if (options.device != "cpu") return Error("jit: device '" + options.device + "' is not supported", {}, "the VM runs on the host CPU: use \"cpu\"");
  ExportOptions exportOptions;
  exportOptions.debug = options.debug;
  exportOptions.allowExtern = true;
  RLX_TRY(exported, module.exportIR(spec, exportOptions));

  JitModule out;
  std::vector<std::string> unbound;
  for (auto& p : exported.params) {
    if (p.param->data()) out.params_.push_back(vm::Value::ofTensor(p.param->data()));
    else unbound.push_back(p.name);
  }
  if (!unbound.empty()) {
    std::string names;
    for (auto& n : unbound) names += (names.empty() ? "" : ", ") + n;
    return Error("jit: parameters are not set to any concrete values: " + names, {}, "bind them with Parameter::setData or Module::loadStateDict first");
  }
  RLX_TRY_STATUS(loadExternModules(exported.externModules));
  RLX_TRY(prepared, prepareModule(exported.module, options.pipeline, {}, options.vm));
  out.methods_ = spec.methods();
  out.exported_ = std::move(exported);
  out.prepared_ = std::move(prepared);
  out.hasEffects_ = out.prepared_.machine->hasFunction("_initialize_effect");
  RLX_TRY_STATUS(out.resetEffects());
  return out;
}

Status JitModule::resetEffects() {
  effects_.clear();
  if (!hasEffects_) return okStatus();
  RLX_TRY(states, prepared_.machine->invoke("_initialize_effect", {}));
  if (states.kind != vm::Value::Tuple) return Error("jit: _initialize_effect returned " + states.describe() + ", not a tuple of effect states");
  effects_ = states.fields();
  return okStatus();
}

std::vector<std::string> JitModule::methodNames() const {
  std::vector<std::string> names;
  for (auto& m : methods_) names.push_back(m.name);
  return names;
}

Result<vm::Value> JitModule::call(const std::string& method, const std::vector<JitArg>& args) {
  const MethodSpec* m = nullptr;
  for (auto& s : methods_)
    if (s.name == method) m = &s;
  if (!m) {
    std::string names;
    for (auto& s : methods_) names += (names.empty() ? "" : ", ") + s.name;
    return Error("jit: no method '" + method + "' (the spec has: " + names + ")");
  }
  if (args.size() != m->args.size())
    return Error(fmt::format("jit: method '{}' takes {} arguments, got {}", method, m->args.size(), args.size()));
  std::vector<vm::Value> vals;
  for (size_t i = 0; i < args.size(); ++i) {
    auto v = toVMValue(m->args[i].first, m->args[i].second, args[i]);
    if (!v.ok()) {
      Error e = v.error();
      e.message = "jit: method '" + method + "': " + e.message;
      return e;
    }
    vals.push_back(std::move(*v));
  }
  bool threadEffects = hasEffects_ && m->options.effectMode != EffectMode::None;
  if (threadEffects) appendByMode(vals, effects_, m->options.effectMode);
  appendByMode(vals, params_, m->options.paramMode);
  RLX_TRY(result, prepared_.machine->invoke(method, std::move(vals)));
  if (!threadEffects) return result;
  // (output, (new states...)): keep the states for the next call, as TVM's wrapper does.
  if (result.kind != vm::Value::Tuple || result.fields().size() != 2 || result.fields()[1].kind != vm::Value::Tuple)
    return Error("jit: method '" + method + "' returned " + result.describe() + ", not (output, effect states)");
  effects_ = result.fields()[1].fields();
  return result.fields()[0];
}

}  // namespace rlx::nn
