// Kernel workspace: the storage of a kernel's intermediate buffers (T.alloc_buffer too large for the
// stack), recycled per thread so that a kernel run again does not fault fresh pages in every call.
#pragma once
#include <cstdint>

extern "C" {
// A zeroed block of at least `bytes` bytes, 64-byte aligned, from the calling thread's released
// blocks when one fits (else newly allocated); null when out of memory.
void* rlx_workspace_alloc(int64_t bytes);
// The same block, its contents left as they are (for a buffer the kernel overwrites before reading).
void* rlx_workspace_take(int64_t bytes);
// Releases a block of rlx_workspace_alloc to the calling thread's pool (or to the system when the
// pool is full).
void rlx_workspace_free(void* block);
}
