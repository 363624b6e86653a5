// Index maps for passes (see index_map.h). The inverse follows TVM's two steps: read each result
// as an iterator sum over splits of the index vars (DetectIterMap: a split is
// floormod(floordiv(var, lower), extent), vars padded up to what their divisors need), then
// propagate each result back through its splits to the vars (InverseAffineIterMap).
#include "passes/index_map.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "ir/arith.h"
#include "ir/struct_info.h"
#include "printer/printer.h"

namespace rlx::index_map {

namespace {

PyValue primPy(PrimExpr p) {
  PyValue v;
  v.kind = PyValue::Prim;
  v.prim = std::move(p);
  return v;
}

// One split of an index var, times `scale`: floormod(floordiv(var, lower), extent) * scale.
struct Split {
  const PrimVar* var;
  int64_t lower;
  PrimExpr extent;
  int64_t scale;
};

// A result as an iterator sum: its splits plus a constant.
struct Sum {
  std::vector<Split> terms;
  int64_t base = 0;
};

struct VarInfo {
  PrimExpr extent;     // the box's
  int64_t factor = 1;  // lcm of divisor * lower over the var's floordiv / floormod splits
  PrimExpr padded;     // extent rounded up to a multiple of factor (== extent when it divides)
};

bool divisible(const PrimExpr& e, int64_t c) { return c == 1 || constInt(floormod(e, intImm(c, e->dtype))) == 0; }

// Rewrites results into iterator sums. Run twice: the first pass only collects each var's padding
// factor, the second splits the padded extents.
class Detector {
 public:
  std::unordered_map<const PrimVar*, VarInfo> vars;
  bool firstPass = true;
  std::string why;  // why the last result was not an iterator sum

  std::optional<Sum> rewrite(const PrimExpr& e) {
    if (auto* imm = asIntImm(e)) return Sum{{}, imm->value};
    if (auto v = e.as<PrimVar>()) {
      auto it = vars.find(v.get());
      if (it == vars.end()) return fail("it uses '" + v->name + "', which is not an index of the map");
      return Sum{{Split{v.get(), 1, firstPass ? it->second.extent : it->second.padded, 1}}, 0};
    }
    if (auto cast = e.as<Cast>()) return rewrite(cast->value);
    auto bin = e.as<PrimBinary>();
    if (!bin) return fail("only +, -, * and // and % by positive constants can be inverted");
    auto a = rewrite(bin->a);
    if (!a) return std::nullopt;
    auto b = rewrite(bin->b);
    if (!b) return std::nullopt;
    switch (e->kind()) {
      case NodeKind::Add: {
        for (auto& t : b->terms) {
          auto same = std::find_if(a->terms.begin(), a->terms.end(), [&](const Split& u) { return u.var == t.var && u.lower == t.lower && proveEqual(u.extent, t.extent); });
          if (same == a->terms.end()) a->terms.push_back(t);
          else if (__builtin_add_overflow(same->scale, t.scale, &same->scale)) return fail("a scale overflows");
        }
        if (__builtin_add_overflow(a->base, b->base, &a->base)) return fail("a constant overflows");
        return a;
      }
      case NodeKind::Sub:
        if (!b->terms.empty()) return fail("it subtracts an index");
        if (__builtin_sub_overflow(a->base, b->base, &a->base)) return fail("a constant overflows");
        return a;
      case NodeKind::Mul: {
        if (!a->terms.empty() && !b->terms.empty()) return fail("it multiplies two indices");
        if (a->terms.empty()) std::swap(a, b);
        int64_t k = b->base;
        if (k < 0) return fail("it multiplies an index by a negative constant");
        if (k == 0) return Sum{};
        for (auto& t : a->terms)
          if (__builtin_mul_overflow(t.scale, k, &t.scale)) return fail("a scale overflows");
        if (__builtin_mul_overflow(a->base, k, &a->base)) return fail("a constant overflows");
        return a;
      }
      case NodeKind::FloorDiv:
      case NodeKind::FloorMod: {
        bool mod = e->kind() == NodeKind::FloorMod;
        if (!b->terms.empty() || b->base <= 0) return fail("it divides by something other than a positive constant");
        int64_t c = b->base;
        if (a->terms.empty()) {
          PrimExpr folded = foldConstants(e->kind(), intImm(a->base), intImm(c));
          return Sum{{}, asIntImm(folded)->value};
        }
        if (a->terms.size() != 1) return fail("it divides a sum of several indices");
        return split(a->terms[0], a->base, c, mod);
      }
      default: return fail("only +, -, * and // and % by positive constants can be inverted");
    }
  }

 private:
  std::optional<Sum> fail(std::string reason) {
    why = std::move(reason);
    return std::nullopt;
  }

