// The pattern text parser (hand-written recursive descent: the language is small and every error
// wants its own column) and the matcher. Syntax and semantics: passes/pattern.h.
#include "passes/pattern.h"

#include <cctype>
#include <cmath>
#include <map>

#include "ir/op.h"

namespace rlx {

namespace {

// ---------------------------------------------------------------- parser
class PatternParser {
 public:
  PatternParser(const std::string& text, uint32_t file) : text_(text), file_(file) {}

  Result<PatternRef> parseText() {
    skip();
    // `name = alt ;` definitions, recognised by an identifier followed by '=' (not '==').
    while (true) {
      size_t save = pos_;
      std::string name = ident();
      skip();
      if (!name.empty() && peek() == '=') {
        size_t nameAt = save;
        ++pos_;
        skip();
        if (defs_.count(name)) return err("sub-pattern '" + name + "' is defined twice", nameAt, name.size());
        if (name == "_" || name == "const") return err("'" + name + "' is a keyword, not a sub-pattern name", nameAt, name.size());
        RLX_TRY(p, parseAlt());
        auto named = std::make_shared<PatternNode>(*p);
        named->name = name;
        defs_[name] = named;
        skip();
        if (peek() != ';') return err("expected ';' after the definition of '" + name + "'", pos_, 1);
        ++pos_;
        skip();
        continue;
      }
      pos_ = save;
      break;
    }
    if (atEnd()) return err(defs_.empty() ? "empty pattern" : "expected the pattern after the definitions", pos_, 1);
    RLX_TRY(root, parseAlt());
    skip();
    if (peek() == ';') {
      ++pos_;
      skip();
    }
    if (!atEnd()) return err(std::string("unexpected '") + text_[pos_] + "' after the pattern", pos_, 1);
    return root;
  }

 private:
  const std::string& text_;
  uint32_t file_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::map<std::string, PatternRef> defs_;

  static constexpr int kMaxDepth = 200;  // nesting limit: deep input must not exhaust the stack

  Error err(const std::string& message, size_t at, size_t len, std::string hint = {}) const {
    Span s = sources::spanAt(file_, uint32_t(std::min(at, text_.size())), uint32_t(std::max<size_t>(len, 1)));
    return Error(message, s, std::move(hint));
  }

