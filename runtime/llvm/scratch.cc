// Per-thread scratch buffers (scratch.h): one aligned block per slot, freed when the thread ends.
// A block is replaced only by a larger one, so steady-state kernel calls never reach the allocator.
#include "runtime/llvm/scratch.h"

#include <cstdlib>

#include "ir/buffer_memory.h"

namespace rlx {

namespace {

struct Scratch {
  static constexpr int kSlots = int(ScratchSlot::Count);
  float* block[kSlots] = {};
  size_t size[kSlots] = {};
  ~Scratch() {
    for (int i = 0; i < kSlots; ++i) releaseBuffer(block[i], size[i] * sizeof(float));
  }
};

}  // namespace

float* threadScratch(ScratchSlot slot, size_t floats) {
  thread_local Scratch s;
  int i = int(slot);
  if (s.size[i] < floats) {
    releaseBuffer(s.block[i], s.size[i] * sizeof(float));
    s.block[i] = static_cast<float*>(allocateBuffer(floats * sizeof(float), BufferPages::Small));
    s.size[i] = s.block[i] ? floats : 0;
  }
  return s.block[i];
}

}  // namespace rlx
