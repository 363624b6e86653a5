// TVM's target kinds as data: default keys, options with defaults, the options' types and what each
// kind's parser fills in (cuda's arch, llvm's mtriple on a host without LLVM, rocm's mcpu, ...).
#include "ir/target.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "ir/expr.h"

namespace rlx {

namespace {

enum class OptType { Int, Bool, Str, StrArray };

struct KindInfo {
  std::vector<std::string> keys;                            // default keys
  std::vector<std::pair<std::string, Attr>> defaults;       // options exported even when not given
};

const std::map<std::string, KindInfo>& kinds() {
  static const std::map<std::string, KindInfo> table = [] {
    auto i = [](int64_t v) { return AttrValue::integer(v); };
    std::map<std::string, KindInfo> t;
    t["llvm"] = {{"cpu"}, {}};
    t["c"] = {{"cpu"}, {}};
    t["cuda"] = {{"cuda", "gpu"}, {{"max_num_threads", i(1024)}, {"thread_warp_size", i(32)}}};
    t["nvptx"] = {{"cuda", "gpu"}, {{"max_num_threads", i(1024)}, {"thread_warp_size", i(32)}}};
    t["rocm"] = {{"rocm", "gpu"},
                 {{"max_num_threads", i(256)}, {"max_threads_per_block", i(256)}, {"max_shared_memory_per_block", i(65536)}, {"thread_warp_size", i(64)}}};
    t["opencl"] = {{"opencl", "gpu"},
                   {{"max_threads_per_block", i(256)}, {"max_shared_memory_per_block", i(16384)}, {"max_num_threads", i(256)},
                    {"thread_warp_size", i(1)}, {"texture_spatial_limit", i(16384)}, {"texture_depth_limit", i(2048)},
                    {"max_function_args", i(128)}, {"image_base_address_alignment", i(64)}}};
    t["metal"] = {{"metal", "gpu"},
                  {{"max_num_threads", i(256)}, {"max_threads_per_block", i(256)}, {"max_shared_memory_per_block", i(32768)},
                   {"thread_warp_size", i(16)}, {"max_function_args", i(31)}}};
    t["vulkan"] = {{"vulkan", "gpu"},
                   {{"supports_float32", AttrValue::boolean(true)}, {"supports_int32", AttrValue::boolean(true)}, {"max_num_threads", i(256)},
                    {"max_threads_per_block", i(256)}, {"thread_warp_size", i(1)}}};
    t["webgpu"] = {{"webgpu", "gpu"}, {{"max_num_threads", i(256)}}};
    t["hexagon"] = {{"hexagon", "cpu"}, {}};
    t["ext_dev"] = {{"ext_dev"}, {}};
    return t;
  }();
  return table;
}

// The types of the options a target string may set (TVM types a string option by its declaration).
const std::map<std::string, OptType>& optionTypes() {
  static const std::map<std::string, OptType> table = {
      {"keys", OptType::StrArray}, {"libs", OptType::StrArray}, {"mattr", OptType::StrArray}, {"cl-opt", OptType::StrArray},
      {"llvm-options", OptType::StrArray}, {"tag", OptType::Str}, {"device", OptType::Str}, {"model", OptType::Str},
      {"mcpu", OptType::Str}, {"mtriple", OptType::Str}, {"mabi", OptType::Str}, {"mfloat-abi", OptType::Str}, {"arch", OptType::Str},
      {"runtime", OptType::Str}, {"jit", OptType::Str}, {"max_num_threads", OptType::Int}, {"thread_warp_size", OptType::Int},
      {"max_threads_per_block", OptType::Int}, {"max_shared_memory_per_block", OptType::Int}, {"max_function_args", OptType::Int},
      {"texture_spatial_limit", OptType::Int}, {"texture_depth_limit", OptType::Int}, {"image_base_address_alignment", OptType::Int},
      {"registers_per_block", OptType::Int}, {"l2_cache_size_bytes", OptType::Int}, {"max_local_memory_per_block", OptType::Int},
      {"num-cores", OptType::Int}, {"opt-level", OptType::Int}, {"vector-width", OptType::Int}, {"vtcm-capacity", OptType::Int},
      {"target_device_type", OptType::Int}, {"system-lib", OptType::Bool}, {"link-params", OptType::Bool}, {"fast-math", OptType::Bool},
      {"fast-math-ninf", OptType::Bool}, {"fast-math-nnan", OptType::Bool}, {"fast-math-nsz", OptType::Bool},
      {"fast-math-arcp", OptType::Bool}, {"fast-math-contract", OptType::Bool}, {"fast-math-reassoc", OptType::Bool},
      {"supports_float16", OptType::Bool}, {"supports_float32", OptType::Bool}, {"supports_float64", OptType::Bool},
      {"supports_int8", OptType::Bool}, {"supports_int16", OptType::Bool}, {"supports_int32", OptType::Bool},
      {"supports_int64", OptType::Bool}, {"supports_8bit_buffer", OptType::Bool}, {"supports_16bit_buffer", OptType::Bool},
      {"supports_storage_buffer_storage_class", OptType::Bool}, {"supports_push_descriptor", OptType::Bool},
      {"supports_dedicated_allocation", OptType::Bool}, {"supports_integer_dot_product", OptType::Bool},
      {"supports_cooperative_matrix", OptType::Bool}, {"unpacked-api", OptType::Bool}};
  return table;
}

Result<Attr> typedOption(const std::string& key, const std::string& value, bool bare) {
  auto it = optionTypes().find(key);
  if (it == optionTypes().end()) return Error("unknown target option '-" + key + "'");
  switch (it->second) {
    case OptType::Bool:
      if (bare || value == "1" || value == "true") return AttrValue::boolean(true);
      if (value == "0" || value == "false") return AttrValue::boolean(false);
      return Error("target option '-" + key + "' takes true or false, not '" + value + "'");
    case OptType::Int: {
      if (bare || value == "true") return AttrValue::integer(1);
      if (value == "false") return AttrValue::integer(0);
      size_t used = 0;
      int64_t v = 0;
      try {
        v = std::stoll(value, &used);
      } catch (...) {
        used = 0;
      }
      if (used == 0 || used != value.size()) return Error("target option '-" + key + "' takes an integer, not '" + value + "'");
      return AttrValue::integer(v);
    }
    case OptType::Str: return AttrValue::str(bare ? "1" : value);
    case OptType::StrArray: {
      std::vector<Attr> items;
      std::stringstream ss(value);
      for (std::string part; std::getline(ss, part, ',');) items.push_back(AttrValue::str(part));
      return AttrValue::array_(std::move(items));
    }
  }
  return Error("unreachable");
}

// "cuda -arch=sm_80 -libs=cublas": the kind, then -key=value, -key value or a bare -flag.
Result<std::vector<std::pair<std::string, Attr>>> parseTargetString(const std::string& text) {
  std::vector<std::string> tokens;
  std::stringstream ss(text);
  for (std::string tok; ss >> tok;) tokens.push_back(tok);
  if (tokens.empty()) return Error("an empty target string");
  std::vector<std::pair<std::string, Attr>> out = {{"kind", AttrValue::str(tokens[0])}};
  for (size_t i = 1; i < tokens.size(); ++i) {
    std::string tok = tokens[i];
    size_t dashes = tok.find_first_not_of('-');
    if (dashes == 0 || dashes == std::string::npos) return Error("target option '" + tok + "' must start with '-'");
    tok = tok.substr(dashes);
    std::string key = tok, value;
    bool bare = false;
    if (auto eq = tok.find('='); eq != std::string::npos) {
      key = tok.substr(0, eq);
      value = tok.substr(eq + 1);
    } else if (i + 1 < tokens.size() && tokens[i + 1][0] != '-') {
      value = tokens[++i];
    } else {
      bare = true;
    }
    for (auto& [k, v] : out)
      if (k == key) return Error("target option '-" + key + "' is given twice");
    RLX_TRY(a, typedOption(key, value, bare));
    out.emplace_back(key, a);
  }
  return out;
}

const Attr* field(const std::vector<std::pair<std::string, Attr>>& m, const std::string& key) {
  for (auto& [k, v] : m)
    if (k == key) return &v;
  return nullptr;
}

bool startsWith(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

}  // namespace

Result<Attr> canonicalTarget(const Attr& spec) {
  std::vector<std::pair<std::string, Attr>> cfg;
  if (spec && spec->kind == AttrValue::Str) {
    RLX_TRY(parsed, parseTargetString(spec->s));
    cfg = std::move(parsed);
  } else if (spec && spec->kind == AttrValue::Map) {
    cfg = spec->map;
  } else {
    return Error("a target is a string such as \"llvm\" or \"cuda -arch=sm_80\", or a dict with \"kind\"");
  }
  auto set = [&](const std::string& key, Attr v) {
    for (auto& [k, x] : cfg)
      if (k == key) {
        x = std::move(v);
        return;
      }
    cfg.emplace_back(key, std::move(v));
  };
  auto str = [&](const std::string& key) -> std::string {
    const Attr* a = field(cfg, key);
    return a && *a && (*a)->kind == AttrValue::Str ? (*a)->s : std::string();
  };
  const Attr* kindAttr = field(cfg, "kind");
  if (!kindAttr || !*kindAttr || (*kindAttr)->kind != AttrValue::Str) return Error("the target config needs a \"kind\" string");
  std::string kind = (*kindAttr)->s;
  auto info = kinds().find(kind);
  if (info == kinds().end()) {
    std::string names;
    for (auto& [k, _] : kinds()) names += (names.empty() ? "" : ", ") + k;
    return Error("unknown target kind '" + kind + "' (known: " + names + ")");
  }
  // Each kind's parser, as TVM runs it before the defaults.
  std::vector<std::string> extraKeys;
  if (kind == "llvm") {
    // TVM fills the host triple only when it was built with LLVM; v0.23's reference prints "".
    if (!field(cfg, "mtriple") && !field(cfg, "mcpu")) set("mtriple", AttrValue::str(""));
    std::string triple = str("mtriple"), cpu = str("mcpu");
    if (startsWith(triple, "aarch64") || startsWith(triple, "arm") || startsWith(cpu, "cortex-m")) extraKeys = {"arm_cpu", "cpu"};
  } else if (kind == "cuda") {
    if (!field(cfg, "arch")) set("arch", AttrValue::str("sm_50"));
    else if (!startsWith(str("arch"), "sm_")) return Error("the cuda target's -arch must look like sm_80, not '" + str("arch") + "'");
  } else if (kind == "nvptx") {
    set("mtriple", AttrValue::str("nvptx64-nvidia-cuda"));
    if (!startsWith(str("mcpu"), "sm_")) set("mcpu", AttrValue::str("sm_50"));
  } else if (kind == "rocm") {
    set("mtriple", AttrValue::str("amdgcn-amd-amdhsa-hcc"));
    if (!field(cfg, "mcpu")) set("mcpu", AttrValue::str("gfx900"));
  }
  // keys: the given ones, else the device's name and the kind's defaults (duplicates dropped).
  if (!field(cfg, "keys")) {
    std::vector<std::string> keys;
    auto addKey = [&](const std::string& k) {
      if (!k.empty() && std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    };
    if (!extraKeys.empty()) {
      for (auto& k : extraKeys) addKey(k);
    } else {
      addKey(str("device"));
      for (auto& k : info->second.keys) addKey(k);
    }
    std::vector<Attr> arr;
    for (auto& k : keys) arr.push_back(AttrValue::str(k));
    set("keys", AttrValue::array_(std::move(arr)));
  }
  for (auto& [k, v] : info->second.defaults)
    if (!field(cfg, k)) set(k, v);
  if (!field(cfg, "tag")) set("tag", AttrValue::str(""));
  return AttrValue::map_(std::move(cfg));
}

}  // namespace rlx
