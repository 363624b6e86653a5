// The kernels' thread pool: workers started on first use wait for a loop (spinning briefly, then
// asleep), take its pieces with the calling thread (each its own first), report the first failure code.
#include "runtime/llvm/thread_pool.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace rlx {

namespace {

// How long a worker polls for the next loop before it sleeps, and the caller for claimed pieces
// before it sleeps (pause instructions, roughly 50-100 us): a model runs its kernels back to back,
// and a futex wake-up costs more than a small kernel.
constexpr int kSpinPauses = 1 << 13;

thread_local bool insideParallelLoop = false;
thread_local int poolSlot = 0;  // parallelSlot(): 0 but in the pool's workers

// The current loop in one word: generation (high 32 bits) and piece count (low 32 bits).
struct Ticket {
  uint64_t word;
  uint32_t generation() const { return uint32_t(word >> 32); }
  int64_t pieces() const { return int64_t(word & 0xFFFFFFFF); }
  static uint64_t make(uint32_t generation, int64_t pieces) { return uint64_t(generation) << 32 | uint64_t(pieces); }
};

// Piece i of a loop is taken by moving its claim from an older generation to the loop's: a thread
// that saw an earlier loop can never take a piece of a later one (its generation is older than the
// claim's), and a loop ends only when all of its pieces are taken. A cache line each, so that
// threads taking their own pieces do not pass a line back and forth.
struct alignas(64) Claim {
  std::atomic<uint32_t> generation{0};
};

class ThreadPool {
 public:
  explicit ThreadPool(int threads) : claims_(size_t(threads)) {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] {
      poolSlot = i;
      work();
    });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
  }

  int size() const { return int(workers_.size()) + 1; }

  // The caller takes pieces too and waits only for pieces a worker has claimed: a worker that is
  // descheduled (or asleep) when the loop starts holds nothing up. Each thread takes the piece of
  // its slot first, so that the same part of every loop runs on the same core from call to call
  // (a kernel's rows or channels are where the previous kernel, split the same way, wrote them)
  // instead of going to whichever thread came first.
  int32_t run(RlxChunkFn chunk, void* ctx, int64_t extent) {
    // One loop at a time; a second caller meanwhile runs its loop by itself.
    std::unique_lock<std::mutex> job(jobMutex_, std::try_to_lock);
    if (!job.owns_lock()) return chunk(ctx, 0, extent);
    int64_t pieces = std::min<int64_t>(extent, size());
    chunk_ = chunk, ctx_ = ctx, extent_ = extent;
    mxcsr_ = _mm_getcsr();  // the caller's float mode (denormals as zero or not) holds for the loop
    done_.store(0, std::memory_order_relaxed);
    code_.store(0, std::memory_order_relaxed);
    uint32_t generation = Ticket{ticket_.load(std::memory_order_relaxed)}.generation() + 1;
    {
      // The release store publishes the fields above to whoever claims a piece of this loop.
      std::lock_guard<std::mutex> lock(mutex_);
      ticket_.store(Ticket::make(generation, pieces), std::memory_order_release);
      if (sleepers_ > 0) wake_.notify_all();
    }
    runPieces(generation);
    for (int spin = 0; done_.load(std::memory_order_acquire) != pieces && spin < kSpinPauses; ++spin) _mm_pause();
    if (done_.load(std::memory_order_acquire) != pieces) {
      std::unique_lock<std::mutex> lock(mutex_);
      finished_.wait(lock, [&] { return done_.load(std::memory_order_acquire) == pieces; });
    }
    return code_.load(std::memory_order_relaxed);
  }

 private:
  // Claims and runs pieces of loop `generation`, its slot's first, until none is left (or a newer
  // loop has begun).
  void runPieces(uint32_t generation) {
    Ticket t{ticket_.load(std::memory_order_acquire)};
    if (t.generation() != generation) return;
    insideParallelLoop = true;
    if (_mm_getcsr() != mxcsr_) _mm_setcsr(mxcsr_);  // published before the ticket (release)
    const int64_t pieces = t.pieces();
    for (int64_t j = 0; j < pieces; ++j) {
      const int64_t i = (poolSlot + j) % pieces;
      std::atomic<uint32_t>& claim = claims_[size_t(i)].generation;
      uint32_t seen = claim.load(std::memory_order_relaxed);
      if (int32_t(generation - seen) <= 0 || !claim.compare_exchange_strong(seen, generation, std::memory_order_acq_rel)) continue;
      int32_t code = chunk_(ctx_, extent_ * i / pieces, extent_ * (i + 1) / pieces);
      int32_t none = 0;
      if (code != 0) code_.compare_exchange_strong(none, code);
      if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == pieces) {
        std::lock_guard<std::mutex> lock(mutex_);
        finished_.notify_one();
      }
    }
    insideParallelLoop = false;
  }

  // The generation of the next loop: polled for a while, then waited for asleep (the sleeper count
  // tells run() whether a wake-up is needed; both look at it under the mutex, so none is lost).
  bool awaitLoop(uint32_t& seen) {
    for (int spin = 0; spin < kSpinPauses; ++spin) {
      uint32_t g = Ticket{ticket_.load(std::memory_order_acquire)}.generation();
      if (g != seen) return seen = g, true;
      _mm_pause();
    }
    std::unique_lock<std::mutex> lock(mutex_);
    ++sleepers_;
    wake_.wait(lock, [&] { return stopping_ || Ticket{ticket_.load(std::memory_order_acquire)}.generation() != seen; });
    --sleepers_;
    if (stopping_) return false;
    seen = Ticket{ticket_.load(std::memory_order_acquire)}.generation();
    return true;
  }

  void work() {
    uint32_t seen = 0;
    while (awaitLoop(seen)) runPieces(seen);
  }

  std::vector<std::thread> workers_;
  std::vector<Claim> claims_;  // one per piece: a loop has at most size() pieces
  unsigned mxcsr_ = 0x1F80;  // published with the loop's fields
  std::mutex jobMutex_, mutex_;
  std::condition_variable wake_, finished_;
  bool stopping_ = false;
  int sleepers_ = 0;  // guarded by mutex_
  std::atomic<uint64_t> ticket_{0};
  std::atomic<int64_t> done_{0};  // pieces of the current loop finished
  RlxChunkFn chunk_ = nullptr;
  void* ctx_ = nullptr;
  int64_t extent_ = 0;
  std::atomic<int32_t> code_{0};
};

ThreadPool& pool() {
  static ThreadPool p(parallelThreads());
  return p;
}

}  // namespace

int parallelSlot() { return poolSlot; }

int parallelThreads() {
  static const int n = [] {
    if (const char* s = std::getenv("RLX_NUM_THREADS")) {
      int v = std::atoi(s);
      if (v >= 1) return v;
    }
    return std::max(1, int(std::thread::hardware_concurrency()));
  }();
  return n;
}

}  // namespace rlx

extern "C" int32_t rlx_parallel_for(RlxChunkFn chunk, void* ctx, int64_t extent, int64_t workPerIteration) {
  if (extent <= 0) return 0;
  bool small = workPerIteration > 0 && extent * workPerIteration < rlx::kMinParallelWork;
  if (extent == 1 || small || rlx::insideParallelLoop || rlx::parallelThreads() == 1) return chunk(ctx, 0, extent);
  return rlx::pool().run(chunk, ctx, extent);
}
