// Module, ModuleList, ModuleDict (see module.h): registration, parameter and effect walks, state
// dicts, to(). Subroutine calls are in subroutine.cc.
#include "frontend/nn/module.h"

#include <set>

namespace rlx::nn {

Module::~Module() = default;

Tensor Module::forward(const Tensor&) { fail(typeName() + " has no single-tensor forward", "call one of its own methods instead"); }

std::string Module::typeName() const { return typeNameOf(typeid(*this)); }

std::shared_ptr<detail::Slot> Module::addSlot(const std::string& name) {
  if (name.empty() || name.find('.') != std::string::npos) fail("invalid child name '" + name + "' (names are non-empty and have no '.')");
  for (auto& s : slots_)
    if (s->name == name) fail(typeName() + " already has a child named '" + name + "'");
  auto slot = std::make_shared<detail::Slot>();
  slot->name = name;
  slots_.push_back(slot);
  return slot;
}

ParamRef Module::registerParameter(const std::string& name, std::shared_ptr<Parameter> param) {
  if (!param) return ParamRef();
  auto slot = addSlot(name);
  slot->param = std::move(param);
  return ParamRef(slot);
}

Status Module::replaceModule(const std::string& name, std::shared_ptr<Module> module) {
  for (auto& s : slots_) {
    if (s->name != name) continue;
    if (!s->module) return Error("'" + name + "' of " + typeName() + " is not a submodule");
    if (!module) return Error("cannot replace submodule '" + name + "' by null");
    if (s->accepts && !s->accepts(module.get()))
      return Error("cannot replace submodule '" + name + "' (a " + s->module->typeName() + ") by a " + module->typeName() + ": the member's type does not allow it");
    s->module = std::move(module);
    return okStatus();
  }
  return Error(typeName() + " has no child named '" + name + "'");
}

Status Module::replaceParameter(const std::string& name, std::shared_ptr<Parameter> param) {
  for (auto& s : slots_) {
    if (s->name != name) continue;
    if (!s->param) return Error("'" + name + "' of " + typeName() + " is not a parameter");
    if (!param) return Error("cannot replace parameter '" + name + "' by null");
    s->param = std::move(param);
    return okStatus();
  }
  return Error(typeName() + " has no child named '" + name + "'");
}

Status Module::replaceEffect(const std::string& name, std::shared_ptr<Effect> effect) {
  for (auto& s : slots_) {
    if (s->name != name) continue;
    if (!s->effect) return Error("'" + name + "' of " + typeName() + " is not an effect");
    if (!effect) return Error("cannot replace effect '" + name + "' by null");
    if (s->acceptsEffect && !s->acceptsEffect(effect.get()))
      return Error("cannot replace effect '" + name + "' (a " + s->effect->typeName() + ") by a " + effect->typeName() + ": the member's type does not allow it");
    s->effect = std::move(effect);
    return okStatus();
  }
  return Error(typeName() + " has no child named '" + name + "'");
}

NamedEffects Module::namedEffects(const std::string& prefix) const {
  NamedEffects out;
  std::set<const Effect*> seen;  // an effect shared by two modules is threaded once
  std::function<void(const Module&, const std::string&)> walk = [&](const Module& m, const std::string& p) {
    for (auto& s : m.slots_) {
      std::string name = p.empty() ? s->name : p + "." + s->name;
      if (s->effect) {
        if (seen.insert(s->effect.get()).second) out.emplace_back(name, s->effect);
      } else if (s->module) {
        walk(*s->module, name);
      }
    }
  };
  walk(*this, prefix);
  return out;
}

NamedParameters Module::namedParameters(const std::string& prefix) const {
  NamedParameters out;
  std::set<const Parameter*> seen;  // a parameter shared by two modules is listed once
  std::function<void(const Module&, const std::string&)> walk = [&](const Module& m, const std::string& p) {
    for (auto& s : m.slots_) {
      std::string name = p.empty() ? s->name : p + "." + s->name;
      if (s->param) {
        if (seen.insert(s->param.get()).second) out.emplace_back(name, s->param);
      } else if (s->module) {
        walk(*s->module, name);
      }
    }
  };
  walk(*this, prefix);
  return out;
}

std::vector<std::shared_ptr<Parameter>> Module::parameters() const {
  std::vector<std::shared_ptr<Parameter>> out;
  for (auto& [name, p] : namedParameters()) out.push_back(p);
  return out;
}

StateDict Module::stateDict(const std::string& prefix) const {
  StateDict out;
  for (auto& [name, p] : namedParameters(prefix)) out[name] = p->data();
  return out;
}

namespace {
std::string joinKeys(const std::vector<std::string>& keys) {
  std::string out = "[";
  for (size_t i = 0; i < keys.size(); ++i) out += (i ? ", " : "") + keys[i];
  return out + "]";
}
}  // namespace

Result<LoadResult> Module::loadStateDict(const StateDict& dict, bool strict) {
  auto params = namedParameters();
  LoadResult r;
  std::set<std::string> own;
  for (auto& [name, p] : params) {
    own.insert(name);
    if (!dict.count(name)) r.missingKeys.push_back(name);
  }
  for (auto& [name, data] : dict)
    if (!own.count(name)) r.unexpectedKeys.push_back(name);
  if (strict && (!r.missingKeys.empty() || !r.unexpectedKeys.empty()))
    return Error("loading the state dict failed: missing keys " + joinKeys(r.missingKeys) + ", unexpected keys " + joinKeys(r.unexpectedKeys), {},
                 "pass strict = false to load the matching keys only");
  // Check everything before binding anything, so a failed load leaves the module unchanged.
  for (auto& [name, p] : params) {
    auto it = dict.find(name);
    if (it == dict.end()) continue;
    if (!it->second) return Error("the state dict has no data for '" + name + "'");
    if (Status st = p->checkData(*it->second); !st.ok()) return Error("'" + name + "': " + st.error().message);
  }
  for (auto& [name, p] : params) {
    auto it = dict.find(name);
    if (it != dict.end()) RLX_TRY_STATUS(p->setData(it->second));
  }
  return r;
}

Status Module::to(DType dtype) {
  for (auto& s : slots_) {
    if (s->param) RLX_TRY_STATUS(s->param->to(dtype));
    else if (s->module) RLX_TRY_STATUS(s->module->to(dtype));
    else if (s->effect) RLX_TRY_STATUS(s->effect->to(dtype));
  }
  return okStatus();
}

// ---------------------------------------------------------------- containers
ModuleList::ModuleList(std::vector<std::shared_ptr<Module>> modules) {
  for (auto& m : modules) append(std::move(m));
}

void ModuleList::append(std::shared_ptr<Module> module) {
  if (!module) fail("ModuleList::append of a null module");
  registerModule(std::to_string(size()), std::move(module));
}

std::shared_ptr<Module> ModuleList::operator[](size_t i) const {
  if (i >= size()) fail("ModuleList index " + std::to_string(i) + " out of range (size " + std::to_string(size()) + ")");
  return children()[i]->module;
}

Tensor ModuleList::forward(const Tensor& x) {
  Tensor y = x;
  for (auto m : *this) y = (*m)(y);
  return y;
}

ModuleDict::ModuleDict(std::vector<std::pair<std::string, std::shared_ptr<Module>>> modules) {
  for (auto& [k, m] : modules) insert(k, std::move(m));
}

void ModuleDict::insert(const std::string& key, std::shared_ptr<Module> module) {
  if (!module) fail("ModuleDict::insert of a null module");
  registerModule(key, std::move(module));
}

std::shared_ptr<Module> ModuleDict::operator[](const std::string& key) const {
  for (auto& s : children())
    if (s->name == key) return s->module;
  fail("ModuleDict has no key '" + key + "'");
}

}  // namespace rlx::nn
