// rlx_transpose32 (transpose.h): a permutation copy of 32-bit elements, the transposed pair of dims
// in register tiles (transpose_tile.h), the rest looped, parallel over the thread pool.
#include "runtime/llvm/transpose.h"

#include <immintrin.h>

#include <algorithm>
#include <vector>

#include "runtime/llvm/lane_mask.h"
#include "runtime/llvm/thread_pool.h"
#include "runtime/llvm/transpose_tile.h"

using rlx::firstLanes;

namespace {

struct Dim {
  int64_t extent, dst, src;  // extent, strides in elements
};

// One call: the transposed pair (a: dst stride 1, b: src stride 1) and the other dims.
struct Transpose {
  uint32_t* dst;
  const uint32_t* src;
  Dim a, b;
  std::vector<Dim> outer;  // outermost first
  int64_t tilesB = 0;      // tiles of 16 along b per outer index
  // Interleaving (a of 2 to 4 elements, adjacent in dst: an image's channels going last): output
  // vector k, lane j is a = (16 k + j) % na of b = (16 k + j) / na, picked from source rows a & ~1
  // and a | 1 by index[k] (b, plus 16 for the odd row), from the upper pair where upper[k] is set.
  bool interleave = false;
  alignas(64) int32_t index[4][16] = {};
  __mmask16 upper[4] = {};

  // The offsets of outer index `o` (row-major over `outer`).
  void outerOffsets(int64_t o, int64_t& d, int64_t& s) const {
    d = 0, s = 0;
    for (size_t k = outer.size(); k-- > 0;) {
      int64_t i = o % outer[k].extent;
      o /= outer[k].extent;
      d += i * outer[k].dst, s += i * outer[k].src;
    }
  }
};


// Columns [b0, b0 + 16) of the (a, b) plane at offsets (d, s): eight a's at a time, each loaded as
// 16 contiguous b's from src and stored as 8 contiguous a's per b into dst.
__attribute__((target("avx512f,avx512dq,avx512vl"))) void tileRow(const Transpose& t, int64_t d, int64_t s, int64_t b0) {
  int64_t nb = std::min<int64_t>(16, t.b.extent - b0);
  __mmask16 loadMask = firstLanes(nb);
  for (int64_t a0 = 0; a0 < t.a.extent; a0 += 8) {
    int64_t na = std::min<int64_t>(8, t.a.extent - a0);
    __m512 row[8], col[8];
    for (int64_t r = 0; r < 8; ++r)
      row[r] = r < na ? _mm512_castsi512_ps(_mm512_maskz_loadu_epi32(loadMask, t.src + s + (a0 + r) * t.a.src + b0)) : _mm512_setzero_ps();
    rlx::transpose8x16(row, col);
    __mmask8 storeMask = __mmask8((1u << na) - 1);
    for (int64_t c = 0; c < nb; ++c) {
      // (extract 0, not a cast: GCC 12 warns of an uninitialized value inside the cast's intrinsic)
      __m256 half = c % 2 ? _mm512_extractf32x8_ps(col[c / 2], 1) : _mm512_extractf32x8_ps(col[c / 2], 0);
      _mm256_mask_storeu_epi32(t.dst + d + (b0 + c) * t.b.dst + a0, storeMask, _mm256_castps_si256(half));
    }
  }
}

// Columns [b0, b0 + 16) of the (a, b) plane when a is interleaved: its na rows of 16 b's are na
// whole vectors of dst, permuted two rows at a time (8 x 16 tiles stored na floats at a time, 16
// masked stores a tile: a 3-channel 224 x 224 image's NCHW -> NHWC copy, 1 thread, 0.054 -> 0.040 ms).
__attribute__((target("avx512f"))) void interleaveRow(const Transpose& t, int64_t d, int64_t s, int64_t b0) {
  const int64_t na = t.a.extent, nb = std::min<int64_t>(16, t.b.extent - b0);
  __m512 row[4];
  for (int64_t r = 0; r < 4; ++r) row[r] = r < na ? _mm512_maskz_loadu_ps(firstLanes(nb), t.src + s + r * t.a.src + b0) : _mm512_setzero_ps();
  float* out = reinterpret_cast<float*>(t.dst + d + b0 * na);
  for (int64_t k = 0; k < na; ++k) {
    const __m512i index = _mm512_load_si512(t.index[k]);
    __m512 v = _mm512_permutex2var_ps(row[0], index, row[1]);
    if (t.upper[k]) v = _mm512_mask_blend_ps(t.upper[k], v, _mm512_permutex2var_ps(row[2], index, row[3]));
    _mm512_mask_storeu_ps(out + 16 * k, firstLanes(nb * na - 16 * k), v);
  }
}

int32_t tiles(void* ctx, int64_t begin, int64_t end) {
  const Transpose& t = *static_cast<const Transpose*>(ctx);
  for (int64_t u = begin; u < end; ++u) {
    int64_t d, s;
    t.outerOffsets(u / t.tilesB, d, s);
    if (t.interleave) interleaveRow(t, d, s, u % t.tilesB * 16);
    else tileRow(t, d, s, u % t.tilesB * 16);
  }
  return 0;
}

// Without AVX-512, or with no transposed pair: element by element, dims in the given order.
void copyLoops(uint32_t* dst, const uint32_t* src, const Dim* dims, int64_t n) {
  if (n == 0) {
    *dst = *src;
    return;
  }
  for (int64_t i = 0; i < dims[0].extent; ++i) copyLoops(dst + i * dims[0].dst, src + i * dims[0].src, dims + 1, n - 1);
}

}  // namespace

