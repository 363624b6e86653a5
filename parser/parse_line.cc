// PEGTL actions that turn one logical line into syntax-tree nodes. Every rule with an action is a
// "frame": nodes pushed while it runs are dropped if it fails, so backtracking never leaks nodes.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <initializer_list>

#include "grammar/errors.hpp"
#include "grammar/grammar.hpp"
#include "parser/line_parser.h"
#include "parser/line_span.h"

namespace rlx::grammar {
bool isReservedWord(std::string_view w) {
  // Every identifier comes through here: dispatch on the length, then compare a few words.
  auto any = [&](std::initializer_list<std::string_view> words) {
    for (auto k : words)
      if (w == k) return true;
    return false;
  };
  switch (w.size()) {
    case 2: return any({"if", "in", "is", "as", "or"});
    case 3: return any({"and", "not", "for", "def"});
    case 4: return any({"elif", "else", "None", "True", "pass", "with", "from"});
    case 5: return any({"False", "class", "while"});
    case 6: return any({"lambda", "return", "import", "assert"});
    default: return false;
  }
}
}  // namespace rlx::grammar


namespace rlx::syntax {
namespace g = rlx::grammar;
namespace pegtl = tao::pegtl;
using ast::Expr;

namespace {

// A stack over a buffer that outlives the line (the arena's), so only the first lines allocate:
// push is inline and dropping a failed rule's nodes is a counter (every rule tried pushes a frame).
template <typename T>
struct LineStack {
  std::vector<T>& buf;
  size_t n = 0;
  [[gnu::always_inline]] void push_back(T v) {
    if (n == buf.size()) [[unlikely]] grow();
    buf[n++] = v;
  }
  [[gnu::noinline]] void grow() { buf.resize(buf.size() * 2 + 32); }
  T& back() { return buf[n - 1]; }
  void pop_back() { --n; }
  size_t size() const { return n; }
  void truncate(size_t k) { n = k; }
  T* begin() { return buf.data(); }
  T* end() { return buf.data() + n; }
};

struct State {
  ast::Arena& arena;
  LineSpans spans;
  int maxDepth;
  LineStack<Expr*> stack;
  LineStack<size_t> frames;
  int depth = 0;
  LineResult result;

