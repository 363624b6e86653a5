// The pass registry generated from passes.def, pass options, and the pipeline text shared by the CLI
// and the shell: `A,B(k=v, l=[1, 2]),C`. Unknown names and options are errors with suggestions.
#pragma once
#include <string>
#include <vector>

#include "passes/pass.h"

namespace rlx {

// The options written after a pass name, as Python literals (TVM's parameter names and values:
// numbers, strings, True/False, None, lists, tuples and dicts), checked by the pass's factory.
// Each accessor marks its option as known; a value of the wrong type is remembered and reported by
// finish() with the type the pass expected.
class PassOptions {
 public:
  std::vector<std::pair<std::string, Attr>> values;
  std::optional<std::vector<std::string>> strings(const std::string& key);  // a string or a list of them
  std::optional<int64_t> integer(const std::string& key);
  std::optional<bool> boolean(const std::string& key);
  std::optional<std::string> string(const std::string& key);
  // A dict with string keys; values are checked by the pass (see the AttrValue helpers below).
  std::optional<std::vector<std::pair<std::string, Attr>>> dict(const std::string& key);
  // The raw value of an option whose type the pass checks itself (bool-or-list and such); a
  // pass that rejects it calls wrongType().
  std::optional<Attr> raw(const std::string& key);
  bool isNone(const std::string& key);  // given explicitly as None (marks the option as known)
  void wrongType(const std::string& key, const std::string& expected);
  Status finish(const std::string& passName) const;

 private:
  const Attr* find(const std::string& key);
  std::vector<std::string> used_;
  std::vector<std::pair<std::string, std::string>> wrongTypes_;  // key, expected type
};

// A literal option value as Python would print it (for messages): 3, "x", [1, 2], {"a": 1}.
std::string describeOptionValue(const Attr& value);
// One option value written as text ('I.vdevice("metal", 1)', '[1, 2]'), read as the pipeline reads it.
Result<Attr> parseOptionLiteral(const std::string& text);

struct PassEntry {
  const char* name;
  int optLevel;
  const char* options;  // "key=default, ..." ("" when the pass takes none)
  const char* summary;
  Result<Pass> (*create)(PassOptions&);
  const char* aliasOf = nullptr;  // a second registry name (Relay's or TVM Relax's) of this pass
};

#define PASS(Name, Level, Options, Summary) Result<Pass> create##Name##Pass(PassOptions& options);
#define ALIAS(Name, Target, Origin)
#include "passes/passes.def"
#undef ALIAS
#undef PASS

const std::vector<PassEntry>& passRegistry();  // sorted by name, aliases included
// The other registry names of the pass behind `name` (its aliases, or its target and siblings).
std::vector<std::string> passAliases(const std::string& name);
const PassEntry* findPass(const std::string& name);
Error unknownPass(const std::string& name);  // "unknown pass", with the closest name as a hint
// The option names of a pass ("entry_functions", ...), from its options text.
std::vector<std::string> passOptionNames(const PassEntry& entry);
// The pipeline text of preset "O0".."O3", "build" or "build_fused", or null for other names.
const char* presetPipeline(const std::string& name);
// Parses a pipeline into passes (presets expand to their lists).
Result<std::vector<Pass>> parsePipeline(const std::string& text);

}  // namespace rlx
