// nn::Module: a model component held by shared_ptr, with explicitly registered parameters and
// submodules (registration order is the parameter order), state dicts, dtype conversion and export.
// ModuleList / ModuleDict are containers; ModuleRef / ParamRef / EffectRef are the members that
// registration returns. A module may export its calls as a private Relax function (subroutine).
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frontend/nn/effect.h"
#include "frontend/nn/export.h"
#include "frontend/nn/parameter.h"
#include "frontend/nn/spec.h"
#include "frontend/nn/tensor.h"

namespace rlx::nn {

class Module;

namespace detail {
// One registered child: a submodule, a parameter or an effect. Members refer to the slot, so a Mutator that
// replaces the child is seen by the module's own forward code.
struct Slot {
  std::string name;
  std::shared_ptr<Module> module;
  std::shared_ptr<Parameter> param;
  std::shared_ptr<Effect> effect;
  std::function<bool(const Module*)> accepts;        // the static type of the member (submodules)
  std::function<bool(const Effect*)> acceptsEffect;  // the static type of the member (effects)
};
}  // namespace detail

// A registered submodule of static type M (like libtorch's ModuleHolder).
template <typename M>
class ModuleRef {
 public:
  ModuleRef() = default;
  explicit ModuleRef(std::shared_ptr<detail::Slot> s) : slot_(std::move(s)) {}
  M* get() const { return slot_ ? static_cast<M*>(slot_->module.get()) : nullptr; }
  M* operator->() const { return get(); }
  M& operator*() const { return *get(); }
  explicit operator bool() const { return get() != nullptr; }
  std::shared_ptr<M> ptr() const { return slot_ ? std::static_pointer_cast<M>(slot_->module) : nullptr; }
  operator std::shared_ptr<M>() const { return ptr(); }
  // Calls the module's single-tensor forward (through Module::operator(), so subroutines apply).
  Tensor operator()(const Tensor& x) const;

 private:
  std::shared_ptr<detail::Slot> slot_;
};

// A registered parameter; converts to the Tensor it stands for while exporting. Empty when the
// parameter was not created (e.g. a Linear without bias).
class ParamRef {
 public:
  ParamRef() = default;
  explicit ParamRef(std::shared_ptr<detail::Slot> s) : slot_(std::move(s)) {}
  Parameter* get() const { return slot_ ? slot_->param.get() : nullptr; }
  Parameter* operator->() const { return get(); }
  Parameter& operator*() const { return *get(); }
  explicit operator bool() const { return get() != nullptr; }
  std::shared_ptr<Parameter> ptr() const { return slot_ ? slot_->param : nullptr; }

 private:
  std::shared_ptr<detail::Slot> slot_;
};

// A registered effect of static type E (a KVCache).
template <typename E>
class EffectRef {
 public:
  EffectRef() = default;
  explicit EffectRef(std::shared_ptr<detail::Slot> s) : slot_(std::move(s)) {}
  E* get() const { return slot_ ? static_cast<E*>(slot_->effect.get()) : nullptr; }
  E* operator->() const { return get(); }
  E& operator*() const { return *get(); }
  explicit operator bool() const { return get() != nullptr; }
  std::shared_ptr<E> ptr() const { return slot_ ? std::static_pointer_cast<E>(slot_->effect) : nullptr; }

 private:
  std::shared_ptr<detail::Slot> slot_;
};

// name -> data of every parameter (null data when unbound), sorted by name.
using StateDict = std::map<std::string, NDArrayRef>;
using NamedParameters = std::vector<std::pair<std::string, std::shared_ptr<Parameter>>>;
using NamedEffects = std::vector<std::pair<std::string, std::shared_ptr<Effect>>>;

struct LoadResult {
  std::vector<std::string> missingKeys;     // parameters the dict did not provide
  std::vector<std::string> unexpectedKeys;  // dict entries no parameter has
};

class Module {
 public:
  Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  virtual ~Module();

  // The single-tensor forward used by ModuleList chaining and operator(); modules with other
  // signatures define their own methods and export them through ModuleSpec.
  virtual Tensor forward(const Tensor& x);
  // Calls forward: inline, or as this module's subroutine when setDefineSubroutine is on.
  Tensor operator()(const Tensor& x);
  // The C++ class name, for messages.
  std::string typeName() const;

  // ---- registration (names must be unique within the module)
  template <typename M>
  ModuleRef<M> registerModule(const std::string& name, std::shared_ptr<M> module) {
    auto slot = addSlot(name);
    slot->module = std::move(module);
    slot->accepts = [](const Module* m) { return dynamic_cast<const M*>(m) != nullptr; };
    return ModuleRef<M>(slot);
  }
  // A null parameter registers nothing and returns an empty ParamRef (TVM's `self.bias = None`).
  ParamRef registerParameter(const std::string& name, std::shared_ptr<Parameter> param);
  // Effects are threaded through every exported method (see effect.h), in registration order.
  template <typename E>
  EffectRef<E> registerEffect(const std::string& name, std::shared_ptr<E> effect) {
    if (!effect) fail("registerEffect('" + name + "') of a null effect");
    auto slot = addSlot(name);
    slot->effect = std::move(effect);
    slot->acceptsEffect = [](const Effect* e) { return dynamic_cast<const E*>(e) != nullptr; };
    return EffectRef<E>(slot);
  }