  Span span(const char* b, size_t n) const { return spans.at(b, n); }
  Expr* node(Expr::Kind k, const char* b, size_t n) { return arena.expr(k, span(b, n)); }
  // Operator and separator markers never outlive the line: the arena recycles them per line.
  Expr* marker(const char* b, size_t n) { return arena.marker(span(b, n)); }
  size_t frame() const { return frames.buf[frames.n - 1]; }
  // What the current frame pushed, popped into a buffer reused by every action (no action takes
  // twice, and nodes copy what they keep).
  std::vector<Expr*>& taken;
  std::vector<Expr*>& take() {
    taken.assign(stack.begin() + long(frame()), stack.end());
    stack.truncate(frame());
    return taken;
  }
  void push(Expr* e) { stack.push_back(e); }
};

bool isMarker(Expr* e, const char* s = nullptr) { return e->kind == Expr::Marker && (!s || e->str == s); }

// Rules whose actions consume what their children pushed; they get a frame.
template <typename Rule>
struct Action : pegtl::nothing<Rule> {};

template <typename Rule>
struct Framed : std::false_type {};

struct DepthError {};

template <typename Rule>
struct Control : pegtl::normal<Rule> {
  // Nesting comes through brackets (test) and operands; prefix chains are bounded in the action.
  static constexpr bool kDepthRule = std::is_same_v<Rule, g::test> || std::is_same_v<Rule, g::operand>;
  // Called around every rule tried: inlined, they are a few instructions.
  template <typename Input>
  [[gnu::always_inline]] static void start(const Input& in, State& st) {
    if constexpr (kDepthRule) {
      if (++st.depth > st.maxDepth) throw pegtl::parse_error("expression nested too deeply", in);
    }
    if constexpr (Framed<Rule>::value) st.frames.push_back(st.stack.size());
  }
  template <typename Input>
  [[gnu::always_inline]] static void success(const Input& in, State& st) {
    if constexpr (kDepthRule) --st.depth;
    if constexpr (Framed<Rule>::value) st.frames.pop_back();
  }
  template <typename Input>
  [[gnu::always_inline]] static void failure(const Input&, State& st) {
    if constexpr (kDepthRule) --st.depth;
    if constexpr (Framed<Rule>::value) {
      st.stack.truncate(st.frames.back());
      st.frames.pop_back();
    }
  }
  template <typename Input>
  [[noreturn]] static void raise(const Input& in, State&) {
    throw pegtl::parse_error(g::errorMessage<Rule>(), in);
  }
};

#define RLX_FRAMED(R) \
  template <>         \
  struct Framed<g::R> : std::true_type {}

// ---- leaves --------------------------------------------------------------------------------
template <Expr::Kind K>
struct PushName {
  template <typename In>
  static void apply(const In& in, State& st) {
    auto* e = st.node(K, in.begin(), in.size());
    e->str.assign(in.begin(), in.size());  // a recycled node keeps its buffer
    st.push(e);
  }
};
template <> struct Action<g::name_ref> : PushName<Expr::Name> {};
template <> struct Action<g::kwarg_name> : PushName<Expr::Name> {};
template <> struct Action<g::attr_name> : PushName<Expr::Name> {};
template <> struct Action<g::lambda_param> : PushName<Expr::Name> {};
template <> struct Action<g::param_name> : PushName<Expr::Name> {};
template <> struct Action<g::def_name> : PushName<Expr::Name> {};
template <> struct Action<g::class_name> : PushName<Expr::Name> {};

template <typename Marker>
struct PushMarker {
  template <typename In>
  static void apply(const In& in, State& st) {
    auto* e = st.marker(in.begin(), in.size());
    std::string s = in.string();
    // Normalize multi-word operators ("not   in" -> "not in").
    std::string norm;
    for (char c : s) {
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        if (!norm.empty() && norm.back() != ' ') norm += ' ';
      } else {
        norm += c;
      }
    }
    e->str = norm;
    st.push(e);
  }
};
template <> struct Action<g::trailing_comma> : PushMarker<void> {};
template <> struct Action<g::op_binary> : PushMarker<void> {};

// Prefix operators are markers tagged "u-", "u+", "u~", "unot" so the climber can tell them apart.
template <>
struct Action<g::op_prefix> {
  template <typename In>
  static void apply(const In& in, State& st) {
    auto* e = st.marker(in.begin(), in.size());
    e->str = "u" + in.string();
    st.push(e);
  }
};

template <const char* Tag>
struct PushTag {
  template <typename In>
  static void apply(const In& in, State& st) {
    auto* e = st.marker(in.begin(), in.size());
    e->str = Tag;
    st.push(e);
  }
};
constexpr char kLo[] = "lo", kHi[] = "hi", kStep[] = "step", kColon[] = ":", kAnn[] = "ann", kDefault[] = "default",
               kReturns[] = "returns", kValue[] = "value", kAs[] = "as";
template <> struct Action<g::slice_lo> : PushTag<kLo> {};
template <> struct Action<g::slice_hi> : PushTag<kHi> {};
template <> struct Action<g::slice_step> : PushTag<kStep> {};
template <> struct Action<g::param_annotation> : PushTag<kAnn> {};
template <> struct Action<g::param_default> : PushTag<kDefault> {};
template <> struct Action<g::def_returns> : PushTag<kReturns> {};
template <> struct Action<g::assign_annotation> : PushTag<kAnn> {};
template <> struct Action<g::assign_value> : PushTag<kValue> {};
template <> struct Action<g::with_as> : PushTag<kAs> {};

bool parseIntText(std::string_view s, int64_t& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

template <>
struct Action<g::number> {
  template <typename In>
  static void apply(const In& in, State& st) {
    std::string s = in.string();
    bool isFloat = s.find_first_of(".eE") != std::string::npos;
    if (!isFloat) {
      auto* e = st.node(Expr::Int, in.begin(), in.size());
      if (!parseIntText(s, e->i)) {
        // Out of int64 range: keep as float so the builder can report it with the value.
        e->kind = Expr::Float;
        e->d = std::strtod(s.c_str(), nullptr);
        e->str = s;
      }
      st.push(e);
    } else {
      auto* e = st.node(Expr::Float, in.begin(), in.size());
      e->d = std::strtod(s.c_str(), nullptr);
      st.push(e);
    }
  }
};

// Decodes the escapes of one string literal body.
std::string unescape(std::string_view body) {
  std::string out;
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\' || i + 1 == body.size()) {
      out += c;
      continue;
    }
    char n = body[++i];
    switch (n) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case '0': out += '\0'; break;
      case '\\': out += '\\'; break;
      case '\'': out += '\''; break;
      case '"': out += '"'; break;
      case '\n': break;
      case 'x':
        if (i + 2 < body.size() + 0 && i + 2 <= body.size() - 1) {
          int v = 0;
          auto h = body.substr(i + 1, 2);
          auto [p, ec] = std::from_chars(h.data(), h.data() + 2, v, 16);
          if (ec == std::errc() && p == h.data() + 2) {
            out += char(v);
            i += 2;
            break;
          }
        }
        out += "\\x";
        break;
      default:
        out += '\\';
        out += n;
    }
  }
  return out;
}

