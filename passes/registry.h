// The pass registry generated from passes.def, pass options, and the pipeline text shared by the CLI
// and the shell: `A,B(k=v, l=[1, 2]),C`. Unknown names and options are errors with suggestions.
#pragma once
#include <string>
#include <vector>

#include "passes/pass.h"

namespace rlx {

// The options written after a pass name, checked by the pass's factory.
class PassOptions {
 public:
  std::vector<std::pair<std::string, Attr>> values;
  // Accessors mark options as used; finish() reports any the pass did not know.
  std::optional<std::vector<std::string>> strings(const std::string& key);
  std::optional<int64_t> integer(const std::string& key);
  std::optional<std::string> string(const std::string& key);
  // Whether `key` was given as None (an optional option set to its "absent" value).
  bool none(const std::string& key);
  Status finish(const std::string& passName) const;

 private:
  std::vector<std::string> used_;
};

struct PassEntry {
  const char* name;
  int optLevel;
  const char* options;  // "key=default, ..." ("" when the pass takes none)
  const char* summary;
  Result<Pass> (*create)(PassOptions&);
};

#define PASS(Name, Level, Options, Summary) Result<Pass> create##Name##Pass(PassOptions& options);
#include "passes/passes.def"
#undef PASS

const std::vector<PassEntry>& passRegistry();  // sorted by name
const PassEntry* findPass(const std::string& name);
// The option names of a pass ("entry_functions", ...), from its options text.
std::vector<std::string> passOptionNames(const PassEntry& entry);
// The pipeline text of preset "O0".."O3", "build" or "build_fused", or null for other names.
const char* presetPipeline(const std::string& name);
// Parses a pipeline into passes (presets expand to their lists).
Result<std::vector<Pass>> parsePipeline(const std::string& text);

}  // namespace rlx
