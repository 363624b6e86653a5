// rlx_attention (attention.h): per block of query rows, the scores by the GEMM into the thread's
// scratch, a softmax over each row in AVX-512 registers, and the block's product with v by the GEMM.
#include "runtime/llvm/attention.h"

#include <immintrin.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <iterator>

#include "runtime/llvm/exp_float.h"
#include "runtime/llvm/lane_mask.h"
#include "runtime/llvm/scratch.h"
#include "runtime/llvm/sgemm.h"
#include "runtime/llvm/thread_pool.h"

namespace rlx {

namespace {

// A block's scores are at most this many floats (1 MB of the 2 MB L2, with k's and v's panels; 0.5 to
// 1.5 MB ran Whisper's 6 x 1500 x 1500 alike, 256 KB slower: k is packed again for every block).
constexpr int64_t kBlockFloats = int64_t(256) << 10;
// And at most this many rows.
constexpr int64_t kMaxBlockRows = 256;

struct Problem {
  float* out;
  const float *q, *k, *v;
  int64_t m, n, d, e;
  int64_t rows, blocks;  // query rows per block, blocks per batch element
};

// exp(x) for x <= 0 (or NaN) as the JIT computes it (intrin.cc's expFloat behind expNormalRange,
// exp_float.h): n = x / ln 2 rounded down, the remainder against (n + 1/2) ln 2 in two parts, sqrt(2)
// times the polynomial, scaled by 2^n (vscalefps: the same exact scaling as the JIT's exponent
// arithmetic, in one instruction); below ln(smallest normal) 0, NaN kept. A score minus its row's
// max is never positive, so the JIT's overflow to infinity above ln(largest float) is not checked.
__attribute__((target("avx512f,fma"), always_inline)) inline __m512 expNonPositive(__m512 x) {
  using namespace exp_float;
  auto c = [](double v) { return float(v); };
  __mmask16 below = _mm512_cmp_ps_mask(x, _mm512_set1_ps(c(kLowest)), _CMP_LT_OQ);
  __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(c(kLog2e))), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  __m512 middle = _mm512_add_ps(n, _mm512_set1_ps(0.5f));
  __m512 r = _mm512_fmadd_ps(middle, _mm512_set1_ps(c(-kLn2High)), x);
  r = _mm512_fmadd_ps(middle, _mm512_set1_ps(c(-kLn2Low)), r);
  __m512 p = _mm512_set1_ps(c(kPolynomial[0] * kSqrt2));
  for (size_t i = 1; i < std::size(kPolynomial); ++i) p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(c(kPolynomial[i] * kSqrt2)));
  return _mm512_mask_mov_ps(_mm512_scalef_ps(p, n), below, _mm512_setzero_ps());
}

// x[j..] (the lanes in m) replaced by exp(x - rowMax); returns them, other lanes 0.
__attribute__((target("avx512f,fma"), always_inline)) inline __m512 expAt(float* x, __m512 rowMax, int64_t j, __mmask16 m) {
  __m512 e = expNonPositive(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + j), rowMax));
  _mm512_mask_storeu_ps(x + j, m, e);
  return _mm512_maskz_mov_ps(m, e);
}

