// CPU schedule, transpose nests: a copy of 32-bit elements whose innermost output index walks the
// input with a stride (R.permute_dims of a matrix, nn.Linear's W.T) becomes an rlx.transpose32 call.
#pragma once
#include "ir/tir.h"

namespace rlx {

// The nest `s` (a For) replaced by Evaluate(rlx.transpose32(out[0, ..], in[first], n, per output
// index: extent, stride in out, stride in in)) when `s` is a perfect loop nest (schedule_nest.h) of
// data-parallel loops over one block without init storing
//   out[v0, .., vn] = in[affine indices in the v's]
// with out and in distinct buffers of one 32-bit type, every v an output index once, and vn (out's
// innermost) not the var along which `in` is contiguous, which another var is. Null otherwise: the
// loop nest is left to the vectorizer (a permutation that keeps the innermost dim copies rows).
Stmt lowerTransposeNest(const Stmt& s);

}  // namespace rlx
