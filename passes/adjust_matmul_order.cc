// AdjustMatmulOrder: reassociates a chain of two matmuls, matmul(matmul(A, B), C) <->
// matmul(A, matmul(B, C)), to the order with fewer multiply-adds (TVM's relax AdjustMatmulOrder).
// Why: LoRA-style weights W = A @ B applied to a vector are far cheaper as (x @ A) @ B, and when two
// of the three operands are known at compile time, grouping them lets the product be precomputed.
// Rules, in TVM's order (an operand that is a var bound to a matmul is looked through):
//  - matmul(matmul(a, b), c), matmul(a, matmul(b, c)), and the transposed forms
//    matmul(permute_dims(matmul(b, a)), c) = matmul(matmul(a^T, b^T), c) and
//    matmul(a, permute_dims(matmul(c, b))) = matmul(a, matmul(b^T, c^T)) (permute_dims swapping the
//    last two axes only);
//  - all three operands known at compile time ("num_input" attr): no change; two of them: those two
//    are grouped;
//  - otherwise the naive costs N*M*(R+B) (left first) and R*B*(N+M) (right first) of
//    A [N, R] @ B [R, M] @ C [M, B] are compared (batch dims ignored, as TVM does) and the order
//    provably cheaper for every value of the symbolic dims (dims > 0, "tir_var_upper_bound" /
//    "tir_var_lower_bound" attrs respected) is taken; when neither is, the order stays.
// Matmuls with an explicit out_dtype are left alone (regrouping would change the intermediate dtype).
// Then unused bindings are removed. Before: `w = R.matmul(A, B); out = R.matmul(x, w)` with x [16],
// A [16, 2], B [2, 32]; After: `lv = R.matmul(x, A); out = R.matmul(lv, B)`.
#include <algorithm>
#include <map>
#include <optional>

#include <unordered_set>

#include "ir/arith.h"
#include "ir/ops/infer_util.h"
#include "ir/struct_info.h"
#include "passes/binding_rewriter.h"
#include "passes/compile_time_vars.h"
#include "passes/op_builder.h"
#include "passes/registry.h"

