// The converter table and the ONNX schema history (schema_versions.inc, generated from the onnx
// package): dispatch picks the schema revision a model's opset selects and refuses, by name, any
// revision no converter implements, instead of converting it with another revision's semantics.
#include "frontend/onnx/registry.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace rlx::onnx {

namespace {

struct SchemaRow {
  const char* domain;
  const char* op;
  std::vector<int> versions;
};

const std::vector<SchemaRow>& schemaRows() {
  static const std::vector<SchemaRow> rows = {
#include "frontend/onnx/schema_versions.inc"
  };
  return rows;
}

using Key = std::pair<std::string, std::string>;

struct Entry {
  std::vector<int> versions;  // empty = every schema version
  Converter fn;
};

std::map<Key, std::vector<Entry>>& table() {
  static std::map<Key, std::vector<Entry>> t;
  return t;
}

void registerAll() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerElementwiseConverters();
    registerMathConverters();
    registerShapeConverters();
    registerTensorConverters();
    registerReduceConverters();
    registerNNConverters();
    registerLossConverters();
    registerSequenceConverters();
    registerControlConverters();
    registerRecurrentConverters();
    registerQuantizeConverters();
    registerAttentionConverters();
    registerMiscConverters();
    registerTrainingConverters();
    registerDataDependentConverters();
    registerResizeConverters();
    registerContribConverters();
    registerSignalConverters();
  });
}

const std::vector<int>* schemaVersions(const std::string& domain, const std::string& op) {
  static const std::map<Key, const std::vector<int>*> index = [] {
    std::map<Key, const std::vector<int>*> m;
    for (auto& r : schemaRows()) m[{r.domain, r.op}] = &r.versions;
    return m;
  }();
  auto it = index.find({domain, op});
  return it == index.end() ? nullptr : it->second;
}

std::string list(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

}  // namespace

std::string canonicalDomain(const std::string& domain) { return domain == "ai.onnx" ? "" : domain; }

void registerConverter(const std::string& domain, const std::string& opType, std::vector<int> sinceVersions, Converter fn) {
  table()[{canonicalDomain(domain), opType}].push_back(Entry{std::move(sinceVersions), std::move(fn)});
}

bool knowsOp(const std::string& domain, const std::string& opType) {
  registerAll();
  return table().count({canonicalDomain(domain), opType}) > 0;
}

Dispatch findConverter(const std::string& rawDomain, const std::string& opType, int opset) {
  registerAll();
  std::string domain = canonicalDomain(rawDomain);
  std::string shown = domain.empty() ? "ai.onnx" : domain;
  auto it = table().find({domain, opType});
  Dispatch d;
  if (it == table().end()) {
    d.why = "rlx has no converter for " + shown + " op " + opType;
    return d;
  }
  // Which revision of the op the opset selects: the schema history, or, for domains the onnx
  // package does not describe (com.microsoft), the versions the converters declare.
  std::vector<int> history;
  if (auto* v = schemaVersions(domain, opType)) history = *v;
  else
    for (auto& e : it->second) history.insert(history.end(), e.versions.begin(), e.versions.end());
  std::sort(history.begin(), history.end());
  int since = 0;
  for (int v : history)
    if (v <= opset) since = v;
  if (since == 0) {
    d.why = shown + " op " + opType + " does not exist at opset " + std::to_string(opset) + " (its first version is " + std::to_string(history.empty() ? 0 : history.front()) + ")";
    return d;
  }
  std::vector<int> known;
  for (auto& e : it->second) {
    if (e.versions.empty() || std::count(e.versions.begin(), e.versions.end(), since)) {
      d.fn = &e.fn;
      d.since = since;
      return d;
    }
    known.insert(known.end(), e.versions.begin(), e.versions.end());
  }
  std::sort(known.begin(), known.end());
  d.why = "opset " + std::to_string(opset) + " selects version " + std::to_string(since) + " of " + opType + ", which rlx does not implement (rlx knows versions " + list(known) + ")";
  return d;
}

}  // namespace rlx::onnx