  // floordiv / floormod of (t + base) by c.
  std::optional<Sum> split(Split t, int64_t base, int64_t c, bool mod) {
    if (c == 1) return mod ? Sum{} : Sum{{t}, base};
    int64_t keepScale = 1;
    if (t.scale != 1) {
      if (t.scale % c == 0 && base % c == 0) {  // (x*s + b) // c = x*(s/c) + b/c; the % is 0
        if (mod) return Sum{};
        t.scale /= c;
        return Sum{{t}, base / c};
      }
      if (c % t.scale != 0 || base % t.scale != 0) return fail("a scale and a divisor do not divide each other");
      c /= t.scale;  // (x*s + b) // (c*s) = (x + b/s) // c; the % keeps the factor s
      base /= t.scale;
      if (mod) keepScale = t.scale;
      t.scale = 1;
    }
    if (base != 0) return fail("a constant is added inside // or %");
    VarInfo& info = vars[t.var];
    if (firstPass) {
      int64_t f;
      if (__builtin_mul_overflow(c, t.lower, &f)) return fail("a divisor overflows");
      int64_t g = std::gcd(info.factor, f), lcm;
      if (__builtin_mul_overflow(info.factor / g, f, &lcm)) return fail("a divisor overflows");
      info.factor = lcm;
    } else if (!divisible(t.extent, c)) {
      return fail("a split of extent " + printPrimExpr(t.extent) + " is divided by " + std::to_string(c));
    }
    if (mod) return Sum{{Split{t.var, t.lower, intImm(c), keepScale}}, 0};
    int64_t lower;
    if (__builtin_mul_overflow(t.lower, c, &lower)) return fail("a divisor overflows");
    PrimExpr extent = firstPass ? floordiv(add(t.extent, intImm(c - 1)), intImm(c)) : floordiv(t.extent, intImm(c));
    return Sum{{Split{t.var, lower, extent, 1}}, 0};
  }
};

PrimExpr constOf(int64_t v, DataType t) { return intImm(v, t); }

// `e` as dtype `t` (extents are int64; an int32 index map's expressions stay int32).
PrimExpr asType(const PrimExpr& e, DataType t) {
  if (e->dtype == t) return e;
  if (auto c = constInt(e)) return intImm(*c, t);
  return make<Cast>(t, e);
}

}  // namespace

std::optional<IndexMap> fromAttr(const Attr& a) {
  if (!a || (a->kind != AttrValue::Ctor && a->kind != AttrValue::Array) || a->array.size() != 2) return std::nullopt;
  if (a->kind == AttrValue::Ctor && a->s != "T.index_map") return std::nullopt;
  const Attr &vars = a->array[0], &results = a->array[1];
  if (!vars || !results || vars->kind != AttrValue::Array || results->kind != AttrValue::Array) return std::nullopt;
  IndexMap m;
  for (auto& v : vars->array) {
    auto p = v && v->kind == AttrValue::Prim ? v->prim.as<PrimVar>() : PrimVarRef();
    if (!p) return std::nullopt;
    m.params.push_back(p);
  }
  for (auto& r : results->array) {
    if (!r || r->kind != AttrValue::Prim) return std::nullopt;
    m.results.push_back(r->prim);
  }
  return m;
}

std::optional<IndexMap> fromPy(const PyValue& v) {
  if (v.kind != PyValue::Ctor || v.s != "T.index_map" || v.items.size() != 2) return std::nullopt;
  IndexMap m;
  for (auto& p : v.items[0].items) {
    auto var = p.kind == PyValue::Prim ? p.prim.as<PrimVar>() : PrimVarRef();
    if (!var) return std::nullopt;
    m.params.push_back(var);
  }
  for (auto& r : v.items[1].items) {
    if (r.kind != PyValue::Prim) return std::nullopt;
    m.results.push_back(r.prim);
  }
  return m;
}

PyValue toPy(const IndexMap& m) {
  PyValue vars, results, out;
  vars.kind = results.kind = PyValue::List;
  for (auto& p : m.params) vars.items.push_back(primPy(p));
  for (auto& r : m.results) results.items.push_back(primPy(r));
  out.kind = PyValue::Ctor;
  out.s = "T.index_map";
  out.items = {vars, results};
  return out;
}

IndexMap withFreshVars(const IndexMap& m) {
  IndexMap out;
  PrimVarMap sub;
  for (auto& p : m.params) {
    auto v = make<PrimVar>(p->name, p->dtype);
    sub[p.get()] = v;
    out.params.push_back(v);
  }
  for (auto& r : m.results) out.results.push_back(primSubstitute(r, sub));
  return out;
}

std::string str(const IndexMap& m) {
  std::string s = "lambda ";
  for (size_t k = 0; k < m.params.size(); ++k) s += (k ? ", " : "") + m.params[k]->name;
  s += ": (";
  for (size_t k = 0; k < m.results.size(); ++k) s += (k ? ", " : "") + printPrimExpr(m.results[k]);
  return s + (m.results.size() == 1 ? ",)" : ")");
}

Result<Inverse> inverse(const IndexMap& m, const std::vector<PrimExpr>& shape) {
  if (m.params.size() != shape.size())
    return Error("the index map " + str(m) + " takes " + std::to_string(m.params.size()) + " indices but the tensor has " + std::to_string(shape.size()) + " dimensions");
  Detector d;
  for (size_t k = 0; k < shape.size(); ++k) d.vars[m.params[k].get()] = VarInfo{asType(shape[k], DataType::int64()), 1, nullptr};
  auto notSum = [&](size_t j) {
    return Error("cannot invert the index map " + str(m) + ": its result " + printPrimExpr(m.results[j]) + " is not a sum of index splits (" + d.why + ")");
  };
  for (size_t j = 0; j < m.results.size(); ++j)
    if (!d.rewrite(m.results[j])) return notSum(j);
  bool padded = false;
  for (auto& p : m.params) {
    VarInfo& info = d.vars[p.get()];
    if (divisible(info.extent, info.factor)) {
      info.padded = info.extent;
    } else {
      int64_t f = info.factor;
      info.padded = simplify(mul(floordiv(add(info.extent, intImm(f - 1)), intImm(f)), intImm(f)));
      padded = true;
    }
  }
  d.firstPass = false;
  std::vector<Sum> sums;
  for (size_t j = 0; j < m.results.size(); ++j) {
    auto s = d.rewrite(m.results[j]);
    if (!s) return notSum(j);
    sums.push_back(std::move(*s));
  }
  // Injective: the splits of each var tile it, from lower 1 up to its padded extent.
  for (auto& p : m.params) {
    std::vector<const Split*> splits;
    for (auto& s : sums)
      for (auto& t : s.terms)
        if (t.var == p.get()) splits.push_back(&t);
    const VarInfo& info = d.vars[p.get()];
    if (splits.empty()) {
      if (constInt(info.extent) == 1) continue;
      return Error("cannot invert the index map " + str(m) + ": the index '" + p->name + "' does not reach any result");
    }
    std::stable_sort(splits.begin(), splits.end(), [](const Split* a, const Split* b) { return a->lower < b->lower; });
    int64_t expected = 1;
    for (size_t k = 0; k < splits.size(); ++k) {
      const Split& t = *splits[k];
      bool last = k + 1 == splits.size();
      auto extent = constInt(t.extent);
      if (t.lower != expected || (!last && !extent))
        return Error("cannot invert the index map " + str(m) + ": the splits of '" + p->name + "' overlap or leave gaps");
      if (!last && __builtin_mul_overflow(expected, *extent, &expected)) return Error("cannot invert the index map " + str(m) + ": an extent overflows");
      if (last && !proveEqual(mul(intImm(t.lower), t.extent), info.padded))
        return Error("cannot invert the index map " + str(m) + ": the splits of '" + p->name + "' do not cover its extent " + printPrimExpr(info.extent));
    }
  }
  // Each result fuses its splits densely: scales 1, e0, e0*e1, ... from the innermost.
  for (size_t j = 0; j < sums.size(); ++j) {
    auto& ts = sums[j].terms;
    std::stable_sort(ts.begin(), ts.end(), [](const Split& a, const Split& b) { return a.scale > b.scale; });
    int64_t expected = 1;
    for (size_t k = ts.size(); k-- > 0;) {
      if (ts[k].scale != expected) return Error("cannot invert the index map " + str(m) + ": its result " + printPrimExpr(m.results[j]) + " is not a dense fusion of index splits");
      auto extent = constInt(ts[k].extent);
      if (k > 0 && (!extent || __builtin_mul_overflow(expected, *extent, &expected)))
        return Error("cannot invert the index map " + str(m) + ": its result " + printPrimExpr(m.results[j]) + " is not a dense fusion of index splits");
    }
  }
  // Back-propagation, in TVM's order: the last result first; a sum's splits innermost first.
  Inverse out;
  out.padded = padded;
  std::vector<PrimVarRef> axes;
  for (size_t j = 0; j < m.results.size(); ++j) axes.push_back(make<PrimVar>("axis" + std::to_string(j), m.results[j]->dtype));
  std::unordered_map<const PrimVar*, PrimExpr> acc;
  for (size_t j = sums.size(); j-- > 0;) {
    DataType t = axes[j]->dtype;
    PrimExpr input = axes[j];
    if (sums[j].base != 0) input = binary(NodeKind::Sub, input, constOf(sums[j].base, t));
    auto& ts = sums[j].terms;
    for (size_t k = ts.size(); k-- > 0;) {
      PrimExpr value = input;
      if (ts.size() > 1)
        value = binary(NodeKind::FloorMod, binary(NodeKind::FloorDiv, input, constOf(ts[k].scale, t)), asType(ts[k].extent, t));
      PrimExpr part = binary(NodeKind::Mul, value, constOf(ts[k].lower, t));
      auto it = acc.find(ts[k].var);
      if (it == acc.end()) acc.emplace(ts[k].var, part);
      else it->second = binary(NodeKind::Add, it->second, part);
    }
  }
  out.map.params = axes;
  for (auto& p : m.params) {
    auto it = acc.find(p.get());
    out.map.results.push_back(it == acc.end() ? intImm(0, p->dtype) : simplify(asType(it->second, p->dtype)));
  }
  return out;
}

}  // namespace rlx::index_map
