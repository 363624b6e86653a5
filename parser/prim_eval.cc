// PrimExpr evaluation from syntax trees, shared by the Relax builder (symbolic shapes) and the
// TIR builder (kernel bodies). Literal typing and constant folding follow TVM's Python operators.
#include "parser/prim_eval.h"

#include "ir/arith.h"

#include <cmath>
#include <limits>

#include "ir/arith.h"

namespace rlx {

const PrimExpr* PrimScope::lookup(const std::string& name) const {
  for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) {
    auto f = it->vars.find(name);
    if (f != it->vars.end()) return &f->second;
  }
  return nullptr;
}

const BufferRef* PrimScope::lookupBuffer(const std::string& name) const {
  for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) {
    auto f = it->buffers.find(name);
    if (f != it->buffers.end()) return &f->second;
  }
  return nullptr;
}

std::optional<DataType> tirDtypeCallee(const std::string& dotted) {
  if (dotted.size() < 3 || dotted.compare(0, 2, "T.") != 0) return std::nullopt;
  auto t = DataType::parse(dotted.substr(2));
  if (!t || t->isVoid()) return std::nullopt;
  return t;
}

namespace {

bool isImm(const PrimExpr& e) { return e->kind() == NodeKind::IntImm || e->kind() == NodeKind::FloatImm; }
double immValue(const PrimExpr& e) {
  return e->kind() == NodeKind::IntImm ? double(static_cast<const IntImm*>(e.get())->value) : static_cast<const FloatImm*>(e.get())->value;
}
// Constant folding as TVM's Python operators do it; division by a constant zero is an error.
Result<PrimExpr> fold(NodeKind k, const PrimExpr& a, const PrimExpr& b) {
  bool division = k == NodeKind::Div || k == NodeKind::Mod || k == NodeKind::FloorDiv || k == NodeKind::FloorMod;
  if (division && a->dtype.isIntegral()) {
    if (auto* y = asIntImm(b); y && y->value == 0) return Error("division by zero");
  }
  return foldConstants(k, a, b);
}

// Converts an untyped literal to the other operand's dtype (Python int + int64 var -> int64).
PrimExpr retype(const PrimExpr& lit, DataType t) {
  if (lit->dtype == t) return lit;
  if (lit->kind() == NodeKind::IntImm) {
    int64_t v = static_cast<const IntImm*>(lit.get())->value;
    if (t.isFloat()) return floatImm(double(v), t);
    return intImm(v, t);
  }
  if (lit->kind() == NodeKind::FloatImm && t.isFloat()) return floatImm(static_cast<const FloatImm*>(lit.get())->value, t);
  return lit;
}

}  // namespace

Result<PrimExpr> applyPrimBinary(const std::string& op, PrimExpr a, PrimExpr b, Span span) {
  // Literal promotion: an immediate adopts the other side's type (int32 literal next to an int64).
  if (a->dtype != b->dtype) {
    if (isImm(b) && !(isImm(a) && a->dtype.isInt() && b->dtype.isFloat())) b = retype(b, a->dtype);
    else if (isImm(a)) a = retype(a, b->dtype);
    else if (a->dtype.isIntegral() && b->dtype.isIntegral() && a->dtype.bits != b->dtype.bits) {
      // Mixed-width ints: widen the narrower side as TVM does.
      if (a->dtype.bits < b->dtype.bits) a = make<Cast>(b->dtype, a);
      else b = make<Cast>(a->dtype, b);
    }
  }
  NodeKind k;
  if (op == "+") k = NodeKind::Add;
  else if (op == "-") k = NodeKind::Sub;
  else if (op == "*") k = NodeKind::Mul;
  else if (op == "/") {
    if (a->dtype.isIntegral() && b->dtype.isIntegral()) return Error("'/' on integers is not allowed in TIR; use '//' (floor division) or T.truncdiv", span);
    k = NodeKind::Div;
  } else if (op == "//") k = NodeKind::FloorDiv;
  else if (op == "%") k = NodeKind::FloorMod;
  else if (op == "==") k = NodeKind::EQ;
  else if (op == "!=") k = NodeKind::NE;
  else if (op == "<") k = NodeKind::LT;
  else if (op == "<=") k = NodeKind::LE;
  else if (op == ">") k = NodeKind::GT;
  else if (op == ">=") k = NodeKind::GE;
  else if (op == "and") k = NodeKind::And;
  else if (op == "or") k = NodeKind::Or;
  else if (op == "&" || op == "|" || op == "^" || op == "<<" || op == ">>") {
    static const std::pair<const char*, const char*> names[] = {{"&", "tir.bitwise_and"}, {"|", "tir.bitwise_or"}, {"^", "tir.bitwise_xor"}, {"<<", "tir.shift_left"}, {">>", "tir.shift_right"}};
    for (auto& [sym, name] : names)
      if (op == sym) return PrimExpr(make<PrimCall>(a->dtype, name, std::vector<PrimExpr>{a, b}));
    return Error("unsupported operator '" + op + "'", span);
  } else {
    return Error("operator '" + op + "' is not supported on PrimExprs", span);
  }
  auto folded = fold(k, a, b);
  if (!folded.ok()) return folded.error().at(span);
  if (folded.value()) return folded.value();
  return binary(k, a, b);
}

