// Per-thread scratch buffers (scratch.h): one aligned block per slot, freed when the thread ends.
// A block is replaced only by a larger one, so steady-state kernel calls never reach the allocator.
#include "runtime/llvm/scratch.h"

#include <cstdlib>
#include <cstring>

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

// The slot's block, replaced by one of `floats` when smaller (then zeroed when `zero`).
float* slotBlock(ScratchSlot slot, size_t floats, bool zero) {
  thread_local Scratch s;
  int i = int(slot);
  if (s.size[i] < floats) {
    releaseBuffer(s.block[i], s.size[i] * sizeof(float));
    s.block[i] = static_cast<float*>(allocateBuffer(floats * sizeof(float), BufferPages::Small));
    s.size[i] = s.block[i] ? floats : 0;
    if (zero && s.block[i]) std::memset(s.block[i], 0, floats * sizeof(float));
  }
  return s.block[i];
}

}  // namespace

float* threadScratch(ScratchSlot slot, size_t floats) { return slotBlock(slot, floats, false); }

float* threadZeroScratch(ScratchSlot slot, size_t floats) { return slotBlock(slot, floats, true); }

}  // namespace rlx
