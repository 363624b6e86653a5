// Per-thread scratch buffers (scratch.h): one aligned block per slot, freed when the thread ends.
// A block is replaced only by a larger one, so steady-state kernel calls never reach the allocator.
#include "runtime/llvm/scratch.h"

#include <cstdlib>

namespace rlx {

namespace {

struct Scratch {
  static constexpr int kSlots = int(ScratchSlot::Count);
  float* block[kSlots] = {};
  size_t size[kSlots] = {};
  ~Scratch() {
    for (float* b : block) std::free(b);
  }
};

}  // namespace

float* threadScratch(ScratchSlot slot, size_t floats) {
  thread_local Scratch s;
  int i = int(slot);
  if (s.size[i] < floats) {
    std::free(s.block[i]);
    s.block[i] = static_cast<float*>(std::aligned_alloc(64, (floats * sizeof(float) + 63) / 64 * 64));
    s.size[i] = s.block[i] ? floats : 0;
  }
  return s.block[i];
}

}  // namespace rlx