namespace {

struct Evaluator {
  const PrimScope& scope;
  const PrimEvalOptions& opts;

  Result<PrimExpr> eval(const ast::Expr* e) {
    using K = ast::Expr::Kind;
    switch (e->kind) {
      case K::Int: return intImm(e->i, opts.intLiteral);
      case K::Float: return floatImm(e->d, DataType::float32());
      case K::Bool: return boolImm(e->b);
      case K::Name: {
        if (auto* v = scope.lookup(e->str)) return *v;
        if (scope.lookupBuffer(e->str)) return Error("'" + e->str + "' is a buffer, not a scalar; index it (" + e->str + "[i]) to load a value", e->span);
        return Error("name '" + e->str + "' is not defined", e->span);
      }
      case K::BinOp: {
        RLX_TRY(a, eval(e->a));
        RLX_TRY(b, eval(e->b2));
        if (e->str == "**") return Error("'**' is not supported on PrimExprs; use T.pow", e->span);
        return applyPrimBinary(e->str, a, b, e->span);
      }
      case K::Compare: {
        PrimExpr acc;
        RLX_TRY(lhs, eval(e->items[0]));
        for (size_t i = 0; i < e->ops.size(); ++i) {
          RLX_TRY(rhs, eval(e->items[i + 1]));
          RLX_TRY(c, applyPrimBinary(e->ops[i], lhs, rhs, e->span));
          if (acc) {
            RLX_TRY(both, applyPrimBinary("and", acc, c, e->span));
            acc = both;
          } else {
            acc = c;
          }
          lhs = rhs;
        }
        return acc;
      }
      case K::BoolOp: {
        RLX_TRY(acc, eval(e->items[0]));
        for (size_t i = 1; i < e->items.size(); ++i) {
          RLX_TRY(x, eval(e->items[i]));
          RLX_TRY(r, applyPrimBinary(e->str, acc, x, e->span));
          acc = r;
        }
        return acc;
      }
      case K::UnaryOp: {
        RLX_TRY(x, eval(e->a));
        if (e->str == "-") {
          if (auto* i = asIntImm(x)) return intImm(-i->value, x->dtype);
          if (x->kind() == NodeKind::FloatImm) return floatImm(-static_cast<const FloatImm*>(x.get())->value, x->dtype);
          return applyPrimBinary("*", x, intImm(-1, x->dtype.isFloat() ? DataType::int32() : x->dtype), e->span);
        }
        if (e->str == "+") return x;
        if (e->str == "not") {
          if (auto* i = asIntImm(x)) return boolImm(i->value == 0);
          return PrimExpr(make<PrimNot>(x));
        }
        if (e->str == "~") return PrimExpr(make<PrimCall>(x->dtype, "tir.bitwise_not", std::vector<PrimExpr>{x}));
        return Error("unsupported unary operator '" + e->str + "'", e->span);
      }
      case K::IfExp: {
        RLX_TRY(c, eval(e->b2));
        RLX_TRY(t, eval(e->a));
        RLX_TRY(f, eval(e->c));
        return PrimExpr(make<PrimCall>(t->dtype, "tir.if_then_else", std::vector<PrimExpr>{c, t, f}));
      }
      case K::Call: return evalCall(e);
      case K::Subscript:
        if (e->a->kind == ast::Expr::Attribute) return evalBufferLayout(e);
        return evalLoad(e);
      case K::Attribute: return evalBufferAttr(e);
      default: return Error("expected a scalar (PrimExpr) expression here", e->span);
    }
  }

