// Memory bandwidth of a streaming read (what a batch-1 decode step's weight GEMVs do), on 4 KiB pages
// and on the transparent huge pages ir/buffer_memory gives large tensors, at 1..T threads.
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "ir/buffer_memory.h"

namespace {

// Sum of floats [begin, end) with four independent vector chains (the loads, not the adds, bound it).
__attribute__((target("avx512f"))) float sumRange(const float* a, size_t begin, size_t end) {
  __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
  for (size_t i = begin; i + 64 <= end; i += 64) {
    s0 = _mm512_add_ps(s0, _mm512_load_ps(a + i)), s1 = _mm512_add_ps(s1, _mm512_load_ps(a + i + 16));
    s2 = _mm512_add_ps(s2, _mm512_load_ps(a + i + 32)), s3 = _mm512_add_ps(s3, _mm512_load_ps(a + i + 48));
  }
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, _mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
  float sum = 0;
  for (float x : lanes) sum += x;
  return sum;
}

// Where the sums go, so that the reads are not optimized away.
volatile float sink = 0;

// Best GB/s of `rounds` passes over `floats` floats split evenly among `threads`.
double readBandwidth(const float* a, size_t floats, int threads, int rounds) {
  double best = 0;
  for (int r = 0; r < rounds; ++r) {
    std::vector<float> sums(static_cast<size_t>(threads));
    auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      size_t begin = floats * size_t(t) / size_t(threads) / 64 * 64, end = floats * size_t(t + 1) / size_t(threads) / 64 * 64;
      pool.emplace_back([&, t, begin, end] { sums[size_t(t)] = sumRange(a, begin, end); });
    }
    for (auto& th : pool) th.join();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, double(floats) * sizeof(float) / s / 1e9);
    for (float x : sums) sink = sink + x;
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  size_t mb = argc > 1 ? size_t(std::atol(argv[1])) : 512;
  int maxThreads = argc > 2 ? std::atoi(argv[2]) : int(std::max(1u, std::thread::hardware_concurrency()));
  if (!__builtin_cpu_supports("avx512f") || mb < 4 || maxThreads < 1) {
    std::fprintf(stderr, "usage: rlx_bench_stream [MB >= 4] [threads >= 1]  (needs AVX-512)\n");
    return 2;
  }
  size_t bytes = mb << 20, floats = bytes / sizeof(float);
  for (auto pages : {rlx::BufferPages::Small, rlx::BufferPages::Huge}) {
    auto* a = static_cast<float*>(rlx::allocateBuffer(bytes, pages));
    if (!a) return std::fprintf(stderr, "cannot allocate %zu MB\n", mb), 1;
    std::memset(a, 0, bytes);  // faulted in before timing
    for (int t = 1; t <= maxThreads; ++t)
      std::printf("%s pages, %d thread%s: %.1f GB/s\n", pages == rlx::BufferPages::Huge ? "huge" : "4 KiB", t, t == 1 ? "" : "s", readBandwidth(a, floats, t, 5));
    rlx::releaseBuffer(a, bytes);
  }
  return 0;
}
