// Layout strings and the layout algebra behind ConvertLayout (see layout.h). Decisions are layouts
// over the letters A, B, C… that name a value's original dims, so one parser serves both.
#include "passes/layout.h"

#include <algorithm>
#include <cctype>

#include "ir/arith.h"

namespace rlx::layout {

std::optional<std::vector<Axis>> parse(const std::string& s) {
  std::vector<Axis> axes;
  int64_t factor = 0;
  for (char ch : s) {
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      factor = factor * 10 + (ch - '0');
      if (factor > (int64_t(1) << 31)) return std::nullopt;
    } else if (std::isupper(static_cast<unsigned char>(ch))) {
      if (factor != 0) return std::nullopt;
      for (auto& a : axes)
        if (a.letter == ch) return std::nullopt;
      axes.push_back({ch, 0});
    } else if (std::islower(static_cast<unsigned char>(ch))) {
      if (factor <= 0) return std::nullopt;
      axes.push_back({ch, factor});
      factor = 0;
    } else {
      return std::nullopt;
    }
  }
  if (factor != 0) return std::nullopt;
  // A sub axis splits its primal: the primal must be there too.
  for (auto& a : axes)
    if (!a.primal() && std::find_if(axes.begin(), axes.end(), [&](const Axis& b) { return b.primal() && b.letter == std::toupper(a.letter); }) == axes.end())
      return std::nullopt;
  return axes;
}

int ndim(const std::string& s) {
  auto a = parse(s);
  return a ? int(a->size()) : -1;
}

int ndimPrimal(const std::string& s) { return int(std::count_if(s.begin(), s.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); })); }

bool isSubIndexed(const std::string& s) { return std::any_of(s.begin(), s.end(), [](char c) { return std::islower(static_cast<unsigned char>(c)); }); }

std::string initial(int rank) {
  std::string s;
  for (int i = 0; i < rank; ++i) s += char('A' + i);
  return s;
}

int indexOf(const std::string& s, char c) {
  auto axes = parse(s);
  if (!axes) return -1;
  for (size_t i = 0; i < axes->size(); ++i)
    if ((*axes)[i].letter == c) return int(i);
  return -1;
}

std::string transposeLike(const std::string& input, const std::string& src, const std::string& dst) {
  std::string out;
  for (char d : dst) {
    auto k = src.find(d);
    out += k == std::string::npos || k >= input.size() ? '?' : input[k];
  }
  return out;
}

std::string transposeSubLayoutLike(const std::string& ref, const std::string& src, const std::string& desired) {
  std::string out;
  for (char d : desired) {
    if (std::isdigit(static_cast<unsigned char>(d))) {
      out += d;
      continue;
    }
    bool lower = std::islower(static_cast<unsigned char>(d));
    auto k = src.find(char(std::toupper(static_cast<unsigned char>(d))));
    char r = k == std::string::npos || k >= ref.size() ? '?' : ref[k];
    out += lower ? char(std::tolower(static_cast<unsigned char>(r))) : r;
  }
  return out;
}

int findAxis(const std::string& l, int64_t axis) {
  int n = ndim(l);
  if (n <= 0) return -1;
  axis = ((axis % n) + n) % n;
  std::string letters;
  for (char c : l)
    if (!std::isdigit(static_cast<unsigned char>(c))) letters += c;
  auto k = letters.find(char('A' + axis));
  return k == std::string::npos ? -1 : int(k);
}

std::string followDecision(const std::string& l, int n) {
  int r = ndim(l);
  if (r < 0 || r >= n) return l;
  int shift = n - r;
  std::string out = initial(shift);
  for (char c : l) {
    if (std::isupper(static_cast<unsigned char>(c))) out += char(c + shift);
    else if (std::islower(static_cast<unsigned char>(c))) out += char(c + shift);
    else out += c;
  }
  return out;
}

