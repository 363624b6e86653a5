// PLACEHOLDER until the metadata reader lands (wt-meta): every table is empty.
#include "frontend/relay/relay.h"

namespace rlx::relay {
Result<MetaTable> readMetaJson(std::string_view, uint32_t, uint32_t) { return MetaTable{}; }
Result<MetaTable> readMetaFile(const std::string& path) { return Error("metadata reader not built yet: " + path); }
}  // namespace rlx::relay
