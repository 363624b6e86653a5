// The thread pool that runs kernels' parallel loops: RLX_NUM_THREADS threads (default: the hardware
// threads) share a loop's iterations in contiguous chunks, each run by a JIT'ed chunk function.
#pragma once
#include <cstdint>

extern "C" {
// Runs `chunk(ctx, begin, end)` over pieces covering [0, extent) and returns the first non-zero code
// a piece returned (0 when all succeeded). Loops with less than about `minWork` units of work in all
// (extent * workPerIteration) run on the calling thread, as do loops started inside a parallel one.
typedef int32_t (*RlxChunkFn)(void* ctx, int64_t begin, int64_t end);
int32_t rlx_parallel_for(RlxChunkFn chunk, void* ctx, int64_t extent, int64_t workPerIteration);
}

namespace rlx {
// Below this much work (elements touched, roughly) a loop is not worth waking threads for: such a
// loop runs on the calling thread, and the code generator emits one of constant size as a plain loop.
constexpr int64_t kMinParallelWork = 1 << 15;

// How many threads run a parallel loop (RLX_NUM_THREADS, else the hardware threads).
int parallelThreads();

// The calling thread's place among them: 1 .. parallelThreads() - 1 in the pool's workers, 0 in any
// other thread. The same worker has the same slot for the life of the process, so work shared out
// by slot goes to the same core's caches from one call to the next (as far as the OS keeps threads
// where they ran).
int parallelSlot();
}  // namespace rlx