namespace rlx {

namespace {

using namespace build;

// ---------------------------------------------------------------- positivity of polynomials
// A polynomial with integer coefficients over symbolic shape vars; a monomial is the sorted list
// of its vars (with repetition). Enough to compare the matmul costs, which are sums of products.
using Monomial = std::vector<const PrimVar*>;
using Poly = std::map<Monomial, __int128>;

struct VarRange {
  __int128 lo = 0;
  std::optional<__int128> hi;  // inclusive
};
using Ranges = std::map<const PrimVar*, VarRange>;

void addTerm(Poly& p, const Monomial& m, __int128 c) {
  if (c == 0) return;
  __int128 sum = p[m] + c;
  if (sum == 0) p.erase(m);
  else p[m] = sum;
}

Poly polyAdd(const Poly& a, const Poly& b, __int128 sign = 1) {
  Poly out = a;
  for (auto& [m, c] : b) addTerm(out, m, sign * c);
  return out;
}

Poly polyMul(const Poly& a, const Poly& b) {
  Poly out;
  for (auto& [ma, ca] : a)
    for (auto& [mb, cb] : b) {
      Monomial m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end());
      addTerm(out, m, ca * cb);
    }
  return out;
}

Poly polyConst(__int128 c) {
  Poly p;
  addTerm(p, {}, c);
  return p;
}

// The polynomial of a shape expression built from constants, vars, +, - and *; null otherwise.
std::optional<Poly> toPoly(const PrimExpr& e) {
  if (auto i = asIntImm(e)) return polyConst(i->value);
  if (auto v = e.as<PrimVar>()) return Poly{{Monomial{v.get()}, 1}};
  auto bin = e.as<PrimBinary>();
  if (!bin) return std::nullopt;
  auto a = toPoly(bin->a), b = toPoly(bin->b);
  if (!a || !b) return std::nullopt;
  switch (e->kind()) {
    case NodeKind::Add: return polyAdd(*a, *b);
    case NodeKind::Sub: return polyAdd(*a, *b, -1);
    case NodeKind::Mul: return polyMul(*a, *b);
    default: return std::nullopt;
  }
}

// p with var v replaced by the polynomial q.
Poly substitute(const Poly& p, const PrimVar* v, const Poly& q) {
  Poly out;
  for (auto& [m, c] : p) {
    Poly term = polyConst(c);
    Monomial rest;
    for (auto* x : m) {
      if (x == v) term = polyMul(term, q);
      else rest.push_back(x);
    }
    out = polyAdd(out, polyMul(term, Poly{{rest, 1}}));
  }
  return out;
}

// Whether p > 0 (strict) or p >= 0 for every integer point of the box `ranges`. Exact for
// polynomials of degree <= 1 in each var: such a polynomial is linear along each axis, so its
// minimum over an interval sits at an end, and along an unbounded axis it stays bounded below only
// when the var's coefficient is >= 0. A var of higher degree is shifted to its lower bound and the
// proof then asks for non-negative coefficients (sufficient, not necessary).
bool provePositive(const Poly& p, const Ranges& ranges, bool strict) {
  if (p.empty()) return !strict;
  const PrimVar* v = nullptr;
  int degree = 0;
  for (auto& [m, c] : p)
    for (auto* x : m)
      if (!v || x->name < v->name || (x->name == v->name && x < v)) v = x;
  if (!v) {
    __int128 c = p.begin()->second;
    return strict ? c > 0 : c >= 0;
  }
  for (auto& [m, c] : p) degree = std::max(degree, int(std::count(m.begin(), m.end(), v)));
  VarRange r = ranges.count(v) ? ranges.at(v) : VarRange{};
  Poly atLo = substitute(p, v, polyConst(r.lo));
  if (degree == 1) {
    if (r.hi) return provePositive(atLo, ranges, strict) && provePositive(substitute(p, v, polyConst(*r.hi)), ranges, strict);
    Poly slope;  // the coefficient of v
    for (auto& [m, c] : p)
      if (std::count(m.begin(), m.end(), v)) {
        Monomial rest = m;
        rest.erase(std::find(rest.begin(), rest.end(), v));
        addTerm(slope, rest, c);
      }
    return provePositive(slope, ranges, false) && provePositive(atLo, ranges, strict);
  }
  // Degree >= 2: v = lo + t with t >= 0; every coefficient in t must be >= 0.
  Poly shifted = substitute(p, v, polyAdd(polyConst(r.lo), Poly{{Monomial{v}, 1}}));
  Ranges rest = ranges;
  rest[v] = VarRange{0, r.hi ? std::optional<__int128>(*r.hi - r.lo) : std::nullopt};
  bool constantOk = true, othersOk = true;
  std::map<int, Poly> byPower;
  for (auto& [m, c] : shifted) {
    int k = int(std::count(m.begin(), m.end(), v));
    Monomial others;
    for (auto* x : m)
      if (x != v) others.push_back(x);
    addTerm(byPower[k], others, c);
  }
  for (auto& [k, q] : byPower) {
    if (k == 0) constantOk = provePositive(q, rest, strict);
    else othersOk &= provePositive(q, rest, false);
  }
  if (!byPower.count(0)) constantOk = !strict;
  return constantOk && othersOk;
}

// The bounds a function's attrs give its symbolic vars, by name ("tir_var_upper_bound" is
// exclusive, "tir_var_lower_bound" inclusive).
std::map<std::string, VarRange> attrRanges(const Function& f) {
  std::map<std::string, VarRange> out;
  auto read = [&](const char* key, bool upper) {
    auto* a = f.attrs ? f.attrs->find(key) : nullptr;
    if (!a || !*a || (*a)->kind != AttrValue::Map) return;
    for (auto& [name, value] : (*a)->map) {
      std::optional<int64_t> b;
      if (value && value->kind == AttrValue::Int) b = value->i;
      else if (value && value->kind == AttrValue::Prim && asIntImm(value->prim)) b = asIntImm(value->prim)->value;
      if (!b) continue;
      if (upper) out[name].hi = __int128(*b) - 1;
      else out[name].lo = std::max<__int128>(out[name].lo, *b);
    }
  };
  read("tir_var_upper_bound", true);
  read("tir_var_lower_bound", false);
  return out;
}

// ---------------------------------------------------------------- the rewrite
const std::vector<PrimExpr>* shapeOf(const Expr& e) {
  auto t = sinfoOf(e).as<TensorSInfo>();
  return t ? t->dims() : nullptr;
}

bool isPlainMatmul(const Expr& e) {
  auto c = e.as<Call>();
  return c && c->opName() == "relax.matmul" && c->args.size() == 2 && ops::attrDType(*c, "out_dtype").isVoid();
}

Expr transposeLastTwo(const Expr& x, int ndim) {
  if (ndim == 2) return call("permute_dims", {e(x)});
  std::vector<int64_t> axes;
  for (int k = 0; k < ndim; ++k) axes.push_back(k);
  std::swap(axes[ndim - 1], axes[ndim - 2]);
  return call("permute_dims", {e(x), ints(axes)});
}

class MatmulOrderAdjuster : public BindingRewriter {
 public:
  explicit MatmulOrderAdjuster(const Function& f) : compileTime_(computableAtCompileTime(f)), namedRanges_(attrRanges(f)) {}

