// The state of one rlx_sgemm call shared by its parts: the blocking constants, the operands' offset
// tables and the plan (sgemm.cc), the packing of A and B (sgemm_pack.cc) and the GEMV (sgemm_gemv.cc).
#pragma once
#include <immintrin.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "runtime/llvm/gemm_offsets.h"
#include "runtime/llvm/sgemm.h"
#include "runtime/llvm/unit_queues.h"

namespace rlx::sgemm_parts {

// MR x NR = 8 x 32: 16 zmm accumulators, 2 zmm of B and a broadcast of A per k, so that the FMAs
// (not loads) bound the loop; 8 rows rather than 6 load B once per 16 FMAs instead of 12 and tile a
// batch of 64 rows exactly (Zen 5, whose two 512-bit FMA pipes doubled the FMAs per load: medians of
// 8 alternating runs at 2 threads, 64x784x512 0.140 -> 0.127 ms, 64x512x512 0.093 -> 0.079 ms).
// A KC x NR micro-panel of B (100 KB) and the MC x KC block of A (300 KB)
// stay in the 1 MB L2 while the MC / MR tiles of a block reuse the panel. KC = 768 (not 384) covers
// a transformer's K = 768 in one pass, so C's tiles are not stored and reloaded between k blocks
// (CPU time per run at 1 thread: 128x768x2304 6.1 -> 5.3 ms, 64x784x512 0.62 -> 0.56 ms; 1024^3 and
// K = 3072 the same within noise); 800 covers an MNIST layer's K = 784 too, instead of a second
// k block of 16 (64x784x512 at 1 thread, best of 2000 runs: 0.472 -> 0.464 ms, within the noise).
constexpr int64_t kMR = 8, kNR = RLX_SGEMM_SLIVER_COLUMNS, kKC = 800, kMC = 96, kNC = 2048;
// The GEMV path (m = 1): kGV accumulators of 16 lanes cover a block of kGW columns.
constexpr int64_t kGV = 8, kGW = 16 * kGV;
// A is read in place (not packed) when its blocks are reused by at most this many column slivers.
constexpr int64_t kInPlaceSlivers = 8;
// B is read in place (not packed) by up to kInPlaceRows rows of A when its rows are less than
// kInPlaceRowBytes apart and it spans at most kInPlaceBFloats (2 MB).
constexpr int64_t kInPlaceRows = 256, kInPlaceRowBytes = 4096, kInPlaceBFloats = int64_t(512) << 10;
// Up to this many floats (16 MB) of A are packed once per call rather than once per column unit.
constexpr int64_t kMaxPackedA = int64_t(4) << 20;
// With A packed once, a column unit's B panel is about this many floats (256 KB): the panel, the
// next one's prefetched source and A's k block (or an MC x KC block of a tall A) share the 1 MB L2.
constexpr int64_t kPanelFloats = int64_t(64) << 10;

struct OffsetTables {
  std::vector<int64_t> mA, mC, nB, nC, kA, kB, bA, bB, bC;
};

// One GEMM of the batch: its C, A and B.
struct Operands {
  float* c;
  const float* a;
  const float* b;
};

inline OffsetTables& callerTables() {
  thread_local OffsetTables tables;
  return tables;
}

struct Gemm {
  float* c;
  const float* a;
  const float* b;
  int64_t m = 1, n = 1, k = 1;
  // Element offsets of each flattened index: A's rows (mA) and columns (kA), B's rows (kB) and
  // columns (nB), C's rows (mC) and columns (nC). The calling thread's tables, reused from call to
  // call so that they keep their capacity (workers only read them while the caller waits).
  OffsetTables& tables = callerTables();
  std::vector<int64_t>&mA = tables.mA, &mC = tables.mC, &nB = tables.nB, &nC = tables.nC, &kA = tables.kA, &kB = tables.kB;
  // Each batch element's offsets in A, B and C (one entry, 0, without batch dims).
  std::vector<int64_t>&bA = tables.bA, &bB = tables.bB, &bC = tables.bC;
  int64_t batches = 1;
  rlx::Spacing mAs, mCs, nBs, nCs, kAs, kBs;  // how the tables above step
  bool cUnit = false;  // nC is contiguous: C tiles are stored with vector stores
  bool nBUnit = false;  // nB contiguous
  bool kAUnit = false;  // kA contiguous
  bool kBUnit = false;  // kB contiguous (B is a transposed operand, x @ W.T)
  bool bRows = false;   // nB contiguous and kB evenly ldb apart: B can be read in place
  // B already in micro-panels (a weight the PackMatmulWeights pass laid out as [N / kNR][K][kNR]):
  // each sliver's kNR columns contiguous, k rows kNR floats apart. Read in place, never packed.
  bool bPanels = false;
  // A's rows / B's columns cut short of their panels' span (the descriptor's valid counts): the
  // last panel is stored whole, zeros past the operand's end, so a sliver may read all of it.
  bool aPadded = false, bPadded = false;
  int64_t ldb = 0;
  bool packB = true;      // else the micro-kernel reads B's rows in place
  bool aInPlace = false;   // the micro-kernel broadcasts A's elements from A itself (no packing)
  bool splitRows = false;  // threads take row blocks instead of column slivers
  // Threads take micro-tile rows of slivers, sliver by sliver (block b: sliver b / rowBlocks, row
  // block b % rowBlocks), so that each reads the share of B its slivers hold (splitRows: all of B).
  bool splitTiles = false;
  int64_t rowBlocks = 0;
  bool gemv = false;       // one row: threads take blocks of kGW columns (gemvAvx512)
  // A packed whole before the threads start (null: each block packs its own A). Column units would
  // otherwise each pack all of A again: k-block pc's micro-panels start at packedA + pc * mPadded.
  float* packedA = nullptr;
  int64_t mPadded = 0;
  // B packed whole before the threads start, when they split rows (each row unit would otherwise
  // pack all of B again): k-block pc's micro-panels start at packedB + pc * nPadded.
  float* packedB = nullptr;
  int64_t nPadded = 0;
  // Work units (column or row blocks of about `unit` slivers / micro-rows), numbered batch element by
  // batch element (unitsPerBatch each, splitting its blocksPerBatch blocks), shared out by `queues`.
  int64_t unit = 1, units = 0, unitsPerBatch = 0, blocksPerBatch = 0;
  rlx::UnitQueues queues;
  // The element-wise epilogue each finished block of C goes through (null: none), in the caller's
  // coordinates (before `transpose` swapped rows and columns), and the first failure it reported.
  RlxGemmEpilogue epilogue = nullptr;
  void* epilogueCtx = nullptr;
  bool transposed = false;
  mutable std::atomic<int32_t> status{0};

