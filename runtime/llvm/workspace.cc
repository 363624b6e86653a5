// The per-thread workspace pool: released blocks wait in a list, oldest first. Capacities are
// rounded up to size classes (four per power of two: at most 19% slack), and a request takes a
// released block of its own class, so that a model whose kernels alternate between dozens of
// buffer sizes finds each one's block again on its next run instead of faulting in fresh pages
// (with 16 blocks and a best fit within 2x, BERT's and MobileNet's runs kept reallocating). A
// block's capacity sits in a 64-byte header before it, so a release needs only the pointer.
#include "runtime/llvm/workspace.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ir/buffer_memory.h"

namespace {

constexpr size_t kHeader = 64;
constexpr size_t kMaxPooledBlocks = 128;
constexpr size_t kMaxPooledBytes = size_t(1) << 30;

size_t& capacityOf(void* block) { return *reinterpret_cast<size_t*>(static_cast<char*>(block) - kHeader); }

// The size class of a request: 64-byte multiples up to 4 KB, then 2^e * {4, 5, 6, 7} / 4.
size_t sizeClass(size_t want) {
  if (want <= 4096) return (want + 63) / 64 * 64;
  int e = 63 - __builtin_clzll(want);  // 2^e <= want < 2^(e+1)
  size_t quarter = size_t(1) << (e - 2);
  return (want + quarter - 1) / quarter * quarter;
}

struct Pool {
  std::vector<void*> blocks;  // released, oldest first
  size_t bytes = 0;
  ~Pool() {
    for (void* b : blocks) rlx::releaseBuffer(static_cast<char*>(b) - kHeader, kHeader + capacityOf(b));
  }
};

Pool& pool() {
  thread_local Pool p;
  return p;
}

}  // namespace

extern "C" void* rlx_workspace_take(int64_t bytes) {
  size_t cap = sizeClass(size_t(bytes > 0 ? bytes : 1));
  Pool& p = pool();
  // The most recently released block of the class (its pages are the likeliest to be in cache).
  for (size_t i = p.blocks.size(); i-- > 0;) {
    if (capacityOf(p.blocks[i]) != cap) continue;
    void* block = p.blocks[i];
    p.bytes -= cap;
    p.blocks.erase(p.blocks.begin() + std::ptrdiff_t(i));
    return block;
  }
  char* raw = static_cast<char*>(rlx::allocateBuffer(kHeader + cap, rlx::BufferPages::Small));
  if (!raw) return nullptr;
  void* block = raw + kHeader;
  capacityOf(block) = cap;
  return block;
}

extern "C" void* rlx_workspace_alloc(int64_t bytes) {
  void* block = rlx_workspace_take(bytes);
  if (block) std::memset(block, 0, size_t(bytes > 0 ? bytes : 1));
  return block;
}

extern "C" void rlx_workspace_free(void* block) {
  if (!block) return;
  Pool& p = pool();
  size_t cap = capacityOf(block);
  if (cap > kMaxPooledBytes) {
    rlx::releaseBuffer(static_cast<char*>(block) - kHeader, kHeader + cap);
    return;
  }
  // Full: the oldest released blocks go first (the sizes of kernels not run lately).
  while (!p.blocks.empty() && (p.blocks.size() >= kMaxPooledBlocks || p.bytes + cap > kMaxPooledBytes)) {
    p.bytes -= capacityOf(p.blocks.front());
    rlx::releaseBuffer(static_cast<char*>(p.blocks.front()) - kHeader, kHeader + capacityOf(p.blocks.front()));
    p.blocks.erase(p.blocks.begin());
  }
  p.blocks.push_back(block);
  p.bytes += cap;
}
