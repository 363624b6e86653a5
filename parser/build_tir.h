// Builds a PrimFunc from a `@T.prim_func def ...` syntax tree (TVMScript TIR subset, spec §11),
// including the parser normalizations TVM performs (constant folding, T.reads/T.writes inference).
#pragma once
#include "ir/diagnostic.h"
#include "ir/tir.h"
#include "parser/ast.h"

namespace rlx {

struct TirBuildInput {
  const ast::Stmt* def;  // the FunctionDef
  bool isPrivate;        // @T.prim_func(private=True)
  std::string name;      // function name (global_symbol when public)
};

// Errors go to `diag` (all independent ones); returns null when there were errors.
PrimFuncRef buildPrimFunc(const TirBuildInput& in, DiagnosticEngine& diag);

// The Relax struct info of a PrimFunc as TVM derives it: R.Callable((tensor/object/prim params),
// R.Tuple(), purity) — calls to it are void. buildPrimFunc also stores it in func->sinfo.
StructInfo primFuncSInfo(const PrimFunc& f);

}  // namespace rlx
