// The Relay importer's public API: Relay v0.0.5 text (TVM's `#[version = "0.0.5"]` format) read into
// a syntax tree, and imported into a Relax module. See ../shared/spec/relay.md for the format.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "frontend/relay/ast.h"
#include "ir/diagnostic.h"
#include "ir/module.h"

namespace rlx::relay {

struct ReadOptions {
  // Entries appended after those of the file's own `#[metadata]` section (TVM's init_meta_table).
  const MetaTable* externalMeta = nullptr;
};

// Reads a module (`def`s, `type`s; the version header is required) or an expression file (the
// header optional) registered as source `file`. Every problem is an Error with its location.
Result<Module> readRelay(uint32_t file, const ReadOptions& options = {});
// The same for text not yet registered.
Result<Module> readRelayText(std::string text, const std::string& sourceName, const ReadOptions& options = {});

// A metadata table in TVM's node-graph JSON (what `#[metadata]` holds, or tvm.ir.save_json of a
// Map<String, Array<Object>>): relay.Constant arrays (base64 NDArrays), runtime.BoxInt, IntImm and
// VirtualDevice entries. `file`/`offset` locate errors (byte offset of the JSON text in `file`).
Result<MetaTable> readMetaJson(std::string_view json, uint32_t file = 0, uint32_t offset = 0);
// A table file given on the command line (`--meta TABLE.json`).
Result<MetaTable> readMetaFile(const std::string& path);

struct ImportOptions {
  // When set, every `/* ty=T */` comment TVM printed is compared with the struct info rlx infers for
  // that node; each disagreement is appended here (the test oracle), the import goes on.
  std::vector<Error>* printedTypeMismatches = nullptr;
  size_t* printedTypesChecked = nullptr;  // counts the comments compared
};

// Relay → Relax: `def @f` → module functions, an expression file → `main` (free variables become its
// parameters). ADTs, match, refs and type parameters are refused as "not expressible in Relax".
Result<IRModuleRef> importRelay(const Module& module, const ImportOptions& options = {});

// Reads and imports `path`, with an optional external meta table file ("" for none).
Result<IRModuleRef> fromRelayFile(const std::string& path, const std::string& metaPath = "", const ImportOptions& options = {});

// True when `path` names a Relay text file (`.relay`, `.rly`).
bool isRelayPath(const std::string& path);

}  // namespace rlx::relay
