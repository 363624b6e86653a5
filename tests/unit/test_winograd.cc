// Winograd F(4x4, 3x3) (runtime/llvm/winograd.cc) against a double-precision direct convolution:
// edge tiles, batches, channel tails, strided buffers, narrow and wide images, epilogue blocks, over
// planes and channels last (weights OHWI or in panels).
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "runtime/llvm/winograd.h"

namespace {

// A convolution as rlx_sgemm's descriptor sees it: the input already padded (the output's H x W
// reads its (H + 2) x (W + 2) corner), in one of three layouts (Layout).
struct Case {
  int64_t n, c, h, w, k;
  int64_t pitch, outPitch;  // row strides of the input and the output in pixels (>= w + 2, >= w)
};

// Over planes: input [n][c][rows][pitch], weights OIHW, output [n][k][h][outPitch]. Channels last:
// input [n][rows][pitch][c + 3] (3 unused floats after a pixel's channels), output
// [n][h][outPitch][k + 1], weights OHWI or in PackMatmulWeights' panels of 32 output channels
// ([ceil(k / 32)][3][3][c][32], zeros past k).
enum class Layout { Planes, ChannelsLast, ChannelsLastPanels };

struct Buffers {
  std::vector<float> in, weights, out;
  std::vector<double> want, scale;  // the exact sums and the sums of |input * weight| (the error scale)
};

int64_t inRows(const Case& s) { return s.h + 2; }
int64_t pixelIn(const Case& s) { return s.c + 3; }
int64_t pixelOut(const Case& s) { return s.k + 1; }
int64_t panels(const Case& s) { return (s.k + 31) / 32; }

size_t inAt(const Case& s, Layout l, int64_t i, int64_t c, int64_t y, int64_t x) {
  if (l == Layout::Planes) return size_t(((i * s.c + c) * inRows(s) + y) * s.pitch + x);
  return size_t(((i * inRows(s) + y) * s.pitch + x) * pixelIn(s) + c);
}
size_t weightAt(const Case& s, Layout l, int64_t k, int64_t c, int64_t ry, int64_t rx) {
  if (l == Layout::Planes) return size_t(((k * s.c + c) * 3 + ry) * 3 + rx);
  if (l == Layout::ChannelsLast) return size_t(((k * 3 + ry) * 3 + rx) * s.c + c);
  return size_t((((k / 32) * 3 + ry) * 3 + rx) * s.c * 32 + c * 32 + k % 32);
}
size_t outAt(const Case& s, Layout l, int64_t i, int64_t k, int64_t y, int64_t x) {
  if (l == Layout::Planes) return size_t(((i * s.k + k) * s.h + y) * s.outPitch + x);
  return size_t(((i * s.h + y) * s.outPitch + x) * pixelOut(s) + k);
}

std::vector<int64_t> descriptor(const Case& s, Layout l = Layout::Planes, int64_t stride = 1) {
  if (l == Layout::Planes) {
    int64_t inC = inRows(s) * s.pitch, inN = s.c * inC, outK = s.h * s.outPitch, outN = s.k * outK;
    return {1, 3, 3, 0,  // one row dim, three column dims, three reduction dims, no batch dims
            s.k, s.c * 9, outK,
            s.n, inN, outN, s.h, stride * s.pitch, s.outPitch, s.w, stride, 1,
            s.c, 9, inC, 3, 3, s.pitch, 3, 1, 1,
            0, 0};  // every row and column valid
  }
  // Rows: image, output row and column (A the input, C the output); columns: output channels (B the
  // weights); k: window row, window column, input channel.
  int64_t inX = pixelIn(s), inY = s.pitch * inX, outX = pixelOut(s), outY = s.outPitch * outX;
  bool inPanels = l == Layout::ChannelsLastPanels;
  int64_t lanes = inPanels ? 32 : 1;
  std::vector<int64_t> d = {3, inPanels ? 2 : 1, 3, 0, s.n, inRows(s) * inY, s.h * outY, s.h, stride * inY, outY, s.w, stride * inX, outX};
  if (inPanels) d.insert(d.end(), {panels(s), 9 * s.c * 32, 32, 32, 1, 1});
  else d.insert(d.end(), {s.k, 9 * s.c, 1});
  d.insert(d.end(), {3, inY, 3 * s.c * lanes, 3, inX, s.c * lanes, s.c, 1, lanes});
  d.insert(d.end(), {0, inPanels && s.k % 32 != 0 ? s.k : 0});  // the panels' columns past k are not C's
  return d;
}

Buffers make(const Case& s, uint32_t seed, Layout l = Layout::Planes) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2, 2);
  Buffers b;
  bool planes = l == Layout::Planes;
  // What no element of the convolution is: NaN where a kernel must not read (a channels-last
  // pixel's unused floats), so that reading it shows.
  b.in.assign(size_t(s.n * inRows(s) * s.pitch * (planes ? s.c : pixelIn(s))), planes ? 0.f : NAN);
  b.weights.assign(size_t(l == Layout::ChannelsLastPanels ? panels(s) * 32 * s.c * 9 : s.k * s.c * 9), 0.f);
  b.out.assign(size_t(s.n * s.h * s.outPitch * (planes ? s.k : pixelOut(s))), -7.f);  // the padding must stay -7
  for (int64_t i = 0; i < s.n; ++i)
    for (int64_t c = 0; c < s.c; ++c)
      for (int64_t y = 0; y < inRows(s); ++y)
        for (int64_t x = 0; x < s.pitch; ++x) b.in[inAt(s, l, i, c, y, x)] = dist(rng);
  for (int64_t k = 0; k < s.k; ++k)
    for (int64_t c = 0; c < s.c; ++c)
      for (int64_t ry = 0; ry < 3; ++ry)
        for (int64_t rx = 0; rx < 3; ++rx) b.weights[weightAt(s, l, k, c, ry, rx)] = dist(rng);
  b.want.assign(b.out.size(), -7.0), b.scale.assign(b.out.size(), 0.0);
  for (int64_t i = 0; i < s.n; ++i)
    for (int64_t k = 0; k < s.k; ++k)
      for (int64_t y = 0; y < s.h; ++y)
        for (int64_t x = 0; x < s.w; ++x) {
          double sum = 0, abs = 0;
          for (int64_t c = 0; c < s.c; ++c)
            for (int64_t ry = 0; ry < 3; ++ry)
              for (int64_t rx = 0; rx < 3; ++rx) {
                double p = double(b.in[inAt(s, l, i, c, y + ry, x + rx)]) * b.weights[weightAt(s, l, k, c, ry, rx)];
                sum += p, abs += std::fabs(p);
              }
          size_t o = outAt(s, l, i, k, y, x);
          b.want[o] = sum, b.scale[o] = abs;
        }
  return b;
}