template <>
struct Action<g::strings> {
  template <typename In>
  static void apply(const In& in, State& st) {
    auto* e = st.node(Expr::Str, in.begin(), in.size());
    std::string_view text(in.begin(), in.size());
    size_t i = 0;
    while (i < text.size()) {
      char q = text[i];
      if (q != '"' && q != '\'') {
        ++i;  // whitespace / comments between adjacent literals
        continue;
      }
      bool triple = text.substr(i, 3) == "\"\"\"";
      size_t open = triple ? 3 : 1;
      size_t j = i + open;
      while (j < text.size()) {
        if (text[j] == '\\') {
          j += 2;
          continue;
        }
        if (triple ? text.substr(j, 3) == "\"\"\"" : text[j] == q) break;
        ++j;
      }
      e->str += unescape(text.substr(i + open, j - i - open));
      i = j + open;
    }
    st.push(e);
  }
};

template <Expr::Kind K, bool V = false>
struct PushLiteral {
  template <typename In>
  static void apply(const In& in, State& st) {
    auto* e = st.node(K, in.begin(), in.size());
    e->b = V;
    st.push(e);
  }
};
template <> struct Action<g::none_lit> : PushLiteral<Expr::NoneLit> {};
template <> struct Action<g::true_lit> : PushLiteral<Expr::Bool, true> {};
template <> struct Action<g::false_lit> : PushLiteral<Expr::Bool, false> {};

// ---- composites ------------------------------------------------------------------------------
// Removes a trailing-comma marker from items; returns whether there was one.
bool dropComma(std::vector<Expr*>& items) {
  auto end = std::remove_if(items.begin(), items.end(), [](Expr* e) { return isMarker(e, ","); });
  bool comma = end != items.end();
  items.erase(end, items.end());
  return comma;
}

RLX_FRAMED(paren);
template <>
struct Action<g::paren> {
  template <typename In>
  static void apply(const In& in, State& st) {
    auto& items = st.take();
    bool comma = dropComma(items);
    if (items.size() == 1 && !comma) {
      st.push(items[0]);
      return;
    }
    auto* e = st.node(Expr::Tuple, in.begin(), in.size());
    e->items.assign(items.begin(), items.end());
    e->b = true;
    st.push(e);
  }
};

