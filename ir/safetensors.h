// The safetensors sidecar that holds a module's large constants (metadata["relax.expr.Constant"][i])
// and, later, parameter files: an 8-byte header length, a JSON header, then raw little-endian data.
#pragma once
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/ndarray.h"

namespace rlx::safetensors {

struct Entry {
  std::string name;
  NDArrayRef array;
};

Result<std::vector<Entry>> read(const std::string& path);
// Writes atomically (temporary file + rename).
Status write(const std::string& path, const std::vector<Entry>& entries);

// Constants named "relax.expr.Constant.<i>", returned in index order.
Result<std::vector<NDArrayRef>> readConstants(const std::string& path);
Status writeConstants(const std::string& path, const std::vector<NDArrayRef>& constants);

}  // namespace rlx::safetensors
