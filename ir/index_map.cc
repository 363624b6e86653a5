// Index maps: reading the attribute, and the exact inverse of layout maps by mixed-radix digits.
// Each result is decomposed into digits d = (p % upper) // lower of a param p, scaled; inverting
// reads each digit back from its result and sums a param's digits.
#include "ir/index_map.h"

#include <algorithm>

#include "ir/arith.h"

namespace rlx {

std::optional<IndexMap> indexMapFromAttr(const Attr& a) {
  if (!a || (a->kind != AttrValue::Array && !(a->kind == AttrValue::Ctor && a->s == "T.index_map"))) return std::nullopt;
  if (a->array.size() != 2 || !a->array[0] || !a->array[1] || a->array[0]->kind != AttrValue::Array || a->array[1]->kind != AttrValue::Array) return std::nullopt;
  IndexMap m;
  for (auto& p : a->array[0]->array) {
    auto v = p && p->kind == AttrValue::Prim ? p->prim.as<PrimVar>() : Ref<PrimVar>();
    if (!v) return std::nullopt;
    m.params.push_back(v);
  }
  for (auto& r : a->array[1]->array) {
    if (!r || r->kind != AttrValue::Prim) return std::nullopt;
    m.results.push_back(r->prim);
  }
  return m;
}

namespace {

// (param % upper) // lower * scale; upper 0: no modulus.
struct Digit {
  size_t param;
  size_t result = 0;  // the result it is part of
  int64_t lower = 1, upper = 0, scale = 1;
};

int64_t positiveConst(const PrimExpr& e) {
  auto c = asIntImm(e);
  return c && c->value > 0 ? c->value : 0;
}

// The digits summing to e; nullopt when e is not such a sum.
std::optional<std::vector<Digit>> digitsOf(const PrimExpr& e, const IndexMap& m) {
  if (auto v = e.as<PrimVar>()) {
    for (size_t k = 0; k < m.params.size(); ++k)
      if (m.params[k].get() == v.get()) return std::vector<Digit>{Digit{k}};
    return std::nullopt;
  }
  if (auto c = e.as<Cast>()) return digitsOf(c->value, m);
  auto bin = e.as<PrimBinary>();
  if (!bin) return std::nullopt;
  if (e->kind() == NodeKind::Add) {
    auto a = digitsOf(bin->a, m), b = digitsOf(bin->b, m);
    if (!a || !b) return std::nullopt;
    a->insert(a->end(), b->begin(), b->end());
    return a;
  }
  if (e->kind() == NodeKind::Mul) {
    bool constLeft = positiveConst(bin->a) != 0;
    int64_t c = positiveConst(constLeft ? bin->a : bin->b);
    if (!c) return std::nullopt;
    auto d = digitsOf(constLeft ? bin->b : bin->a, m);
    if (!d) return std::nullopt;
    for (auto& x : *d) x.scale *= c;
    return d;
  }
  if (e->kind() != NodeKind::FloorDiv && e->kind() != NodeKind::FloorMod) return std::nullopt;
  int64_t c = positiveConst(bin->b);
  auto d = digitsOf(bin->a, m);
  if (!c || !d || d->size() != 1 || (*d)[0].scale != 1) return std::nullopt;
  Digit x = (*d)[0];
  if (e->kind() == NodeKind::FloorDiv) {
    x.lower *= c;
    if (x.upper && x.upper <= x.lower) return std::nullopt;  // always 0
    return std::vector<Digit>{x};
  }
  int64_t bound = x.lower * c;  // (p % U) // L % c == (p % min(U, L*c)) // L when one divides the other
  if (!x.upper || x.upper % bound == 0) x.upper = bound;
  else if (bound % x.upper != 0) return std::nullopt;
  return std::vector<Digit>{x};
}

}  // namespace

std::optional<IndexMapInverse> invertIndexMap(const IndexMap& map, const std::vector<PrimExpr>& inputShape, const std::vector<PrimExpr>& outputShape) {
  if (inputShape.size() != map.params.size() || outputShape.size() != map.results.size()) return std::nullopt;
  IndexMapInverse inv;
  std::vector<std::vector<std::pair<Digit, PrimExpr>>> digitsOfParam(map.params.size());  // digit, its value
  for (size_t k = 0; k < map.results.size(); ++k) {
    auto p = make<PrimVar>("i" + std::to_string(k), DataType::int64());
    inv.params.push_back(p);
    auto digits = digitsOf(map.results[k], map);
    if (!digits || digits->empty()) return std::nullopt;
    // A digit running to the end of a constant extent it divides is closed there (the w of
    // c * 4 + w over w < 4 has width 4).
    for (Digit& d : *digits) {
      auto n = constInt(inputShape[d.param]);
      if (!d.upper && n && *n % d.lower == 0) d.upper = *n;
    }
    std::sort(digits->begin(), digits->end(), [](const Digit& a, const Digit& b) { return a.scale < b.scale; });
    // The digits of one result pack without gaps: each scale is the previous scale times the
    // previous digit's width (its number of values, which only the top digit may leave open).
    int64_t next = 1;
    for (size_t j = 0; j < digits->size(); ++j) {
      Digit& d = (*digits)[j];
      d.result = k;
      bool top = j + 1 == digits->size();
      if (d.scale != next) return std::nullopt;
      PrimExpr value = d.scale == 1 ? PrimExpr(p) : floordiv(p, intImm(d.scale));
      if (!top) {
        if (!d.upper || d.upper % d.lower) return std::nullopt;
        int64_t width = d.upper / d.lower;
        value = floormod(value, intImm(width));
        next = d.scale * width;
      }
      digitsOfParam[d.param].push_back({d, value});
    }
  }
  // Each param's digits cover it exactly once, from the lowest up. The top one may be open (no
  // modulus): then it ranges over its result's extent, and indices past the param's extent are
  // padding unless the extents show there are none.
  PrimExpr padding;
  for (size_t k = 0; k < map.params.size(); ++k) {
    auto& ds = digitsOfParam[k];
    if (ds.empty()) return std::nullopt;
    std::sort(ds.begin(), ds.end(), [](auto& a, auto& b) { return a.first.lower < b.first.lower; });
    PrimExpr index;
    int64_t lower = 1;
    for (size_t j = 0; j < ds.size(); ++j) {
      const Digit& d = ds[j].first;
      if (d.lower != lower || (j + 1 < ds.size() && !d.upper)) return std::nullopt;
      lower = d.upper;
      PrimExpr term = d.lower == 1 ? ds[j].second : mul(ds[j].second, intImm(d.lower));
      index = index ? add(term, index) : term;
    }
    inv.inputIndex.push_back(index);
    const Digit& top = ds.back().first;
    auto extent = constInt(inputShape[k]);
    PrimExpr reach;  // one past the largest index the digits can express
    if (top.upper) {
      reach = intImm(top.upper);
    } else {
      const PrimExpr& e = outputShape[top.result];
      reach = mul(add(floordiv(sub(e, intImm(1, e->dtype)), intImm(top.scale, e->dtype)), intImm(1, e->dtype)), intImm(top.lower, e->dtype));
    }
    if (reach && proveEqual(reach, inputShape[k])) continue;
    auto reachValue = reach ? constInt(reach) : std::nullopt;
    if (reachValue && extent) {
      if (*reachValue < *extent) return std::nullopt;  // the digits miss indices
    } else if (top.upper) {
      return std::nullopt;  // a closed digit against an extent known only at run time
    }
    PrimExpr past = make<PrimBinary>(NodeKind::GE, DataType::boolean(), index, inputShape[k]);
    padding = padding ? PrimExpr(make<PrimBinary>(NodeKind::Or, DataType::boolean(), padding, past)) : past;
  }
  inv.padding = padding;
  return inv;
}

}  // namespace rlx