  const std::vector<std::shared_ptr<detail::Slot>>& children() const { return slots_; }
  // Replaces a registered child (what Mutator does); the replacement must fit the member's type.
  Status replaceModule(const std::string& name, std::shared_ptr<Module> module);
  Status replaceParameter(const std::string& name, std::shared_ptr<Parameter> param);
  Status replaceEffect(const std::string& name, std::shared_ptr<Effect> effect);

  // ---- parameters: depth-first in registration order, names joined with "."
  NamedParameters namedParameters(const std::string& prefix = "") const;
  std::vector<std::shared_ptr<Parameter>> parameters() const;
  // Effects, depth-first in registration order (the order of their state vars).
  NamedEffects namedEffects(const std::string& prefix = "") const;
  StateDict stateDict(const std::string& prefix = "") const;
  // Binds data from `dict`. Strict: any missing or unexpected key is an error naming both lists,
  // and nothing is loaded. Shape/dtype mismatches are errors.
  Result<LoadResult> loadStateDict(const StateDict& dict, bool strict = true);
  // Converts every parameter and effect (recursively) to `dtype`; Linear keeps an out_dtype bias.
  virtual Status to(DType dtype);

  // ---- subroutines (TVM's define_subroutine)
  // When on, each call of this module while exporting becomes `<name>_output = cls.<name>(args...,
  // params...)` of a private function <name> = snake_case of the class name, taking the call's
  // arguments (named `argNames`, e.g. the forward's parameter names) and then the module's
  // parameters. Calls whose argument and parameter struct info are equal (symbolic dims matched by
  // position) share one function, even across instances: its parameters are named after the first
  // caller's (layer1_weights serves layer2 too, as in TVM).
  void setDefineSubroutine(bool on, std::vector<std::string> argNames = {"x"});
  bool defineSubroutine() const { return defineSubroutine_; }
  // Runs `body` on `args`, as a subroutine call when setDefineSubroutine is on and a method is being
  // exported, else directly. For methods other than the single-tensor forward:
  //   Tensor Block::call(const Tensor& x, const Tensor& mask) {
  //     return callSubroutine({x, mask}, [&](auto& a) { return impl(a[0].tensor(), a[1].tensor()); }).tensor();
  //   }
  Nested callSubroutine(const std::vector<Nested>& args, const std::function<Nested(const std::vector<Nested>&)>& body);
  // The subroutine's function name (snake_case of the class name without namespaces).
  std::string subroutineName() const;

  // ---- export
  Result<Exported> exportIR(const ModuleSpec& spec, const ExportOptions& options = {});

 protected:
  std::shared_ptr<detail::Slot> addSlot(const std::string& name);

 private:
  std::vector<std::shared_ptr<detail::Slot>> slots_;
  bool defineSubroutine_ = false;
  std::vector<std::string> subroutineArgNames_;
};

template <typename M>
Tensor ModuleRef<M>::operator()(const Tensor& x) const {
  return (*get())(x);
}

// Modules indexed 0, 1, ...; its forward chains them.
class ModuleList : public Module {
 public:
  ModuleList() = default;
  explicit ModuleList(std::vector<std::shared_ptr<Module>> modules);
  void append(std::shared_ptr<Module> module);
  size_t size() const { return children().size(); }
  std::shared_ptr<Module> operator[](size_t i) const;
  template <typename M>
  std::shared_ptr<M> at(size_t i) const {
    auto m = std::dynamic_pointer_cast<M>((*this)[i]);
    if (!m) fail("ModuleList item " + std::to_string(i) + " is a " + (*this)[i]->typeName());
    return m;
  }
  Tensor forward(const Tensor& x) override;

  class Iterator {
   public:
    Iterator(const ModuleList* l, size_t i) : list_(l), i_(i) {}
    std::shared_ptr<Module> operator*() const { return (*list_)[i_]; }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator!=(const Iterator& o) const { return i_ != o.i_; }

   private:
    const ModuleList* list_;
    size_t i_;
  };
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, size()}; }
};

// Modules by name, in insertion order (parameter names use the key).
class ModuleDict : public Module {
 public:
  ModuleDict() = default;
  explicit ModuleDict(std::vector<std::pair<std::string, std::shared_ptr<Module>>> modules);
  void insert(const std::string& key, std::shared_ptr<Module> module);
  std::shared_ptr<Module> operator[](const std::string& key) const;
  size_t size() const { return children().size(); }
};

}  // namespace rlx::nn