template <Expr::Kind K>
struct Collection {
  template <typename In>
  static void apply(const In& in, State& st) {
    auto& items = st.take();
    dropComma(items);
    auto* e = st.node(K, in.begin(), in.size());
    e->items.assign(items.begin(), items.end());
    st.push(e);
  }
};
RLX_FRAMED(list);
template <> struct Action<g::list> : Collection<Expr::List> {};
RLX_FRAMED(dict);
template <> struct Action<g::dict> : Collection<Expr::Dict> {};

RLX_FRAMED(kwarg);
template <>
struct Action<g::kwarg> {
  template <typename In>
  static void apply(const In& in, State& st) {
    auto& items = st.take();
    auto* e = st.node(Expr::Keyword, in.begin(), in.size());
    e->str = items[0]->str;
    e->span = items[0]->span;
    e->a = items[1];
    st.push(e);
  }
};

RLX_FRAMED(star_arg);
template <>
struct Action<g::star_arg> {
  template <typename In>
  static void apply(const In& in, State& st) {
    auto& items = st.take();
    auto* e = st.node(Expr::UnaryOp, in.begin(), in.size());
    e->str = "*";
    e->a = items[0];
    st.push(e);
  }
};

// Trailers rewrite the node just below their frame (the callee / indexed value).
RLX_FRAMED(call_trailer);
template <>
struct Action<g::call_trailer> {
  template <typename In>
  static void apply(const In& in, State& st) {
    auto& items = st.take();
    dropComma(items);
    Expr* callee = st.stack.back();
    auto* e = st.arena.expr(Expr::Call, callee->span);
    e->a = callee;
    e->items.assign(items.begin(), items.end());
    st.stack.back() = e;
  }
};

RLX_FRAMED(slice);
template <>
struct Action<g::slice> {
  template <typename In>
  static void apply(const In& in, State& st) {
    auto& items = st.take();
    auto* e = st.node(Expr::Slice, in.begin(), in.size());
    for (size_t i = 1; i < items.size(); ++i) {
      if (isMarker(items[i], "lo")) e->a = items[i - 1];
      if (isMarker(items[i], "hi")) e->b2 = items[i - 1];
      if (isMarker(items[i], "step")) e->c = items[i - 1];
    }
    st.push(e);
  }
};

RLX_FRAMED(subscript_trailer);
template <>
struct Action<g::subscript_trailer> {
  template <typename In>
  static void apply(const In& in, State& st) {
    auto& items = st.take();
    bool comma = dropComma(items);
    Expr* value = st.stack.back();
    auto* e = st.arena.expr(Expr::Subscript, value->span);
    e->a = value;
    e->items.assign(items.begin(), items.end());
    e->b = comma;  // `A[i,]` indexes with a 1-tuple
    st.stack.back() = e;
  }
};

RLX_FRAMED(attr_trailer);
template <>
struct Action<g::attr_trailer> {
  template <typename In>
  static void apply(const In& in, State& st) {
    auto& items = st.take();
    Expr* value = st.stack.back();
    auto* e = st.arena.expr(Expr::Attribute, items[0]->span);
    e->a = value;
    e->str = items[0]->str;
    st.stack.back() = e;
  }
};

