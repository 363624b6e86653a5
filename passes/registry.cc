// Registry table (from passes.def), option accessors and the pipeline-text parser. Option values
// use the TVMScript literal syntax, parsed by the same grammar as modules.
#include "passes/registry.h"

#include <algorithm>

#include "parser/ast.h"
#include "parser/line_parser.h"

namespace rlx {

const std::vector<PassEntry>& passRegistry() {
  static const std::vector<PassEntry> entries = [] {
    std::vector<PassEntry> v = {
#define PASS(Name, Level, Options, Summary) {#Name, Level, Options, Summary, &create##Name##Pass},
#define ALIAS(Name, Target, Origin)
#include "passes/passes.def"
#undef ALIAS
#undef PASS
    };
    // An alias shares its target's factory and options; its summary says where the name comes from.
    struct AliasDef {
      const char* name;
      const char* target;
      const char* summary;
    };
    static const AliasDef aliases[] = {
#define PASS(Name, Level, Options, Summary)
#define ALIAS(Name, Target, Origin) {#Name, #Target, Origin " name of " #Target},
#include "passes/passes.def"
#undef ALIAS
#undef PASS
    };
    size_t primaries = v.size();
    for (auto& a : aliases)
      for (size_t i = 0; i < primaries; ++i)
        if (std::string(v[i].name) == a.target) {
          PassEntry alias = v[i];
          alias.name = a.name;
          alias.summary = a.summary;
          alias.aliasOf = v[i].name;
          v.push_back(alias);
        }
    std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return std::string(a.name) < b.name; });
    return v;
  }();
  return entries;
}

Error unknownPass(const std::string& name) {
  std::vector<std::string> names;
  for (auto& e : passRegistry()) names.push_back(e.name);
  std::string hint = closestName(name, names);
  return Error("unknown pass '" + name + "'", {}, hint.empty() ? "see `rlx opt --list-passes`" : "did you mean '" + hint + "'?");
}

std::vector<std::string> passAliases(const std::string& name) {
  const PassEntry* entry = findPass(name);
  if (!entry) return {};
  std::string primary = entry->aliasOf ? entry->aliasOf : entry->name;
  std::vector<std::string> out;
  for (auto& e : passRegistry())
    if (e.name != name && (e.name == primary || (e.aliasOf && primary == e.aliasOf))) out.push_back(e.name);
  return out;
}

std::vector<std::string> passOptionNames(const PassEntry& entry) {
  // "a=1, b=[\"x\", \"y\"]": names are the identifiers before '=' at bracket depth 0.
  std::vector<std::string> out;
  std::string text = entry.options, word;
  int depth = 0;
  bool inString = false, afterEq = false;
  for (char c : text) {
    if (inString) {
      inString = c != '"';
      continue;
    }
    if (c == '"') inString = true;
    else if (c == '[' || c == '(') ++depth;
    else if (c == ']' || c == ')') --depth;
    else if (c == '=' && depth == 0 && !afterEq) {
      out.push_back(word);
      afterEq = true;
    } else if (c == ',' && depth == 0) {
      word.clear();
      afterEq = false;
    } else if (!afterEq && c != ' ') {
      word += c;
    }
  }
  return out;
}

const PassEntry* findPass(const std::string& name) {
  for (auto& e : passRegistry())
    if (name == e.name) return &e;
  return nullptr;
}

const Attr* PassOptions::find(const std::string& key) {
  for (auto& [k, v] : values)
    if (k == key) {
      used_.push_back(key);
      return &v;
    }
  return nullptr;
}

bool PassOptions::isNone(const std::string& key) {
  const Attr* v = find(key);
  return v && !*v;
}

void PassOptions::wrongType(const std::string& key, const std::string& expected) { wrongTypes_.emplace_back(key, expected); }

