// Winograd F(4x4, 3x3) (runtime/llvm/winograd.cc) against a double-precision direct convolution:
// edge tiles, batches, channel tails, strided buffers, narrow and wide images, epilogue blocks.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "runtime/llvm/winograd.h"

namespace {

// A convolution as rlx_sgemm's descriptor sees it: input [n][c][rows][pitch] already padded (the
// output's H x W reads its (H + 2) x (W + 2) corner), weights OIHW, output [n][k][h][outPitch].
struct Case {
  int64_t n, c, h, w, k;
  int64_t pitch, outPitch;  // row strides of the input and the output (>= w + 2, >= w)
};

struct Buffers {
  std::vector<float> in, weights, out;
  std::vector<double> want, scale;  // the exact sums and the sums of |input * weight| (the error scale)
};

int64_t inRows(const Case& s) { return s.h + 2; }

std::vector<int64_t> descriptor(const Case& s, int64_t stride = 1) {
  int64_t inC = inRows(s) * s.pitch, inN = s.c * inC, outK = s.h * s.outPitch, outN = s.k * outK;
  return {1, 3, 3, 0,  // one row dim, three column dims, three reduction dims, no batch dims
          s.k, s.c * 9, outK,
          s.n, inN, outN, s.h, stride * s.pitch, s.outPitch, s.w, stride, 1,
          s.c, 9, inC, 3, 3, s.pitch, 3, 1, 1,
          0, 0};  // every row and column valid
}

Buffers make(const Case& s, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2, 2);
  Buffers b;
  b.in.resize(size_t(s.n * s.c * inRows(s) * s.pitch));
  b.weights.resize(size_t(s.k * s.c * 9));
  b.out.assign(size_t(s.n * s.k * s.h * s.outPitch), -7.f);  // the row padding must stay -7
  for (auto& x : b.in) x = dist(rng);
  for (auto& x : b.weights) x = dist(rng);
  b.want.assign(b.out.size(), -7.0), b.scale.assign(b.out.size(), 0.0);
  for (int64_t i = 0; i < s.n; ++i)
    for (int64_t k = 0; k < s.k; ++k)
      for (int64_t y = 0; y < s.h; ++y)
        for (int64_t x = 0; x < s.w; ++x) {
          double sum = 0, abs = 0;
          for (int64_t c = 0; c < s.c; ++c)
            for (int64_t ry = 0; ry < 3; ++ry)
              for (int64_t rx = 0; rx < 3; ++rx) {
                double p = double(b.in[size_t(((i * s.c + c) * inRows(s) + y + ry) * s.pitch + x + rx)]) * b.weights[size_t(((k * s.c + c) * 3 + ry) * 3 + rx)];
                sum += p, abs += std::fabs(p);
              }
          size_t o = size_t(((i * s.k + k) * s.h + y) * s.outPitch + x);
          b.want[o] = sum, b.scale[o] = abs;
        }
  return b;
}

// "" when every output is within 4e-6 of its sum of |products| (F(4x4, 3x3)'s float32 rounding error
// scales with that sum, not with the result: up to about 1e-6 of it here) and the row padding is untouched.
std::string check(const Buffers& b) {
  for (size_t o = 0; o < b.out.size(); ++o)
    if (!(std::fabs(b.out[o] - b.want[o]) <= 4e-6 * (1 + b.scale[o])))
      return "element " + std::to_string(o) + ": " + std::to_string(b.out[o]) + ", want " + std::to_string(b.want[o]);
  return "";
}

// The epilogue blocks: each output element must be final when its block is handed over, and be in
// exactly one block.
struct Blocks {
  const Case* s;
  Buffers* b;
  std::vector<int> seen;
  bool finalWhenSeen = true;
};

int32_t recordBlock(void* ctx, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
  auto& r = *static_cast<Blocks*>(ctx);
  const Case& s = *r.s;
  for (int64_t k = i0; k < i1; ++k)
    for (int64_t j = j0; j < j1; ++j) {
      int64_t image = j / (s.h * s.w), y = j / s.w % s.h, x = j % s.w;
      size_t o = size_t(((image * s.k + k) * s.h + y) * s.outPitch + x);
      r.seen[o] += 1;
      r.finalWhenSeen &= std::fabs(r.b->out[o] - r.b->want[o]) <= 4e-6 * (1 + r.b->scale[o]);
    }
  return 0;
}

bool hasAvx512() { return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl"); }

}  // namespace