  bool atEnd() const { return pos_ >= text_.size(); }
  char peek(size_t k = 0) const { return pos_ + k < text_.size() ? text_[pos_ + k] : '\0'; }
  void skip() {
    while (!atEnd() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  static bool identStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
  static bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
  std::string ident() {
    if (!identStart(peek())) return {};
    size_t start = pos_;
    while (identChar(peek())) ++pos_;
    return text_.substr(start, pos_ - start);
  }
  Status expect(char c, const std::string& what) {
    skip();
    if (peek() != c) {
      std::string got = atEnd() ? "end of pattern" : std::string("'") + peek() + "'";
      return err("expected " + what + ", got " + got, pos_, 1);
    }
    ++pos_;
    return okStatus();
  }

  Result<PatternRef> parseAlt() {
    if (++depth_ > kMaxDepth) return err("pattern nested too deeply", pos_, 1);
    RLX_TRY(first, parseTyped());
    std::vector<PatternRef> alts{first};
    skip();
    while (peek() == '|') {
      ++pos_;
      skip();
      RLX_TRY(next, parseTyped());
      alts.push_back(next);
      skip();
    }
    --depth_;
    if (alts.size() == 1) return first;
    auto alt = std::make_shared<PatternNode>();
    alt->kind = PatternNode::Alt;
    alt->children = std::move(alts);
    return PatternRef(alt);
  }

  Result<PatternRef> parseTyped() {
    RLX_TRY(p, parsePostfix());
    skip();
    if (peek() != ':') return p;
    size_t colon = pos_++;
    skip();
    auto out = std::make_shared<PatternNode>(*p);
    bool any = false;
    if (identStart(peek())) {
      size_t at = pos_;
      std::string name = ident();
      auto t = DataType::parse(name);
      if (!t) return err("unknown dtype '" + name + "'", at, name.size(), "e.g. float32, float16, int64, bool");
      out->dtype = *t;
      any = true;
      skip();
    }
    if (peek() == '[') {
      ++pos_;
      std::vector<PatternNode::Dim> dims;
      skip();
      if (peek() != ']') {
        while (true) {
          skip();
          PatternNode::Dim d;
          size_t at = pos_;
          if (std::isdigit(static_cast<unsigned char>(peek()))) {
            RLX_TRY(v, integerLiteral());
            d.kind = PatternNode::Dim::Int;
            d.value = v;
          } else if (identStart(peek())) {
            std::string name = ident();
            if (name != "_") {
              d.kind = PatternNode::Dim::Sym;
              d.name = name;
            }
          } else {
            return err("expected a dim (an integer, _ or a symbolic var name)", at, 1);
          }
          dims.push_back(d);
          skip();
          if (peek() == ',') {
            ++pos_;
            continue;
          }
          break;
        }
      }
      RLX_TRY_STATUS(expect(']', "',' or ']' in the shape"));
      out->shape = std::move(dims);
      any = true;
    }
    if (!any) return err("expected a dtype or a [shape] after ':'", colon, 1);
    return PatternRef(out);
  }

  Result<PatternRef> parsePostfix() {
    RLX_TRY(p, parseAtom());
    while (true) {
      skip();
      if (peek() == '{') {
        size_t at = pos_++;
        if (p->kind != PatternNode::Call) return err("attribute constraints apply to op calls only", at, 1);
        auto out = std::make_shared<PatternNode>(*p);
        const OpInfo* info = findOp(out->op);
        skip();
        while (peek() != '}') {
          skip();
          size_t keyAt = pos_;
          std::string key = ident();
          if (key.empty()) return err("expected an attribute name", pos_, 1);
          bool known = false;
          std::vector<std::string> names;
          for (auto& prm : info->params)
            if (prm.role == OpParam::Attr) {
              names.push_back(prm.name);
              known |= prm.name == key;
            }
          if (!known) {
            std::string hint = closestName(key, names);
            return err(info->name + " has no attribute '" + key + "'", keyAt, key.size(), hint.empty() ? std::string() : "did you mean '" + hint + "'?");
          }
          RLX_TRY_STATUS(expect('=', "'=' after the attribute name"));
          skip();
          RLX_TRY(v, literal());
          out->attrs.emplace_back(key, v);
          skip();
          if (peek() == ',') {
            ++pos_;
            skip();
            continue;
          }
          if (peek() != '}') return err("expected ',' or '}' in the attributes", pos_, 1);
        }
        ++pos_;
        p = out;
      } else if (peek() == '[') {
        ++pos_;
        skip();
        size_t at = pos_;
        if (!std::isdigit(static_cast<unsigned char>(peek()))) return err("expected a tuple field index", at, 1);
        RLX_TRY(v, integerLiteral());
        if (v > (1 << 30)) return err("tuple field index too large", at, pos_ - at);
        RLX_TRY_STATUS(expect(']', "']' after the field index"));
        auto item = std::make_shared<PatternNode>();
        item->kind = PatternNode::TupleItem;
        item->index = int(v);
        item->children = {p};
        p = item;
      } else {
        return p;
      }
    }
  }

  Result<PatternRef> parseAtom() {
    skip();
    size_t at = pos_;
    char c = peek();
    if (c == '*') {
      ++pos_;
      return PatternRef(std::make_shared<PatternNode>());
    }
    if (c == '(') {
      ++pos_;
      RLX_TRY(inner, parseAlt());
      RLX_TRY_STATUS(expect(')', "')'"));
      return inner;
    }
    if (c == '$') {
      ++pos_;
      std::string name = ident();
      if (name.empty()) return err("expected a sub-pattern name after '$'", pos_, 1);
      auto it = defs_.find(name);
      if (it == defs_.end()) {
        std::vector<std::string> names;
        for (auto& [k, v] : defs_) names.push_back(k);
        std::string hint = closestName(name, names);
        return err("unknown sub-pattern '$" + name + "'", at, name.size() + 1, hint.empty() ? "define it first: " + name + " = PATTERN; ..." : "did you mean '$" + hint + "'?");
      }
      return it->second;
    }
    if (!identStart(c)) {
      if (atEnd()) return err("expected a pattern, got end of pattern", at, 1);
      return err(std::string("expected a pattern (_, const, $name, an op or '('), got '") + c + "'", at, 1);
    }
    std::string name = ident();
    if (name == "_") return PatternRef(std::make_shared<PatternNode>());
    if (name == "const") {
      auto p = std::make_shared<PatternNode>();
      p->kind = PatternNode::Const;
      return PatternRef(p);
    }
    while (peek() == '.' && identStart(peek(1))) {
      ++pos_;
      name += "." + ident();
    }
    std::string full = name;
    if (full.rfind("R.", 0) == 0) full = "relax." + full.substr(2);
    else if (full.rfind("relax.", 0) != 0) full = "relax." + full;
    if (!findOp(full)) {
      // `relu` is nn.relu: suggest the family before the closest spelling.
      std::string hint = findOp("relax.nn." + name) ? "relax.nn." + name : suggestOp(full);
      return err("unknown op '" + name + "'", at, name.size(), hint.empty() ? std::string() : "did you mean '" + hint + "'?");
    }
    auto call = std::make_shared<PatternNode>();
    call->kind = PatternNode::Call;
    call->op = full;
    skip();
    if (peek() != '(') {
      call->anyArgs = true;
      return PatternRef(call);
    }
    ++pos_;
    skip();
    if (peek() == ')') {
      ++pos_;
      return PatternRef(call);
    }
    while (true) {
      skip();
      if (text_.compare(pos_, 3, "...") == 0) {
        pos_ += 3;
        call->moreArgs = true;
        skip();
        if (peek() != ')') return err("'...' must be the last argument", pos_, 1);
        break;
      }
      RLX_TRY(arg, parseAlt());
      call->children.push_back(arg);
      skip();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      break;
    }
    RLX_TRY_STATUS(expect(')', "',' or ')' after an argument"));
    return PatternRef(call);
  }

  Result<int64_t> integerLiteral() {
    size_t start = pos_;
    while (std::isdigit(static_cast<unsigned char>(peek()))) ++pos_;
    if (pos_ - start > 18) return err("integer too large", start, pos_ - start);
    return int64_t(std::stoll(text_.substr(start, pos_ - start)));
  }

  // A Python literal as an Attr (None is a null Attr).
  Result<Attr> literal() {
    if (++depth_ > kMaxDepth) return err("literal nested too deeply", pos_, 1);
    skip();
    size_t at = pos_;
    char c = peek();
    Attr out;
    if (c == '"' || c == '\'') {
      ++pos_;
      std::string s;
      while (!atEnd() && peek() != c) {
        if (peek() == '\\' && pos_ + 1 < text_.size()) ++pos_;
        s += text_[pos_++];
      }
      if (atEnd()) return err("unterminated string", at, 1);
      ++pos_;
      out = AttrValue::str(s);
    } else if (c == '[' || c == '(') {
      char close = c == '[' ? ']' : ')';
      ++pos_;
      std::vector<Attr> items;
      skip();
      while (peek() != close) {
        RLX_TRY(v, literal());
        items.push_back(v);
        skip();
        if (peek() == ',') {
          ++pos_;
          skip();
          continue;
        }
        if (peek() != close) return err(std::string("expected ',' or '") + close + "' in the list", pos_, 1);
      }
      ++pos_;
      out = AttrValue::array_(std::move(items));
    } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.') {
      size_t start = pos_;
      if (c == '-' || c == '+') ++pos_;
      bool real = false;
      while (std::isdigit(static_cast<unsigned char>(peek())) || peek() == '.' || peek() == 'e' || peek() == 'E' ||
             ((peek() == '-' || peek() == '+') && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E'))) {
        real |= !std::isdigit(static_cast<unsigned char>(peek()));
        ++pos_;
      }
      std::string num = text_.substr(start, pos_ - start);
      try {
        size_t used = 0;
        if (real) {
          double d = std::stod(num, &used);
          if (used != num.size()) throw std::invalid_argument(num);
          out = AttrValue::real(d);
        } else {
          long long v = std::stoll(num, &used);
          if (used != num.size()) throw std::invalid_argument(num);
          out = AttrValue::integer(v);
        }
      } catch (const std::exception&) {
        return err("bad number '" + num + "'", start, num.size());
      }
    } else if (identStart(c)) {
      std::string w = ident();
      if (w == "True" || w == "False") out = AttrValue::boolean(w == "True");
      else if (w == "None") out = Attr();
      else return err("expected a literal (string, number, True/False/None or a list), got '" + w + "'", at, w.size(), "strings are quoted: \"NCHW\"");
    } else {
      return err("expected a literal (string, number, True/False/None or a list)", at, 1);
    }
    --depth_;
    return out;
  }
};

// ---------------------------------------------------------------- matcher
std::optional<double> numberOf(const Attr& a) {
  if (!a) return std::nullopt;
  switch (a->kind) {
    case AttrValue::Bool: return a->b ? 1.0 : 0.0;
    case AttrValue::Int: return double(a->i);
    case AttrValue::Double: return a->d;
    case AttrValue::Prim:
      if (auto i = a->prim.as<IntImm>()) return double(i->value);
      if (auto f = a->prim.as<FloatImm>()) return f->value;
      return std::nullopt;
    default: return std::nullopt;
  }
}

bool attrMatches(const Attr& actual, const Attr& expected) {
  if (!expected) return !actual;
  if (!actual) return false;
  if (auto n = numberOf(expected)) {
    auto m = numberOf(actual);
    return m && *m == *n;
  }
  if (expected->kind == AttrValue::Str) {
    if (actual->kind == AttrValue::Str) return actual->s == expected->s;
    if (actual->kind == AttrValue::DType) return actual->dtype.str() == expected->s;
    return false;
  }
  if (expected->kind == AttrValue::Array) {
    if (actual->kind != AttrValue::Array || actual->array.size() != expected->array.size()) return false;
    for (size_t i = 0; i < expected->array.size(); ++i)
      if (!attrMatches(actual->array[i], expected->array[i])) return false;
    return true;
  }
  return false;
}

class Matcher {
 public:
  explicit Matcher(const std::unordered_map<const Var*, Expr>& bindings) : bindings_(bindings) {}
  std::vector<const Var*> vars;

  bool match(const PatternNode& p, const Expr& e) {
    if (!p.name.empty()) {
      // A named sub-pattern matches one expression only, however often it is used.
      auto it = memo_.find(&p);
      if (it != memo_.end()) return it->second.same(e);
    }
    size_t varsBefore = vars.size();
    auto memoBefore = memo_;
    bool ok = matchStructure(p, e) && matchSInfo(p, e);
    if (!ok) {
      vars.resize(varsBefore);
      memo_ = std::move(memoBefore);
      return false;
    }
    if (!p.name.empty()) memo_[&p] = e;
    return true;
  }

 private:
  const std::unordered_map<const Var*, Expr>& bindings_;
  std::unordered_map<const PatternNode*, Expr> memo_;

  // The value bound to `e` when it is a var of the block (call, const and field patterns look
  // through bindings); records the var as part of the match.
  Expr through(const Expr& e, const Var** boundVar) {
    *boundVar = nullptr;
    if (auto v = e.as<Var>()) {
      auto it = bindings_.find(v.get());
      if (it == bindings_.end()) return e;
      *boundVar = v.get();
      return it->second;
    }
    return e;
  }

  bool matchStructure(const PatternNode& p, const Expr& e) {
    switch (p.kind) {
      case PatternNode::Wildcard: return true;
      case PatternNode::Alt:
        for (auto& c : p.children)
          if (match(*c, e)) return true;
        return false;
      case PatternNode::Const: {
        const Var* bound;
        return through(e, &bound).is<Constant>();
      }
      case PatternNode::TupleItem: {
        const Var* bound;
        auto t = through(e, &bound).as<TupleGetItem>();
        if (!t || t->index != p.index || !match(*p.children[0], t->tuple)) return false;
        if (bound) vars.push_back(bound);
        return true;
      }
      case PatternNode::Call: {
        const Var* bound;
        auto c = through(e, &bound).as<Call>();
        if (!c || c->opName() != p.op) return false;
        if (!p.anyArgs) {
          if (p.moreArgs ? c->args.size() < p.children.size() : c->args.size() != p.children.size()) return false;
        }
        for (auto& [key, value] : p.attrs) {
          const Attr* actual = c->attrs ? c->attrs->find(key) : nullptr;
          if (!actual || !attrMatches(*actual, value)) return false;
        }
        if (bound) vars.push_back(bound);
        if (!p.anyArgs)
          for (size_t i = 0; i < p.children.size(); ++i)
            if (!match(*p.children[i], c->args[i])) return false;
        return true;
      }
    }
    return false;
  }

  static bool matchSInfo(const PatternNode& p, const Expr& e) {
    if (!p.dtype && !p.shape) return true;
    auto t = sinfoOf(e).as<TensorSInfo>();
    if (!t) return false;
    if (p.dtype && t->dtype != *p.dtype) return false;
    if (!p.shape) return true;
    if (t->ndim != int(p.shape->size())) return false;
    auto* dims = t->dims();
    for (size_t i = 0; i < p.shape->size(); ++i) {
      auto& d = (*p.shape)[i];
      if (d.kind == PatternNode::Dim::Any) continue;
      if (!dims) return false;
      const PrimExpr& x = (*dims)[i];
      if (d.kind == PatternNode::Dim::Int) {
        auto imm = x.as<IntImm>();
        if (!imm || imm->value != d.value) return false;
      } else {
        auto v = x.as<PrimVar>();
        if (!v || v->name != d.name) return false;
      }
    }
    return true;
  }
};

}  // namespace

Result<PatternRef> parsePattern(const std::string& text, const std::string& sourceName) {
  uint32_t file = sources::add(sourceName, text);
  PatternParser parser(text, file);
  return parser.parseText();
}

std::optional<PatternMatch> matchPattern(const PatternNode& pattern, const Binding& root, const std::unordered_map<const Var*, Expr>& bindings) {
  Matcher m(bindings);
  m.vars.push_back(root.var.get());
  if (!m.match(pattern, root.value)) return std::nullopt;
  PatternMatch out;
  // The root's var comes first; a var matched twice (a named sub-pattern used twice) counts once.
  for (auto* v : m.vars)
    if (std::find(out.vars.begin(), out.vars.end(), v) == out.vars.end()) out.vars.push_back(v);
  return out;
}

}  // namespace rlx
