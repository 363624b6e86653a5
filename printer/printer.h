// Public printer API: canonical TVMScript exactly as TVM v0.23 prints it (`mod.script()` defaults).
// Output is deterministic; large constants go to metadata plus an optional safetensors sidecar.
#pragma once
#include <string>
#include <vector>

#include "ir/module.h"

namespace rlx {

struct PrintOptions {
  // When set, tensor constants of more than 16 elements print as metadata["relax.expr.Constant"][i]
  // and are collected here in index order (the caller writes them to the sidecar).
  std::vector<NDArrayRef>* metadataOut = nullptr;
  // TVM's own script() output: every constant but a 0-d int/float/bool scalar prints as a
  // metadata reference whose values are omitted, and the text ends with TVM's note saying so.
  // Byte-identical to TVM, but (like TVM's) the text no longer holds the values.
  bool tvmConstants = false;
};

std::string printModule(const IRModuleRef& mod, const PrintOptions& opts = {});
// A lone Relax function / PrimFunc, with its own header (as TVM prints `func.script()`).
std::string printFunction(const Expr& func, const std::string& name, const PrintOptions& opts = {});
// A bare expression or struct info (no header), e.g. "R.add(x, x)".
std::string printExpr(const Expr& e);
std::string printStructInfo(const StructInfo& s);
std::string printPrimExpr(const PrimExpr& e);

// Float formatting rules shared with the parser tests: %.17g, integral values with ".0", quoted inf/nan.
std::string formatDouble(double v);

}  // namespace rlx