  Operands at(int64_t batch) const { return {c + bC[size_t(batch)], a + bA[size_t(batch)], b + bB[size_t(batch)]}; }
};

// Rows [i0, i1) x columns [j0, j1) of C are final: through the epilogue with them.
inline void finish(const Gemm& g, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
  if (!g.epilogue || i0 >= i1 || j0 >= j1) return;
  int32_t code = g.transposed ? g.epilogue(g.epilogueCtx, j0, j1, i0, i1) : g.epilogue(g.epilogueCtx, i0, i1, j0, j1);
  int32_t none = 0;
  if (code != 0) g.status.compare_exchange_strong(none, code);
}

// A[i0.., p0..] (mc x kc) as micro-panels of kMR rows (sgemm_pack.cc).
void packA(const Gemm& g, const Operands& o, int64_t i0, int64_t mc, int64_t p0, int64_t kc, float* ap);
// B[p0.., j0..] (kc x nc) as micro-panels of `width` columns (sgemm_pack.cc).
void packB(const Gemm& g, const Operands& o, int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* bp, int64_t width = kNR);
// Columns [j0, j1) of a one-row GEMM (sgemm_gemv.cc).
void gemvAvx512(const Gemm& g, const Operands& o, int64_t j0, int64_t j1);

}  // namespace rlx::sgemm_parts
