// Shape arithmetic: a canonicalizing simplifier (sums of monomials over atoms) and folding constructors.
// The output shape mirrors TVM's CanonicalSimplifier so simplified shapes print the way TVM prints them.
#include "ir/arith.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ir/tir.h"  // BufferLoad holds a Ref<Buffer>, which needs the complete type

namespace rlx {
namespace {

// ---------------------------------------------------------------- integer helpers
// Constant results wrap to the dtype width, like TVM's folding of int32 arithmetic.
int64_t wrapTo(int64_t v, DataType t) {
  if (t.isBool()) return v != 0;
  if (t.bits == 0 || t.bits >= 64) return v;
  uint64_t mask = (uint64_t(1) << t.bits) - 1;
  uint64_t u = uint64_t(v) & mask;
  if (t.code == DataType::Int && (u >> (t.bits - 1)) != 0) u |= ~mask;  // sign-extend
  return int64_t(u);
}
// Wrapping int64 arithmetic (no signed-overflow UB on huge symbolic constants).
int64_t addW(int64_t a, int64_t b) { return int64_t(uint64_t(a) + uint64_t(b)); }
int64_t mulW(int64_t a, int64_t b) { return int64_t(uint64_t(a) * uint64_t(b)); }
// Python semantics: the quotient rounds toward -inf, the remainder takes the divisor's sign.
int64_t pyFloorDiv(int64_t a, int64_t b) {
  if (b == -1) return int64_t(0 - uint64_t(a));
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t pyFloorMod(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
int64_t truncDiv(int64_t a, int64_t b) { return b == -1 ? int64_t(0 - uint64_t(a)) : a / b; }
int64_t truncMod(int64_t a, int64_t b) { return b == -1 ? 0 : a % b; }

// Integer scalars take the polynomial path; bool and floats are only folded.
bool isIndexType(DataType t) { return (t.code == DataType::Int || (t.code == DataType::UInt && t.bits > 1)) && t.lanes == 1; }
bool isArith(NodeKind k) { return k == NodeKind::Add || k == NodeKind::Sub || k == NodeKind::Mul || k == NodeKind::FloorDiv || k == NodeKind::FloorMod; }

PrimExpr mkInt(DataType t, int64_t v) { return make<IntImm>(t, wrapTo(v, t)); }
PrimExpr mkBin(NodeKind k, DataType t, PrimExpr a, PrimExpr b) { return make<PrimBinary>(k, t, std::move(a), std::move(b)); }
const PrimBinary* asBin(const PrimExpr& e) { return e && PrimBinary::classOf(e->kind()) ? static_cast<const PrimBinary*>(e.get()) : nullptr; }
const FloatImm* asFloatImm(const PrimExpr& e) { return e && e->kind() == NodeKind::FloatImm ? static_cast<const FloatImm*>(e.get()) : nullptr; }

// Rounds a folded float to its dtype's precision so `T.float32(0.1) * 3` folds like float32 math.
double roundFloat(double v, DataType t) { return t.bits == 32 ? double(float(v)) : v; }

// ---------------------------------------------------------------- structural identity
// Exact structural equality of PrimExprs (vars by identity); decides "nothing changed".
bool sameExpr(const PrimExpr& a, const PrimExpr& b) {
  if (a.get() == b.get()) return true;
  if (!a || !b || a->kind() != b->kind() || a->dtype != b->dtype) return false;
  switch (a->kind()) {
    case NodeKind::IntImm: return static_cast<const IntImm*>(a.get())->value == static_cast<const IntImm*>(b.get())->value;
    case NodeKind::FloatImm: {
      double x = static_cast<const FloatImm*>(a.get())->value, y = static_cast<const FloatImm*>(b.get())->value;
      return (x == y && std::signbit(x) == std::signbit(y)) || (std::isnan(x) && std::isnan(y));
    }
    case NodeKind::TirStringImm: return static_cast<const TirStringImm*>(a.get())->value == static_cast<const TirStringImm*>(b.get())->value;
    case NodeKind::PrimVar: return false;
    case NodeKind::Not: return sameExpr(static_cast<const PrimNot*>(a.get())->a, static_cast<const PrimNot*>(b.get())->a);
    case NodeKind::Select: {
      auto *x = static_cast<const Select*>(a.get()), *y = static_cast<const Select*>(b.get());
      return sameExpr(x->cond, y->cond) && sameExpr(x->trueValue, y->trueValue) && sameExpr(x->falseValue, y->falseValue);
    }
    case NodeKind::Cast: return sameExpr(static_cast<const Cast*>(a.get())->value, static_cast<const Cast*>(b.get())->value);
    case NodeKind::PrimCall: {
      auto *x = static_cast<const PrimCall*>(a.get()), *y = static_cast<const PrimCall*>(b.get());
      if (x->op != y->op || x->args.size() != y->args.size()) return false;
      for (size_t i = 0; i < x->args.size(); ++i)
        if (!sameExpr(x->args[i], y->args[i])) return false;
      return true;
    }
    case NodeKind::BufferLoad: {
      auto *x = static_cast<const BufferLoad*>(a.get()), *y = static_cast<const BufferLoad*>(b.get());
      if (x->buffer.get() != y->buffer.get() || x->indices.size() != y->indices.size()) return false;
      for (size_t i = 0; i < x->indices.size(); ++i)
        if (!sameExpr(x->indices[i], y->indices[i])) return false;
      return true;
    }
    case NodeKind::PrimLet: {
      auto *x = static_cast<const PrimLet*>(a.get()), *y = static_cast<const PrimLet*>(b.get());
      return x->var.get() == y->var.get() && sameExpr(x->value, y->value) && sameExpr(x->body, y->body);
    }
    case NodeKind::Ramp: {
      auto *x = static_cast<const Ramp*>(a.get()), *y = static_cast<const Ramp*>(b.get());
      return x->lanes == y->lanes && sameExpr(x->base, y->base) && sameExpr(x->stride, y->stride);
    }
    case NodeKind::Broadcast: {
      auto *x = static_cast<const Broadcast*>(a.get()), *y = static_cast<const Broadcast*>(b.get());
      return x->lanes == y->lanes && sameExpr(x->value, y->value);
    }
    default: {
      auto *x = asBin(a), *y = asBin(b);
      return x && y && sameExpr(x->a, y->a) && sameExpr(x->b, y->b);
    }
  }
}

// ---------------------------------------------------------------- polynomial form
// coef × atoms[0] × atoms[1] × ...; atoms are simplified non-polynomial expressions (vars,
// floordiv/floormod/min/max/calls, or sums kept whole as a factor). Order = print order.
struct Term {
  std::vector<PrimExpr> atoms;
  int64_t coef = 1;
};

// sum(terms) + base. Terms keep first-appearance order; fromPoly sorts them by coefficient.
struct Poly {
  DataType dtype;
  std::vector<Term> terms;
  int64_t base = 0;
  bool isConst() const { return terms.empty(); }
  bool isZero() const { return terms.empty() && base == 0; }
};

class Canon {
 public:
  explicit Canon(bool expand) : expand_(expand) {}
  PrimExpr simplify(const PrimExpr& e);
  std::vector<PrimExpr> simplifyAll(const std::vector<PrimExpr>& xs, bool& changed);
  Poly toPoly(const PrimExpr& e);
  PrimExpr fromPoly(const Poly& p);
  // a - b as a polynomial; a constant result decides comparisons and min/max.
  Poly diff(const PrimExpr& a, const PrimExpr& b) {
    Poly p = toPoly(a);
    addPoly(p, toPoly(b), -1);
    return p;
  }

 private:
  bool expand_;  // distribute products of sums (proveEqual's second try); off for printing

  bool atomEq(const PrimExpr& x, const PrimExpr& y);
  bool operandEq(const PrimExpr& x, const PrimExpr& y);
  bool sameMonomial(const Term& a, const Term& b);
  void addTerm(Poly& p, Term t);
  void addPoly(Poly& p, const Poly& q, int64_t scale);
  Term asTerm(const Poly& p);
  PrimExpr termExpr(const Term& t, int64_t coef, DataType dt);
  Poly mulPoly(Poly a, Poly b);
  Poly divPoly(const PrimExpr& e, Poly a, Poly b);
  Poly modPoly(const PrimExpr& e, Poly a, Poly b);
  std::optional<Poly> exactDivide(const Poly& a, const Poly& b);
  Poly atomPoly(PrimExpr atom, DataType dt) {
    Poly p{dt, {}, 0};
    p.terms.push_back(Term{{std::move(atom)}, 1});
    return p;
  }
  PrimExpr simplifyOther(const PrimExpr& e);
};

// Atoms match when structurally equal, or when they are the same operator over operands that are
// equal as polynomials (so floordiv(n + m, 2) merges with floordiv(m + n, 2)).
bool Canon::atomEq(const PrimExpr& x, const PrimExpr& y) {
  if (x.get() == y.get()) return true;
  if (x->kind() != y->kind() || x->dtype != y->dtype || x->kind() == NodeKind::PrimVar) return false;
  if (sameExpr(x, y)) return true;
  auto *bx = asBin(x), *by = asBin(y);
  if (!bx || !by) return false;
  if (operandEq(bx->a, by->a) && operandEq(bx->b, by->b)) return true;
  bool commutative = x->kind() == NodeKind::Min || x->kind() == NodeKind::Max || x->kind() == NodeKind::Mul || x->kind() == NodeKind::Add;
  return commutative && operandEq(bx->a, by->b) && operandEq(bx->b, by->a);
}

bool Canon::operandEq(const PrimExpr& x, const PrimExpr& y) {
  if (sameExpr(x, y)) return true;
  if (!isIndexType(x->dtype) || !isIndexType(y->dtype)) return false;
  return diff(x, y).isZero();
}

// Monomials are equal as multisets of atoms (n * m and m * n merge).
bool Canon::sameMonomial(const Term& a, const Term& b) {
  if (a.atoms.size() != b.atoms.size()) return false;
  if (a.atoms.size() == 1) return atomEq(a.atoms[0], b.atoms[0]);
  std::vector<bool> used(b.atoms.size(), false);
  for (auto& x : a.atoms) {
    bool found = false;
    for (size_t j = 0; j < b.atoms.size() && !found; ++j)
      if (!used[j] && atomEq(x, b.atoms[j])) used[j] = found = true;
    if (!found) return false;
  }
  return true;
}

void Canon::addTerm(Poly& p, Term t) {
  if (t.coef == 0) return;
  for (size_t i = 0; i < p.terms.size(); ++i) {
    if (!sameMonomial(p.terms[i], t)) continue;
    p.terms[i].coef = addW(p.terms[i].coef, t.coef);
    if (p.terms[i].coef == 0) p.terms.erase(p.terms.begin() + long(i));
    return;
  }
  p.terms.push_back(std::move(t));
}

void Canon::addPoly(Poly& p, const Poly& q, int64_t scale) {
  for (auto& t : q.terms) addTerm(p, Term{t.atoms, mulW(t.coef, scale)});
  p.base = addW(p.base, mulW(q.base, scale));
}

// A polynomial as one factor of a product: its single monomial, or the whole sum as an atom.
Term Canon::asTerm(const Poly& p) {
  if (p.terms.size() == 1 && p.base == 0) return p.terms[0];
  return Term{{fromPoly(p)}, 1};
}

Poly Canon::mulPoly(Poly a, Poly b) {
  if (a.isConst()) std::swap(a, b);
  if (b.isConst()) {  // scale by a constant
    if (b.base == 0) return Poly{a.dtype, {}, 0};
    for (auto& t : a.terms) t.coef = mulW(t.coef, b.base);
    a.base = mulW(a.base, b.base);
    return a;
  }
  if (expand_ && a.terms.size() * b.terms.size() <= 256) {  // full distribution for proofs
    Poly r{a.dtype, {}, mulW(a.base, b.base)};
    for (auto& ta : a.terms) {
      for (auto& tb : b.terms) {
        Term t{ta.atoms, mulW(ta.coef, tb.coef)};
        t.atoms.insert(t.atoms.end(), tb.atoms.begin(), tb.atoms.end());
        addTerm(r, std::move(t));
      }
      addTerm(r, Term{ta.atoms, mulW(ta.coef, b.base)});
    }
    for (auto& tb : b.terms) addTerm(r, Term{tb.atoms, mulW(tb.coef, a.base)});
    return r;
  }
  // Like TVM, a product of sums stays a product: (n + 1) * m.
  Term ta = asTerm(a), tb = asTerm(b);
  Term t{ta.atoms, mulW(ta.coef, tb.coef)};
  t.atoms.insert(t.atoms.end(), tb.atoms.begin(), tb.atoms.end());
  Poly r{a.dtype, {}, 0};
  r.terms.push_back(std::move(t));
  return r;
}

// a / b when b is one monomial dividing every term of a exactly (n * m // m = n); else nullopt.
std::optional<Poly> Canon::exactDivide(const Poly& a, const Poly& b) {
  if (b.terms.size() != 1 || b.base != 0 || a.base != 0 || a.terms.empty()) return std::nullopt;
  const Term& d = b.terms[0];
  if (d.coef == 0) return std::nullopt;
  Poly q{a.dtype, {}, 0};
  for (auto& t : a.terms) {
    if (t.coef % d.coef != 0) return std::nullopt;
    std::vector<PrimExpr> rest = t.atoms;
    for (auto& x : d.atoms) {
      auto it = std::find_if(rest.begin(), rest.end(), [&](const PrimExpr& y) { return atomEq(x, y); });
      if (it == rest.end()) return std::nullopt;
      rest.erase(it);
    }
    int64_t c = t.coef / d.coef;
    if (rest.empty()) q.base = addW(q.base, c);
    else addPoly(q, toPoly(termExpr(Term{std::move(rest), 1}, c, a.dtype)), 1);  // a lone sum factor re-expands
  }
  return q;
}

Poly Canon::divPoly(const PrimExpr& e, Poly a, Poly b) {
  DataType dt = e->dtype;
  if (b.isConst() && b.base != 0) {
    int64_t c = b.base;
    if (a.isConst()) return Poly{dt, {}, pyFloorDiv(a.base, c)};
    if (c == 1) return a;
    if (c > 0) {
      // Split into the part divisible by c and the rest: floor((c*q + r) / c) = q + floor(r / c).
      Poly q{dt, {}, 0}, rest{dt, {}, 0};
      for (auto& t : a.terms) (t.coef % c == 0 ? q : rest).terms.push_back(t);
      (a.base % c == 0 ? q.base : rest.base) = a.base;
      for (auto& t : q.terms) t.coef /= c;
      q.base /= c;
      if (rest.isConst()) {
        q.base = addW(q.base, pyFloorDiv(rest.base, c));
        return q;
      }
      PrimExpr atom;
      if (rest.terms.size() == 1 && rest.base == 0 && rest.terms[0].coef > 0 && c % rest.terms[0].coef == 0) {
        // (x * k) // c = x // (c / k); and (x // c1) // c2 = x // (c1 * c2).
        const Term& t = rest.terms[0];
        int64_t c2 = c / t.coef;
        PrimExpr x = termExpr(t, 1, dt);
        auto* inner = asBin(x);
        const IntImm* c1 = inner && inner->kind() == NodeKind::FloorDiv ? asIntImm(inner->b) : nullptr;
        if (c1 && c1->value > 0) {  // re-divide the inner dividend so the result stays canonical
          addPoly(q, divPoly(e, toPoly(inner->a), Poly{dt, {}, mulW(c1->value, c2)}), 1);
          return q;
        }
        atom = c2 == 1 ? x : mkBin(NodeKind::FloorDiv, dt, x, mkInt(dt, c2));
      } else {
        atom = mkBin(NodeKind::FloorDiv, dt, fromPoly(rest), mkInt(dt, c));
      }
      addTerm(q, Term{{atom}, 1});
      return q;
    }
  }
  if (a.isZero() && !b.isZero()) return a;
  if (!b.isConst())
    if (auto q = exactDivide(a, b)) return *q;
  return atomPoly(mkBin(NodeKind::FloorDiv, dt, fromPoly(a), fromPoly(b)), dt);
}

Poly Canon::modPoly(const PrimExpr& e, Poly a, Poly b) {
  DataType dt = e->dtype;
  if (b.isConst() && b.base != 0) {
    int64_t c = b.base;
    if (a.isConst()) return Poly{dt, {}, pyFloorMod(a.base, c)};
    if (c == 1 || c == -1) return Poly{dt, {}, 0};
    if (c > 0) {
      // Terms divisible by c vanish; the constant reduces modulo c: (x - 5) % 3 = (x + 1) % 3.
      Poly rest{dt, {}, pyFloorMod(a.base, c)};
      for (auto& t : a.terms)
        if (t.coef % c != 0) rest.terms.push_back(t);
      if (rest.isConst()) return rest;
      if (rest.terms.size() == 1 && rest.base == 0 && rest.terms[0].coef > 0 && c % rest.terms[0].coef == 0) {
        // (x * k) % c = (x % (c / k)) * k; (x % c1) % c2 = x % c2 when c2 | c1, x % c1 when c1 | c2.
        const Term& t = rest.terms[0];
        int64_t k = t.coef, c2 = c / k;
        PrimExpr x = termExpr(t, 1, dt), atom;
        auto* inner = asBin(x);
        const IntImm* c1 = inner && inner->kind() == NodeKind::FloorMod ? asIntImm(inner->b) : nullptr;
        if (c2 == 1) return Poly{dt, {}, 0};
        if (c1 && c1->value > 0 && c1->value % c2 == 0)  // reduce the inner dividend modulo c2 afresh
          return mulPoly(modPoly(e, toPoly(inner->a), Poly{dt, {}, c2}), Poly{dt, {}, k});
        if (c1 && c1->value > 0 && c2 % c1->value == 0) atom = x;
        else atom = mkBin(NodeKind::FloorMod, dt, x, mkInt(dt, c2));
        Poly r{dt, {}, 0};
        r.terms.push_back(Term{{atom}, k});
        return r;
      }
      return atomPoly(mkBin(NodeKind::FloorMod, dt, fromPoly(rest), mkInt(dt, c)), dt);
    }
  }
  if (a.isZero() && !b.isZero()) return a;
  if (!b.isConst())
    if (auto q = exactDivide(a, b)) return Poly{dt, {}, 0};
  return atomPoly(mkBin(NodeKind::FloorMod, dt, fromPoly(a), fromPoly(b)), dt);
}

Poly Canon::toPoly(const PrimExpr& e) {
  DataType dt = e->dtype;
  switch (e->kind()) {
    case NodeKind::IntImm: return Poly{dt, {}, static_cast<const IntImm*>(e.get())->value};
    case NodeKind::PrimVar: return atomPoly(e, dt);
    default: break;
  }
  if (isArith(e->kind()) && isIndexType(dt)) {
    auto* bin = static_cast<const PrimBinary*>(e.get());
    Poly a = toPoly(bin->a), b = toPoly(bin->b);
    a.dtype = b.dtype = dt;
    switch (e->kind()) {
      case NodeKind::Add: addPoly(a, b, 1); return a;
      case NodeKind::Sub: addPoly(a, b, -1); return a;
      case NodeKind::Mul: return mulPoly(std::move(a), std::move(b));
      case NodeKind::FloorDiv: return divPoly(e, std::move(a), std::move(b));
      default: return modPoly(e, std::move(a), std::move(b));
    }
  }
  PrimExpr s = simplify(e);
  if (auto* imm = asIntImm(s)) return Poly{dt, {}, imm->value};
  if (isArith(s->kind()) && isIndexType(s->dtype)) return toPoly(s);  // e.g. min(n, n + 1) -> n
  return atomPoly(s, dt);
}

PrimExpr Canon::termExpr(const Term& t, int64_t coef, DataType dt) {
  PrimExpr r = t.atoms[0];
  for (size_t i = 1; i < t.atoms.size(); ++i) r = mkBin(NodeKind::Mul, dt, r, t.atoms[i]);
  if (coef != 1) r = mkBin(NodeKind::Mul, dt, r, mkInt(dt, coef));
  return r;
}

// TVM's Normalize: positive terms by descending coefficient, then a positive constant, then the
// negative terms as subtractions, then a negative constant: n * 2 + m + 1 - k.
PrimExpr Canon::fromPoly(const Poly& p) {
  DataType dt = p.dtype;
  if (p.terms.empty()) return mkInt(dt, p.base);
  std::vector<const Term*> order;
  order.reserve(p.terms.size());
  for (auto& t : p.terms) order.push_back(&t);
  std::stable_sort(order.begin(), order.end(), [](const Term* x, const Term* y) { return x->coef > y->coef; });
  PrimExpr r;
  auto plus = [&](PrimExpr x) { r = r ? mkBin(NodeKind::Add, dt, r, std::move(x)) : std::move(x); };
  auto minus = [&](PrimExpr x) { r = mkBin(NodeKind::Sub, dt, r ? r : mkInt(dt, 0), std::move(x)); };
  bool minBase = p.base == std::numeric_limits<int64_t>::min();
  for (auto* t : order)
    if (t->coef > 0) plus(termExpr(*t, t->coef, dt));
  if (p.base > 0 || minBase) plus(mkInt(dt, p.base));
  for (auto* t : order)
    if (t->coef < 0) minus(termExpr(*t, int64_t(0 - uint64_t(t->coef)), dt));
  if (p.base < 0 && !minBase) minus(mkInt(dt, -p.base));
  return r;
}

// Simplifies each element; `changed` tells whether any element became a different node.
std::vector<PrimExpr> Canon::simplifyAll(const std::vector<PrimExpr>& xs, bool& changed) {
  std::vector<PrimExpr> out;
  out.reserve(xs.size());
  for (auto& x : xs) {
    out.push_back(simplify(x));
    changed |= out.back().get() != x.get();
  }
  return out;
}

PrimExpr Canon::simplify(const PrimExpr& e) {
  if (!e) return e;
  switch (e->kind()) {
    case NodeKind::IntImm:
    case NodeKind::FloatImm:
    case NodeKind::TirStringImm:
    case NodeKind::PrimVar: return e;
    default: break;
  }
  if (isArith(e->kind()) && isIndexType(e->dtype)) {
    PrimExpr r = fromPoly(toPoly(e));
    return sameExpr(r, e) ? e : r;
  }
  return simplifyOther(e);
}

// Folds one binary operator over two constants; null when it does not fold.
PrimExpr foldBinary(NodeKind k, DataType dt, const PrimExpr& a, const PrimExpr& b) {
  auto *ia = asIntImm(a), *ib = asIntImm(b);
  if (ia && ib) {
    int64_t x = ia->value, y = ib->value;
    switch (k) {
      case NodeKind::Add: return mkInt(dt, addW(x, y));
      case NodeKind::Sub: return mkInt(dt, int64_t(uint64_t(x) - uint64_t(y)));
      case NodeKind::Mul: return mkInt(dt, mulW(x, y));
      case NodeKind::Div: return y == 0 ? nullptr : mkInt(dt, truncDiv(x, y));
      case NodeKind::Mod: return y == 0 ? nullptr : mkInt(dt, truncMod(x, y));
      case NodeKind::FloorDiv: return y == 0 ? nullptr : mkInt(dt, pyFloorDiv(x, y));
      case NodeKind::FloorMod: return y == 0 ? nullptr : mkInt(dt, pyFloorMod(x, y));
      case NodeKind::Min: return mkInt(dt, std::min(x, y));
      case NodeKind::Max: return mkInt(dt, std::max(x, y));
      case NodeKind::EQ: return boolImm(x == y);
      case NodeKind::NE: return boolImm(x != y);
      case NodeKind::LT: return boolImm(x < y);
      case NodeKind::LE: return boolImm(x <= y);
      case NodeKind::GT: return boolImm(x > y);
      case NodeKind::GE: return boolImm(x >= y);
      case NodeKind::And: return boolImm(x && y);
      case NodeKind::Or: return boolImm(x || y);
      default: return nullptr;
    }
  }
  auto *fa = asFloatImm(a), *fb = asFloatImm(b);
  if (fa && fb) {
    double x = fa->value, y = fb->value;
    switch (k) {
      case NodeKind::Add: return make<FloatImm>(dt, roundFloat(x + y, dt));
      case NodeKind::Sub: return make<FloatImm>(dt, roundFloat(x - y, dt));
      case NodeKind::Mul: return make<FloatImm>(dt, roundFloat(x * y, dt));
      case NodeKind::Div: return make<FloatImm>(dt, roundFloat(x / y, dt));
      case NodeKind::FloorDiv: return make<FloatImm>(dt, roundFloat(std::floor(x / y), dt));
      case NodeKind::FloorMod: return y == 0 ? nullptr : make<FloatImm>(dt, roundFloat(x - std::floor(x / y) * y, dt));
      case NodeKind::Min: return make<FloatImm>(dt, std::min(x, y));
      case NodeKind::Max: return make<FloatImm>(dt, std::max(x, y));
      case NodeKind::EQ: return boolImm(x == y);
      case NodeKind::NE: return boolImm(x != y);
      case NodeKind::LT: return boolImm(x < y);
      case NodeKind::LE: return boolImm(x <= y);
      case NodeKind::GT: return boolImm(x > y);
      case NodeKind::GE: return boolImm(x >= y);
      default: return nullptr;
    }
  }
  return nullptr;
}

// Everything that is not a sum: comparisons, logic, min/max, select, casts, calls, and float
// arithmetic. Children are simplified; the node folds when the operands decide it.
PrimExpr Canon::simplifyOther(const PrimExpr& e) {
  DataType dt = e->dtype;
  if (auto* bin = asBin(e)) {
    NodeKind k = e->kind();
    PrimExpr a = simplify(bin->a), b = simplify(bin->b);
    if (PrimExpr f = foldBinary(k, dt, a, b)) return f;
    bool index = isIndexType(a->dtype) && isIndexType(b->dtype);
    auto *ia = asIntImm(a), *ib = asIntImm(b);
    switch (k) {
      case NodeKind::Min:
      case NodeKind::Max: {
        if (sameExpr(a, b)) return a;
        if (index) {
          Poly d = diff(a, b);
          if (d.isConst()) return (k == NodeKind::Min) == (d.base <= 0) ? a : b;
        }
        break;
      }
      case NodeKind::EQ: case NodeKind::NE: case NodeKind::LT:
      case NodeKind::LE: case NodeKind::GT: case NodeKind::GE: {
        if (!index) break;
        Poly d = diff(a, b);
        if (!d.isConst()) {
          // x + c1 < c2  ->  x < c2 - c1 (TVM's canonical comparison against a constant).
          auto* ab = asBin(a);
          auto* c1 = ab && (a->kind() == NodeKind::Add || a->kind() == NodeKind::Sub) ? asIntImm(ab->b) : nullptr;
          if (ib && c1) return mkBin(k, dt, ab->a, mkInt(b->dtype, ib->value - (a->kind() == NodeKind::Add ? c1->value : -c1->value)));
          break;
        }
        int64_t v = d.base;
        bool r = k == NodeKind::EQ ? v == 0 : k == NodeKind::NE ? v != 0 : k == NodeKind::LT ? v < 0 : k == NodeKind::LE ? v <= 0 : k == NodeKind::GT ? v > 0 : v >= 0;
        return boolImm(r);
      }
      case NodeKind::And:
        if (ia) return ia->value ? b : a;
        if (ib) return ib->value ? a : b;
        if (sameExpr(a, b)) return a;
        break;
      case NodeKind::Or:
        if (ia) return ia->value ? a : b;
        if (ib) return ib->value ? b : a;
        if (sameExpr(a, b)) return a;
        break;
      case NodeKind::Div:
        if (ib && ib->value == 1 && index) return a;
        break;
      case NodeKind::Mod:
        if (ib && ib->value == 1 && index) return mkInt(dt, 0);
        break;
      default: break;
    }
    if (a.get() == bin->a.get() && b.get() == bin->b.get()) return e;
    return mkBin(k, dt, a, b);
  }
  switch (e->kind()) {
    case NodeKind::Not: {
      auto* n = static_cast<const PrimNot*>(e.get());
      PrimExpr a = simplify(n->a);
      if (auto* ia = asIntImm(a)) return boolImm(ia->value == 0);
      if (a->kind() == NodeKind::Not) return static_cast<const PrimNot*>(a.get())->a;
      return a.get() == n->a.get() ? e : make<PrimNot>(a);
    }
    case NodeKind::Select: {
      auto* s = static_cast<const Select*>(e.get());
      PrimExpr c = simplify(s->cond);
      if (auto* ic = asIntImm(c)) return simplify(ic->value ? s->trueValue : s->falseValue);
      PrimExpr t = simplify(s->trueValue), f = simplify(s->falseValue);
      if (sameExpr(t, f)) return t;
      if (c.get() == s->cond.get() && t.get() == s->trueValue.get() && f.get() == s->falseValue.get()) return e;
      return make<Select>(c, t, f);
    }
    case NodeKind::Cast: {
      auto* c = static_cast<const Cast*>(e.get());
      PrimExpr v = simplify(c->value);
      if (v->dtype == dt) return v;
      if (auto* iv = asIntImm(v)) {
        if (dt.isFloat()) return make<FloatImm>(dt, roundFloat(double(iv->value), dt));
        if (dt.isIntegral() && dt.lanes == 1) return mkInt(dt, iv->value);
      }
      if (auto* fv = asFloatImm(v)) {
        if (dt.isFloat()) return make<FloatImm>(dt, roundFloat(fv->value, dt));
        if (dt.isIntegral() && dt.lanes == 1 && std::isfinite(fv->value) && std::fabs(fv->value) < 9.2e18) return mkInt(dt, int64_t(fv->value));
      }
      return v.get() == c->value.get() ? e : make<Cast>(dt, v);
    }
    case NodeKind::PrimCall: {
      auto* c = static_cast<const PrimCall*>(e.get());
      bool changed = false;
      auto args = simplifyAll(c->args, changed);
      return changed ? make<PrimCall>(dt, c->op, std::move(args)) : e;
    }
    case NodeKind::BufferLoad: {
      auto* l = static_cast<const BufferLoad*>(e.get());
      bool changed = false;
      auto idx = simplifyAll(l->indices, changed);
      return changed ? make<BufferLoad>(dt, l->buffer, std::move(idx)) : e;
    }
    case NodeKind::PrimLet: {
      auto* l = static_cast<const PrimLet*>(e.get());
      PrimExpr v = simplify(l->value), b = simplify(l->body);
      return v.get() == l->value.get() && b.get() == l->body.get() ? e : make<PrimLet>(l->var, v, b);
    }
    case NodeKind::Ramp: {
      auto* r = static_cast<const Ramp*>(e.get());
      PrimExpr b = simplify(r->base), s = simplify(r->stride);
      return b.get() == r->base.get() && s.get() == r->stride.get() ? e : make<Ramp>(b, s, r->lanes);
    }
    case NodeKind::Broadcast: {
      auto* r = static_cast<const Broadcast*>(e.get());
      PrimExpr v = simplify(r->value);
      return v.get() == r->value.get() ? e : make<Broadcast>(v, r->lanes);
    }
    default: return e;
  }
}

// Gives a lone constant operand the other operand's dtype so `1 + n` (int32 literal, int64 var)
// stays int64 like n.
void unifyConst(PrimExpr& a, PrimExpr& b) {
  if (a->dtype == b->dtype) return;
  if (auto* ia = asIntImm(a); ia && !asIntImm(b) && isIndexType(b->dtype)) a = mkInt(b->dtype, ia->value);
  else if (auto* ib = asIntImm(b); ib && !asIntImm(a) && isIndexType(a->dtype)) b = mkInt(a->dtype, ib->value);
}

// Shared body of the folding constructors: constants fold immediately, the rest is simplified.
PrimExpr foldOrSimplify(NodeKind k, PrimExpr a, PrimExpr b) {
  unifyConst(a, b);
  DataType dt = a->dtype;
  if (asIntImm(a) && asIntImm(b) && a->dtype != b->dtype && isIndexType(b->dtype) && b->dtype.bits > dt.bits) dt = b->dtype;
  if (PrimExpr f = foldBinary(k, dt, a, b)) return f;
  return Canon(false).simplify(binary(k, std::move(a), std::move(b)));
}

}  // namespace

PrimExpr simplify(const PrimExpr& e) { return Canon(false).simplify(e); }

bool proveEqual(const PrimExpr& a, const PrimExpr& b) {
  if (a.get() == b.get()) return true;
  if (!a || !b) return false;
  auto *ia = asIntImm(a), *ib = asIntImm(b);
  if (ia && ib) return ia->value == ib->value;
  // Fast paths for the shape-inference common case: distinct vars/constants differ.
  auto leaf = [](const PrimExpr& e) { return e->kind() == NodeKind::IntImm || e->kind() == NodeKind::PrimVar; };
  if (leaf(a) && leaf(b)) return false;
  if (sameExpr(a, b)) return true;
  if (!isIndexType(a->dtype) || !isIndexType(b->dtype)) return sameExpr(simplify(a), simplify(b));
  if (Canon(false).diff(a, b).isZero()) return true;
  return Canon(true).diff(a, b).isZero();  // distribute products: (n + 1) * m == n * m + m
}

std::optional<int64_t> constInt(const PrimExpr& e) {
  if (!e) return std::nullopt;
  if (auto* i = asIntImm(e)) return i->value;
  if (e->kind() == NodeKind::PrimVar) return std::nullopt;
  PrimExpr s = simplify(e);  // keep the result alive while reading it
  if (auto* i = asIntImm(s)) return i->value;
  return std::nullopt;
}

PrimExpr add(const PrimExpr& a, const PrimExpr& b) {
  auto *ia = asIntImm(a), *ib = asIntImm(b);
  if (ib && ib->value == 0 && !ia) return a;
  if (ia && ia->value == 0 && !ib) return b;
  return foldOrSimplify(NodeKind::Add, a, b);
}

PrimExpr sub(const PrimExpr& a, const PrimExpr& b) {
  auto *ia = asIntImm(a), *ib = asIntImm(b);
  if (ib && ib->value == 0 && !ia) return a;
  if (a.get() == b.get() && isIndexType(a->dtype)) return mkInt(a->dtype, 0);
  return foldOrSimplify(NodeKind::Sub, a, b);
}

PrimExpr mul(const PrimExpr& a, const PrimExpr& b) {
  auto *ia = asIntImm(a), *ib = asIntImm(b);
  if (ib && ib->value == 1 && !ia) return a;
  if (ia && ia->value == 1 && !ib) return b;
  if (ib && ib->value == 0 && isIndexType(a->dtype)) return mkInt(a->dtype, 0);
  if (ia && ia->value == 0 && isIndexType(b->dtype)) return mkInt(b->dtype, 0);
  return foldOrSimplify(NodeKind::Mul, a, b);
}

PrimExpr floordiv(const PrimExpr& a, const PrimExpr& b) {
  auto* ib = asIntImm(b);
  if (ib && ib->value == 1 && !asIntImm(a)) return a;
  return foldOrSimplify(NodeKind::FloorDiv, a, b);
}

PrimExpr floormod(const PrimExpr& a, const PrimExpr& b) {
  auto* ib = asIntImm(b);
  if (ib && ib->value == 1 && isIndexType(a->dtype)) return mkInt(a->dtype, 0);
  return foldOrSimplify(NodeKind::FloorMod, a, b);
}

PrimExpr minExpr(const PrimExpr& a, const PrimExpr& b) {
  if (a.get() == b.get()) return a;
  return foldOrSimplify(NodeKind::Min, a, b);
}

PrimExpr maxExpr(const PrimExpr& a, const PrimExpr& b) {
  if (a.get() == b.get()) return a;
  return foldOrSimplify(NodeKind::Max, a, b);
}

namespace {
void collectInto(const PrimExpr& e, std::vector<Ref<PrimVar>>& out) {
  if (!e) return;
  switch (e->kind()) {
    case NodeKind::PrimVar: {
      for (auto& v : out)
        if (v.get() == e.get()) return;
      out.push_back(e.as<PrimVar>());
      return;
    }
    case NodeKind::IntImm:
    case NodeKind::FloatImm:
    case NodeKind::TirStringImm: return;
    case NodeKind::Not: collectInto(static_cast<const PrimNot*>(e.get())->a, out); return;
    case NodeKind::Select: {
      auto* s = static_cast<const Select*>(e.get());
      collectInto(s->cond, out);
      collectInto(s->trueValue, out);
      collectInto(s->falseValue, out);
      return;
    }
    case NodeKind::Cast: collectInto(static_cast<const Cast*>(e.get())->value, out); return;
    case NodeKind::PrimCall:
      for (auto& x : static_cast<const PrimCall*>(e.get())->args) collectInto(x, out);
      return;
    case NodeKind::BufferLoad:
      for (auto& x : static_cast<const BufferLoad*>(e.get())->indices) collectInto(x, out);
      return;
    case NodeKind::PrimLet: {
      auto* l = static_cast<const PrimLet*>(e.get());
      collectInto(l->value, out);
      collectInto(l->body, out);
      return;
    }
    case NodeKind::Ramp: {
      auto* r = static_cast<const Ramp*>(e.get());
      collectInto(r->base, out);
      collectInto(r->stride, out);
      return;
    }
    case NodeKind::Broadcast: collectInto(static_cast<const Broadcast*>(e.get())->value, out); return;
    default:
      if (auto* b = asBin(e)) {
        collectInto(b->a, out);
        collectInto(b->b, out);
      }
      return;
  }
}
}  // namespace

void collectVars(const PrimExpr& e, std::vector<Ref<PrimVar>>& out) { collectInto(e, out); }

PrimExpr foldConstants(NodeKind k, const PrimExpr& a, const PrimExpr& b) {
  bool boolResult = isComparison(k) || k == NodeKind::And || k == NodeKind::Or;
  return foldBinary(k, boolResult ? DataType::boolean() : a->dtype, a, b);
}

bool proveNonNegativeShape(const PrimExpr& e) {
  if (auto* i = asIntImm(e)) return i->value >= 0;
  if (e->kind() == NodeKind::PrimVar) return e->dtype.isIntegral();
  switch (e->kind()) {
    case NodeKind::Add:
    case NodeKind::Mul:
    case NodeKind::Min:
    case NodeKind::Max: {
      auto* b = static_cast<const PrimBinary*>(e.get());
      if (e->kind() == NodeKind::Max && (proveNonNegativeShape(b->a) || proveNonNegativeShape(b->b))) return true;
      return proveNonNegativeShape(b->a) && proveNonNegativeShape(b->b);
    }
    case NodeKind::FloorDiv:
    case NodeKind::FloorMod:
    case NodeKind::Div: {
      auto* b = static_cast<const PrimBinary*>(e.get());
      auto* d = asIntImm(b->b);
      return d && d->value > 0 && (e->kind() == NodeKind::FloorMod || proveNonNegativeShape(b->a));
    }
    default: return false;
  }
}

namespace {
// True/false when the comparison follows from shape vars being non-negative, else nullopt.
std::optional<bool> decideWithShapeFacts(const PrimExpr& c) {
  auto* b = c && PrimBinary::classOf(c->kind()) ? static_cast<const PrimBinary*>(c.get()) : nullptr;
  if (!b) return std::nullopt;
  auto nonNeg = [](const PrimExpr& x, const PrimExpr& y) { return proveNonNegativeShape(simplify(sub(x, y))); };  // x >= y
  switch (c->kind()) {
    case NodeKind::LT: if (nonNeg(b->a, b->b)) return false; break;
    case NodeKind::GE: if (nonNeg(b->a, b->b)) return true; break;
    case NodeKind::LE: if (nonNeg(b->b, b->a)) return true; break;
    case NodeKind::GT: if (nonNeg(b->b, b->a)) return false; break;
    default: break;
  }
  return std::nullopt;
}

PrimExpr resolveShapeConditions(const PrimExpr& e) {
  if (!e) return e;
  if (PrimBinary::classOf(e->kind())) {
    auto* b = static_cast<const PrimBinary*>(e.get());
    PrimExpr x = resolveShapeConditions(b->a), y = resolveShapeConditions(b->b);
    return x.get() == b->a.get() && y.get() == b->b.get() ? e : PrimExpr(make<PrimBinary>(e->kind(), e->dtype, x, y));
  }
  if (auto* c = e->kind() == NodeKind::PrimCall ? static_cast<const PrimCall*>(e.get()) : nullptr; c && c->op == "tir.if_then_else" && c->args.size() == 3) {
    if (auto d = decideWithShapeFacts(simplify(c->args[0]))) return resolveShapeConditions(c->args[*d ? 1 : 2]);
  }
  if (e->kind() == NodeKind::Select) {
    auto* s = static_cast<const Select*>(e.get());
    if (auto d = decideWithShapeFacts(simplify(s->cond))) return resolveShapeConditions(*d ? s->trueValue : s->falseValue);
  }
  return e;
}
}  // namespace

PrimExpr simplifyWithShapeFacts(const PrimExpr& e) { return simplify(resolveShapeConditions(e)); }

}  // namespace rlx