// "" when every output is within 4e-6 of its sum of |products| (F(4x4, 3x3)'s float32 rounding error
// scales with that sum, not with the result: up to about 1e-6 of it here) and the padding is untouched.
std::string check(const Buffers& b) {
  for (size_t o = 0; o < b.out.size(); ++o)
    if (!(std::fabs(b.out[o] - b.want[o]) <= 4e-6 * (1 + b.scale[o])))
      return "element " + std::to_string(o) + ": " + std::to_string(b.out[o]) + ", want " + std::to_string(b.want[o]);
  return "";
}

// The epilogue blocks: each output element must be final when its block is handed over, and be in
// exactly one block. Blocks are of C: rows the output channels and columns the pixels over planes,
// the other way round channels last.
struct Blocks {
  const Case* s;
  Buffers* b;
  Layout layout;
  std::vector<int> seen;
  bool finalWhenSeen = true;
};

int32_t recordBlock(void* ctx, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
  auto& r = *static_cast<Blocks*>(ctx);
  const Case& s = *r.s;
  bool planes = r.layout == Layout::Planes;
  for (int64_t i = i0; i < i1; ++i)
    for (int64_t j = j0; j < j1; ++j) {
      int64_t k = planes ? i : j, pixel = planes ? j : i;
      int64_t image = pixel / (s.h * s.w), y = pixel / s.w % s.h, x = pixel % s.w;
      size_t o = outAt(s, r.layout, image, k, y, x);
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
  // last two many (bands of tile rows). Each runs over planes and channels last.
  for (Case s : {Case{1, 16, 16, 16, 16, 18, 16},     // whole tiles, 16 channels each way
                 Case{2, 19, 13, 14, 37, 16, 14},     // partial edge tiles, a batch, K = 37 (2 vectors + 5)
                 Case{1, 24, 5, 70, 33, 75, 71},      // 18 tiles wide (two vector blocks), padded rows
                 Case{1, 17, 64, 3, 20, 5, 4},        // one tile wide
                 Case{3, 64, 13, 13, 64, 15, 13},     // 3 images of 4 x 4 tiles
                 Case{1, 150, 7, 7, 80, 9, 7},        // 2 x 2 tiles of 49 outputs; input channels in 3 chunks
                 Case{1, 64, 56, 56, 48, 58, 56},     // 196 tiles: bands of 1 tile row (14 tiles)
                 Case{1, 160, 64, 20, 24, 22, 20}}) {  // 5 tiles wide: bands of 3 tile rows, then 1
    for (Layout l : {Layout::Planes, Layout::ChannelsLast, Layout::ChannelsLastPanels}) {
      INFO("n " << s.n << " c " << s.c << " " << s.h << "x" << s.w << " k " << s.k << " layout " << int(l));
      Buffers b = make(s, 5, l);
      auto desc = descriptor(s, l);
      Blocks blocks{&s, &b, l, std::vector<int>(b.out.size(), 0)};
      int32_t status = -1;
      // Channels last, a 7x7 image's 2 x 2 tiles are left to the GEMM.
      const bool taken = hasAvx512() && (l == Layout::Planes || (s.h + 3) / 4 * ((s.w + 3) / 4) >= 9);
      REQUIRE(rlx::winogradConv3x3(b.out.data(), l == Layout::Planes ? b.weights.data() : b.in.data(), l == Layout::Planes ? b.in.data() : b.weights.data(), desc.data(),
                                   recordBlock, &blocks, status) == taken);
      if (!taken) continue;
      CHECK(status == 0);
      CHECK(check(b) == "");
      CHECK(blocks.finalWhenSeen);
      for (int64_t i = 0; i < s.n; ++i)
        for (int64_t k = 0; k < s.k; ++k)
          for (int64_t y = 0; y < s.h; ++y)
            for (int64_t x = 0; x < s.outPitch; ++x) REQUIRE(blocks.seen[outAt(s, l, i, k, y, x)] == (x < s.w ? 1 : 0));
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
  // Stride 2: the window's strides differ from the output's.
  for (Layout l : {Layout::Planes, Layout::ChannelsLast, Layout::ChannelsLastPanels}) {
    auto strided = descriptor(big, l, 2);
    CHECK_FALSE(rlx::winogradConv3x3(out.data(), w.data(), in.data(), strided.data(), nullptr, nullptr, status));
  }
  // Too few input channels, output channels, tiles; images of few tiles whose V exceeds the L2.
  for (Case small : {Case{1, 8, 16, 16, 32, 18, 16}, Case{1, 32, 16, 16, 8, 18, 16}, Case{1, 32, 4, 4, 32, 6, 4}, Case{8, 512, 7, 7, 32, 9, 7}}) {
    auto desc = descriptor(small);
    CHECK_FALSE(rlx::winogradConv3x3(out.data(), w.data(), in.data(), desc.data(), nullptr, nullptr, status));
  }
  std::vector<int64_t> matmul = {1, 1, 1, 64, 64, 64, 64, 1, 1, 64, 1, 64};
  CHECK_FALSE(rlx::winogradConv3x3(out.data(), w.data(), in.data(), matmul.data(), nullptr, nullptr, status));
}
