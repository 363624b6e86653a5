// On-disk kernel objects under <dir>/kernels/<key>.o with the check messages in <key>.msg. The key
// covers LLVM, the host CPU and the running executable (size, mtime), so a rebuild never reuses code.
#include "runtime/llvm/disk_cache.h"

#include <dlfcn.h>

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/file_util.h"
#include "runtime/llvm/engine.h"

namespace rlx::diskcache {

namespace {

std::string& dirSlot() {
  static std::string dir;
  return dir;
}

std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// FNV-1a: stable across processes (std::hash of a string need not be).
uint64_t fnv(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

const std::string& environmentStamp() {
  static const std::string stamp = [] {
    std::string s = codegen::hostStamp();
    // The executable's identity and the kernel compiler's (this library, librlx_llvm.so, which a
    // rebuild may replace alone): objects compiled by another build of either are never reused.
    auto identity = [&](const char* path) {
      struct stat st;
      if (path && ::stat(path, &st) == 0) s += std::string("-") + path + "-" + std::to_string(st.st_size) + "-" + std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
    };
    identity("/proc/self/exe");
    Dl_info self;
    if (::dladdr(reinterpret_cast<const void*>(&environmentStamp), &self) != 0) identity(self.dli_fname);
    return hex(fnv(s));
  }();
  return stamp;
}

std::optional<std::string> readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string pathOf(const std::string& key, const char* ext) { return directory() + "/kernels/" + key + ext; }

}  // namespace

const std::string& directory() { return dirSlot(); }
void setDirectory(std::string dir) { dirSlot() = std::move(dir); }

std::string keyFor(uint64_t structuralHash) { return hex(structuralHash) + "-" + environmentStamp(); }

// .msg: the message count on the first line, then each message as its byte length and a newline,
// followed by its bytes (messages may hold any character).
std::optional<Entry> load(const std::string& key) {
  if (directory().empty()) return std::nullopt;
  auto object = readAll(pathOf(key, ".o"));
  auto msg = readAll(pathOf(key, ".msg"));
  if (!object || !msg || object->empty()) return std::nullopt;
  Entry e{std::move(*object), {}};
  std::istringstream in(*msg);
  size_t count = 0;
  if (!(in >> count)) return std::nullopt;
  for (size_t i = 0; i < count; ++i) {
    size_t len = 0;
    if (!(in >> len) || in.get() != '\n') return std::nullopt;
    std::string m(len, '\0');
    if (!in.read(m.data(), std::streamsize(len))) return std::nullopt;
    e.messages.push_back(std::move(m));
  }
  return e;
}

void store(const std::string& key, const Entry& entry) {
  if (directory().empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(directory() + "/kernels", ec);
  if (ec) return;
  std::string msg = std::to_string(entry.messages.size()) + "\n";
  for (auto& m : entry.messages) msg += std::to_string(m.size()) + "\n" + m;
  // Messages first: an object without its messages is never read as complete.
  if (!writeFileAtomically(pathOf(key, ".msg"), msg).ok()) return;
  (void)writeFileAtomically(pathOf(key, ".o"), entry.object);
}

}  // namespace rlx::diskcache
