// Literal formatting (floats, strings, names) and the printer context's scoped name table.
// Float rules follow TVM's doc printer: integral values with ".0", else %.17g, non-finite quoted.
#include <cmath>
#include <cstdio>

#include "printer/print_context.h"

namespace rlx {

std::string formatDouble(double v) {
  if (std::isnan(v)) return "\"nan\"";
  if (std::isinf(v)) return v > 0 ? "\"inf\"" : "\"-inf\"";
  char buf[512];
  if (v == std::floor(v) && std::fabs(v) < 1e300) {
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string formatFloatLiteral(double v) { return formatDouble(v); }

std::string formatTypedFloat(double v, DataType t) { return "T." + t.str() + "(" + formatDouble(v) + ")"; }

std::string quoteString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c > 0x7e) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02X", c);
          out += buf;
        } else {
          out += char(c);
        }
    }
  }
  out += '"';
  return out;
}

std::string sanitizeName(const std::string& hint) {
  if (hint.empty()) return "v";
  std::string out = hint;
  for (auto& c : out)
    if (!(std::isalnum((unsigned char)c) || c == '_')) c = '_';
  return out;
}

NameTable::NameTable() { push(); }
void NameTable::push() { frames_.emplace_back(); }
void NameTable::pop() { frames_.pop_back(); }

bool NameTable::isTaken(const std::string& name) const {
  for (auto& f : frames_)
    if (f.used.contains(name)) return true;
  return false;
}

void NameTable::reserve(const std::string& name) { frames_.back().used.insert(name); }

const std::string& NameTable::define(const void* key, const std::string& hint) { return defineIn(frames_.size() - 1, key, hint); }

const std::string& NameTable::defineIn(size_t frame, const void* key, const std::string& hint) {
  std::string name = sanitizeName(hint);
  if (isTaken(name)) {
    // TVM appends _1, _2, ... and checks each candidate against every visible name.
    std::string base = name;
    for (int i = 1;; ++i) {
      name = base + "_" + std::to_string(i);
      if (!isTaken(name)) break;
    }
  }
  frames_[frame].used.insert(name);
  return frames_[frame].names[key] = std::move(name);
}

const std::string* NameTable::find(const void* key) const {
  for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
    if (auto* f = it->names.find(key)) return f;
  return nullptr;
}

std::vector<std::string> PrintContext::headerLines() const {
  std::vector<std::string> lines;
  if (usedIR) lines.push_back("# from tvm.script import ir as I");
  if (usedTIR) lines.push_back("# from tvm.script import tir as T");
  if (usedRelax) lines.push_back("# from tvm.script import relax as R");
  return lines;
}

std::string PrintContext::nameFor(const void* key, const std::string& hint) {
  if (auto* n = names.find(key)) return *n;
  return names.define(key, hint);
}

std::string printAttrValue(PrintContext& ctx, const Attr& a, const AttrLeaves& leaves) {
  if (!a) return "None";
  auto list = [&](const std::vector<Attr>& items) {
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + printAttrValue(ctx, items[i], leaves);
    return out;
  };
  switch (a->kind) {
    case AttrValue::Bool: return a->b ? "True" : "False";
    case AttrValue::Int: return std::to_string(a->i);
    case AttrValue::Double: return formatDouble(a->d);
    case AttrValue::Str: return quoteString(a->s);
    case AttrValue::DType: return "\"" + a->dtype.str() + "\"";
    case AttrValue::Array: return "[" + list(a->array) + "]";
    case AttrValue::Map: {
      std::string out = "{";
      for (size_t i = 0; i < a->map.size(); ++i) out += (i ? ", " : "") + quoteString(a->map[i].first) + ": " + printAttrValue(ctx, a->map[i].second, leaves);
      return out + "}";
    }
    case AttrValue::Prim: return leaves.prim ? leaves.prim(a->prim) : "None";
    case AttrValue::Expr: return leaves.expr ? leaves.expr(a->expr) : "None";
    case AttrValue::Ctor:
      if (a->s.compare(0, 2, "I.") == 0) ctx.usedIR = true;
      if (a->s == "T.index_map" && a->array.size() == 2 && a->array[0] && a->array[1]) {
        // An index map prints as the lambda it was written as: T.index_map(lambda i: (i // 4, i % 4)).
        ctx.usedTIR = true;
        const auto& results = a->array[1]->array;
        // TVM prints no index_dtype (int32 index vars come back as int64 when re-parsed, in TVM too).
        return "T.index_map(lambda " + list(a->array[0]->array) + ": (" + list(results) + (results.size() == 1 ? "," : "") + "))";
      }
      return a->s + "(" + list(a->array) + ")";
  }
  return "None";
}

}  // namespace rlx