extern "C" int32_t rlx_transpose32(void* dst, const void* src, const int64_t* desc) {
  int64_t n = desc[0];
  std::vector<Dim> dims;
  for (int64_t k = 0; k < n; ++k) {
    Dim dim{desc[1 + 3 * k], desc[2 + 3 * k], desc[3 + 3 * k]};
    if (dim.extent <= 0) return 0;  // nothing to copy
    if (dim.extent > 1) dims.push_back(dim);
  }
  auto* d = static_cast<uint32_t*>(dst);
  auto* s = static_cast<const uint32_t*>(src);
  // The transposed pair: the innermost dst-contiguous dim, and a src-contiguous one besides it.
  int64_t a = -1, b = -1;
  for (int64_t k = int64_t(dims.size()); k-- > 0;) {
    if (a < 0 && dims[size_t(k)].dst == 1) a = k;
    if (b < 0 && dims[size_t(k)].src == 1) b = k;
  }
  static const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  if (a < 0 || b < 0 || a == b || !avx512) {
    copyLoops(d, s, dims.data(), int64_t(dims.size()));
    return 0;
  }
  Transpose t{d, s, dims[size_t(a)], dims[size_t(b)], {}, 0};
  for (int64_t k = 0; k < int64_t(dims.size()); ++k)
    if (k != a && k != b) t.outer.push_back(dims[size_t(k)]);
  int64_t outerCount = 1;
  for (auto& o : t.outer) outerCount *= o.extent;
  t.tilesB = (t.b.extent + 15) / 16;
  t.interleave = t.a.extent >= 2 && t.a.extent <= 4 && t.b.dst == t.a.extent;
  for (int64_t k = 0; t.interleave && k < t.a.extent; ++k)
    for (int64_t j = 0; j < 16; ++j) {
      const int64_t flat = 16 * k + j, a = flat % t.a.extent;
      t.index[k][j] = int32_t(flat / t.a.extent + 16 * (a & 1));
      if (a >= 2) t.upper[k] = __mmask16(t.upper[k] | (1u << j));
    }
  return rlx_parallel_for(tiles, &t, outerCount * t.tilesB, 16 * t.a.extent);
}
