// The kernels' thread pool: workers started on first use wait for a loop, take chunks from an
// atomic counter with the calling thread, and report the first failure code.
#include "runtime/llvm/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace rlx {

namespace {

// Below this much work (elements touched, roughly) a loop is not worth waking threads for.
constexpr int64_t kMinParallelWork = 1 << 15;

thread_local bool insideParallelLoop = false;

class ThreadPool {
 public:
  explicit ThreadPool(int threads) {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
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

  int32_t run(RlxChunkFn chunk, void* ctx, int64_t extent) {
    // One loop at a time; a second caller meanwhile runs its loop by itself.
    std::unique_lock<std::mutex> job(jobMutex_, std::try_to_lock);
    if (!job.owns_lock()) return chunk(ctx, 0, extent);
    int64_t pieces = std::min<int64_t>(extent, size());
    {
      std::lock_guard<std::mutex> lock(mutex_);
      chunk_ = chunk;
      ctx_ = ctx;
      extent_ = extent;
      pieces_ = pieces;
      next_ = 0;
      code_ = 0;
      busy_ = int(workers_.size());
      ++generation_;
    }
    wake_.notify_all();
    runPieces();
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return busy_ == 0; });
    return code_;
  }

 private:
  void runPieces() {
    insideParallelLoop = true;
    for (int64_t i; (i = next_.fetch_add(1)) < pieces_;) {
      int64_t begin = extent_ * i / pieces_, end = extent_ * (i + 1) / pieces_;
      int32_t code = chunk_(ctx_, begin, end);
      int32_t none = 0;
      if (code != 0) code_.compare_exchange_strong(none, code);
    }
    insideParallelLoop = false;
  }

  void work() {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
      }
      runPieces();
      std::lock_guard<std::mutex> lock(mutex_);
      if (--busy_ == 0) done_.notify_one();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex jobMutex_, mutex_;
  std::condition_variable wake_, done_;
  bool stopping_ = false;
  uint64_t generation_ = 0;
  int busy_ = 0;
  RlxChunkFn chunk_ = nullptr;
  void* ctx_ = nullptr;
  int64_t extent_ = 0, pieces_ = 0;
  std::atomic<int64_t> next_{0};
  std::atomic<int32_t> code_{0};
};

ThreadPool& pool() {
  static ThreadPool p(parallelThreads());
  return p;
}

}  // namespace

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