  // The buffer `name` of an attribute access, or an error.
  Result<const Buffer*> bufferNamed(const ast::Expr* e) {
    if (e->kind != ast::Expr::Name) return Error("expected a buffer", e->span);
    const BufferRef* buf = scope.lookupBuffer(e->str);
    if (!buf) return Error("'" + e->str + "' is not a buffer in scope", e->span);
    return buf->get();
  }

  // A.ndim, A.elem_offset, A.dtype.bits, A.dtype.lanes (TVM's Buffer properties as PrimExprs).
  Result<PrimExpr> evalBufferAttr(const ast::Expr* e) {
    const ast::Expr* base = e->a;
    bool ofDtype = base->kind == ast::Expr::Attribute && base->str == "dtype";
    RLX_TRY(b, bufferNamed(ofDtype ? base->a : base));
    if (ofDtype && e->str == "bits") return intImm(b->dtype.bits, DataType::int32());
    if (ofDtype && e->str == "lanes") return intImm(b->dtype.lanes, DataType::int32());
    if (!ofDtype && e->str == "ndim") return intImm(int64_t(b->shape.size()), DataType::int32());
    if (!ofDtype && e->str == "elem_offset") return b->elemOffset ? b->elemOffset : intImm(0, b->shape.empty() ? DataType::int32() : b->shape[0]->dtype);
    return Error("a buffer has no scalar property '" + e->str + "' (ndim, elem_offset, dtype.bits, dtype.lanes, shape[i], strides[i])", e->span);
  }

  // A.shape[i] / A.strides[i] (a compact buffer's strides are the products of the later dims).
  Result<PrimExpr> evalBufferLayout(const ast::Expr* e) {
    const ast::Expr* attr = e->a;
    if (attr->str != "shape" && attr->str != "strides") return Error("only a buffer's shape and strides can be indexed here", e->span);
    RLX_TRY(b, bufferNamed(attr->a));
    if (e->items.size() != 1) return Error("expected one index", e->span);
    RLX_TRY(k, eval(e->items[0]));
    auto* i = asIntImm(k);
    size_t n = b->shape.size();
    if (!i || i->value < -int64_t(n) || i->value >= int64_t(n)) return Error("the index must be a constant axis of the buffer's " + std::to_string(n) + " dimension(s)", e->items[0]->span);
    size_t axis = size_t(i->value < 0 ? i->value + int64_t(n) : i->value);
    if (attr->str == "shape") return b->shape[axis];
    if (!b->strides.empty()) return b->strides[axis];
    PrimExpr stride = intImm(1, b->shape[axis]->dtype);
    for (size_t d = axis + 1; d < n; ++d) stride = mul(stride, b->shape[d]);
    return simplify(stride);
  }

  Result<std::vector<PrimExpr>> evalArgs(const ast::Expr* call) {
    std::vector<PrimExpr> out;
    for (auto* a : call->items) {
      // TVMScript's op wrappers drop a `dtype=` keyword (T.exp(x, dtype="float32")).
      if (a->kind == ast::Expr::Keyword && a->str == "dtype") continue;
      if (a->kind == ast::Expr::Keyword) return Error("unexpected keyword argument '" + a->str + "'", a->span);
      RLX_TRY(v, eval(a));
      out.push_back(v);
    }
    return out;
  }

