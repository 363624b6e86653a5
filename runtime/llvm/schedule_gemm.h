// CPU schedule, GEMM nests: a float32 `C[.., i, j] += A[.., i, k] * B[.., k, j]` reduction nest (any
// strides, implicit-GEMM convolutions, batch dims) becomes a packed GEMM call. Internal.
#pragma once
#include <optional>
#include <vector>

#include "ir/tir.h"
#include "runtime/llvm/schedule_nest.h"

namespace rlx {

// A perfect nest over one block `with T.init(): C[I] = 0.0f` then `C[I] = C[I] + X * Y` (or
// X * Y + C[I]), all float32, C indexed by distinct iter vars and neither operand C: the form the
// GEMM and window recognizers start from.
struct ProductSum {
  PerfectNest nest;
  const BufferStore* update = nullptr;  // the block's body
  Operand x, y;                         // the product's operands, in order
  std::vector<const PrimVar*> cVars;    // C's index vars
};
std::optional<ProductSum> matchProductSum(const Stmt& s);

// The nest `s` (a For) replaced by Evaluate(rlx.sgemm(...)), when `s` is a perfect loop nest over
// one block of the form
//   with T.init(): C[I] = 0.0f
//   C[I] = C[I] + X[..] * Y[..]      (or X * Y + C[I]; all float32)
// where I are spatial iter vars, the operands' indices are affine in the iter vars (a convolution's
// y * s + ry) and C's last index var indexes exactly one operand (B); C's vars in both operands or in
// neither are batch dims. Null when it is not such a nest.
Stmt lowerMatmulNest(const Stmt& s);

// The same recognition, with what an epilogue fused into the GEMM needs to know.
struct GemmNest {
  Stmt stmt;           // what lowerMatmulNest returns
  PrimExpr call;       // its rlx.sgemm call
  BufferRef c;         // the output
  std::vector<bool> rowDims;  // per index of C: flattened into the GEMM's rows (i), else its columns (j)
  std::vector<bool> batchDims;  // per index of C: a batch dim
  bool batched = false;       // the call has batch dims
  // The batch dims stand for the rows (a depthwise convolution's channels, its GEMM having none):
  // set by a caller that makes rowDims = batchDims for an epilogue the runtime calls per batch
  // element (window_conv.h).
  bool batchRows = false;
};
std::optional<GemmNest> matchMatmulNest(const Stmt& s);

}  // namespace rlx
