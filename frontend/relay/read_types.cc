// The reader's leaves: types (tensor, tuple, function, named, ref), number literals with Relay's
// lexing rules, attribute values and `meta[...]` references, and the `/* ty=T */` comments.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "frontend/relay/reader.h"
#include "grammar/relay.hpp"

namespace rlx::relay {
namespace g = rlx::grammar::relay;
namespace pegtl = tao::pegtl;

Span TreeWalker::span(const Node& n) const {
  size_t b = n.m_begin.byte;
  size_t len = n.has_content() ? n.m_end.byte - b : 1;
  return sources::spanAt(file_, uint32_t(b), uint32_t(len ? len : 1));
}

void TreeWalker::fail(const Node& n, const std::string& message, std::string hint) const {
  throw ReadError(Error(message, span(n), std::move(hint)));
}

namespace {

// Relay's dtype spellings: `float` and `int` alone mean 32 bits.
bool isDtypeName(const std::string& s) {
  for (const char* p : {"int", "uint", "float", "bfloat", "bool"})
    if (s.rfind(p, 0) == 0) {
      std::string rest = s.substr(std::string(p).size());
      if (rest.empty()) return true;
      if (!std::isdigit(static_cast<unsigned char>(rest[0]))) return false;
      for (char c : rest)
        if (!std::isdigit(static_cast<unsigned char>(c)) && c != 'x') return false;
      return true;
    }
  return false;
}

std::string normalizeDtype(const std::string& s) {
  if (s == "int") return "int32";
  if (s == "uint") return "uint32";
  if (s == "float") return "float32";
  return s;
}

}  // namespace

TypePtr TreeWalker::type(const Node& n) {
  auto t = std::make_unique<Type>();
  t->span = span(n);
  if (n.is_type<g::tensor_type>()) {
    t->kind = Type::Tensor;
    for (auto& c : n.children) {
      if (c->is_type<g::dtype_name>()) {
        t->dtype = normalizeDtype(c->string());
      } else if (c->is_type<g::any_dim>()) {
        t->shape.push_back(Dim{Dim::Any, 0, span(*c)});
      } else if (c->is_type<g::meta_ref>()) {
        // A shape variable or constant TVM's printer put in the metadata (`te.size_var("n")`).
        Dim d{Dim::Meta, 0, span(*c)};
        std::string key;
        int64_t index = 0;
        d.meta = meta(*c, key, index);
        t->shape.push_back(d);
      } else if (c->is_type<g::number>()) {
        Expr lit;
        number(*c, lit);
        if (lit.dtype.rfind("int", 0) != 0 || lit.i < 0) fail(*c, "a tensor dimension must be a non-negative integer or '?'");
        t->shape.push_back(Dim{Dim::Int, lit.i, span(*c)});
      }
    }
  } else if (n.is_type<g::tuple_type>()) {
    t->kind = Type::Tuple;
    for (auto& c : n.children) t->fields.push_back(type(*c));
  } else if (n.is_type<g::func_type>()) {
    t->kind = Type::Func;
    RLX_CHECK(!n.children.empty(), "func_type has a return type");
    for (size_t k = 0; k + 1 < n.children.size(); ++k) t->fields.push_back(type(*n.children[k]));
    t->ret = type(*n.children.back());
  } else if (n.is_type<g::ref_type>()) {
    t->kind = Type::Ref;
    t->fields.push_back(type(*n.children.at(0)));
  } else if (n.is_type<g::incomplete_type>()) {
    t->kind = Type::Incomplete;
  } else if (n.is_type<g::named_type>()) {
    std::string name = n.children.at(0)->string();
    if (n.children.size() == 1 && isDtypeName(name)) {
      t->kind = Type::Tensor;  // a bare dtype is a 0-d tensor
      t->dtype = normalizeDtype(name);
    } else {
      t->kind = Type::Named;
      t->name = name;
      for (size_t k = 1; k < n.children.size(); ++k) t->fields.push_back(type(*n.children[k]));
    }
  } else {
    fail(n, "expected a type");
  }
  return t;
}

TypePtr TreeWalker::printedTypeAfter(size_t end) {
  size_t p = end;
  while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t' || text_[p] == '\n' || text_[p] == '\r')) ++p;
  if (text_.compare(p, 2, "/*") != 0) return nullptr;
  p += 2;
  while (p < text_.size() && text_[p] == ' ') ++p;
  if (text_.compare(p, 3, "ty=") != 0) return nullptr;
  p += 3;
  size_t close = text_.find("*/", p);
  if (close == std::string_view::npos) return nullptr;
  // `ty=T span=file:line:col`: the type ends where the span begins (searched within the comment
  // only, so that reading stays linear in the file's size).
  size_t stop = close;
  size_t spanAt = text_.substr(p, close - p).find(" span=");
  if (spanAt != std::string_view::npos) stop = p + spanAt;
  // The comment is parsed as a type on its own; one TVM could not print as a type is ignored.
  pegtl::memory_input<> in(text_.data() + p, stop - p, "");
  try {
    auto root = pegtl::parse_tree::parse<pegtl::seq<g::type_comment, pegtl::eof>, TreeSelector>(in);
    if (!root || root->children.empty()) return nullptr;
    // Spans inside the comment would point at the wrong offsets: they are not used for oracles.
    return type(*root->children.front());
  } catch (const pegtl::parse_error&) {
    return nullptr;
  } catch (const ReadError&) {
    return nullptr;
  }
}

void TreeWalker::number(const Node& n, Expr& out) {
  std::string tok = n.string();
  out.kind = Expr::Scalar;
  size_t minus = 0;
  while (minus < tok.size() && tok[minus] == '-') ++minus;
  bool negative = minus % 2 == 1;  // Relay lexes "--10" as 10
  std::string body = tok.substr(minus);
  // The suffix: i/u/f then width digits, at the end of the token.
  size_t s = body.size();
  while (s > 0 && std::isdigit(static_cast<unsigned char>(body[s - 1]))) --s;
  char kind = 0;
  int bits = 0;
  if (s > 0 && (body[s - 1] == 'i' || body[s - 1] == 'u' || body[s - 1] == 'f') && body.compare(0, 3, "inf") != 0) {
    kind = body[s - 1];
    bits = s < body.size() ? std::atoi(body.c_str() + s) : (kind == 'f' ? 32 : 32);
    body = body.substr(0, s - 1);
  } else if (body.compare(0, 4, "inff") == 0) {
    kind = 'f';
    bits = body.size() > 4 ? std::atoi(body.c_str() + 4) : 32;
    body = "inf";
  }
  if (kind == 'f') {
    if (bits != 16 && bits != 32 && bits != 64) fail(n, "invalid float width in `" + tok + "` (16, 32 or 64)");
    double v;
    if (body == "inf") {
      v = std::numeric_limits<double>::infinity();
    } else {
      char* endp = nullptr;
      errno = 0;
      v = std::strtod(body.c_str(), &endp);
      if (body.empty() || *endp != '\0' || !std::isdigit(static_cast<unsigned char>(body[0])))
        fail(n, "invalid floating-point number `" + tok + "`");
      double max = bits == 16 ? 65504.0 : bits == 32 ? double(std::numeric_limits<float>::max()) : std::numeric_limits<double>::max();
      if (errno == ERANGE || std::fabs(v) > max)
        fail(n, "floating-point literal `" + tok + "` is out of the range of float" + std::to_string(bits));
    }
    out.f = negative ? -v : v;
    out.dtype = "float" + std::to_string(bits);
    return;
  }
  // An integer: digits only.
  bool digits = !body.empty();
  for (char c : body) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  if (!digits) {
    std::string hint;
    if (kind == 0 && body.find('.') != std::string::npos) hint = "a float literal needs the `f` suffix in Relay: `" + tok + "f`";
    else if (kind == 0 && body.find_first_of("+-") != std::string::npos)
      hint = "Relay lexes '-' and '+' as part of a number: write spaces around binary operators";
    fail(n, "invalid integer number `" + tok + "`", hint);
  }
  errno = 0;
  unsigned long long mag = std::strtoull(body.c_str(), nullptr, 10);
  bool overflow = errno == ERANGE;
  if (kind == 0) {
    // No suffix: int32, silently widened to int64 when the value does not fit (as Relay does).
    if (overflow || mag > (negative ? 9223372036854775808ull : 9223372036854775807ull)) fail(n, "integer literal `" + tok + "` does not fit in int64");
    int64_t v = negative ? int64_t(0 - mag) : int64_t(mag);
    out.i = v;
    out.dtype = (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max()) ? "int32" : "int64";
    return;
  }
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64) fail(n, "invalid integer width in `" + tok + "` (8, 16, 32 or 64)");
  if (kind == 'u' && negative) fail(n, "unsigned literal `" + tok + "` is negative");
  long double lim = kind == 'u' ? std::ldexp(1.0L, bits) - 1 : std::ldexp(1.0L, bits - 1) - (negative ? 0 : 1);
  if (overflow || (long double)mag > lim) fail(n, "integer literal `" + tok + "` does not fit in " + std::string(kind == 'u' ? "uint" : "int") + std::to_string(bits));
  out.i = negative ? int64_t(0 - mag) : int64_t(mag);
  out.dtype = std::string(kind == 'u' ? "uint" : "int") + std::to_string(bits);
}

