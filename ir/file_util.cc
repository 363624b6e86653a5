// Atomic writes via temp file + fsync-free rename (same directory, so rename is atomic on POSIX).
// Errors name the file and the system's reason.
#include "ir/file_util.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace rlx {

Status writeFileAtomically(const std::string& path, const std::string& contents) {
  return writeFileAtomically(path, std::vector<std::string_view>{contents});
}

Status writeFileAtomically(const std::string& path, const std::vector<std::string_view>& parts) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return Error("cannot write '" + path + "': " + std::strerror(errno));
  bool ok = true;
  for (auto& part : parts) ok = ok && std::fwrite(part.data(), 1, part.size(), f) == part.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) {
    std::remove(tmp.c_str());
    return Error("cannot write '" + path + "': " + std::strerror(errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    return Error("cannot write '" + path + "': " + std::strerror(err));
  }
  return okStatus();
}

}  // namespace rlx