std::optional<std::vector<std::string>> PassOptions::strings(const std::string& key) {
  const Attr* v = find(key);
  if (!v || !*v) return std::nullopt;
  std::vector<std::string> out;
  if ((*v)->kind == AttrValue::Str) return std::vector<std::string>{(*v)->s};
  if ((*v)->kind == AttrValue::Array) {
    for (auto& i : (*v)->array) {
      if (!i || i->kind != AttrValue::Str) {
        wrongType(key, "a list of strings");
        return std::nullopt;
      }
      out.push_back(i->s);
    }
    return out;
  }
  wrongType(key, "a string or a list of strings");
  return std::nullopt;
}

std::optional<int64_t> PassOptions::integer(const std::string& key) {
  const Attr* v = find(key);
  if (!v || !*v) return std::nullopt;
  if ((*v)->kind == AttrValue::Int) return (*v)->i;
  wrongType(key, "an integer");
  return std::nullopt;
}

std::optional<bool> PassOptions::boolean(const std::string& key) {
  const Attr* v = find(key);
  if (!v || !*v) return std::nullopt;
  if ((*v)->kind == AttrValue::Bool) return (*v)->b;
  // Python accepts 0 and 1 where a bool is expected (TVM's own tests pass them).
  if ((*v)->kind == AttrValue::Int && ((*v)->i == 0 || (*v)->i == 1)) return (*v)->i == 1;
  wrongType(key, "a boolean (True or False)");
  return std::nullopt;
}

std::optional<std::string> PassOptions::string(const std::string& key) {
  const Attr* v = find(key);
  if (!v || !*v) return std::nullopt;
  if ((*v)->kind == AttrValue::Str) return (*v)->s;
  wrongType(key, "a string");
  return std::nullopt;
}

std::optional<std::vector<std::pair<std::string, Attr>>> PassOptions::dict(const std::string& key) {
  const Attr* v = find(key);
  if (!v || !*v) return std::nullopt;
  if ((*v)->kind == AttrValue::Map) return (*v)->map;
  wrongType(key, "a dict with string keys");
  return std::nullopt;
}

std::optional<Attr> PassOptions::raw(const std::string& key) {
  const Attr* v = find(key);
  if (!v) return std::nullopt;
  return *v;
}

std::string describeOptionValue(const Attr& v) {
  if (!v) return "None";
  switch (v->kind) {
    case AttrValue::Bool: return v->b ? "True" : "False";
    case AttrValue::Int: return std::to_string(v->i);
    case AttrValue::Double: {
      std::string s = std::to_string(v->d);
      return s;
    }
    case AttrValue::Str: return "\"" + v->s + "\"";
    case AttrValue::Array: {
      std::string s = "[";
      for (size_t i = 0; i < v->array.size(); ++i) s += (i ? ", " : "") + describeOptionValue(v->array[i]);
      return s + "]";
    }
    case AttrValue::Map: {
      std::string s = "{";
      for (size_t i = 0; i < v->map.size(); ++i) s += (i ? ", \"" : "\"") + v->map[i].first + "\": " + describeOptionValue(v->map[i].second);
      return s + "}";
    }
    case AttrValue::Ctor: {
      std::string s = v->s + "(";
      for (size_t i = 0; i < v->array.size(); ++i) s += (i ? ", " : "") + describeOptionValue(v->array[i]);
      return s + ")";
    }
    default: return "?";
  }
}

Status PassOptions::finish(const std::string& passName) const {
  for (auto& [key, expected] : wrongTypes_)
    for (auto& [k, v] : values)
      if (k == key)
        return Error("option '" + key + "' of " + passName + " expects " + expected + ", got " + describeOptionValue(v));
  for (auto& [k, v] : values)
    if (std::find(used_.begin(), used_.end(), k) == used_.end()) return Error("pass " + passName + " has no option '" + k + "'");
  return okStatus();
}

