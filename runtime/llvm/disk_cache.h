// The optional on-disk object cache of compiled kernels: object bytes and check messages per key
// (structural hash + host + the executable's build), so a later process links instead of compiling.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace rlx::diskcache {

struct Entry {
  std::string object;
  std::vector<std::string> messages;
};

// The directory in use ("" when the cache is off).
const std::string& directory();
void setDirectory(std::string dir);

// The key of a kernel: its structural hash and everything else its code depends on.
std::string keyFor(uint64_t structuralHash);

// The cached entry, or nullopt (missing or unreadable: the kernel is then compiled).
std::optional<Entry> load(const std::string& key);
// Writes the entry atomically; failures are ignored (the cache is only an accelerator).
void store(const std::string& key, const Entry& entry);

}  // namespace rlx::diskcache
