// nn::Mutator: walks a module tree and may replace submodules and parameters (TVM's nn.Mutator).
// visit() calls visitModuleList / visitModule / visitParam / visitEffect for each child and stores
// the results.
#pragma once
#include <memory>
#include <string>

#include "frontend/nn/module.h"

namespace rlx::nn {

class Mutator {
 public:
  virtual ~Mutator() = default;
  // Visits every child of `node` (named "<name>.<child>", or "<child>" at the root) and replaces it
  // by what the visit returns. Returns `node`. A replacement of the wrong type throws NNError.
  std::shared_ptr<Module> visit(const std::string& name, const std::shared_ptr<Module>& node);

  // Defaults recurse (modules) or keep the child (parameters).
  virtual std::shared_ptr<Module> visitModule(const std::string& name, const std::shared_ptr<Module>& node) { return visit(name, node); }
  virtual std::shared_ptr<Module> visitModuleList(const std::string& name, const std::shared_ptr<ModuleList>& node) { return visit(name, node); }
  virtual std::shared_ptr<Parameter> visitParam(const std::string& name, const std::shared_ptr<Parameter>& node) { return node; }
  virtual std::shared_ptr<Effect> visitEffect(const std::string& name, const std::shared_ptr<Effect>& node) { return node; }
};

}  // namespace rlx::nn
