// The geometry of a depthwise (per-channel window) convolution as rlx_sgemm's descriptor gives it:
// shared by the row-vector kernel (window_conv.cc) and the channel-lane kernel (window_channels.cc).
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

#include "runtime/llvm/gemm_offsets.h"
#include "runtime/llvm/sgemm.h"

namespace rlx {

// A window convolution's operands, its planes' geometry and its taps, parsed from the descriptor.
struct Window {
  float* c = nullptr;
  const float* a = nullptr;
  const float* b = nullptr;
  int64_t height = 1, width = 1;  // the output plane (the two innermost column dims)
  int64_t bY = 0, bX = 0, cY = 0, cX = 0;  // their strides in B and C
  std::vector<int64_t> outerB, outerC;  // each outer column index's (an image's) offsets in B and C
  std::vector<int64_t> tapA, tapB;      // each tap's offsets in A and B, in summation order
  std::vector<int64_t> batchA, batchB, batchC;  // each batch element's (a channel's) offsets
  Spacing outerBs, batchBs;  // how outerB and batchB step
  // With padding (rlx_sgemm_padded): B is a padded input never materialized, its planes of
  // paddedRows x paddedCols the input's planes of rows x cols at (top, left) in a zero border; each
  // tap's offset split into its row and column of the padded plane, and its offset in an input plane.
  const float* input = nullptr;
  int64_t paddedRows = 0, paddedCols = 0, rows = 0, cols = 0, top = 0, left = 0;
  std::vector<int64_t> tapRow, tapCol, tapIn;
  int64_t minTapRow = 0, maxTapRow = 0, minTapCol = 0, maxTapCol = 0;
  // Max pooling (rlx_pool_padded): each output the largest of its taps and `init`, no weights; the
  // padding's value `fill` (0 for a convolution's).
  bool pool = false;
  float fill = 0.0f, init = 0.0f;
  // Called on each finished plane (null: none), and the first failure it reported.
  RlxGemmEpilogue epilogue = nullptr;
  void* ctx = nullptr;
  mutable std::atomic<int32_t> status{0};
};

}  // namespace rlx
