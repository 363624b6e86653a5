// Extern kernels: op::extern_ (TVM's op.extern: R.call_dps_packed of a packed function by name) and
// extern modules (TVM's nn.SourceModule / nn.ObjectModule / nn.add_extern) whose symbols jit loads into the VM.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "frontend/nn/error.h"
#include "frontend/nn/tensor.h"

namespace rlx::nn {

// An argument of an extern call: a tensor, an int (R.prim_value(3)), a float
// (R.prim_value(T.float64(..))), a string (R.str), a symbolic int or a tuple of those.
class ExternArg {
 public:
  enum Kind { TensorKind, IntKind, FloatKind, StrKind, PrimKind, TupleKind };
  ExternArg(Tensor t) : kind_(TensorKind), tensor_(std::move(t)) {}
  ExternArg(int v) : kind_(IntKind), int_(v) {}
  ExternArg(int64_t v) : kind_(IntKind), int_(v) {}
  ExternArg(double v) : kind_(FloatKind), float_(v) {}
  ExternArg(const char* s) : kind_(StrKind), str_(s) {}
  ExternArg(std::string s) : kind_(StrKind), str_(std::move(s)) {}
  ExternArg(PrimExpr e) : kind_(PrimKind), prim_(std::move(e)) {}
  ExternArg(std::vector<ExternArg> items) : kind_(TupleKind), items_(std::move(items)) {}

  Kind kind() const { return kind_; }
  const Tensor& tensor() const;
  int64_t integer() const;
  double number() const;
  const std::string& str() const;
  const std::vector<ExternArg>& items() const;
  // The Relax argument (TVM's _convert).
  Expr expr() const;

 private:
  Kind kind_;
  Tensor tensor_;
  int64_t int_ = 0;
  double float_ = 0;
  std::string str_;
  PrimExpr prim_;
  std::vector<ExternArg> items_;
};

// A symbol's shape/dtype inference: its output as a Tensor::placeholder, given the call's arguments.
using ExternInferFn = std::function<Tensor(const std::vector<ExternArg>& args)>;
// Symbol names with their inference functions, in registration order.
using ExternSymbols = std::vector<std::pair<std::string, ExternInferFn>>;

// A set of kernels in a shared object, each called through call_dps_packed with the calling
// convention of frontend/nn/extern_abi.h (inputs, then the preallocated outputs, as DLTensor*).
class ExternModule {
 public:
  virtual ~ExternModule();
  ExternModule(const ExternModule&) = delete;
  ExternModule& operator=(const ExternModule&) = delete;

  const ExternSymbols& symbols() const { return symbols_; }
  std::vector<std::string> symbolNames() const;
  // "SourceModule" / "ObjectModule".
  virtual std::string kind() const = 0;

  // Emits `R.call_dps_packed(symbol, (args,), out_sinfo=<inferred>)` bound as `symbol`; the module
  // must have been registered with addExtern in this export.
  Tensor call(const std::string& symbol, const std::vector<ExternArg>& args) const;
  // ext["sym"]({x, 2.0}), as TVM's ext["sym"](x, 2.0).
  class Symbol {
   public:
    Symbol(const ExternModule* m, std::string s) : module_(m), name_(std::move(s)) {}
    Tensor operator()(const std::vector<ExternArg>& args) const { return module_->call(name_, args); }

   private:
    const ExternModule* module_;
    std::string name_;
  };
  Symbol operator[](const std::string& symbol) const;

  // The path of a shared object defining every symbol (built on first use and cached).
  virtual Result<std::string> sharedObject() = 0;

 protected:
  explicit ExternModule(ExternSymbols symbols);
  // A private temporary directory for this module's build products, removed with the module.
  Result<std::string> buildDir();

 private:
  ExternSymbols symbols_;
  std::string buildDir_;
};

// C++ source compiled with the system compiler into a shared object when first needed (jit), with
// frontend/nn/extern_abi.h available as "extern_abi.h"; symbols are exported with
// RLX_EXTERN_EXPORT_TYPED_FUNC.
class SourceModule : public ExternModule {
 public:
  // compiler: empty = $CXX, else g++. The options come after the fixed `-shared -fPIC`.
  SourceModule(ExternSymbols symbols, std::string sourceCode, std::vector<std::string> compileOptions = defaultCompileOptions(), std::string compiler = "");
  // The source read from a file.
  static Result<std::shared_ptr<SourceModule>> fromFile(ExternSymbols symbols, const std::string& path, std::vector<std::string> compileOptions = defaultCompileOptions(),
                                                        std::string compiler = "");
  static std::vector<std::string> defaultCompileOptions();  // -O2 -std=c++17

  std::string kind() const override { return "SourceModule"; }
  const std::string& sourceCode() const { return source_; }
  // Compiles into a shared object at `outputPath` (written atomically); compiler errors are returned.
  Status compile(const std::string& outputPath) const;
  Result<std::string> sharedObject() override;

 private:
  std::string source_;
  std::vector<std::string> options_;
  std::string compiler_;
  std::string compiled_;  // the cached shared object
};

// A prebuilt object (.o, linked into a shared object when first needed) or shared object (.so).
class ObjectModule : public ExternModule {
 public:
  // The file must exist (TVM: "Not a file").
  static Result<std::shared_ptr<ObjectModule>> create(ExternSymbols symbols, const std::string& path);
  std::string kind() const override { return "ObjectModule"; }
  const std::string& path() const { return path_; }
  Result<std::string> sharedObject() override;

 private:
  ObjectModule(ExternSymbols symbols, std::string path);
  std::string path_;
  std::string linked_;
};

// Registers `module` with the export in progress (TVM's nn.add_extern): once per export, and no
// symbol may come from two modules. exportIR returns the modules (with allowExtern).
void addExtern(const std::shared_ptr<ExternModule>& module);

// Makes every symbol of `modules` callable by the VM (registerPackedFunction under the symbol's
// name): builds and dlopens each shared object and checks that every symbol is defined. The
// library stays loaded while its functions are registered. The registry is process-wide: loading
// another module that defines the same symbol replaces it for every VM; a symbol may not shadow a
// VM builtin or a function registered by other code.
Status loadExternModules(const std::vector<std::shared_ptr<ExternModule>>& modules);

namespace op {
// TVM's op.extern: `R.call_dps_packed(name, (args,), out_sinfo=out)` bound as `name`. `out` is one
// tensor (Tensor::placeholder); a list of outputs is an error, as in TVM v0.23.
Tensor extern_(const std::string& name, const std::vector<ExternArg>& args, const std::variant<Tensor, std::vector<Tensor>>& out);
}  // namespace op

}  // namespace rlx::nn
