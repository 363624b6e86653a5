// CPU schedule, loop nests of one block: the perfect nest the GEMM and transpose recognizers
// (schedule_gemm.cc, schedule_transpose.cc) start from, and operand loads with affine indices. Internal.
#pragma once
#include <optional>
#include <utility>
#include <vector>

#include "ir/tir.h"

namespace rlx {

const PrimVar* asVar(const PrimExpr& e);

// Whether `e` is built from integer constants, variables and arithmetic only, none of them in `vars`
// (a loop extent a runtime call can take as a number computed before its loops).
bool invariant(const PrimExpr& e, const std::vector<const PrimVar*>& vars);

// An index as constant + sum of coefficient * variable (y * 2 + ry - 1, as convolutions index).
struct Affine {
  int64_t constant = 0;
  std::vector<std::pair<const PrimVar*, int64_t>> terms;

  int64_t coef(const PrimVar* v) const;
};

// `e` as an Affine; false when it is not one (a division, a load, ...).
bool affineOf(const PrimExpr& e, Affine& out);

// An iter var an operand indexes as `v // divisor` and `v % divisor` (a weight packed in panels,
// [j // 32, k, j % 32]): the two parts are variables of their own in the operand's Affines.
struct SplitVar {
  const PrimVar* var = nullptr;
  int64_t divisor = 1;
  PrimVarRef outer, inner;  // stand for v // divisor and v % divisor
};

// A comparison of an iter var with a constant, as `v >= bound` (lower) or `v < bound` (upper): a
// padding's bound check (`1 <= v`, `v + 1 < 15`, either way round).
struct BoundAtom {
  const PrimVar* var = nullptr;
  bool lower = true;
  int64_t bound = 0;
};
std::optional<BoundAtom> boundAtom(const PrimExpr& e);

// An operand load: its buffer and each index as an Affine over the block's iter vars (and the parts
// of its split vars).
struct Operand {
  const BufferLoad* load = nullptr;
  std::vector<Affine> index;
  std::vector<SplitVar> splits;

  bool uses(const PrimVar* v) const;  // v itself or a part of it
  const SplitVar* splitOf(const PrimVar* v) const;
  // The element stride along `v`: sum over dims of coefficient * the dim's stride.
  PrimExpr stride(const PrimVar* v) const;
  // The load of its first element (every iter var at 0).
  PrimExpr first() const;
};

// `e` as an Operand: a scalar BufferLoad whose indices are affine in `block`'s iter vars, or a
// floordiv / floormod of one by a positive constant (the same one for both).
bool parseOperand(const PrimExpr& e, const TirBlock& block, Operand& out);

// A perfect nest of serial loops from 0 over one block (no predicate, buffers or match buffers of
// its own) that binds each loop var to one iter var, data-parallel or a reduction, the loops'
// extents computable before them.
struct PerfectNest {
  std::vector<const For*> loops;  // outermost first
  const BlockRealize* realize = nullptr;
  const TirBlock* block = nullptr;
  std::vector<size_t> loopOf;  // iter var index -> position in `loops`

  // The loop of iter var `v`.
  const For& loopOfVar(const PrimVar* v) const;
};
std::optional<PerfectNest> perfectNest(const Stmt& s);

}  // namespace rlx
