// Tensor buffer memory (ir/buffer_memory.cc): small buffers 64-byte aligned from the heap; large ones
// mappings of their own, 2 MiB aligned, advised as huge pages when asked, unmapped when released.
#include <catch2/catch.hpp>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

#include "ir/buffer_memory.h"
#include "ir/ndarray.h"

namespace {

constexpr size_t kHuge = size_t(2) << 20;

// The VmFlags line of the mapping holding `p` in /proc/self/smaps ("" when none holds it).
std::string vmFlagsOf(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  auto at = uintptr_t(p);
  while (std::getline(smaps, line)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find('-') < line.find(' ')) {
      inside = at >= lo && at < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

bool thpAvailable() { return std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").good(); }

bool mapped(void* p) {
  unsigned char resident = 0;
  return mincore(p, size_t(sysconf(_SC_PAGESIZE)), &resident) == 0;
}

}  // namespace

TEST_CASE("buffer memory: a small buffer is 64-byte aligned and writable", "[buffer_memory]") {
  for (size_t bytes : {size_t(0), size_t(1), size_t(100), kHuge - 1}) {
    void* p = rlx::allocateBuffer(bytes);
    REQUIRE(p);
    CHECK(uintptr_t(p) % 64 == 0);
    std::memset(p, 0x5A, bytes);
    rlx::releaseBuffer(p, bytes);
  }
}

TEST_CASE("buffer memory: a large buffer is its own 2 MiB-aligned mapping, gone when released", "[buffer_memory]") {
  size_t bytes = 3 * kHuge + 100;
  auto* p = static_cast<unsigned char*>(rlx::allocateBuffer(bytes));
  REQUIRE(p);
  CHECK(uintptr_t(p) % kHuge == 0);
  std::memset(p, 0x5A, bytes);
  CHECK(p[bytes - 1] == 0x5A);
  if (thpAvailable()) CHECK(vmFlagsOf(p).find(" hg") != std::string::npos);  // advised as huge pages
  rlx::releaseBuffer(p, bytes);
  CHECK_FALSE(mapped(p));
}

TEST_CASE("buffer memory: an impossible size is refused, not wrapped", "[buffer_memory]") {
  CHECK(rlx::allocateBuffer(SIZE_MAX) == nullptr);
  CHECK(rlx::allocateBuffer(SIZE_MAX - 4000) == nullptr);
  CHECK(rlx::allocateBuffer(size_t(1) << 62) == nullptr);  // 4 EiB: mmap refuses it
}

TEST_CASE("buffer memory: a pool's block keeps small pages", "[buffer_memory]") {
  size_t bytes = 2 * kHuge;
  void* p = rlx::allocateBuffer(bytes, rlx::BufferPages::Small);
  REQUIRE(p);
  std::string flags = vmFlagsOf(p);
  CHECK_FALSE(flags.empty());
  CHECK(flags.find(" hg") == std::string::npos);
  rlx::releaseBuffer(p, bytes);
}

TEST_CASE("buffer memory: a large NDArray is zeroed, aligned and released", "[buffer_memory]") {
  const float* data = nullptr;
  {
    auto a = rlx::make<rlx::NDArray>(rlx::DataType::float32(), std::vector<int64_t>{3, 1000, 1000});
    data = a->as<float>();
    CHECK(uintptr_t(data) % kHuge == 0);
    CHECK(data[0] == 0.0f);
    CHECK(data[2999999] == 0.0f);
  }
  CHECK_FALSE(mapped(const_cast<float*>(data)));
}
