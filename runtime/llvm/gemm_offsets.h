// The offset tables of rlx_sgemm's descriptor (sgemm.h): a tuple of dims, each an extent and one
// stride per operand, expanded into every flat index's offset; shared by the GEMM and the kernels it
// hands convolutions to (window_conv.h).
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace rlx {

// The descriptor's length: nm, nn, nk, nb, then 3, 3, 3 and 4 entries per dim, then the valid row
// and column counts (sgemm.h); a caller's own entries (rlx_sgemm_padded's padding) follow.
inline int64_t descriptorLength(const int64_t* desc) { return 4 + 3 * (desc[0] + desc[1] + desc[2]) + 4 * desc[3] + 2; }

// Whether the descriptor limits its rows or columns to fewer than its dims span (a weight in padded
// panels): kernels other than the GEMM take only full tuples.
inline bool limitsRowsOrColumns(const int64_t* desc) {
  const int64_t* valid = desc + descriptorLength(desc) - 2;
  return valid[0] != 0 || valid[1] != 0;
}

// Whether a dim tuple's offsets in one operand step evenly (offset = flat index * step). Read off the
// dims, not the expanded table: scanning the tables of a long k cost a tenth of a batch-1 MLP's run.
struct Spacing {
  bool even = true;    // the offsets are flat index * step
  bool single = true;  // one offset only (any step fits)
  int64_t step = 0;
  bool is(int64_t s) const { return even && (single || step == s); }
};

// Each dim of extent above 1 must have the stride of its inner dims' elements times the step (the
// innermost such dim's stride). `entries` per dim in `dims`, the stride at entry `at`.
inline Spacing spacingOf(const int64_t* dims, int64_t count, int64_t entries, int64_t at) {
  Spacing sp;
  int64_t inner = 1;
  for (int64_t d = count; d-- > 0;) {
    const int64_t* dim = dims + d * entries;
    if (dim[0] > 1) {
      if (sp.single) sp.single = false, sp.step = dim[at];
      else if (dim[at] != inner * sp.step) sp.even = false;
    }
    inner *= dim[0];
  }
  return sp;
}

// The offsets of a row-major tuple of `count` dims, each given by 1 + N entries of `dims` (its extent,
// then its stride in each of N operands): out[x] receives operand x's offsets, spacing[x] whether they
// step evenly. Written run by run of the innermost dim, each run from its outer dims' offset: a loop
// the compiler vectorizes (expanding the tables dim by dim in place cost ~10% of a batch-1 MLP).
// Dims of extent 1 add nothing and adjacent dims that step as one merge first: a 1x1 convolution's
// k dims (channels, then a window of 1 x 1) were runs of one, two divisions per channel and operand
// (3 us of each call of EfficientNet-B0's 80 GEMMs).
template <size_t N>
inline void offsets(const int64_t* dims, int64_t count, const std::array<std::vector<int64_t>*, N>& out, const std::array<Spacing*, N>& spacing) {
  constexpr int64_t kEntries = 1 + N;
  for (size_t x = 0; x < N; ++x) *spacing[x] = spacingOf(dims, count, kEntries, int64_t(1 + x));
  int64_t total = 1;
  for (int64_t d = 0; d < count; ++d) total *= std::max<int64_t>(dims[d * kEntries], 0);
  for (auto* o : out) o->resize(size_t(total));
  if (total == 0) return;
  // The tuple without its extent-1 dims, merged where they step as one (outermost first). A
  // descriptor has a few dims (a block's loops); past kMaxDims they are expanded as they are.
  constexpr int64_t kMaxDims = 16;
  std::array<int64_t, kMaxDims * kEntries> merged;
  const bool merge = count <= kMaxDims;
  int64_t used = merge ? 0 : count;
  for (int64_t d = 0; merge && d < count; ++d) {
    const int64_t* dim = dims + d * kEntries;
    if (dim[0] == 1) continue;
    int64_t* last = used > 0 ? merged.data() + (used - 1) * kEntries : nullptr;
    bool joins = used > 0;
    for (size_t x = 0; x < N && joins; ++x) joins = last[1 + x] == dim[1 + x] * dim[0];
    if (joins) {
      last[0] *= dim[0];
      for (size_t x = 0; x < N; ++x) last[1 + x] = dim[1 + x];
    } else {
      std::copy(dim, dim + kEntries, merged.data() + used++ * kEntries);
    }
  }
  const int64_t* at = merge ? merged.data() : dims;  // the dims to expand, kEntries entries each
  const int64_t run = used > 0 ? at[(used - 1) * kEntries] : 1;
  for (int64_t f = 0; f < total; f += run) {
    for (size_t x = 0; x < N; ++x) {
      int64_t base = 0, q = f / run;
      for (int64_t d = used - 1; d-- > 0;) {
        int64_t extent = at[d * kEntries];
        base += q % extent * at[d * kEntries + 1 + int64_t(x)], q /= extent;
      }
      int64_t step = used > 0 ? at[(used - 1) * kEntries + 1 + int64_t(x)] : 0;
      int64_t* o = out[x]->data() + f;
      for (int64_t t = 0; t < run; ++t) o[t] = base + t * step;
    }
  }
}

}  // namespace rlx