// Precedence climbing over the flat list operand (op operand)* that binary_expr collects, with
// Python's precedences: or < and < not < comparisons < | < ^ < & < shifts < + - < * / // % @ < unary < **.
int binaryPrecedence(const std::string& op) {
  if (op == "or") return 1;
  if (op == "and") return 2;
  if (op == "==" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=" || op == "in" || op == "not in" || op == "is" || op == "is not") return 4;
  if (op == "|") return 5;
  if (op == "^") return 6;
  if (op == "&") return 7;
  if (op == "<<" || op == ">>") return 8;
  if (op == "+" || op == "-") return 9;
  if (op == "**") return 12;
  return 10;  // * / // % @
}
constexpr int kComparePrec = 4, kUnaryPrec = 11, kPowPrec = 12;

struct Climber {
  State& st;
  const std::vector<Expr*>& items;
  size_t i = 0;

  bool atBinary() const { return i < items.size() && isMarker(items[i]) && items[i]->str[0] != 'u'; }
  bool atPrefix() const { return i < items.size() && isMarker(items[i]) && items[i]->str[0] == 'u'; }

  Expr* unary() {
    if (!atPrefix()) return items[i++];
    Expr* op = items[i++];
    bool isNot = op->str == "unot";
    Expr* operand = climb(isNot ? kComparePrec : kUnaryPrec);
    auto* e = st.arena.expr(Expr::UnaryOp, op->span);
    e->str = op->str.substr(1);
    e->a = operand;
    return e;
  }

  Expr* climb(int minPrec) {
    Expr* lhs = unary();
    Expr* chain = nullptr;  // the Compare/BoolOp being extended at this level
    while (atBinary()) {
      Expr* op = items[i];
      int p = binaryPrecedence(op->str);
      if (p < minPrec) break;
      ++i;
      Expr* rhs = climb(p == kPowPrec ? kUnaryPrec : p + 1);  // ** is right-associative and takes a unary rhs
      if (p == kComparePrec || p <= 2) {
        Expr::Kind k = p == kComparePrec ? Expr::Compare : Expr::BoolOp;
        if (chain && chain->kind == k && (k == Expr::Compare || chain->str == op->str)) {
          chain->items.push_back(rhs);
          if (k == Expr::Compare) chain->ops.push_back(op->str);
          continue;
        }
        auto* e = st.arena.expr(k, op->span);
        e->items = {lhs, rhs};
        if (k == Expr::Compare) e->ops = {op->str};
        else e->str = op->str;
        lhs = chain = e;
        continue;
      }
      auto* e = st.arena.expr(Expr::BinOp, op->span);
      e->str = op->str;
      e->a = lhs;
      e->b2 = rhs;
      lhs = e;
      chain = nullptr;
    }
    return lhs;
  }
};

RLX_FRAMED(binary_expr);
template <>
struct Action<g::binary_expr> {
  template <typename In>
  static void apply(const In& in, State& st) {
    if (st.stack.size() - st.frame() == 1) return;  // a lone operand (the common case) stays as it is
    auto& items = st.take();
    // Prefix runs recurse in the climber: bound them like bracket nesting.
    int run = 0;
    for (auto* e : items) {
      run = (isMarker(e) && e->str[0] == 'u') ? run + 1 : 0;
      if (run > st.maxDepth) throw pegtl::parse_error("expression nested too deeply", in);
    }
    Climber c{st, items};
    st.push(c.climb(0));
  }
};

RLX_FRAMED(lambda);
template <>
struct Action<g::lambda> {
  template <typename In>
  static void apply(const In& in, State& st) {
    auto& items = st.take();
    auto* e = st.node(Expr::Lambda, in.begin(), in.size());
    e->a = items.back();
    items.pop_back();
    e->items.assign(items.begin(), items.end());
    st.push(e);
  }
};

RLX_FRAMED(conditional);
template <>
struct Action<g::conditional> {
  template <typename In>
  static void apply(const In& in, State& st) {
    if (st.stack.size() - st.frame() == 1) return;  // no `if ... else`
    auto& items = st.take();
    if (items.size() == 1) {
      st.push(items[0]);
      return;
    }
    auto* e = st.node(Expr::IfExp, in.begin(), in.size());
    e->a = items[0];
    e->b2 = items[1];
    e->c = items[2];
    st.push(e);
  }
};

// A comma-separated list at statement level: a Tuple (without parentheses) when it has a comma.
struct TupleIfComma {
  template <typename In>
  static void apply(const In& in, State& st) {
    if (st.stack.size() - st.frame() == 1 && !isMarker(st.stack.back())) return;  // one item, no comma
    auto& items = st.take();
    bool comma = dropComma(items);
    if (items.size() == 1 && !comma) {
      st.push(items[0]);
      return;
    }
    auto* e = st.node(Expr::Tuple, in.begin(), in.size());
    e->items.assign(items.begin(), items.end());
    st.push(e);
  }
};
RLX_FRAMED(testlist);
template <> struct Action<g::testlist> : TupleIfComma {};
RLX_FRAMED(for_target);
template <> struct Action<g::for_target> : TupleIfComma {};
RLX_FRAMED(with_target);
template <> struct Action<g::with_target> : TupleIfComma {};

// ---- statement lines ---------------------------------------------------------------------------
// Finds the item just before the marker `tag` (annotation, value, ...), or null.
Expr* tagged(const std::vector<Expr*>& items, const char* tag) {
  for (size_t i = 1; i < items.size(); ++i)
    if (isMarker(items[i], tag)) return items[i - 1];
  return nullptr;
}

template <LineResult::Kind K, ast::Stmt::Kind SK>
struct StmtLine {
  template <typename In>
  static void apply(const In& in, State& st) {
    auto& items = st.take();
    auto* s = st.arena.stmt(SK, st.span(in.begin(), in.size()));
    st.result.kind = K;
    st.result.stmt = s;
    if constexpr (K == LineResult::Decorator) {
      st.result.expr = items[0];
    } else if constexpr (K == LineResult::Def) {
      s->name = items[0]->str;
      s->span = items[0]->span;
      for (size_t i = 1; i < items.size(); ++i) {
        if (items[i]->kind == Expr::Keyword && items[i]->str == "param") s->params.push_back({items[i]->a->str, items[i]->b2, items[i]->span});
      }
      s->returns = tagged(items, "returns");
    } else if constexpr (K == LineResult::Class) {
      s->name = items[0]->str;
      s->value = items.size() > 1 ? items[1] : nullptr;  // the first base class, if any
    } else if constexpr (K == LineResult::If || K == LineResult::Elif) {
      s->value = items[0];
    } else if constexpr (K == LineResult::For) {
      s->target = items[0];
      s->value = items[1];
    } else if constexpr (K == LineResult::With) {
      s->value = items[0];
      s->withTarget = tagged(items, "as");
    } else if constexpr (K == LineResult::Return) {
      s->value = items.empty() ? nullptr : items[0];
    } else if constexpr (K == LineResult::Simple) {
      Expr* value = tagged(items, "value");
      Expr* ann = tagged(items, "ann");
      if (value || ann) {
        s->kind = ast::Stmt::Assign;
        s->target = items[0];
        s->value = value;
        s->annotation = ann;
      } else {
        s->value = items[0];
      }
    }
  }
};

RLX_FRAMED(param);
template <>
struct Action<g::param> {
  template <typename In>
  static void apply(const In& in, State& st) {
    auto& items = st.take();
    auto* e = st.node(Expr::Keyword, in.begin(), in.size());
    e->str = "param";
    e->a = items[0];
    e->b2 = tagged(items, "ann");
    e->span = items[0]->span;
    st.push(e);
  }
};

RLX_FRAMED(decorator);
template <> struct Action<g::decorator> : StmtLine<LineResult::Decorator, ast::Stmt::ExprStmt> {};
RLX_FRAMED(def_header);
template <> struct Action<g::def_header> : StmtLine<LineResult::Def, ast::Stmt::FunctionDef> {};
RLX_FRAMED(class_header);
template <> struct Action<g::class_header> : StmtLine<LineResult::Class, ast::Stmt::ClassDef> {};
RLX_FRAMED(if_header);
template <> struct Action<g::if_header> : StmtLine<LineResult::If, ast::Stmt::If> {};
RLX_FRAMED(elif_header);
template <> struct Action<g::elif_header> : StmtLine<LineResult::Elif, ast::Stmt::If> {};
RLX_FRAMED(else_header);
template <> struct Action<g::else_header> : StmtLine<LineResult::Else, ast::Stmt::Pass> {};
RLX_FRAMED(for_header);
template <> struct Action<g::for_header> : StmtLine<LineResult::For, ast::Stmt::For> {};
RLX_FRAMED(with_header);
template <> struct Action<g::with_header> : StmtLine<LineResult::With, ast::Stmt::With> {};
RLX_FRAMED(return_stmt);
template <> struct Action<g::return_stmt> : StmtLine<LineResult::Return, ast::Stmt::Return> {};
RLX_FRAMED(pass_stmt);
template <> struct Action<g::pass_stmt> : StmtLine<LineResult::Pass, ast::Stmt::Pass> {};
RLX_FRAMED(import_stmt);
template <> struct Action<g::import_stmt> : StmtLine<LineResult::Import, ast::Stmt::Pass> {};
RLX_FRAMED(while_stmt);
template <> struct Action<g::while_stmt> : StmtLine<LineResult::While, ast::Stmt::Pass> {};
// `assert c, msg` is sugar for the statement `T.Assert(c, msg)`.
RLX_FRAMED(assert_stmt);
template <>
struct Action<g::assert_stmt> {
  template <typename In>
  static void apply(const In& in, State& st) {
    auto& items = st.take();
    auto* t = st.node(Expr::Name, in.begin(), 6);
    t->str = "T";
    auto* callee = st.node(Expr::Attribute, in.begin(), 6);
    callee->a = t;
    callee->str = "Assert";
    auto* call = st.node(Expr::Call, in.begin(), in.size());
    call->a = callee;
    call->items.assign(items.begin(), items.end());
    auto* s = st.arena.stmt(ast::Stmt::ExprStmt, st.span(in.begin(), in.size()));
    s->value = call;
    st.result.kind = LineResult::Simple;
    st.result.stmt = s;
  }
};

RLX_FRAMED(simple_stmt);
template <> struct Action<g::simple_stmt> : StmtLine<LineResult::Simple, ast::Stmt::ExprStmt> {};

}  // namespace