namespace {

Result<Attr> literal(const ast::Expr* e) {
  using K = ast::Expr::Kind;
  switch (e->kind) {
    case K::Int: return AttrValue::integer(e->i);
    case K::Float: return AttrValue::real(e->d);
    case K::Bool: return AttrValue::boolean(e->b);
    case K::Str: return AttrValue::str(e->str);
    case K::NoneLit: return Attr();
    case K::UnaryOp:
      if (e->str == "-" && e->a->kind == K::Int) return AttrValue::integer(-e->a->i);
      if (e->str == "-" && e->a->kind == K::Float) return AttrValue::real(-e->a->d);
      break;
    case K::List:
    case K::Tuple: {
      std::vector<Attr> items;
      for (auto* i : e->items) {
        RLX_TRY(a, literal(i));
        items.push_back(a);
      }
      return AttrValue::array_(std::move(items));
    }
    case K::Dict: {
      std::vector<std::pair<std::string, Attr>> entries;
      for (size_t i = 0; i + 1 < e->items.size(); i += 2) {
        if (e->items[i]->kind != K::Str) return Error("dict keys in pass options are strings");
        RLX_TRY(a, literal(e->items[i + 1]));
        entries.emplace_back(e->items[i]->str, a);
      }
      return AttrValue::map_(std::move(entries));
    }
    case K::Call: {
      // A virtual device, as TVMScript's I.vdevice or Python's tvm.ir.VDevice writes it:
      // (target, vdevice_id=0, memory_scope="global"), kept as the constructor I.vdevice.
      std::string callee = e->a ? e->a->dottedName() : "";
      if (callee != "I.vdevice" && callee != "VDevice" && callee != "ir.VDevice" && callee != "tvm.ir.VDevice") break;
      static const char* names[] = {"target", "vdevice_id", "memory_scope"};
      std::vector<Attr> args = {Attr(), AttrValue::integer(0), AttrValue::str("global")};
      std::vector<bool> given(3, false);
      size_t pos = 0;
      for (auto* a : e->items) {
        size_t slot = pos;
        const ast::Expr* v = a;
        if (a->kind == K::Keyword) {
          slot = 3;
          for (size_t i = 0; i < 3; ++i)
            if (a->str == names[i]) slot = i;
          if (slot == 3) return Error(callee + " has no argument '" + a->str + "' (it takes target, vdevice_id, memory_scope)");
          v = a->a;
        } else {
          ++pos;
        }
        if (slot >= 3) return Error(callee + " takes at most 3 arguments: target, vdevice_id, memory_scope");
        if (given[slot]) return Error(callee + " got argument '" + std::string(names[slot]) + "' twice");
        given[slot] = true;
        RLX_TRY(x, literal(v));
        args[slot] = x;
      }
      if (!given[0]) return Error(callee + " needs a target, e.g. I.vdevice(\"llvm\")");
      return AttrValue::ctor("I.vdevice", std::move(args));
    }
    default: break;
  }
  return Error("pass options take Python literals: numbers, strings, True/False, None, lists, tuples and dicts (and I.vdevice(...))");
}

// Splits at top-level commas (brackets and strings respected).
std::vector<std::string> splitTopLevel(const std::string& s) {
  std::vector<std::string> out;
  int depth = 0;
  char quote = 0;
  std::string cur;
  for (char c : s) {
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    } else if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  out.push_back(cur);
  return out;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n"), e = s.find_last_not_of(" \t\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

}  // namespace

Result<Attr> parseOptionLiteral(const std::string& text) {
  ast::Arena arena;
  auto line = syntax::parseLine(text, 0, 0, arena, 64);
  if (!line.ok() || !line->stmt || !line->stmt->value || line->stmt->kind != ast::Stmt::ExprStmt) return Error("cannot read '" + text + "' as a Python literal");
  return literal(line->stmt->value);
}

const char* presetPipeline(const std::string& name) {
  // Optimization presets over the Relax-level catalogue: O1 cleans up, O2 also simplifies
  // inference-time ops and removes redundancy, O3 first inlines. `build` is TVM's default build
  // lowering (no fusion); `build_fused` is TVM's default CPU pipeline (legalize, fuse, lower);
  // `build_cpu` is what `rlx run` lowers with: build_fused plus ConvChannelsLast,
  // FuseSoftmaxAttention and PackMatmulWeights.
  static const std::pair<const char*, const char*> presets[] = {
      {"O0", ""},
      {"O1", "CanonicalizeBindings,FoldConstant,DeadCodeElimination"},
      {"O2", "SimplifyInference,CanonicalizeOps,CanonicalizeBindings,FoldConstant,EliminateCommonSubexpr,CanonicalizeBindings,DeadCodeElimination"},
      {"O3", "Inline,SimplifyInference,CanonicalizeOps,CanonicalizeBindings,FoldConstant,EliminateCommonSubexpr,CanonicalizeBindings,DeadCodeElimination"},
      {"build", "LegalizeOps,RewriteDataflowReshape,ToNonDataflow,RemovePurityChecking,CallTIRRewrite,StaticPlanBlockMemory,LowerAllocTensor,"
                "KillAfterLastUse,LowerRuntimeBuiltin,ComputePrimValue,VMShapeLower,AttachGlobalSymbol"},
      {"build_fused", "LegalizeOps,AnnotateTIROpPattern,FoldConstant,FuseOps,FuseTIR,RewriteDataflowReshape,ToNonDataflow,RemovePurityChecking,"
                      "CallTIRRewrite,StaticPlanBlockMemory,LowerAllocTensor,KillAfterLastUse,LowerRuntimeBuiltin,ComputePrimValue,VMShapeLower,"
                      "AttachGlobalSymbol"},
      // rlx's CPU build: build_fused with convolutional functions channels last,
      // attention's matmul-softmax-matmul chains as one kernel (its scores a block of rows at a time)
      // and constant matmul weights in the GEMM's panel layout.
      {"build_cpu", "ConvChannelsLast,FuseSoftmaxAttention,LegalizeOps,AnnotateTIROpPattern,FoldConstant,FuseOps,FuseTIR,PackMatmulWeights,RewriteDataflowReshape,ToNonDataflow,"
                    "RemovePurityChecking,CallTIRRewrite,StaticPlanBlockMemory,LowerAllocTensor,KillAfterLastUse,LowerRuntimeBuiltin,ComputePrimValue,"
                    "VMShapeLower,AttachGlobalSymbol"},
  };
  for (auto& [n, p] : presets)
    if (name == n) return p;
  return nullptr;
}

Result<std::vector<Pass>> parsePipeline(const std::string& text) {
  std::vector<Pass> passes;
  for (auto& rawItem : splitTopLevel(text)) {
    std::string item = trim(rawItem);
    if (item.empty()) continue;
    std::string name = item.substr(0, item.find('('));
    name = trim(name);
    if (const char* preset = presetPipeline(name)) {
      RLX_TRY(expanded, parsePipeline(preset));
      passes.insert(passes.end(), expanded.begin(), expanded.end());
      continue;
    }
    const PassEntry* entry = findPass(name);
    if (!entry) return unknownPass(name);
    PassOptions options;
    if (item.find('(') != std::string::npos) {
      ast::Arena arena;
      auto line = syntax::parseLine(item, 0, 0, arena, 64);
      if (!line.ok() || !line->stmt || !line->stmt->value || line->stmt->value->kind != ast::Expr::Call)
        return Error("cannot read the options of " + name + ": expected " + name + "(key=value, ...)");
      for (auto* a : line->stmt->value->items) {
        if (a->kind != ast::Expr::Keyword) return Error("options of " + name + " are keyword arguments (key=value)");
        auto v = literal(a->a);
        if (!v.ok()) return Error(name + "(" + a->str + "=...): " + v.error().message);
        options.values.emplace_back(a->str, v.value());
      }
    }
    RLX_TRY(pass, entry->create(options));
    if (auto st = options.finish(name); !st.ok()) {
      Error err = st.error();
      std::vector<std::string> known = passOptionNames(*entry);
      for (auto& [k, v] : options.values) {
        std::string close = closestName(k, known);
        if (!close.empty() && close != k) {
          err.hint = "did you mean '" + close + "'?";
          break;
        }
      }
      if (err.hint.empty()) err.hint = known.empty() ? name + " takes no options" : "options of " + name + ": " + entry->options;
      return err;
    }
    passes.push_back(pass);
  }
  return passes;
}

}  // namespace rlx