 protected:
  Expr rewriteValue(const BindingRef&, const Expr& value) override {
    if (!isPlainMatmul(value)) return nullptr;
    auto c = value.as<Call>();
    Expr lhs = boundValue(c->args[0]), rhs = boundValue(c->args[1]);
    // The alternatives in TVM's order; the first that rewrites wins.
    if (isPlainMatmul(lhs)) {
      auto inner = lhs.as<Call>();
      if (Expr r = reorder(inner->args[0], inner->args[1], c->args[1], Form::LeftFirst)) return r;
    }
    if (isPlainMatmul(rhs)) {
      auto inner = rhs.as<Call>();
      if (Expr r = reorder(c->args[0], inner->args[0], inner->args[1], Form::RightFirst)) return r;
    }
    if (auto p = lhs.as<Call>(); p && ops::swapsLastTwoAxes(*p) && isPlainMatmul(boundValue(p->args[0]))) {
      auto inner = boundValue(p->args[0]).as<Call>();  // permute_dims(matmul(b, a)) = a^T @ b^T
      if (Expr r = reorderTransposed(inner->args[1], inner->args[0], c->args[1], Form::LeftFirst)) return r;
    }
    if (auto p = rhs.as<Call>(); p && ops::swapsLastTwoAxes(*p) && isPlainMatmul(boundValue(p->args[0]))) {
      auto inner = boundValue(p->args[0]).as<Call>();  // permute_dims(matmul(c, b)) = b^T @ c^T
      if (Expr r = reorderTransposed(c->args[0], inner->args[1], inner->args[0], Form::RightFirst)) return r;
    }
    return nullptr;
  }

 private:
  enum class Form { LeftFirst, RightFirst };  // how the input groups a @ b @ c

  bool known(const Expr& x) const {
    auto v = x.as<Var>();
    return v && compileTime_.count(v.get());
  }

  // permuted form: b and c (RightFirst) or a and b (LeftFirst) are taken transposed.
  Expr reorderTransposed(const Expr& a, const Expr& b, const Expr& c, Form form) {
    auto sa = shapeOf(a), sb = shapeOf(b), sc = shapeOf(c);
    if (!sa || !sb || !sc) return nullptr;
    if (allKnown(a, b, c)) return nullptr;
    auto swapLast = [](std::vector<PrimExpr> s) {
      std::swap(s[s.size() - 1], s[s.size() - 2]);
      return s;
    };
    if (form == Form::LeftFirst) {
      if (sa->size() < 2 || sb->size() < 2) return nullptr;
      return decide(transposeLastTwo(a, int(sa->size())), transposeLastTwo(b, int(sb->size())), c, swapLast(*sa), swapLast(*sb), *sc, form, true);
    }
    if (sb->size() < 2 || sc->size() < 2) return nullptr;
    return decide(a, transposeLastTwo(b, int(sb->size())), transposeLastTwo(c, int(sc->size())), *sa, swapLast(*sb), swapLast(*sc), form, true);
  }

