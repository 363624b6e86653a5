// nn::Module: a model component held by shared_ptr, with explicitly registered parameters and
// submodules (registration order is the parameter order), state dicts, dtype conversion and export.
// ModuleList / ModuleDict are containers; ModuleRef / ParamRef are the members that registration returns.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frontend/nn/export.h"
#include "frontend/nn/parameter.h"
#include "frontend/nn/spec.h"
#include "frontend/nn/tensor.h"

namespace rlx::nn {

class Module;

namespace detail {
// One registered child: a submodule or a parameter. Members refer to the slot, so a Mutator that
// replaces the child is seen by the module's own forward code.
struct Slot {
  std::string name;
  std::shared_ptr<Module> module;
  std::shared_ptr<Parameter> param;
  std::function<bool(const Module*)> accepts;  // the static type of the member (submodules)
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
  // Calls the module's single-tensor forward.
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

// name -> data of every parameter (null data when unbound), sorted by name.
using StateDict = std::map<std::string, NDArrayRef>;
using NamedParameters = std::vector<std::pair<std::string, std::shared_ptr<Parameter>>>;

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
  Tensor operator()(const Tensor& x) { return forward(x); }
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

  const std::vector<std::shared_ptr<detail::Slot>>& children() const { return slots_; }
  // Replaces a registered child (what Mutator does); the replacement must fit the member's type.
  Status replaceModule(const std::string& name, std::shared_ptr<Module> module);
  Status replaceParameter(const std::string& name, std::shared_ptr<Parameter> param);

  // ---- parameters: depth-first in registration order, names joined with "."
  NamedParameters namedParameters(const std::string& prefix = "") const;
  std::vector<std::shared_ptr<Parameter>> parameters() const;
  StateDict stateDict(const std::string& prefix = "") const;
  // Binds data from `dict`. Strict: any missing or unexpected key is an error naming both lists,
  // and nothing is loaded. Shape/dtype mismatches are errors.
  Result<LoadResult> loadStateDict(const StateDict& dict, bool strict = true);
  // Converts every parameter (recursively) to `dtype`; Linear keeps an out_dtype bias.
  virtual Status to(DType dtype);

  // ---- export
  Result<Exported> exportIR(const ModuleSpec& spec, const ExportOptions& options = {});

 protected:
  std::shared_ptr<detail::Slot> addSlot(const std::string& name);

 private:
  std::vector<std::shared_ptr<detail::Slot>> slots_;
};

template <typename M>
Tensor ModuleRef<M>::operator()(const Tensor& x) const {
  return get()->forward(x);
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
