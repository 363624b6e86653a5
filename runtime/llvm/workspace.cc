// The per-thread workspace pool: released blocks wait in a small best-fit list. A block's capacity
// sits in a 64-byte header before it, so a release needs only the pointer.
#include "runtime/llvm/workspace.h"

#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr size_t kHeader = 64;
constexpr size_t kMaxPooledBlocks = 16;
constexpr size_t kMaxPooledBytes = size_t(1) << 30;

size_t& capacityOf(void* block) { return *reinterpret_cast<size_t*>(static_cast<char*>(block) - kHeader); }

struct Pool {
  std::vector<void*> blocks;
  size_t bytes = 0;
  ~Pool() {
    for (void* b : blocks) std::free(static_cast<char*>(b) - kHeader);
  }
};

Pool& pool() {
  thread_local Pool p;
  return p;
}

}  // namespace

extern "C" void* rlx_workspace_take(int64_t bytes) {
  size_t want = size_t(bytes > 0 ? bytes : 1);
  Pool& p = pool();
  // The smallest released block that fits, unless it is more than twice the request (a small buffer
  // would otherwise pin a large block that a later large buffer needs).
  size_t best = p.blocks.size();
  for (size_t i = 0; i < p.blocks.size(); ++i) {
    size_t cap = capacityOf(p.blocks[i]);
    if (cap >= want && cap <= 2 * want + 4096 && (best == p.blocks.size() || cap < capacityOf(p.blocks[best]))) best = i;
  }
  void* block;
  if (best < p.blocks.size()) {
    block = p.blocks[best];
    p.bytes -= capacityOf(block);
    p.blocks[best] = p.blocks.back();
    p.blocks.pop_back();
  } else {
    size_t cap = (want + 63) / 64 * 64;
    char* raw = static_cast<char*>(std::aligned_alloc(64, kHeader + cap));
    if (!raw) return nullptr;
    block = raw + kHeader;
    capacityOf(block) = cap;
  }
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
  if (p.blocks.size() >= kMaxPooledBlocks || p.bytes + cap > kMaxPooledBytes) {
    std::free(static_cast<char*>(block) - kHeader);
    return;
  }
  p.blocks.push_back(block);
  p.bytes += cap;
}
