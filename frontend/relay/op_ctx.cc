// OpCtx: what a Relay op conversion reads (arguments with their struct info, attributes as Relay's
// text wrote them) and how it builds Relax; every complaint is an ImportError at the call or attribute.
#include <algorithm>

#include "frontend/relay/convert.h"

namespace rlx::relay {

namespace {

const char* kindName(AttrValue::Kind k) {
  switch (k) {
    case AttrValue::Int: return "an int";
    case AttrValue::Float: return "a float";
    case AttrValue::Bool: return "a bool";
    case AttrValue::String: return "a string";
    case AttrValue::None: return "None";
    case AttrValue::Array: return "a list";
    case AttrValue::Meta: return "a meta[...] reference";
    case AttrValue::Expr: return "an expression";
  }
  return "a value";
}

// Levenshtein distance, for "did you mean" on misspelled attribute names.
size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

// ---- failures

void OpCtx::fail(const std::string& message, std::string hint) const { throw ImportError(op + ": " + message, span, std::move(hint)); }

// ---- arguments

const rlx::Expr& OpCtx::arg(size_t i) const {
  if (i >= args_.size()) fail("expects an argument " + std::to_string(i) + ", but the call has " + std::to_string(args_.size()));
  return args_[i];
}

const TensorSInfo& OpCtx::tensor(size_t i) const {
  const rlx::Expr& e = arg(i);
  const TensorSInfo* t = e && e->sinfo ? e->sinfo.as<TensorSInfo>().get() : nullptr;
  if (!t) fail("argument " + std::to_string(i) + " must be a tensor");
  return *t;
}

int OpCtx::ndim(size_t i) const {
  int n = tensor(i).ndim;
  if (n < 0) fail("the rank of argument " + std::to_string(i) + " is not known");
  return n;
}

DataType OpCtx::dtype(size_t i) const { return tensor(i).dtype; }

std::vector<PrimExpr> OpCtx::dims(size_t i) const {
  const std::vector<PrimExpr>* d = tensor(i).dims();
  if (!d) fail("the shape of argument " + std::to_string(i) + " is not known");
  return *d;
}

void OpCtx::expectArgs(size_t lo, size_t hi) const {
  size_t n = args_.size();
  if (n >= lo && n <= hi) return;
  std::string want = lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
  fail("takes " + want + " argument" + (hi == 1 ? "" : "s") + ", but the call has " + std::to_string(n));
}

// ---- attributes

void OpCtx::allowAttrs(std::initializer_list<const char*> known) const {
  std::vector<std::string> unknown;
  Span at = span;
  for (auto& [key, value] : attrs_) {
    bool ok = std::any_of(known.begin(), known.end(), [&](const char* k) { return key == k; });
    if (ok) continue;
    if (unknown.empty()) at = value.span.known() ? value.span : span;
    unknown.push_back(key);
  }
  if (unknown.empty()) return;
  std::string names;
  for (size_t k = 0; k < unknown.size(); ++k) names += (k ? ", '" : "'") + unknown[k] + "'";
  std::string hint;
  if (known.size() == 0) {
    hint = op + " takes no attributes";
  } else {
    std::string best;
    size_t bestDist = 3;  // only close misspellings
    for (const char* k : known)
      if (size_t d = editDistance(unknown[0], k); d < bestDist) best = k, bestDist = d;
    std::string list;
    for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    hint = (best.empty() ? "" : "did you mean '" + best + "'? ") + op + " takes " + list;
  }
  throw ImportError(op + ": unknown attribute" + (unknown.size() > 1 ? "s " : " ") + names, at, hint);
}

const AttrValue* OpCtx::attr(const char* key) const {
  for (auto& [k, v] : attrs_)
    if (k == key) return v.kind == AttrValue::None ? nullptr : &v;
  return nullptr;
}

namespace {
[[noreturn]] void failAttr(const OpCtx& c, const AttrValue& v, const std::string& message) {
  throw ImportError(c.op + ": " + message, v.span.known() ? v.span : c.span);
}
}  // namespace

const MetaValue* OpCtx::meta(const char* key) const {
  const AttrValue* a = attr(key);
  if (!a) return nullptr;
  if (a->kind != AttrValue::Meta) failAttr(*this, *a, std::string("attribute '") + key + "' must be a meta[...] reference, but it is " + kindName(a->kind));
  const MetaValue* m = emitter_.lookupMeta(a->s, a->index);
  if (!m) failAttr(*this, *a, "no meta table entry meta[" + a->s + "][" + std::to_string(a->index) + "]");
  return m;
}

namespace {
// An int attribute value: an Int, or a meta entry holding one (runtime.BoxInt, IntImm).
int64_t intValue(const OpCtx& c, Emitter& em, const AttrValue& v, const char* key) {
  if (v.kind == AttrValue::Int) return v.i;
  if (v.kind == AttrValue::Meta) {
    const MetaValue* m = em.lookupMeta(v.s, v.index);
    if (!m) failAttr(c, v, "no meta table entry meta[" + v.s + "][" + std::to_string(v.index) + "]");
    if (m->kind == MetaValue::Int) return m->value;
    failAttr(c, v, std::string("attribute '") + key + "' must be an int, but meta[" + v.s + "][" + std::to_string(v.index) + "] is a " + m->typeKey);
  }
  failAttr(c, v, std::string("attribute '") + key + "' must be an int, but it is " + kindName(v.kind));
}
}  // namespace

int64_t OpCtx::i(const char* key, int64_t def) const {
  const AttrValue* a = attr(key);
  return a ? intValue(*this, emitter_, *a, key) : def;
}

double OpCtx::f(const char* key, double def) const {
  const AttrValue* a = attr(key);
  if (!a) return def;
  if (a->kind == AttrValue::Float) return a->f;
  if (a->kind == AttrValue::Int) return double(a->i);
  failAttr(*this, *a, std::string("attribute '") + key + "' must be a float, but it is " + kindName(a->kind));
}

bool OpCtx::b(const char* key, bool def) const {
  const AttrValue* a = attr(key);
  if (!a) return def;
  if (a->kind == AttrValue::Bool) return a->b;
  // Relay's reflection reads 0 / 1 into bool fields (allowzero=0, exclusive=1).
  if (a->kind == AttrValue::Int && (a->i == 0 || a->i == 1)) return a->i == 1;
  failAttr(*this, *a, std::string("attribute '") + key + "' must be a bool, but it is " + kindName(a->kind));
}

std::string OpCtx::s(const char* key, const std::string& def) const {
  const AttrValue* a = attr(key);
  if (!a) return def;
  if (a->kind == AttrValue::String) return a->s;
  failAttr(*this, *a, std::string("attribute '") + key + "' must be a string, but it is " + kindName(a->kind));
}

std::optional<std::vector<int64_t>> OpCtx::intsOpt(const char* key) const {
  const AttrValue* a = attr(key);
  if (!a) return std::nullopt;
  // A single int where a list is wanted reads as a one-element list (Python's relay helpers do the same).
  if (a->kind == AttrValue::Int || a->kind == AttrValue::Meta) return std::vector<int64_t>{intValue(*this, emitter_, *a, key)};
  if (a->kind != AttrValue::Array) failAttr(*this, *a, std::string("attribute '") + key + "' must be a list of ints, but it is " + kindName(a->kind));
  std::vector<int64_t> out;
  for (auto& item : a->items) {
    if (item.kind != AttrValue::Int && item.kind != AttrValue::Meta)
      failAttr(*this, item.span.known() ? item : *a, std::string("attribute '") + key + "' must be a list of ints, but an element is " + kindName(item.kind));
    out.push_back(intValue(*this, emitter_, item, key));
  }
  return out;
}

std::vector<int64_t> OpCtx::ints(const char* key, std::vector<int64_t> def) const { return intsOpt(key).value_or(std::move(def)); }

std::vector<double> OpCtx::floats(const char* key) const {
  const AttrValue* a = attr(key);
  if (!a) return {};
  if (a->kind == AttrValue::Float || a->kind == AttrValue::Int) return {a->kind == AttrValue::Float ? a->f : double(a->i)};
  if (a->kind != AttrValue::Array) failAttr(*this, *a, std::string("attribute '") + key + "' must be a list of floats, but it is " + kindName(a->kind));
  std::vector<double> out;
  for (auto& item : a->items) {
    if (item.kind == AttrValue::Float) out.push_back(item.f);
    else if (item.kind == AttrValue::Int) out.push_back(double(item.i));
    else failAttr(*this, item.span.known() ? item : *a, std::string("attribute '") + key + "' must be a list of floats, but an element is " + kindName(item.kind));
  }
  return out;
}

DataType OpCtx::dtypeAttr(const char* key, DataType def) const {
  std::string text = s(key, "");
  if (text.empty()) return def;
  auto t = DataType::parse(text);
  if (!t) failAttr(*this, *attr(key), std::string("attribute '") + key + "' is not a dtype: \"" + text + "\"");
  return *t;
}

// ---- building

rlx::Expr OpCtx::call(const std::string& name, std::vector<PyValue> args, KwArgs kwargs) {
  const OpInfo* info = findOp("relax." + name);
  if (!info) fail("rlx has no op relax." + name);
  auto built = buildOpCall(*info, std::move(args), std::move(kwargs));
  if (!built) {
    // Schema errors usually name the op already ("R.reshape: ...").
    const std::string& m = built.error().message;
    fail(m.rfind("R." + name, 0) == 0 ? m : "R." + name + ": " + m);
  }
  return emitter_.emit(*built, span);
}

rlx::Expr OpCtx::emit(const rlx::Expr& e) { return emitter_.emit(e, span); }

rlx::Expr OpCtx::convertAs(rlx::Expr (*fn)(OpCtx&), std::vector<rlx::Expr> args, const Attrs& attrs) {
  OpCtx inner(emitter_, op, std::move(args), attrs, span);
  return fn(inner);
}

}  // namespace rlx::relay
