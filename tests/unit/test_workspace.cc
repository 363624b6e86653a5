// The kernel workspace pool (runtime/llvm/workspace.cc): blocks come back zeroed and aligned, a
// released block is reused for a request it fits, and a small request does not pin a large block.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>

#include "runtime/llvm/workspace.h"

namespace {
bool allZero(const void* p, size_t n) {
  auto* c = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i)
    if (c[i]) return false;
  return true;
}
}  // namespace

TEST_CASE("workspace: released blocks are reused, zeroed and aligned", "[workspace]") {
  constexpr size_t kBig = 1 << 20;
  void* a = rlx_workspace_alloc(kBig);
  REQUIRE(a);
  CHECK(reinterpret_cast<uintptr_t>(a) % 64 == 0);
  CHECK(allZero(a, kBig));
  std::memset(a, 0xAB, kBig);
  rlx_workspace_free(a);

  // A small request does not take the released megabyte...
  void* small = rlx_workspace_alloc(1024);
  CHECK(small != a);
  CHECK(allZero(small, 1024));
  // ... which comes back, zeroed again, for a request of about its size.
  void* b = rlx_workspace_alloc(kBig - 100);
  CHECK(b == a);
  CHECK(allZero(b, kBig - 100));
  rlx_workspace_free(small);
  rlx_workspace_free(b);
  rlx_workspace_free(nullptr);
}
