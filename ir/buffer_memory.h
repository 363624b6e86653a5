// Memory for tensor-sized buffers: 64-byte aligned; a buffer of a huge page or more is a mapping of
// its own, 2 MiB aligned and backed by transparent huge pages.
#pragma once
#include <cstddef>

namespace rlx {

// Huge pages for a buffer that is written whole (a tensor); small ones for a block whose capacity
// runs past what its users touch (a pool's size class), where a huge page would fault in the slack.
enum class BufferPages { Huge, Small };

// Null when the memory cannot be had. `bytes` of the release must be those of the allocation.
void* allocateBuffer(size_t bytes, BufferPages pages = BufferPages::Huge);
void releaseBuffer(void* p, size_t bytes);

}  // namespace rlx
