// Legalization of einsum for any subscripts (implicit output, ellipsis, repeated letters, size-1
// broadcasting): one T_einsum block over the output labels, reducing over the contracted ones.
#include <cctype>
#include <map>

#include "ir/ops/infer_util.h"
#include "passes/legalize/legalize.h"

namespace rlx::legalize {

namespace {

using te::Indices;
using te::Tensor;

// One term of the subscripts: its letters and where its ellipsis stands among them (-1: none).
struct Term {
  std::string letters;
  int ellipsisAt = -1;
};

std::optional<Term> parseTerm(const std::string& s) {
  Term t;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 3, "...") == 0) {
      if (t.ellipsisAt >= 0) return std::nullopt;
      t.ellipsisAt = int(t.letters.size());
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(s[i]))) {
      t.letters += s[i];
    } else if (s[i] != ' ') {
      return std::nullopt;
    }
  }
  return t;
}

// Labels: 0..ne-1 for the (right-aligned, broadcast) ellipsis dims, then one per distinct letter in
// order of first appearance. dimLabels[k][d] is the label of dim d of operand k.
struct Plan {
  int ne = 0;
  std::vector<char> letterOf;  // per letter label (after the ellipsis labels)
  std::vector<std::vector<int>> dimLabels;
  std::vector<int> outLabels, sumLabels;
};

std::optional<Plan> plan(const std::string& subs, const std::vector<Tensor>& ops) {
  size_t arrow = subs.find("->");
  std::string lhs = subs.substr(0, arrow);
  std::vector<Term> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    auto t = parseTerm(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (!t) return std::nullopt;
    terms.push_back(*t);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != ops.size()) return std::nullopt;
  Plan p;
  for (size_t k = 0; k < ops.size(); ++k) {
    int extra = int(ops[k].ndim()) - int(terms[k].letters.size());
    if (extra < 0 || (terms[k].ellipsisAt < 0 && extra != 0)) return std::nullopt;
    p.ne = std::max(p.ne, extra);
  }
  std::map<char, int> id, uses;
  for (auto& t : terms)
    for (char c : t.letters) {
      if (!id.count(c)) id[c] = p.ne + int(p.letterOf.size()), p.letterOf.push_back(c);
      uses[c]++;
    }
  for (size_t k = 0; k < ops.size(); ++k) {
    int extra = int(ops[k].ndim()) - int(terms[k].letters.size());
    std::vector<int> labels;
    for (int d = 0, li = 0; d < int(ops[k].ndim()); ++d) {
      bool inEllipsis = terms[k].ellipsisAt >= 0 && d >= terms[k].ellipsisAt && d < terms[k].ellipsisAt + extra;
      labels.push_back(inEllipsis ? p.ne - extra + (d - terms[k].ellipsisAt) : id[terms[k].letters[size_t(li++)]]);
    }
    p.dimLabels.push_back(labels);
  }
  if (arrow != std::string::npos) {
    auto out = parseTerm(subs.substr(arrow + 2));
    if (!out) return std::nullopt;
    for (size_t i = 0; i <= out->letters.size(); ++i) {
      if (int(i) == out->ellipsisAt)
        for (int e = 0; e < p.ne; ++e) p.outLabels.push_back(e);
      if (i == out->letters.size()) break;
      if (!id.count(out->letters[i])) return std::nullopt;
      p.outLabels.push_back(id[out->letters[i]]);
    }
  } else {
    // numpy's implicit output: the ellipsis dims, then the letters used once, alphabetically.
    for (int e = 0; e < p.ne; ++e) p.outLabels.push_back(e);
    for (auto& [c, n] : uses)
      if (n == 1) p.outLabels.push_back(id[c]);
  }
  std::vector<bool> isOut(size_t(p.ne) + p.letterOf.size(), false);
  for (int l : p.outLabels) isOut[size_t(l)] = true;
  for (size_t l = 0; l < isOut.size(); ++l)
    if (!isOut[l]) p.sumLabels.push_back(int(l));
  return p;
}

bool isOne(const PrimExpr& e) {
  auto k = asIntImm(e);
  return k && k->value == 1;
}

std::vector<Tensor> einsum(Ctx& ctx) {
  auto tup = ctx.call.args.empty() ? nullptr : ctx.call.args[0].as<Tuple>();
  auto shape = ctx.outShape();
  if (!tup || !shape) return {};
  std::vector<Tensor> ops;
  for (auto& e : tup->fields) {
    auto t = ctx.tensor(e);
    if (!t) return {};
    ops.push_back(*t);
  }
  auto p = plan(ops::attrString(ctx.call, "subscripts"), ops);
  if (!p) return {};
  // A label's extent: the first operand dim of that label that is not a constant 1.
  std::vector<PrimExpr> extent(size_t(p->ne) + p->letterOf.size());
  for (size_t k = 0; k < ops.size(); ++k)
    for (size_t d = 0; d < ops[k].ndim(); ++d) {
      PrimExpr& e = extent[size_t(p->dimLabels[k][d])];
      if (!e || isOne(e)) e = ops[k].shape()[d];
    }
  for (auto& e : extent)
    if (!e) e = intImm(1);
  if (p->outLabels.size() != shape->size()) return {};
  std::vector<te::ReduceAxis> axes;
  for (int l : p->sumLabels) axes.push_back(ctx.kb.reduceAxis(extent[size_t(l)], l < p->ne ? "e" + std::to_string(l) : std::string(1, p->letterOf[size_t(l - p->ne)])));
  DataType t = ctx.outDtype();
  // The product of the operands at one assignment of every label.
  auto product = [&](const Indices& out, const Indices& sum) {
    std::vector<PrimExpr> var(extent.size());
    for (size_t i = 0; i < out.size(); ++i) var[size_t(p->outLabels[i])] = out[i];
    for (size_t i = 0; i < sum.size(); ++i) var[size_t(p->sumLabels[i])] = sum[i];
    PrimExpr prod;
    for (size_t k = 0; k < ops.size(); ++k) {
      Indices idx;
      for (size_t d = 0; d < ops[k].ndim(); ++d) {
        int l = p->dimLabels[k][d];
        // A size-1 dim under a longer label broadcasts.
        idx.push_back(isOne(ops[k].shape()[d]) && !isOne(extent[size_t(l)]) ? intImm(0) : var[size_t(l)]);
      }
      PrimExpr v = ops[k](idx);
      if (v->dtype != t) v = make<Cast>(t, v);
      prod = prod ? te::bin(NodeKind::Mul, prod, v) : v;
    }
    return prod;
  };
  if (axes.empty()) return {ctx.kb.compute("T_einsum", *shape, t, [&](const Indices& i) { return product(i, {}); }, "ax")};
  return {ctx.kb.reduce("T_einsum", *shape, t, axes, te::Combiner::Sum, product, "ax")};
}

}  // namespace

void registerEinsumRules() { registerRule("relax.einsum", "einsum", einsum); }

}  // namespace rlx::legalize
