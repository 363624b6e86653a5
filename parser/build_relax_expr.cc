// Relax expressions from syntax trees: names, R.* constructors and op calls, struct-info
// annotations, constants, Python literals and operators (x + y → R.add), GlobalVar calls.
#include <cmath>

#include "parser/relax_builder.h"
#include "parser/line_parser.h"
#include "parser/parser.h"

namespace rlx {

using AK = ast::Expr::Kind;

const Expr* RelaxBuilder::lookupVar(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
    if (const Expr* e = it->vars.find(name)) return e;
  return nullptr;
}

std::vector<std::string> RelaxBuilder::visibleNames() const {
  std::vector<std::string> names;
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
    it->vars.forEachNewestFirst([&](const std::string& n) { names.push_back(n); });
  return names;
}

Result<Expr> RelaxBuilder::evalExpr(const ast::Expr* e) {
  RLX_TRY(v, evalValue(e));
  return toExpr(v, e->span);
}

static PyValue primPy(PrimExpr p, Span span) {
  PyValue v;
  v.kind = PyValue::Prim;
  v.prim = std::move(p);
  v.span = span;
  return v;
}

// Python values become Relax expressions where an expression is required.
Result<Expr> RelaxBuilder::toExpr(const PyValue& v, Span span, bool inTuple) {
  auto scalarConst = [&](DataType t, double d, int64_t i, bool isInt) -> Expr {
    auto arr = make<NDArray>(t, std::vector<int64_t>{});
    if (isInt) arr->setInt(0, i);
    else arr->setDouble(0, d);
    Expr c = make<Constant>(arr);
    c->span = span;
    return c;
  };
  switch (v.kind) {
    case PyValue::Expr: return v.expr;
    case PyValue::Prim: {
      Expr p = make<PrimValue>(v.prim);
      p->span = span;
      return p;
    }
    case PyValue::Int:
      if (inTuple) return toExpr(primPy(intImm(v.i), span), span);
      return scalarConst(DataType::int32(), 0, v.i, true);
    case PyValue::Float:
      if (inTuple) return toExpr(primPy(floatImm(v.d, DataType::float32()), span), span);
      return scalarConst(DataType::float32(), v.d, 0, false);
    case PyValue::Bool:
      if (inTuple) return toExpr(primPy(intImm(v.b ? 1 : 0), span), span);  // TVM converts a bool to int64 here
      return scalarConst(DataType::boolean(), 0, v.b, true);
    case PyValue::Str: {
      Expr s = make<StringImm>(v.s);
      s->span = span;
      return s;
    }
    case PyValue::Tuple:
    case PyValue::List: {
      std::vector<Expr> fields;
      for (auto& item : v.items) {
        RLX_TRY(f, toExpr(item, item.span.known() ? item.span : span, true));
        fields.push_back(f);
      }
      Expr t = make<Tuple>(std::move(fields));
      t->span = span;
      return t;
    }
    case PyValue::SInfo: return Error("a struct info annotation is not a value here", span);
    case PyValue::None: return Error("None is not a Relax value here", span);
    case PyValue::Dict: return Error("a dict is not a Relax value here", span);
    case PyValue::Ctor: return Error(v.s + "(...) is not a Relax value here", span);
  }
  return Error("unsupported value", span);
}

// `lambda i, j: (i // 4, j)` (an index map, as `R.layout_transform` takes it): fresh index vars of
// `dtype` for the params, the body evaluated over them in `scope`. The value is
// T.index_map([vars], [results]). Shared by the module parser and parseIndexMap (pass options).
Result<PyValue> evalIndexMapLambda(const ast::Expr* lambda, DataType dtype, PrimScope& scope) {
  PyValue vars, results, out;
  vars.kind = results.kind = PyValue::List;
  scope.push();
  for (auto* p : lambda->items) {
    auto v = make<PrimVar>(p->str, dtype);
    scope.define(p->str, v);
    vars.items.push_back(primPy(v, p->span));
  }
  const ast::Expr* body = lambda->a;
  std::vector<const ast::Expr*> parts;
  if (body->kind == AK::Tuple) parts.assign(body->items.begin(), body->items.end());
  else parts.push_back(body);
  PrimEvalOptions opts;
  opts.intLiteral = DataType::int64();
  for (auto* r : parts) {
    auto value = evalPrim(r, scope, opts);
    if (!value) {
      scope.pop();
      return value.error();
    }
    results.items.push_back(primPy(*value, r->span));
  }
  scope.pop();
  out.kind = PyValue::Ctor;
  out.s = "T.index_map";
  out.items = {vars, results};
  out.span = lambda->span;
  return out;
}

Result<PyValue> RelaxBuilder::evalIndexMap(const ast::Expr* lambda, DataType dtype) { return evalIndexMapLambda(lambda, dtype, primScope_); }

Result<PyValue> parseIndexMap(const std::string& text, const std::string& sourceName, DataType dtype) {
  uint32_t file = sources::add(sourceName, text);
  ast::Arena arena;
  auto line = syntax::parseLine(text, file, 0, arena, 64);
  if (!line.ok()) return line.error();
  const ast::Expr* e = line->stmt && line->stmt->kind == ast::Stmt::ExprStmt ? line->stmt->value : nullptr;
  if (!e || e->kind != AK::Lambda)
    return Error("an index map is a lambda: \"lambda i, j: (i // 4, j)\"", sources::spanAt(file, 0, uint32_t(text.size())));
  PrimScope scope;
  return evalIndexMapLambda(e, dtype, scope);
}

Result<PrimExpr> RelaxBuilder::evalPrimValue(const ast::Expr* e) {
  PrimEvalOptions opts;
  opts.intLiteral = DataType::int64();
  return evalPrim(e, primScope_, opts);
}

Result<Expr> RelaxBuilder::relaxBinary(const std::string& op, const Expr& a, const Expr& b, Span span) {
  static const std::pair<const char*, const char*> ops[] = {
      {"+", "relax.add"}, {"-", "relax.subtract"}, {"*", "relax.multiply"}, {"/", "relax.divide"}, {"//", "relax.floor_divide"},
      {"%", "relax.floor_mod"}, {"**", "relax.power"}, {"@", "relax.matmul"}, {"<", "relax.less"}, {"<=", "relax.less_equal"},
      {">", "relax.greater"}, {">=", "relax.greater_equal"}, {"==", "relax.equal"}, {"!=", "relax.not_equal"},
      {"&", "relax.bitwise_and"}, {"|", "relax.bitwise_or"}, {"^", "relax.bitwise_xor"}};
  for (auto& [sym, name] : ops) {
    if (op != sym) continue;
    const OpInfo* info = findOp(name);
    if (!info) return Error(std::string("operator '") + op + "' is not available", span);
    RLX_TRY(call, buildOpCall(*info, {PyValue::ofExpr(a), PyValue::ofExpr(b)}, {}));
    call->span = span;
    return call;
  }
  return Error("operator '" + op + "' is not supported on Relax values", span);
}

// TVMScript's DLTensor properties of a Relax tensor value: `A.ndim`, `A.elem_offset`,
// `A.byte_offset`, `A.dtype.bits` (lanes, type_code), `A.shape[i]` and `A.strides[i]` are
// R.inspect.* calls (relax.Expr's Python properties). Empty when `e` is not one of them.
std::optional<Result<PyValue>> RelaxBuilder::tensorProperty(const ast::Expr* e) {
  auto relaxVar = [&](const ast::Expr* x) { return x->kind == AK::Name && !primScope_.lookup(x->str) && lookupVar(x->str); };
  auto call = [&](const char* op, const ast::Expr* tensor, const ast::Expr* axis) -> Result<PyValue> {
    RLX_TRY(x, evalExpr(tensor));
    std::vector<PyValue> args = {PyValue::ofExpr(x, tensor->span)};
    if (axis) {
      RLX_TRY(a, evalValue(axis));
      args.push_back(a);
    }
    auto r = buildOpCall(*findOp(op), std::move(args), {});
    if (!r.ok()) return r.error().at(e->span);
    Expr c = r.value();
    c->span = e->span;
    return PyValue::ofExpr(c, e->span);
  };
  if (e->kind == AK::Attribute && relaxVar(e->a)) {
    if (e->str == "ndim") return call("relax.inspect.tensor_ndim", e->a, nullptr);
    if (e->str == "elem_offset") return call("relax.inspect.tensor_elem_offset", e->a, nullptr);
    if (e->str == "byte_offset") return call("relax.inspect.tensor_byte_offset", e->a, nullptr);
  }
  if (e->kind == AK::Attribute && e->a->kind == AK::Attribute && e->a->str == "dtype" && relaxVar(e->a->a)) {
    if (e->str == "bits") return call("relax.inspect.tensor_dtype_bits", e->a->a, nullptr);
    if (e->str == "lanes") return call("relax.inspect.tensor_dtype_lanes", e->a->a, nullptr);
    if (e->str == "type_code") return call("relax.inspect.tensor_dtype_code", e->a->a, nullptr);
  }
  if (e->kind == AK::Subscript && e->items.size() == 1 && e->a->kind == AK::Attribute && relaxVar(e->a->a)) {
    if (e->a->str == "shape") return call("relax.inspect.tensor_shape_i", e->a->a, e->items[0]);
    if (e->a->str == "strides") return call("relax.inspect.tensor_stride_i", e->a->a, e->items[0]);
  }
  return std::nullopt;
}

Result<PyValue> RelaxBuilder::evalValue(const ast::Expr* e) {
  PyValue out;
  out.span = e->span;
  switch (e->kind) {
    case AK::Int: out.kind = PyValue::Int; out.i = e->i; return out;
    case AK::Float:
      if (!e->str.empty()) return Error("integer literal " + e->str + " is out of the int64 range", e->span);
      out.kind = PyValue::Float; out.d = e->d; return out;
    case AK::Bool: out.kind = PyValue::Bool; out.b = e->b; return out;
    case AK::Str: out.kind = PyValue::Str; out.s = e->str; return out;
    case AK::NoneLit: return out;
    case AK::Tuple:
    case AK::List: {
      out.kind = e->kind == AK::Tuple ? PyValue::Tuple : PyValue::List;
      for (auto* item : e->items) {
        RLX_TRY(v, evalValue(item));
        out.items.push_back(std::move(v));
      }
      return out;
    }
    case AK::Dict: {
      out.kind = PyValue::Dict;
      for (size_t i = 0; i + 1 < e->items.size(); i += 2) {
        if (e->items[i]->kind != AK::Str) return Error("dict keys must be strings", e->items[i]->span);
        RLX_TRY(v, evalValue(e->items[i + 1]));
        out.dict.emplace_back(e->items[i]->str, std::move(v));
      }
      return out;
    }
    case AK::Name: {
      if (poisoned_.count(e->str)) return Error("");  // its binding already failed and was reported
      if (auto* v = lookupVar(e->str)) return PyValue::ofExpr(*v, e->span);
      if (auto* p = primScope_.lookup(e->str)) {
        out.kind = PyValue::Prim;
        out.prim = *p;
        return out;
      }
      auto names = visibleNames();
      std::string hint = closestName(e->str, names);
      return Error("name '" + e->str + "' is not defined", e->span, hint.empty() ? "" : "did you mean '" + hint + "'?");
    }
    case AK::Attribute: {
      std::string dotted = e->dottedName();
      if (e->a->kind == AK::Name && (e->a->str == "cls" || e->a->str == className_)) {
        if (e->a->str == "cls" && !clsDefined_ && !lookupVar("cls"))
          return Error("'cls' is used before 'cls = " + className_ + "'", e->a->span);
        auto g = globals.find(e->str);
        if (g == globals.end()) {
          std::vector<std::string> names;
          for (auto& [k, v] : globals) names.push_back(k);
          std::string hint = closestName(e->str, names);
          return Error("the module has no function named '" + e->str + "'", e->span, hint.empty() ? "" : "did you mean '" + hint + "'?");
        }
        return PyValue::ofExpr(g->second, e->span);
      }
      if (dotted == "R.Object" || dotted == "R.Tensor" || dotted == "R.Shape" || dotted == "R.Tuple" || dotted == "R.Callable" || dotted == "R.Prim") {
        RLX_TRY(s, evalSInfo(e, false));
        out.kind = PyValue::SInfo;
        out.sinfo = s;
        return out;
      }
      if (auto v = tensorProperty(e)) return *v;
      return Error("unknown name '" + dotted + "'", e->span);
    }
    case AK::Subscript: {
      // metadata["relax.expr.Constant"][i]
      if (e->a->kind == AK::Subscript && e->a->a->kind == AK::Name && e->a->a->str == "metadata") {
        if (!metadata) return Error("this module refers to metadata constants but " + (metadataError.empty() ? std::string("no sidecar file was given") : metadataError), e->span);
        if (e->items.size() != 1 || e->items[0]->kind != AK::Int) return Error("expected metadata[\"relax.expr.Constant\"][index]", e->span);
        int64_t i = e->items[0]->i;
        if (i < 0 || size_t(i) >= metadata->size())
          return Error("metadata index " + std::to_string(i) + " is out of range (the sidecar holds " + std::to_string(metadata->size()) + " constants)", e->span);
        Expr c = make<Constant>((*metadata)[size_t(i)]);
        c->span = e->span;
        return PyValue::ofExpr(c, e->span);
      }
      if (auto v = tensorProperty(e)) return *v;
      if (e->items.size() != 1 || e->items[0]->kind != AK::Int) return Error("tuple indices must be integer literals", e->span);
      // `(a, b)[0]` indexes a literal: Python gives the element itself, as TVMScript does.
      if (e->a->kind == AK::Tuple || e->a->kind == AK::List) {
        int64_t n = int64_t(e->a->items.size()), k = e->items[0]->i < 0 ? e->items[0]->i + n : e->items[0]->i;
        if (k < 0 || k >= n) return Error("tuple index " + std::to_string(e->items[0]->i) + " is out of range for " + std::to_string(n) + " elements", e->items[0]->span);
        return evalValue(e->a->items[size_t(k)]);
      }
      RLX_TRY(base, evalExpr(e->a));
      int64_t idx = e->items[0]->i;
      auto ts = sinfoOf(base).as<TupleSInfo>();
      if (!ts) return Error("only tuples can be indexed in Relax", e->span);
      if (idx < 0) idx += int64_t(ts->fields.size());
      Expr g = make<TupleGetItem>(base, int(idx));
      g->span = e->span;
      // Chains t[0][1] bind each level, as TVM's parser does.
      RLX_TRY(n, bb_.normalize(g));
      return PyValue::ofExpr(n, e->span);
    }
    case AK::BinOp: {
      RLX_TRY(a, evalValue(e->a));
      RLX_TRY(b, evalValue(e->b2));
      bool aRelax = a.kind == PyValue::Expr, bRelax = b.kind == PyValue::Expr;
      if (aRelax || bRelax) {
        RLX_TRY(ea, toExpr(a, e->a->span));
        RLX_TRY(eb, toExpr(b, e->b2->span));
        RLX_TRY(r, relaxBinary(e->str, ea, eb, e->span));
        return PyValue::ofExpr(r, e->span);
      }
      if (a.kind == PyValue::Int && b.kind == PyValue::Int && (e->str == "+" || e->str == "-" || e->str == "*")) {
        out.kind = PyValue::Int;
        out.i = e->str == "+" ? a.i + b.i : e->str == "-" ? a.i - b.i : a.i * b.i;
        return out;
      }
      RLX_TRY(p, evalPrimValue(e));
      out.kind = PyValue::Prim;
      out.prim = p;
      return out;
    }
    case AK::UnaryOp: {
      RLX_TRY(a, evalValue(e->a));
      if (e->str == "-" && a.kind == PyValue::Int) { a.i = -a.i; return a; }
      if (e->str == "-" && a.kind == PyValue::Float) { a.d = -a.d; return a; }
      if (a.kind == PyValue::Expr) {
        const char* op = e->str == "-" ? "relax.negative" : e->str == "not" ? "relax.logical_not" : e->str == "~" ? "relax.bitwise_not" : nullptr;
        if (!op || !findOp(op)) return Error("unsupported unary operator '" + e->str + "' on a Relax value", e->span);
        RLX_TRY(call, buildOpCall(*findOp(op), {a}, {}));
        return PyValue::ofExpr(call, e->span);
      }
      RLX_TRY(p, evalPrimValue(e));
      out.kind = PyValue::Prim;
      out.prim = p;
      return out;
    }
    case AK::Compare: {
      if (e->items.size() == 2) {
        RLX_TRY(a, evalValue(e->items[0]));
        RLX_TRY(b, evalValue(e->items[1]));
        if (a.kind == PyValue::Expr || b.kind == PyValue::Expr) {
          RLX_TRY(ea, toExpr(a, e->items[0]->span));
          RLX_TRY(eb, toExpr(b, e->items[1]->span));
          RLX_TRY(r, relaxBinary(e->ops[0], ea, eb, e->span));
          return PyValue::ofExpr(r, e->span);
        }
      }
      RLX_TRY(p, evalPrimValue(e));
      out.kind = PyValue::Prim;
      out.prim = p;
      return out;
    }
    case AK::Call: return evalCall(e);
    case AK::Lambda: return evalIndexMap(e, DataType::int64());
    default: return Error("unsupported expression", e->span);
  }
}

}  // namespace rlx
