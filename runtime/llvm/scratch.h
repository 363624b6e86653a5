// Per-thread scratch buffers of the runtime's float kernels (GEMM packing, Winograd transforms):
// 64-byte aligned, grown on demand and kept for the thread's next call, so a kernel run again allocates nothing.
#pragma once
#include <cstddef>

namespace rlx {

// The slots, one per buffer a kernel holds at the same time as the others.
enum class ScratchSlot { GemmA, GemmB, WinogradFilter, WinogradInput, WinogradProduct, WinogradRows, WindowPlane, WindowLanesInput, WindowLanesOutput, WindowChannelsLastZeros, WindowChannelsLastWeights, AttentionScores, Count };

// The calling thread's buffer in `slot`, at least `floats` long (its contents are whatever the last
// user left); null when out of memory.
float* threadScratch(ScratchSlot slot, size_t floats);

// The same, for a buffer its users only read: all zeros, zeroed when it is allocated or grown (a
// window's row of padding, read in place of rows outside the image).
float* threadZeroScratch(ScratchSlot slot, size_t floats);

}  // namespace rlx
