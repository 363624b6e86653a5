// Buffers of 2 MiB or more are mappings of their own, 2 MiB aligned and advised as transparent huge
// pages; smaller ones come from the C heap, 64-byte aligned.
#include "ir/buffer_memory.h"

#include <malloc.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>

namespace rlx {

namespace {

constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kSmallPage = 4096;

// glibc serves large blocks from its heap once the first one is freed (its mmap threshold grows), and
// a freed heap block stays resident: the ONNX importer's tensor strings, released one by one as the
// weights are copied out, would stay beside the weights' own mappings (GPT-2: 866 -> 952 MB peak).
// A fixed threshold at the huge-page size keeps every block of 2 MiB or more a mapping of its own,
// returned to the system when freed; smaller blocks stay on the heap as before. The VM keeps its
// storage blocks from run to run, so no run maps or unmaps anything.
const bool kFixedMmapThreshold = mallopt(M_MMAP_THRESHOLD, int(kHugePage)) == 1;

size_t lengthOf(size_t bytes) { return (bytes + kSmallPage - 1) / kSmallPage * kSmallPage; }

}  // namespace

// Streaming a weight through 4 KiB pages costs a TLB miss every 64 cache lines (a nested page walk
// under a hypervisor) and stops the hardware prefetchers at each page boundary: GPT-2's decode step,
// which reads 500 MB of weights once, ran 20 -> 18 ms on huge pages. The machines run THP in
// `madvise` mode, so they come only when asked for. A fresh mapping (not glibc's recycled heap, whose
// pages are already faulted small) gets them at its first touch; the tail past the last whole huge
// page keeps small pages.
void* allocateBuffer(size_t bytes, BufferPages pages) {
  if (bytes < kHugePage) return std::aligned_alloc(64, bytes ? (bytes + 63) / 64 * 64 : 64);
  if (bytes > SIZE_MAX / 2) return nullptr;  // no such memory; the rounding below would wrap
  size_t length = lengthOf(bytes), span = length + kHugePage - kSmallPage;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  // Map a huge page more than needed, then give back what lies before the first 2 MiB boundary and
  // after the buffer.
  uintptr_t start = uintptr_t(raw), aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > start) munmap(raw, aligned - start);
  uintptr_t end = aligned + length, spanEnd = start + span;
  if (spanEnd > end) munmap(reinterpret_cast<void*>(end), spanEnd - end);
  void* p = reinterpret_cast<void*>(aligned);
  // Advice only: a kernel without THP keeps small pages.
  if (pages == BufferPages::Huge) madvise(p, length / kHugePage * kHugePage, MADV_HUGEPAGE);
  return p;
}

void releaseBuffer(void* p, size_t bytes) {
  if (!p) return;
  if (bytes < kHugePage) std::free(p);
  else munmap(p, lengthOf(bytes));
}

}  // namespace rlx
