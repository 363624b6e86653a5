// PrimExpr printing with Python precedence: Relax style (ints bare) and TIR style (typed literals).
// A node whose Python-operator form would constant-fold on re-parse prints as T.Add(1, 2) etc.
#include "printer/print_context.h"

namespace rlx {
namespace {

// Python precedence levels (higher binds tighter).
enum Prec { kLambda = 0, kIfExp = 1, kOr = 2, kAnd = 3, kNot = 4, kCompare = 5, kBitOr = 6, kBitXor = 7, kBitAnd = 8, kShift = 9, kArith = 10, kTerm = 11, kUnary = 12, kPow = 13, kAtom = 20 };

int precOf(NodeKind k) {
  switch (k) {
    case NodeKind::Or: return kOr;
    case NodeKind::And: return kAnd;
    case NodeKind::EQ: case NodeKind::NE: case NodeKind::LT: case NodeKind::LE: case NodeKind::GT: case NodeKind::GE: return kCompare;
    case NodeKind::Add: case NodeKind::Sub: return kArith;
    case NodeKind::Mul: case NodeKind::Div: case NodeKind::FloorDiv: case NodeKind::FloorMod: return kTerm;
    default: return kAtom;
  }
}

bool isImmediate(const PrimExpr& e) { return e->kind() == NodeKind::IntImm || e->kind() == NodeKind::FloatImm; }

struct PrimPrinter {
  PrintContext& ctx;
  PrimStyle style;

  std::string literalInt(const IntImm& i) {
    if (i.dtype.isBool()) return style == PrimStyle::Tir ? (i.value ? "T.bool(True)" : "T.bool(False)") : (i.value ? "True" : "False");
    if (style == PrimStyle::Relax || i.dtype == DataType::int32()) return std::to_string(i.value);
    return "T." + i.dtype.str() + "(" + std::to_string(i.value) + ")";
  }

  // Prints e, parenthesized if its precedence is below `minPrec`.
  std::string print(const PrimExpr& e, int minPrec = 0) {
    int p = kAtom;
    std::string s = printBare(e, p);
    if (p < minPrec) return "(" + s + ")";
    return s;
  }

  std::string call(const std::string& f, std::initializer_list<PrimExpr> args) {
    std::string s = f + "(";
    bool first = true;
    for (auto& a : args) {
      if (!first) s += ", ";
      first = false;
      s += print(a);
    }
    return s + ")";
  }

