// The GEMM's work queues (runtime/llvm/unit_queues.h): every unit is taken exactly once, each owner
// takes its own contiguous range in order first, and empty owners take from the back of the others.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "runtime/llvm/unit_queues.h"

TEST_CASE("unit queues: an owner takes its own range front to back, then steals from the back", "[unit_queues]") {
  rlx::UnitQueues q;
  q.reset(10, 2);  // slot 0 owns 0..4, slot 1 owns 5..9
  CHECK(q.parts() == 2);
  CHECK(q.peek(0) == 0);
  CHECK(q.peek(1) == 5);
  CHECK(q.take(1) == 5);
  CHECK(q.take(1) == 6);
  CHECK(q.peek(1) == 7);
  // Slot 0 runs its own range, in order.
  for (int64_t u = 0; u < 5; ++u) CHECK(q.take(0) == u);
  CHECK(q.peek(0) == -1);
  // Its range empty, slot 0 takes slot 1's last units; slot 1 keeps its front.
  CHECK(q.take(0) == 9);
  CHECK(q.take(1) == 7);
  CHECK(q.take(0) == 8);
  CHECK(q.take(0) == -1);
  CHECK(q.take(1) == -1);
}

TEST_CASE("unit queues: slots wrap around the parts, and parts are clamped to 1..kMaxParts", "[unit_queues]") {
  rlx::UnitQueues q;
  q.reset(3, 8);
  CHECK(q.parts() == 8);
  // 3 units over 8 owners: some own nothing and take from the others.
  std::vector<int64_t> got;
  for (int64_t u; (u = q.take(5)) >= 0;) got.push_back(u);
  std::sort(got.begin(), got.end());
  CHECK(got == std::vector<int64_t>{0, 1, 2});
  q.reset(4, 0);
  CHECK(q.parts() == 1);
  CHECK(q.take(3) == 0);  // slot 3 of one part owns it all
  q.reset(1000, 1000);
  CHECK(q.parts() == rlx::UnitQueues::kMaxParts);
  q.reset(0, 2);
  CHECK(q.take(0) == -1);
  CHECK(q.take(1) == -1);
}

TEST_CASE("unit queues: threads racing for units take each exactly once", "[unit_queues]") {
  constexpr int kThreads = 4;
  constexpr int64_t kUnits = 20000;
  for (int round = 0; round < 20; ++round) {
    rlx::UnitQueues q;
    q.reset(kUnits, kThreads);
    std::vector<std::atomic<int>> taken(kUnits);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        // Thread 0 is slow to start: the others steal its range from the back meanwhile.
        if (t == 0) std::this_thread::yield();
        for (int64_t u; (u = q.take(t)) >= 0;) taken[size_t(u)].fetch_add(1, std::memory_order_relaxed);
      });
    for (auto& th : threads) th.join();
    int64_t once = 0;
    for (auto& n : taken) once += n.load() == 1;
    REQUIRE(once == kUnits);
  }
}
