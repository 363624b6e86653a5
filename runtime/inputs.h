// Function inputs from the command line or the shell: `x.npy`, `rand(2, 3)`, `zeros(..)`,
// `ones(..)`, literals `[[1, 2], [3, 4]]` / `3` / `2.5`, checked against the parameter's annotation.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/expr.h"
#include "ir/struct_info.h"
#include "runtime/value.h"

namespace rlx {

// Binds and checks symbolic dims across a function's inputs (`n` seen as 5 in x must be 5 in y).
struct InputContext {
  PrimVarMap syms;
  uint32_t seed = 0;
};

// One input for parameter `param` from spec text. Shapes omitted in `rand()` / `zeros()` come from
// the annotation (symbolic dims from earlier inputs). Errors name the parameter.
Result<vm::Value> parseInput(const std::string& spec, const VarRef& param, InputContext& ctx);

// A default input for a parameter the user gave none: random data of the annotated shape, with
// unbound symbolic dims set to `symDefault`. `note` says what was chosen.
Result<vm::Value> defaultInput(const VarRef& param, InputContext& ctx, int64_t symDefault, std::string& note);

// Checks a value against the annotation (dtype, ndim, dims; binds symbolic dims in ctx).
Status checkInput(const vm::Value& v, const VarRef& param, InputContext& ctx);

}  // namespace rlx
