// CPU schedule, GEMM epilogues: the element-wise nest right after a GEMM that reads its output (bias,
// activation, residual) runs inside the GEMM, on each block of C as soon as the block is finished.
#pragma once
#include "ir/tir.h"

namespace rlx {

// The annotation of a fused loop nest: its value is the nest's rlx.sgemm call.
inline constexpr const char* kGemmEpilogueAnnotation = "rlx.gemm_epilogue";

// Each GEMM nest of the root block followed by an element-wise nest reading its output C becomes
//   for m in [0, M) {kGemmEpilogueAnnotation: rlx.sgemm(...)}:
//     for n in [n0, n0 + count):
//       out[..] = f(C[..], ..)
// over C's rows and columns as the GEMM flattens them (codegen binds n0 and count per block; see
// rlx_sgemm_epilogue). It fuses when the GEMM has no batch dims and the next statement is a nest
// that writes each element of a compact buffer `out` of C's shape once (tir_usage.h, not a
// reduction), `out` is neither C nor a GEMM operand and is not read, C is read only at the element
// being written, and C's row dims (and column dims) of extent other than 1 are adjacent, so that
// flattened rows and columns address C (and `out`, and each operand of its shape read at the same
// element) as `m * N + n`. Other operands (a bias) get their indices from m and n.
PrimFuncRef fuseGemmEpilogues(const PrimFuncRef& func);

struct GemmNest;
// The fused nest of one GEMM and the element-wise nest `next` after it (as above), or null. With
// `intoOut` set (C is an intermediate nothing else uses) the GEMM computes into the epilogue's
// output, which then goes through the epilogue in place; `intoOut` stays true only when that was done.
Stmt fuseGemmEpilogue(const GemmNest& gemm, const Stmt& next, bool& intoOut);

}  // namespace rlx
