// The PrimFunc of a TVMScript text, for tests that run or inspect hand-written TIR (the interpreter's
// and the LLVM kernels' tests).
#pragma once
#include <catch2/catch.hpp>

#include <string>

#include "parser/parser.h"

namespace rlx {

// The PrimFunc `name` (the first one when empty) of `text` (a lone @T.prim_func or a module).
inline PrimFuncRef parsePrim(const std::string& text, const std::string& name = "") {
  DiagnosticEngine diag;
  auto mod = parseModule(text, "test.py", diag);
  INFO(diag.render());
  REQUIRE(mod);
  for (auto& e : mod->functions)
    if (auto f = e.func.as<PrimFunc>(); f && (name.empty() || e.gvar->name == name)) return f;
  FAIL("no PrimFunc named '" << name << "'");
  return nullptr;
}

}  // namespace rlx
