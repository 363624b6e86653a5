// nn::jit (TVM's Module.jit): exports a module, builds it for the VM, loads its extern modules and
// returns a JitModule that runs the methods by name with the parameters bound and effect states kept.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "frontend/nn/module.h"
#include "runtime/runner.h"
#include "runtime/value.h"

namespace rlx::nn {

struct JitOptions {
  std::string device = "cpu";    // the only device the VM has
  std::string pipeline = "build";  // a runPipelineText name (TVM's default_build) or a pass list
  bool debug = false;            // exportIR's debug (the IOEffect)
  vm::VMOptions vm;
};

// One argument of a jitted call: a tensor (spec::Tensor), an int (spec::Int, passed to the VM as
// the shape (n,) TVM uses) or a tuple of those (spec::Tuple); a vm::Value passes through unchecked.
class JitArg {
 public:
  JitArg(NDArrayRef a) : value_(vm::Value::ofTensor(std::move(a))), isValue_(false) {}
  JitArg(int64_t v) : value_(vm::Value::ofInt(v)), isValue_(false) {}
  JitArg(int v) : JitArg(int64_t(v)) {}
  JitArg(std::vector<JitArg> items) : items_(std::move(items)), isTuple_(true), isValue_(false) {}
  JitArg(vm::Value v) : value_(std::move(v)) {}
  const vm::Value& value() const { return value_; }
  bool isTuple() const { return isTuple_; }
  bool isRawValue() const { return isValue_; }
  const std::vector<JitArg>& items() const { return items_; }

 private:
  vm::Value value_;
  std::vector<JitArg> items_;
  bool isTuple_ = false;
  bool isValue_ = true;
};

class JitModule {
 public:
  // Runs `method` on `args` (checked against its spec), then the effect states (updated from the
  // method's result, as TVM's jit wrapper does), then the parameters, each as the method's
  // effect/param mode says. Returns the method's output without the effects.
  Result<vm::Value> call(const std::string& method, const std::vector<JitArg>& args);
  Result<vm::Value> operator()(const std::string& method, const std::vector<JitArg>& args) { return call(method, args); }

  std::vector<std::string> methodNames() const;
  const Exported& exported() const { return exported_; }
  const PreparedModule& prepared() const { return prepared_; }
  // The effect states (KV caches, the IOEffect) as left by the last call; empty without effects.
  const std::vector<vm::Value>& effects() const { return effects_; }
  // Fresh states from _initialize_effect (e.g. empty KV caches before a new sequence).
  Status resetEffects();

 private:
  friend Result<JitModule> jit(Module& module, const ModuleSpec& spec, const JitOptions& options);
  JitModule() = default;

  std::vector<MethodSpec> methods_;
  Exported exported_;
  PreparedModule prepared_;
  std::vector<vm::Value> params_;
  std::vector<vm::Value> effects_;
  bool hasEffects_ = false;
};

// Exports `module` with `spec` (extern modules allowed), lowers it with options.pipeline and loads
// it. Every parameter must have data: the error names the unbound ones.
Result<JitModule> jit(Module& module, const ModuleSpec& spec, const JitOptions& options = {});

}  // namespace rlx::nn