namespace {

// The product of the sub-axis extents of primal `p` (1 when it is not split).
int64_t factorOf(const std::vector<Axis>& axes, char p) {
  int64_t f = 1;
  for (auto& a : axes)
    if (!a.primal() && std::toupper(a.letter) == p) f *= a.factor;
  return f;
}

bool sameLetters(const std::vector<Axis>& a, const std::vector<Axis>& b) {
  std::string x, y;
  for (auto& ax : a)
    if (ax.primal()) x += ax.letter;
  for (auto& ax : b)
    if (ax.primal()) y += ax.letter;
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  return x == y;
}

// Extents of each axis of `to` given the per-primal totals (ceil division for a split primal).
std::vector<std::optional<int64_t>> shapeFor(const std::vector<Axis>& to, const std::vector<std::pair<char, std::optional<int64_t>>>& totals) {
  std::vector<std::optional<int64_t>> out;
  for (auto& a : to) {
    if (!a.primal()) {
      out.push_back(a.factor);
      continue;
    }
    std::optional<int64_t> total;
    for (auto& [c, t] : totals)
      if (c == a.letter) total = t;
    int64_t f = factorOf(to, a.letter);
    out.push_back(total ? std::optional<int64_t>((*total + f - 1) / f) : std::nullopt);
  }
  return out;
}

std::vector<std::pair<char, std::optional<int64_t>>> totalsOf(const std::vector<Axis>& axes, const std::vector<std::optional<int64_t>>& shape) {
  std::vector<std::pair<char, std::optional<int64_t>>> totals;
  for (auto& a : axes)
    if (a.primal()) totals.push_back({a.letter, int64_t(1)});
  for (size_t i = 0; i < axes.size(); ++i)
    for (auto& [c, t] : totals)
      if (c == std::toupper(axes[i].letter)) t = t && shape[i] ? std::optional<int64_t>(*t * *shape[i]) : std::nullopt;
  return totals;
}

}  // namespace

bool canProveTransform(const std::string& src, const std::string& dst, const std::vector<PrimExpr>& shape) {
  auto s = parse(src), d = parse(dst);
  if (!s || !d || !sameLetters(*s, *d) || shape.size() != s->size()) return false;
  std::vector<std::optional<int64_t>> dims;
  for (auto& e : shape) dims.push_back(constInt(e));
  auto fwd = shapeFor(*d, totalsOf(*s, dims));
  auto back = shapeFor(*s, totalsOf(*d, fwd));
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] && back[i] && *dims[i] != *back[i]) return false;
  return true;
}

std::vector<PrimExpr> indexMap(const std::string& from, const std::string& to, const std::vector<PrimExpr>& vars) {
  auto f = parse(from), t = parse(to);
  std::vector<PrimExpr> out;
  if (!f || !t || vars.size() != f->size()) return out;
  DataType dt = vars.empty() ? DataType::int32() : vars[0]->dtype;
  auto imm = [&](int64_t v) { return intImm(v, dt); };
  for (size_t k = 0; k < t->size(); ++k) {
    char T = char(std::toupper((*t)[k].letter));
    // The flat index of primal T, from every axis of `from` that holds part of it; the terms
    // that carry a coefficient come first (the order TVM's simplifier prints).
    std::vector<PrimExpr> scaled, plain;
    for (size_t j = 0; j < f->size(); ++j) {
      const Axis& a = (*f)[j];
      if (std::toupper(a.letter) != T) continue;
      int64_t coef = 1;
      if (a.primal()) {
        coef = factorOf(*f, T);
      } else {
        for (size_t q = j + 1; q < f->size(); ++q)
          if (!(*f)[q].primal() && std::toupper((*f)[q].letter) == T) coef *= (*f)[q].factor;
      }
      if (coef == 1) plain.push_back(vars[j]);
      else scaled.push_back(binary(NodeKind::Mul, vars[j], imm(coef)));
    }
    PrimExpr sum;
    for (auto* group : {&scaled, &plain})
      for (auto& term : *group) sum = sum ? binary(NodeKind::Add, sum, term) : term;
    if (!sum) sum = imm(0);
    const Axis& a = (*t)[k];
    if (a.primal()) {
      int64_t ft = factorOf(*t, T);
      out.push_back(ft == 1 ? sum : binary(NodeKind::FloorDiv, sum, imm(ft)));
    } else {
      int64_t stride = 1, inner = 1;
      for (size_t q = k; q < t->size(); ++q)
        if (!(*t)[q].primal() && std::toupper((*t)[q].letter) == T) {
          stride *= (*t)[q].factor;
          if (q > k) inner *= (*t)[q].factor;
        }
      PrimExpr m = binary(NodeKind::FloorMod, sum, imm(stride));
      out.push_back(inner == 1 ? m : binary(NodeKind::FloorDiv, m, imm(inner)));
    }
  }
  return out;
}

}  // namespace rlx::layout

namespace rlx::layout {

PyValue indexMapArg(const std::string& from, const std::string& to) {
  PyValue vars, results, map;
  vars.kind = results.kind = PyValue::List;
  auto prim = [](PrimExpr e) {
    PyValue p;
    p.kind = PyValue::Prim;
    p.prim = std::move(e);
    return p;
  };
  std::vector<PrimExpr> iv;
  for (int k = 0; k < ndim(from); ++k) {
    iv.push_back(make<PrimVar>("i" + std::to_string(k), DataType::int32()));
    vars.items.push_back(prim(iv.back()));
  }
  for (auto& r : indexMap(from, to, iv)) results.items.push_back(prim(r));
  map.kind = PyValue::Ctor;
  map.s = "T.index_map";
  map.items = {vars, results};
  return map;
}

}  // namespace rlx::layout