const MetaValue* TreeWalker::meta(const Node& n, std::string& key, int64_t& index) {
  // meta[KEY][INDEX]
  std::string tok = n.string();
  size_t open = tok.find('[');
  size_t close = tok.find(']');
  key = tok.substr(open + 1, close - open - 1);
  std::string idx = tok.substr(close + 2, tok.size() - close - 3);
  if (idx.size() > 9) fail(n, "meta table index " + idx + " is too large");
  index = std::stoll(idx);
  auto it = mod_.meta.find(key);
  if (it == mod_.meta.end() || index >= int64_t(it->second.size())) {
    std::string hint;
    if (mod_.meta.empty())
      hint = "the file has no #[metadata] section; give the table TVM's test used with --meta TABLE.json";
    else if (it == mod_.meta.end())
      hint = "the meta table has no " + key + " entries";
    else
      hint = "the meta table has " + std::to_string(it->second.size()) + " " + key + " entr" + (it->second.size() == 1 ? "y" : "ies");
    fail(n, "no meta table entry meta[" + key + "][" + idx + "]", hint);
  }
  return &it->second[size_t(index)];
}

AttrValue TreeWalker::attrValue(const Node& n) {
  AttrValue v;
  v.span = span(n);
  if (n.is_type<g::number>()) {
    Expr lit;
    number(n, lit);
    bool isFloat = lit.dtype.rfind("float", 0) == 0;
    v.kind = isFloat ? AttrValue::Float : AttrValue::Int;
    v.i = lit.i;
    v.f = lit.f;
    v.dtype = lit.dtype;
  } else if (n.is_type<g::kw_true>() || n.is_type<g::kw_false>()) {
    v.kind = AttrValue::Bool;
    v.b = n.is_type<g::kw_true>();
  } else if (n.is_type<g::string_lit>()) {
    v.kind = AttrValue::String;
    std::string s = n.string();
    v.s = s.substr(1, s.size() - 2);
  } else if (n.is_type<g::attr_none>()) {
    v.kind = AttrValue::None;
  } else if (n.is_type<g::meta_ref>()) {
    v.kind = AttrValue::Meta;
    meta(n, v.s, v.index);
  } else if (n.is_type<g::attr_array>()) {
    v.kind = AttrValue::Array;
    for (auto& c : n.children) v.items.push_back(attrValue(*c));
  } else {
    v.kind = AttrValue::Expr;
    v.expr = std::shared_ptr<Expr>(expr(n).release());
  }
  return v;
}

void TreeWalker::kwarg(const Node& kw, Attrs& out) {
  RLX_CHECK(kw.is_type<g::kwarg>() && kw.children.size() == 2, "kwarg node shape");
  std::string key = kw.children[0]->string();
  for (auto& [k, _] : out)
    if (k == key) fail(*kw.children[0], "attribute `" + key + "` is given twice");
  out.emplace_back(key, attrValue(*kw.children[1]));
}

void TreeWalker::kwargs(const Node& n, Attrs& out) {
  for (auto& kw : n.children) kwarg(*kw, out);
}

}  // namespace rlx::relay
