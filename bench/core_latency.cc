// Core-to-core round trip: two threads pinned to two CPUs pass a cache line back and forth. A VM's
// vCPUs can sit close or far apart on the host, and 2-thread timings follow that distance.
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

bool pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

// Median nanoseconds of one round trip over `rounds` batches of `trips`.
double roundTrip(int a, int b, int rounds, int trips) {
  alignas(64) static std::atomic<int64_t> turn{0};
  turn = 0;
  const int64_t total = int64_t(rounds) * trips;
  std::thread echo([&] {
    if (!pin(b)) std::fprintf(stderr, "rlx_bench_core_latency: cannot run on CPU %d\n", b), std::exit(1);
    for (int64_t i = 0; i < total; ++i) {
      while (turn.load(std::memory_order_acquire) != 2 * i + 1) {
      }
      turn.store(2 * i + 2, std::memory_order_release);
    }
  });
  if (!pin(a)) std::fprintf(stderr, "rlx_bench_core_latency: cannot run on CPU %d\n", a), std::exit(1);
  std::vector<double> ns;
  for (int r = 0; r < rounds; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int64_t i = int64_t(r) * trips; i < int64_t(r + 1) * trips; ++i) {
      turn.store(2 * i + 1, std::memory_order_release);
      while (turn.load(std::memory_order_acquire) != 2 * i + 2) {
      }
    }
    ns.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / trips);
  }
  echo.join();
  std::nth_element(ns.begin(), ns.begin() + ns.size() / 2, ns.end());
  return ns[ns.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 3 || (argc > 1 && argv[1][0] == '-')) {
    std::fprintf(stderr, "usage: rlx_bench_core_latency [CPU_A CPU_B]  (default 0 1)\n");
    return 2;
  }
  int a = argc > 1 ? std::atoi(argv[1]) : 0, b = argc > 2 ? std::atoi(argv[2]) : 1;
  if (std::thread::hardware_concurrency() < 2) {
    std::printf("core round trip: - (one CPU)\n");
    return 0;
  }
  std::printf("core round trip %d-%d: %.0f ns\n", a, b, roundTrip(a, b, 9, 20000));
  return 0;
}