Result<LineResult> parseLineWithGrammar(std::string_view text, uint32_t file, uint32_t offset, ast::Arena& arena, int maxDepth) {
  // Each bracket level costs three depth-counted rules (test, not_test, factor).
  auto& scratch = arena.lineScratch();
  State st{arena, LineSpans(text, file, offset), 3 * maxDepth + 16, {scratch.stack}, {scratch.frames}, 0, {}, scratch.taken};
  arena.resetMarkers();
  // Lazy tracking: positions are computed only for errors, not on every consumed byte.
  pegtl::memory_input<pegtl::tracking_mode::lazy> in(text.data(), text.size(), "");
  try {
    if (!pegtl::parse<g::line, Action, Control>(in, st)) {
      return Error("invalid syntax", sources::spanAt(file, offset, uint32_t(text.size())));
    }
  } catch (const pegtl::parse_error& e) {
    auto& pos = e.positions().front();
    std::string msg(e.message());
    Error err(msg, sources::spanAt(file, offset + uint32_t(pos.byte), 1));
    // A statement spanning several lines usually means an unclosed bracket further up.
    Span start = sources::spanAt(file, offset, 1);
    if (err.span.line > start.line)
      err.hint = "this statement started on line " + std::to_string(start.line) + "; is a bracket there left unclosed?";
    return err;
  }
  return st.result;
}

Result<LineResult> parseLine(std::string_view text, uint32_t file, uint32_t offset, ast::Arena& arena, int maxDepth) {
  if (auto common = parseCommonLine(text, file, offset, arena, maxDepth)) return *common;
  return parseLineWithGrammar(text, file, offset, arena, maxDepth);
}

}  // namespace rlx::syntax
