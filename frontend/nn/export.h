// The result of Module::exportIR: the IRModule (every spec method as a Relax function, plus the
// PrimFuncs ops added) and the parameter list in function-signature order.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ir/module.h"

namespace rlx::nn {

class Parameter;
class ExternModule;

struct ExportOptions {
  bool debug = false;        // adds the IOEffect (print_, debug_func)
  bool allowExtern = false;  // permits extern modules
};

struct ExportedParam {
  std::string name;  // dotted path, e.g. "blocks.0.fc1.weight"
  std::vector<int64_t> shape;
  DataType dtype;
  std::shared_ptr<Parameter> param;
};

struct Exported {
  IRModuleRef module;
  std::vector<ExportedParam> params;
  std::vector<std::shared_ptr<ExternModule>> externModules;  // registered with addExtern (allowExtern)
};

}  // namespace rlx::nn
