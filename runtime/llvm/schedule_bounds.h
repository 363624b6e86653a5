// CPU schedule, index simplification with loop bounds: `(i * 64 + j) // 768` is 0 and `% 768` is the
// operand itself when the loops keep i * 64 + j below 768, which a reshape inlined into its reader
// leaves behind; without the division the inner loop is a plain contiguous one.
#pragma once
#include "ir/tir.h"

namespace rlx {

// `s` with every integer floordiv/floormod (and Div/Mod of non-negative operands) by a positive
// constant folded where the ranges of the loop and block variables it mentions (constant loop
// bounds, block iter vars through their bindings) keep the quotient constant. Returns `s` itself
// when nothing folds.
Stmt foldIndexDivisions(const Stmt& s);

}  // namespace rlx