  // A buffer load `A[i, j]`, `A[()]`, `A[0:8:2]` (TIR): the name must be a buffer in scope; a slice
  // with more than one lane becomes a Ramp index, as TVM's Buffer.__getitem__ does.
  Result<PrimExpr> evalLoad(const ast::Expr* e) {
    if (e->a->kind != ast::Expr::Name) return Error("only buffers can be indexed in a scalar expression", e->span);
    const BufferRef* buf = scope.lookupBuffer(e->a->str);
    if (!buf) {
      if (scope.lookup(e->a->str)) return Error("'" + e->a->str + "' is not a buffer and cannot be indexed", e->a->span);
      return Error("name '" + e->a->str + "' is not defined", e->a->span);
    }
    std::vector<const ast::Expr*> idx(e->items.begin(), e->items.end());
    if (idx.size() == 1 && idx[0]->kind == ast::Expr::Tuple) idx.assign(idx[0]->items.begin(), idx[0]->items.end());
    const Buffer& b = **buf;
    if (idx.size() != b.shape.size())
      return Error("buffer '" + e->a->str + "' has " + std::to_string(b.shape.size()) + " dimension(s) but is indexed with " + std::to_string(idx.size()), e->span);
    std::vector<PrimExpr> indices;
    int lanes = 1;
    for (size_t i = 0; i < idx.size(); ++i) {
      const ast::Expr* x = idx[i];
      if (x->kind != ast::Expr::Slice) {
        RLX_TRY(v, eval(x));
        indices.push_back(v);
        continue;
      }
      PrimExpr start = intImm(0, DataType::int32()), stop = b.shape[i], step;
      if (x->a) {
        RLX_TRY(v, eval(x->a));
        start = v;
      }
      if (x->b2) {
        RLX_TRY(v, eval(x->b2));
        stop = v;
      }
      if (x->c) {
        RLX_TRY(v, eval(x->c));
        step = v;
      } else {
        step = intImm(1, start->dtype.isIntegral() ? start->dtype : DataType::int32());
      }
      RLX_TRY(span1, applyPrimBinary("-", stop, start, x->span));
      RLX_TRY(span2, applyPrimBinary("+", span1, step, x->span));
      RLX_TRY(span3, applyPrimBinary("-", span2, intImm(1, step->dtype), x->span));
      RLX_TRY(count, applyPrimBinary("//", span3, step, x->span));
      auto n = constInt(count);
      if (!n || *n <= 0) return Error("a slice in a buffer load needs a constant positive length", x->span);
      if (*n == 1) {
        indices.push_back(start);
      } else {
        indices.push_back(make<Ramp>(start, step, int(*n)));
        lanes = int(*n);
      }
    }
    return PrimExpr(make<BufferLoad>(b.dtype.withLanes(lanes), *buf, std::move(indices)));
  }

  // T.Let(body, where={v: value}); v is declared beforehand (`v = T.int32()`), as TVM prints it.
  Result<PrimExpr> evalLet(const ast::Expr* e) {
    const ast::Expr *body = nullptr, *where = nullptr;
    for (auto* a : e->items) {
      if (a->kind == ast::Expr::Keyword && a->str == "where") where = a->a;
      else if (a->kind != ast::Expr::Keyword && !body) body = a;
      else return Error("T.Let takes (body, where={var: value})", a->span);
    }
    if (!body || !where || where->kind != ast::Expr::Dict || where->items.size() != 2) return Error("T.Let takes (body, where={var: value})", e->span);
    RLX_TRY(var, eval(where->items[0]));
    if (var->kind() != NodeKind::PrimVar) return Error("the key of T.Let's where={...} must be a variable", where->items[0]->span);
    RLX_TRY(value, eval(where->items[1]));
    RLX_TRY(b, eval(body));
    return PrimExpr(make<PrimLet>(var.as<PrimVar>(), value, b));
  }