  std::string printBare(const PrimExpr& e, int& prec) {
    prec = kAtom;
    switch (e->kind()) {
      case NodeKind::IntImm: {
        auto& i = static_cast<const IntImm&>(*e);
        if (i.value < 0 && (style == PrimStyle::Relax || i.dtype == DataType::int32())) prec = kUnary;
        return literalInt(i);
      }
      case NodeKind::FloatImm: return formatTypedFloat(static_cast<const FloatImm&>(*e).value, e->dtype);
      case NodeKind::TirStringImm: return quoteString(static_cast<const TirStringImm&>(*e).value);
      case NodeKind::PrimVar: {
        auto& v = static_cast<const PrimVar&>(*e);
        return ctx.nameFor(&v, v.name);
      }
      case NodeKind::Min:
      case NodeKind::Max: {
        auto& b = static_cast<const PrimBinary&>(*e);
        return call(e->kind() == NodeKind::Min ? "T.min" : "T.max", {b.a, b.b});
      }
      case NodeKind::Div:
      case NodeKind::Mod: {
        auto& b = static_cast<const PrimBinary&>(*e);
        if (e->dtype.isIntegral() || e->kind() == NodeKind::Mod) return call(e->kind() == NodeKind::Div ? "T.Div" : "T.truncmod", {b.a, b.b});
        [[fallthrough]];
      }
      case NodeKind::Add: case NodeKind::Sub: case NodeKind::Mul: case NodeKind::FloorDiv: case NodeKind::FloorMod:
      case NodeKind::EQ: case NodeKind::NE: case NodeKind::LT: case NodeKind::LE: case NodeKind::GT: case NodeKind::GE:
      case NodeKind::And: case NodeKind::Or: {
        auto& b = static_cast<const PrimBinary&>(*e);
        // Two immediates would fold when re-parsed: print the explicit constructor instead.
        if (isImmediate(b.a) && isImmediate(b.b)) {
          static const std::pair<NodeKind, const char*> ctor[] = {{NodeKind::Add, "T.Add"}, {NodeKind::Sub, "T.Sub"}, {NodeKind::Mul, "T.Mul"}, {NodeKind::Div, "T.Div"},
                                                                  {NodeKind::FloorDiv, "T.FloorDiv"}, {NodeKind::FloorMod, "T.FloorMod"}, {NodeKind::EQ, "T.EQ"}, {NodeKind::NE, "T.NE"},
                                                                  {NodeKind::LT, "T.LT"}, {NodeKind::LE, "T.LE"}, {NodeKind::GT, "T.GT"}, {NodeKind::GE, "T.GE"},
                                                                  {NodeKind::And, "T.And"}, {NodeKind::Or, "T.Or"}};
          for (auto& [k, name] : ctor)
            if (k == e->kind()) return call(name, {b.a, b.b});
        }
        prec = precOf(e->kind());
        // Left operand: same precedence is fine (left-assoc); right operand needs strictly higher.
        int leftMin = prec, rightMin = prec + 1;
        if (prec == kCompare) leftMin = rightMin = kCompare + 1;  // Python chains comparisons
        return print(b.a, leftMin) + " " + binaryOpSymbol(e->kind()) + " " + print(b.b, rightMin);
      }
      case NodeKind::Not: {
        prec = kNot;
        return "not " + print(static_cast<const PrimNot&>(*e).a, kNot);
      }
      case NodeKind::Select: {
        auto& s = static_cast<const Select&>(*e);
        return call("T.Select", {s.cond, s.trueValue, s.falseValue});
      }
      case NodeKind::Cast: {
        auto& c = static_cast<const Cast&>(*e);
        return "T.Cast(\"" + c.dtype.str() + "\", " + print(c.value) + ")";
      }
      case NodeKind::PrimCall: {
        auto& c = static_cast<const PrimCall&>(*e);
        std::string op = c.op.compare(0, 4, "tir.") == 0 ? c.op.substr(4) : c.op;
        std::string s;
        bool typed = op == "call_extern" || op == "call_pure_extern" || op == "call_intrin" || op == "reinterpret";
        s = "T." + op + "(";
        bool first = true;
        if (typed) {
          s += "\"" + c.dtype.str() + "\"";
          first = false;
        }
        for (auto& a : c.args) {
          if (!first) s += ", ";
          first = false;
          s += print(a);
        }
        return s + ")";
      }
      case NodeKind::BufferLoad: {
        auto& l = static_cast<const BufferLoad&>(*e);
        std::string s = ctx.nameFor(l.buffer.get(), l.buffer->name) + "[";
        if (l.indices.empty()) s += "()";
        for (size_t i = 0; i < l.indices.size(); ++i) {
          if (i) s += ", ";
          auto* st = l.indices[i]->kind() == NodeKind::Ramp ? asIntImm(static_cast<const Ramp&>(*l.indices[i]).stride) : nullptr;
          if (st) {
            // A constant-stride vector index prints as base:stop(:stride), stop = base + lanes * stride
            // with constants folded as TVM's operator+ does (A[8:16], A[v:v + 8]).
            auto& r = static_cast<const Ramp&>(*l.indices[i]);
            PrimExpr span = intImm(int64_t(r.lanes) * st->value, r.stride->dtype);
            auto* b = asIntImm(r.base);
            PrimExpr stop = b ? intImm(b->value + st->value * r.lanes, r.base->dtype) : binary(NodeKind::Add, r.base, span);
            s += print(r.base) + ":" + print(stop) + (st->value == 1 ? "" : ":" + print(r.stride));
          } else {
            s += print(l.indices[i]);
          }
        }
        return s + "]";
      }
      case NodeKind::PrimLet: {
        auto& l = static_cast<const PrimLet&>(*e);
        std::string v = ctx.nameFor(l.var.get(), l.var->name);
        return "T.Let(" + print(l.body) + ", where={" + v + ": " + print(l.value) + "})";
      }
      case NodeKind::Ramp: {
        auto& r = static_cast<const Ramp&>(*e);
        return "T.Ramp(" + print(r.base) + ", " + print(r.stride) + ", " + std::to_string(r.lanes) + ")";
      }
      case NodeKind::Broadcast: {
        auto& b = static_cast<const Broadcast&>(*e);
        return "T.Broadcast(" + print(b.value) + ", " + std::to_string(b.lanes) + ")";
      }
      default:
        return "<?>";
    }
  }
};

}  // namespace

std::string PrintContext::prim(const PrimExpr& e, PrimStyle style) {
  if (style == PrimStyle::Tir) usedTIR = true;
  PrimPrinter p{*this, style};
  std::string s = p.print(e);
  // Any typed literal or T.* construct in a Relax context still needs the tir header line.
  if (!usedTIR && s.find("T.") != std::string::npos) usedTIR = true;
  return s;
}

}  // namespace rlx
