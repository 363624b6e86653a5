// Pass infrastructure (TVM's shape): PassInfo, module passes, Sequential, PassContext with
// opt_level / required / disabled passes and instruments that observe every pass.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/module.h"

namespace rlx {

struct PassInfo {
  std::string name;
  int optLevel = 0;
  std::vector<std::string> required;  // passes that must run before (informational)
};

class PassContext;

// Observes passes as they run (printing, timing, verification, dumps).
class PassInstrument {
 public:
  virtual ~PassInstrument() = default;
  virtual void beforePass(const PassInfo& info, const IRModuleRef& mod) {}
  // `after` is the module the pass produced (the same object when it changed nothing).
  virtual Status afterPass(const PassInfo& info, const IRModuleRef& before, const IRModuleRef& after) { return okStatus(); }
};

class PassContext {
 public:
  int optLevel = 2;
  std::vector<std::string> requiredPass;
  std::vector<std::string> disabledPass;
  std::vector<std::shared_ptr<PassInstrument>> instruments;
  // Functions that function-level passes may change (empty: all). Module-level passes (DCE,
  // Inline, LambdaLift, ...) always see the whole module.
  std::vector<std::string> scope;
  // The caller drops the module it started the pipeline with (`rlx run`): a pass may then reuse the
  // memory of that module's constants (PackMatmulWeights repacks weights in place instead of
  // holding a second copy of them at the peak).
  bool consumesInput = false;
  bool inScope(const std::string& function) const;
  bool isDisabled(const std::string& name) const;
  bool isRequired(const std::string& name) const;
};

using PassFn = std::function<Result<IRModuleRef>(const IRModuleRef&, const PassContext&)>;

class Pass {
 public:
  Pass(PassInfo info, PassFn fn) : info_(std::move(info)), fn_(std::move(fn)) {}
  const PassInfo& info() const { return info_; }
  // Runs the pass with the context's instruments (no opt-level filtering: see Sequential).
  Result<IRModuleRef> operator()(const IRModuleRef& mod, const PassContext& ctx) const;

 private:
  PassInfo info_;
  PassFn fn_;
};

// A function-level pass adaptor: applies `fn` to every Relax function of the module.
Pass makeFunctionPass(PassInfo info, std::function<Result<Expr>(const Expr& func, const GlobalVarRef& gvar, const IRModuleRef& mod)> fn);

// A function pass that runs a fresh `Mutator` (an ExprMutator subclass) over every Relax function.
template <typename Mutator>
Pass makeMutatorPass(PassInfo info) {
  return makeFunctionPass(std::move(info), [](const Expr& func, const GlobalVarRef&, const IRModuleRef&) -> Result<Expr> {
    Mutator m;
    return m.mutate(func);
  });
}

// Runs passes in order; a pass whose opt_level exceeds the context's is skipped unless required,
// and a disabled pass never runs.
Result<IRModuleRef> runSequential(const std::vector<Pass>& passes, const IRModuleRef& mod, const PassContext& ctx);

}  // namespace rlx