  Expr reorder(const Expr& a, const Expr& b, const Expr& c, Form form) {
    auto sa = shapeOf(a), sb = shapeOf(b), sc = shapeOf(c);
    if (!sa || !sb || !sc) return nullptr;
    if (allKnown(a, b, c)) return nullptr;
    return decide(a, b, c, *sa, *sb, *sc, form, false);
  }

  bool allKnown(const Expr& a, const Expr& b, const Expr& c) const { return known(a) && known(b) && known(c); }

  // Chooses the grouping of a @ b @ c. `changedOperands`: a or b or c is a new transposed
  // expression, so even the input's grouping is a rewrite.
  Expr decide(const Expr& a, const Expr& b, const Expr& c, std::vector<PrimExpr> sa, std::vector<PrimExpr> sb, std::vector<PrimExpr> sc, Form form, bool changedOperands) {
    auto leftFirst = [&] { return form == Form::LeftFirst && !changedOperands ? Expr() : call("matmul", {e(call("matmul", {e(a), e(b)})), e(c)}); };
    auto rightFirst = [&] { return form == Form::RightFirst && !changedOperands ? Expr() : call("matmul", {e(a), e(call("matmul", {e(b), e(c)}))}); };
    // Keep compile-time operands together so that their product can be precomputed.
    if (known(a) && known(b)) return leftFirst();
    if (known(b) && known(c)) return rightFirst();
    // 1-D operands as the matrices matmul treats them as.
    if (sa.size() == 1) sa = {intImm(1), sa[0]};
    if (sb.size() == 1) sb = form == Form::LeftFirst ? std::vector<PrimExpr>{sb[0], intImm(1)} : std::vector<PrimExpr>{intImm(1), sb[0]};
    if (sc.size() == 1) sc = {sc[0], intImm(1)};
    PrimExpr n = sa[sa.size() - 2], r = sa.back(), m = sc[sc.size() - 2], bl = sc.back();
    auto pn = toPoly(n), pr = toPoly(r), pm = toPoly(m), pb = toPoly(bl);
    if (!pn || !pr || !pm || !pb) return nullptr;
    Poly lhsCost = polyMul(polyAdd(*pr, *pb), polyMul(*pn, *pm));
    Poly rhsCost = polyMul(polyAdd(*pm, *pn), polyMul(*pr, *pb));
    Ranges ranges = rangesFor({n, r, m, bl});
    if (provePositive(polyAdd(rhsCost, lhsCost, -1), ranges, true)) return leftFirst();
    if (provePositive(polyAdd(lhsCost, rhsCost, -1), ranges, true)) return rightFirst();
    return nullptr;
  }

  // Every symbolic var of the four sizes: >= 1 when it is a size itself (sizes are > 0), else
  // >= 0 (shape vars are non-negative), narrowed by the function's bound attrs.
  Ranges rangesFor(const std::vector<PrimExpr>& sizes) const {
    Ranges out;
    std::vector<PrimVarRef> vars;
    for (auto& s : sizes) collectVars(s, vars);
    for (auto& v : vars) {
      VarRange r;
      for (auto& s : sizes)
        if (s.get() == v.get()) r.lo = 1;
      if (auto it = namedRanges_.find(v->name); it != namedRanges_.end()) {
        r.lo = std::max(r.lo, it->second.lo);
        r.hi = it->second.hi;
      }
      out[v.get()] = r;
    }
    return out;
  }

  std::unordered_set<const Var*> compileTime_;
  std::map<std::string, VarRange> namedRanges_;
};

}  // namespace

Result<Pass> createAdjustMatmulOrderPass(PassOptions&) {
  return makeRewriteCallPass({"AdjustMatmulOrder", 1, {}}, [](const Ref<Function>& f) -> std::unique_ptr<BindingRewriter> { return std::make_unique<MatmulOrderAdjuster>(*f); });
}

}  // namespace rlx