// Row x[0, n) replaced by exp(x - max x); returns the reciprocal of their sum, which the caller
// multiplies into the row's n outputs of the product with v (n scores are not scaled one by one).
__attribute__((target("avx512f,fma"))) float expRow(float* x, int64_t n) {
  // The max may miss a NaN (vmaxps returns its second operand then); the NaN's exp then makes the
  // sum and so every output of the row NaN, as the stage kernel's NaN-propagating max does.
  __m512 mx = _mm512_set1_ps(-FLT_MAX);
  for (int64_t j = 0; j < n; j += 16) {
    __mmask16 m = firstLanes(n - j);
    mx = _mm512_mask_max_ps(mx, m, mx, _mm512_maskz_loadu_ps(m, x + j));
  }
  __m512 rowMax = _mm512_set1_ps(_mm512_reduce_max_ps(mx));
  // Four partial sums, as named registers (an array indexed in the loop lived on the stack): four
  // independent exp chains per step, as the vectorized reduction interleaves its partial sums.
  __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
  int64_t j = 0;
  for (; j + 64 <= n; j += 64) {
    s0 = _mm512_add_ps(s0, expAt(x, rowMax, j, 0xFFFF));
    s1 = _mm512_add_ps(s1, expAt(x, rowMax, j + 16, 0xFFFF));
    s2 = _mm512_add_ps(s2, expAt(x, rowMax, j + 32, 0xFFFF));
    s3 = _mm512_add_ps(s3, expAt(x, rowMax, j + 48, 0xFFFF));
  }
  for (; j < n; j += 16) s0 = _mm512_add_ps(s0, expAt(x, rowMax, j, firstLanes(n - j)));
  return 1.0f / _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
}

// Row r of out (e floats) times inverse[r], for each of the block's rows.
__attribute__((target("avx512f"))) void scaleRows(float* out, int64_t rows, int64_t e, const float* inverse) {
  for (int64_t r = 0; r < rows; ++r) {
    __m512 f = _mm512_set1_ps(inverse[r]);
    float* row = out + r * e;
    for (int64_t j = 0; j < e; j += 16) {
      __mmask16 m = firstLanes(e - j);
      _mm512_mask_storeu_ps(row + j, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, row + j), f));
    }
  }
}

// Blocks [begin, end): batch element b = unit / blocks, its rows from (unit % blocks) * rows.
int32_t blocks(void* ctx, int64_t begin, int64_t end) {
  const Problem& p = *static_cast<const Problem*>(ctx);
  float* scores = threadScratch(ScratchSlot::AttentionScores, size_t(p.rows * p.n));
  if (!scores) return -1;
  for (int64_t unit = begin; unit < end; ++unit) {
    int64_t b = unit / p.blocks, i0 = (unit % p.blocks) * p.rows, rows = std::min(p.rows, p.m - i0);
    // rlx_sgemm's descriptor: one row, column and reduction dim each (extent, then strides), all valid.
    const int64_t qk[] = {1, 1, 1, 0, rows, p.d, p.n, p.n, 1, 1, p.d, 1, p.n, 0, 0};
    rlx_sgemm(scores, p.q + (b * p.m + i0) * p.d, p.k + b * p.d * p.n, qk);
    float inverse[kMaxBlockRows];
    for (int64_t r = 0; r < rows; ++r) inverse[r] = expRow(scores + r * p.n, p.n);
    const int64_t pv[] = {1, 1, 1, 0, rows, p.n, p.e, p.e, 1, 1, p.n, 1, p.e, 0, 0};
    float* out = p.out + (b * p.m + i0) * p.e;
    rlx_sgemm(out, scores, p.v + b * p.n * p.e, pv);
    scaleRows(out, rows, p.e, inverse);
  }
  return 0;
}

}  // namespace

}  // namespace rlx

extern "C" int32_t rlx_attention(float* out, const float* q, const float* k, const float* v, const int64_t* desc) {
  int64_t batch = desc[0], m = desc[1], n = desc[2], d = desc[3], e = desc[4];
  if (batch <= 0 || m <= 0 || e <= 0) return 0;
  rlx::Problem p{out, q, k, v, m, n, d, e, 0, 0};
  // Rows per block: a multiple of the GEMM's 8-row tile, the block's scores within kBlockFloats.
  p.rows = std::clamp<int64_t>(rlx::kBlockFloats / std::max<int64_t>(n, 1) / 8 * 8, 8, rlx::kMaxBlockRows);
  p.rows = std::min(p.rows, m);
  p.blocks = (m + p.rows - 1) / p.rows;
  return rlx_parallel_for(rlx::blocks, &p, batch * p.blocks, p.rows * std::max<int64_t>(n, 1) * (d + e + 16));
}