TEST_CASE("winograd: F(4x4, 3x3) equals the direct convolution", "[gemm][winograd]") {
  if (!hasAvx512()) SUCCEED("no AVX-512: the GEMM path computes every convolution");
  // The first six have few tiles (V of all of them fits in the L2: blocks of output channels), the
  // last two many (bands of tile rows).
  for (Case s : {Case{1, 16, 16, 16, 16, 18, 16},     // whole tiles, 16 channels each way
                 Case{2, 19, 13, 14, 37, 16, 14},     // partial edge tiles, a batch, K = 37 (2 vectors + 5)
                 Case{1, 24, 5, 70, 33, 75, 71},      // 18 tiles wide (two vector blocks), padded rows
                 Case{1, 17, 64, 3, 20, 5, 4},        // one tile wide
                 Case{3, 64, 13, 13, 64, 15, 13},     // 3 images of 4 x 4 tiles
                 Case{1, 150, 7, 7, 80, 9, 7},        // 2 x 2 tiles of 49 outputs; input channels in 3 chunks
                 Case{1, 64, 56, 56, 48, 58, 56},     // 196 tiles: bands of 1 tile row (14 tiles)
                 Case{1, 160, 64, 20, 24, 22, 20}}) {  // 5 tiles wide: bands of 3 tile rows, then 1
    INFO("n " << s.n << " c " << s.c << " " << s.h << "x" << s.w << " k " << s.k);
    Buffers b = make(s, 5);
    auto desc = descriptor(s);
    Blocks blocks{&s, &b, std::vector<int>(b.out.size(), 0)};
    int32_t status = -1;
    REQUIRE(rlx::winogradConv3x3(b.out.data(), b.weights.data(), b.in.data(), desc.data(), recordBlock, &blocks, status) == hasAvx512());
    if (!hasAvx512()) continue;
    CHECK(status == 0);
    CHECK(check(b) == "");
    CHECK(blocks.finalWhenSeen);
    for (int64_t i = 0; i < s.n; ++i)
      for (int64_t k = 0; k < s.k; ++k)
        for (int64_t y = 0; y < s.h; ++y)
          for (int64_t x = 0; x < s.outPitch; ++x) {
            size_t o = size_t(((i * s.k + k) * s.h + y) * s.outPitch + x);
            REQUIRE(blocks.seen[o] == (x < s.w ? 1 : 0));
          }
  }
}

TEST_CASE("winograd: an epilogue's failure code is returned", "[gemm][winograd]") {
  if (!hasAvx512()) return;
  Case s{1, 16, 16, 16, 16, 18, 16};
  Buffers b = make(s, 9);
  auto desc = descriptor(s);
  auto fail = [](void*, int64_t, int64_t, int64_t, int64_t) -> int32_t { return 3; };
  int32_t status = 0;
  REQUIRE(rlx::winogradConv3x3(b.out.data(), b.weights.data(), b.in.data(), desc.data(), fail, nullptr, status));
  CHECK(status == 3);
}

TEST_CASE("winograd: other convolutions are left to the GEMM", "[gemm][winograd]") {
  Case big{1, 32, 16, 16, 32, 34, 16};
  std::vector<float> in(size_t(32 * 18 * 34)), w(size_t(32 * 32 * 9)), out(size_t(32 * 16 * 16));
  int32_t status = 0;
  auto strided = descriptor(big, 2);  // stride 2: the window's strides differ from the output's
  CHECK_FALSE(rlx::winogradConv3x3(out.data(), w.data(), in.data(), strided.data(), nullptr, nullptr, status));
  // Too few input channels, output channels, tiles; images of few tiles whose V exceeds the L2.
  for (Case small : {Case{1, 8, 16, 16, 32, 18, 16}, Case{1, 32, 16, 16, 8, 18, 16}, Case{1, 32, 4, 4, 32, 6, 4}, Case{8, 512, 7, 7, 32, 9, 7}}) {
    auto desc = descriptor(small);
    CHECK_FALSE(rlx::winogradConv3x3(out.data(), w.data(), in.data(), desc.data(), nullptr, nullptr, status));
  }
  std::vector<int64_t> matmul = {1, 1, 1, 64, 64, 64, 64, 1, 1, 64, 1, 64};
  CHECK_FALSE(rlx::winogradConv3x3(out.data(), w.data(), in.data(), matmul.data(), nullptr, nullptr, status));
}