  Result<PrimExpr> evalCall(const ast::Expr* e) {
    std::string callee = e->a->dottedName();
    if (callee == "T.Let") return evalLet(e);
    if (callee == "T.min_value" || callee == "T.max_value") {
      // The lowest / highest finite value of a dtype, as an immediate (TVM's tir.min_value).
      if (e->items.size() != 1 || e->items[0]->kind != ast::Expr::Str) return Error(callee + " takes a dtype string such as \"float32\"", e->span);
      auto t = DataType::parse(e->items[0]->str);
      if (!t || t->lanes != 1) return Error("unknown dtype \"" + e->items[0]->str + "\"", e->items[0]->span);
      bool lowest = callee == "T.min_value";
      if (t->isFloat()) {
        double m = t->bits == 16 ? (t->code == DataType::BFloat ? 3.3895313892515355e38 : 65504.0) : t->bits == 32 ? double(std::numeric_limits<float>::max()) : std::numeric_limits<double>::max();
        return floatImm(lowest ? -m : m, *t);
      }
      if (t->isBool()) return boolImm(!lowest);
      if (t->isUInt()) return intImm(lowest ? 0 : (t->bits >= 64 ? -1 : (int64_t(1) << t->bits) - 1), *t);
      int64_t hi = t->bits >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (t->bits - 1)) - 1;
      return intImm(lowest ? -hi - 1 : hi, *t);
    }
    if (auto t = tirDtypeCallee(callee)) {
      // T.int64(3), T.float32(0.5), T.float32("inf"), T.bool(True)
      if (e->items.size() != 1) return Error("'" + callee + "(...)' takes one value here", e->span);
      auto* v = e->items[0];
      if (v->kind == ast::Expr::Str) {
        double d = v->str == "inf" ? INFINITY : v->str == "-inf" ? -INFINITY : v->str == "nan" ? NAN : 0;
        if (d == 0 && v->str != "0") return Error("expected \"inf\", \"-inf\" or \"nan\"", v->span);
        return floatImm(d, *t);
      }
      RLX_TRY(x, eval(v));
      if (t->isFloat()) {
        if (isImm(x)) {
          double d = immValue(x);
          return floatImm(d, *t);
        }
        return PrimExpr(make<Cast>(*t, x));
      }
      if (auto* i = asIntImm(x)) {
        if (t->isBool()) return boolImm(i->value != 0);
        return intImm(i->value, *t);
      }
      if (x->kind() == NodeKind::FloatImm) return intImm(int64_t(static_cast<const FloatImm*>(x.get())->value), *t);
      if (x->dtype == *t) return x;
      return PrimExpr(make<Cast>(*t, x));
    }
    static const std::pair<const char*, NodeKind> ctors[] = {
        {"T.Add", NodeKind::Add}, {"T.Sub", NodeKind::Sub}, {"T.Mul", NodeKind::Mul}, {"T.Div", NodeKind::Div},
        {"T.Mod", NodeKind::Mod}, {"T.FloorDiv", NodeKind::FloorDiv}, {"T.FloorMod", NodeKind::FloorMod},
        {"T.truncdiv", NodeKind::Div}, {"T.truncmod", NodeKind::Mod}, {"T.floordiv", NodeKind::FloorDiv}, {"T.floormod", NodeKind::FloorMod},
        {"T.Min", NodeKind::Min}, {"T.Max", NodeKind::Max}, {"T.EQ", NodeKind::EQ}, {"T.NE", NodeKind::NE},
        {"T.LT", NodeKind::LT}, {"T.LE", NodeKind::LE}, {"T.GT", NodeKind::GT}, {"T.GE", NodeKind::GE},
        {"T.And", NodeKind::And}, {"T.Or", NodeKind::Or}};
    for (auto& [name, kind] : ctors) {
      if (callee != name) continue;
      RLX_TRY(args, evalArgs(e));
      if (args.size() != 2) return Error(callee + " takes two operands", e->span);
      if (args[0]->dtype != args[1]->dtype && isImm(args[1])) args[1] = retype(args[1], args[0]->dtype);
      if (args[0]->dtype != args[1]->dtype && isImm(args[0])) args[0] = retype(args[0], args[1]->dtype);
      return binary(kind, args[0], args[1]);
    }
    if (callee == "T.max" || callee == "T.min") {
      RLX_TRY(args, evalArgs(e));
      if (args.size() != 2) return Error(callee + " takes two operands", e->span);
      if (args[0]->dtype != args[1]->dtype && isImm(args[1])) args[1] = retype(args[1], args[0]->dtype);
      if (args[0]->dtype != args[1]->dtype && isImm(args[0])) args[0] = retype(args[0], args[1]->dtype);
      NodeKind k = callee == "T.max" ? NodeKind::Max : NodeKind::Min;
      auto f = fold(k, args[0], args[1]);
      if (f.ok() && f.value()) return f.value();
      return binary(k, args[0], args[1]);
    }
    if (callee == "T.Cast") {
      if (e->items.size() != 2 || e->items[0]->kind != ast::Expr::Str) return Error("T.Cast takes a dtype string and a value", e->span);
      auto t = DataType::parse(e->items[0]->str);
      if (!t) return Error("unknown dtype \"" + e->items[0]->str + "\"", e->items[0]->span);
      RLX_TRY(x, eval(e->items[1]));
      return PrimExpr(make<Cast>(*t, x));
    }
    if (callee == "T.Select" || callee == "T.if_then_else") {
      RLX_TRY(args, evalArgs(e));
      if (args.size() != 3) return Error(callee + " takes (cond, true_value, false_value)", e->span);
      if (args[1]->dtype != args[2]->dtype && isImm(args[2])) args[2] = retype(args[2], args[1]->dtype);
      if (args[1]->dtype != args[2]->dtype && isImm(args[1])) args[1] = retype(args[1], args[2]->dtype);
      if (callee == "T.Select") return PrimExpr(make<Select>(args[0], args[1], args[2]));
      return PrimExpr(make<PrimCall>(args[1]->dtype, "tir.if_then_else", args));
    }
    if (callee == "T.Not") {
      RLX_TRY(args, evalArgs(e));
      if (args.size() != 1) return Error("T.Not takes one operand", e->span);
      return PrimExpr(make<PrimNot>(args[0]));
    }
    if (callee == "T.abs") {
      RLX_TRY(args, evalArgs(e));
      if (args.size() != 1) return Error("T.abs takes one operand", e->span);
      auto x = args[0];
      if (x->dtype.isInt()) {
        // TVM expands integer abs into a select.
        return PrimExpr(make<Select>(binary(NodeKind::GE, x, intImm(0, x->dtype)), x, binary(NodeKind::Sub, intImm(0, x->dtype), x)));
      }
      return PrimExpr(make<PrimCall>(x->dtype, "tir.fabs", args));
    }
    if (callee == "T.Broadcast" || callee == "T.Ramp") {
      RLX_TRY(args, evalArgs(e));
      size_t want = callee == "T.Broadcast" ? 2 : 3;
      if (args.size() != want) return Error(callee + " takes " + std::to_string(want) + " arguments", e->span);
      auto* lanes = asIntImm(args.back());
      if (!lanes || lanes->value <= 0) return Error("the lane count must be a positive integer", e->span);
      if (callee == "T.Broadcast") return PrimExpr(make<Broadcast>(args[0], int(lanes->value)));
      return PrimExpr(make<Ramp>(args[0], args[1], int(lanes->value)));
    }
    if (callee == "T.call_extern" || callee == "T.call_pure_extern" || callee == "T.call_intrin") {
      if (e->items.size() < 2 || e->items[0]->kind != ast::Expr::Str || e->items[1]->kind != ast::Expr::Str)
        return Error(callee + " takes a dtype string, a function name and arguments", e->span);
      auto t = DataType::parse(e->items[0]->str);
      if (!t) return Error("unknown dtype \"" + e->items[0]->str + "\"", e->items[0]->span);
      std::vector<PrimExpr> args{make<TirStringImm>(e->items[1]->str)};
      for (size_t i = 2; i < e->items.size(); ++i) {
        RLX_TRY(x, eval(e->items[i]));
        args.push_back(x);
      }
      return PrimExpr(make<PrimCall>(*t, "tir." + callee.substr(2), std::move(args)));
    }
    // T.reinterpret("float32", x): the bits of x read as another dtype of the same width.
    if (callee == "T.reinterpret") {
      if (e->items.size() != 2 || e->items[0]->kind != ast::Expr::Str) return Error("T.reinterpret takes a dtype string and a value", e->span);
      auto t = DataType::parse(e->items[0]->str);
      if (!t) return Error("unknown dtype \"" + e->items[0]->str + "\"", e->items[0]->span);
      RLX_TRY(x, eval(e->items[1]));
      if (t->bits * t->lanes != x->dtype.bits * x->dtype.lanes)
        return Error("T.reinterpret needs a dtype of the value's width (" + x->dtype.str() + " has " + std::to_string(x->dtype.bits) + " bits)", e->span);
      return PrimExpr(make<PrimCall>(*t, "tir.reinterpret", std::vector<PrimExpr>{x}));
    }
    // T.ret(x): a host function's result (ComputePrimValue), of x's dtype.
    if (callee == "T.ret") {
      RLX_TRY(args, evalArgs(e));
      if (args.size() != 1) return Error("T.ret takes one value", e->span);
      return PrimExpr(make<PrimCall>(args[0]->dtype, "tir.ret", args));
    }
    // Math intrinsics: T.exp(x) etc. keep the argument's dtype; predicates return bool.
    static const char* unaryMath[] = {"exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "sin", "cos", "tan", "sinh", "cosh",
                                      "asin", "acos", "atan", "asinh", "acosh", "atanh", "floor", "ceil", "round", "trunc", "fabs", "nearbyint", "clz", "popcount",
                                      "bitwise_not", "likely", "erfc", "lgamma", "exp2"};
    static const char* binaryMath[] = {"pow", "atan2", "fmod", "hypot", "copysign", "nextafter", "ldexp", "shift_left", "shift_right", "bitwise_and", "bitwise_or", "bitwise_xor"};
    static const char* predicates[] = {"isnan", "isinf", "isfinite"};
    std::string base = callee.size() > 2 && callee.compare(0, 2, "T.") == 0 ? callee.substr(2) : "";
    for (auto* m : unaryMath)
      if (base == m) {
        RLX_TRY(args, evalArgs(e));
        if (args.size() != 1) return Error(callee + " takes one argument", e->span);
        return PrimExpr(make<PrimCall>(args[0]->dtype, "tir." + base, args));
      }
    for (auto* m : binaryMath)
      if (base == m) {
        RLX_TRY(args, evalArgs(e));
        if (args.size() != 2) return Error(callee + " takes two arguments", e->span);
        if (args[0]->dtype != args[1]->dtype && isImm(args[1])) args[1] = retype(args[1], args[0]->dtype);
        return PrimExpr(make<PrimCall>(args[0]->dtype, "tir." + base, args));
      }
    for (auto* m : predicates)
      if (base == m) {
        RLX_TRY(args, evalArgs(e));
        if (args.size() != 1) return Error(callee + " takes one argument", e->span);
        return PrimExpr(make<PrimCall>(DataType::boolean(), "tir." + base, args));
      }
    // TVM's runtime builtins (packed calls, argument stacks, anylists): kept as calls, printed back
    // as written; string arguments stay strings. They return int32 (a handle for the stack makers).
    static const char* builtins[] = {"call_packed", "call_cpacked", "call_packed_lowered", "call_cpacked_lowered", "tvm_stack_make_array",
                                     "tvm_stack_make_shape", "tvm_stack_alloca", "anylist_getitem", "anylist_setitem_call_packed",
                                     "anylist_setitem_call_cpacked", "anylist_resetitem", "tvm_check_return"};
    for (auto* m : builtins)
      if (base == m) {
        std::vector<PrimExpr> args;
        for (auto* a : e->items) {
          if (a->kind == ast::Expr::Keyword) return Error("unexpected keyword argument '" + a->str + "'", a->span);
          if (a->kind == ast::Expr::Str) {
            args.push_back(make<TirStringImm>(a->str));
            continue;
          }
          RLX_TRY(v, eval(a));
          args.push_back(v);
        }
        DataType t = base.compare(0, 14, "tvm_stack_make") == 0 ? DataType::handle() : DataType::int32();
        return PrimExpr(make<PrimCall>(t, "tir." + base, std::move(args)));
      }
    if (callee.empty()) return Error("expected a scalar expression here", e->span);
    return Error("unknown function '" + callee + "' in a scalar expression", e->a->span);
  }
};

}  // namespace

Result<PrimExpr> evalPrim(const ast::Expr* e, const PrimScope& scope, const PrimEvalOptions& opts) {
  Evaluator ev{scope, opts};
  return ev.eval(e);
}

}  // namespace rlx
