// Work units of a parallel kernel shared out among threads with affinity and stealing (UnitQueues):
// lock-free, one atomic word per owner.
#pragma once
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>

namespace rlx {

// Work units shared out with affinity: each of `parts` slots owns a contiguous range of units and
// takes them front to back; a thread whose range is empty takes the last unit of another's. A
// thread (by its parallelSlot) then runs the same units, so reads the same weights, from call to
// call, and keeps them in its core's L2 (static splits such as OpenBLAS's get that too; batch-1
// sgemm 1x784x512 at 2 threads: 0.0091 -> 0.0072 ms), while a thread that is descheduled, or
// slower, holds up only the unit it is running.
class UnitQueues {
 public:
  static constexpr int64_t kMaxParts = 64;

  // `units` (below 2^32: a unit is at least a micro-tile of work) split evenly over `parts` owners.
  void reset(int64_t units, int64_t parts) {
    parts_ = std::clamp<int64_t>(parts, 1, kMaxParts);
    for (int64_t p = 0; p < parts_; ++p) range_[p].store(pack(units * p / parts_, units * (p + 1) / parts_), std::memory_order_relaxed);
  }
  int64_t parts() const { return parts_; }

  // The next unit for the thread of `slot`: its own range's first, else another's last; -1 when
  // every range is empty.
  int64_t take(int64_t slot) {
    int64_t own = slot % parts_;
    for (int64_t i = 0; i < parts_; ++i) {
      int64_t u = pop(range_[(own + i) % parts_], i == 0);
      if (u >= 0) return u;
    }
    return -1;
  }
  // The unit `slot` will likely take next (its own range's first), or -1: a hint for prefetching.
  int64_t peek(int64_t slot) const {
    uint64_t w = range_[slot % parts_].load(std::memory_order_relaxed);
    return lo(w) < hi(w) ? lo(w) : -1;
  }

 private:
  static uint64_t pack(int64_t lo, int64_t hi) { return uint64_t(lo) | uint64_t(hi) << 32; }
  static int64_t lo(uint64_t w) { return int64_t(w & 0xFFFFFFFFu); }
  static int64_t hi(uint64_t w) { return int64_t(w >> 32); }
  // The front unit of a range (its owner) or the back one (a thief), or -1 when it is empty.
  static int64_t pop(std::atomic<uint64_t>& range, bool front) {
    uint64_t w = range.load(std::memory_order_relaxed);
    while (lo(w) < hi(w)) {
      uint64_t taken = front ? pack(lo(w) + 1, hi(w)) : pack(lo(w), hi(w) - 1);
      if (range.compare_exchange_weak(w, taken, std::memory_order_acq_rel)) return front ? lo(w) : hi(w) - 1;
    }
    return -1;
  }

  int64_t parts_ = 1;
  std::array<std::atomic<uint64_t>, kMaxParts> range_{};
};

}  // namespace rlx
