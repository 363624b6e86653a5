// Linear algebra ops: matmul (numpy semantics: 1-D promotion, batch broadcasting), einsum
// (explicit/implicit output, ellipsis) and outer.
#include <fmt/format.h>

#include <map>

#include "ir/ops/infer_util.h"

namespace rlx {
namespace {
using namespace ops;

Result<StructInfo> inferMatmul(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 2, 2));
  RLX_TRY(a, tensorArg(c, 0, "x1"));
  RLX_TRY(b, tensorArg(c, 1, "x2"));
  DataType out = attrDType(c, "out_dtype");
  if (out.isVoid()) {
    RLX_TRY(t, binaryDType(c, a->dtype, b->dtype, "x1", "x2"));
    out = t;
  }
  RLX_TRY(vdev, unifyVDevice(c, a->vdevice, b->vdevice));
  if (a->ndim < 0 || b->ndim < 0) return makeTensorNdim(out, -1, vdev);
  if (a->ndim == 0 || b->ndim == 0) return opError(c, fmt::format("both inputs need at least 1 dimension, but {} is 0-d", a->ndim == 0 ? "x1" : "x2"));
  int an = a->ndim, bn = b->ndim;
  int aPre = 0, bApp = 0;
  if (an == 1) an = 2, aPre = 1;
  if (bn == 1) bn = 2, bApp = 1;
  int outNdim = std::max(an, bn) - aPre - bApp;
  auto ad = a->dims(), bd = b->dims();
  if (!ad || !bd) return makeTensorNdim(out, outNdim, vdev);
  std::vector<PrimExpr> aPrefix(ad->begin(), ad->end() - 2 + aPre), bPrefix(bd->begin(), bd->end() - 2 + bApp);
  RLX_TRY(prefix, broadcastShapes(c, aPrefix, bPrefix, "x1", "x2"));
  if (!prefix) return makeTensorNdim(out, outNdim, vdev);
  PrimExpr ka = (*ad)[size_t(a->ndim - 1)], kb = (*bd)[size_t(bn - 2)];
  if (provablyDifferent(ka, kb)) return opError(c, fmt::format("reduction dims differ: {} vs {}", primStr(ka), primStr(kb)));
  std::vector<PrimExpr> shape = *prefix;
  if (!aPre) shape.push_back((*ad)[size_t(an - 2)]);
  if (!bApp) shape.push_back((*bd)[size_t(bn - 1)]);
  return makeTensor(shape, out, vdev);
}

Result<StructInfo> inferOuter(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 2, 2));
  RLX_TRY(a, tensorArg(c, 0, "x1"));
  RLX_TRY(b, tensorArg(c, 1, "x2"));
  if (a->ndim >= 0 && a->ndim != 1) return opError(c, fmt::format("expects x1 to be 1-D, but it has {} dimensions", a->ndim));
  if (b->ndim >= 0 && b->ndim != 1) return opError(c, fmt::format("expects x2 to be 1-D, but it has {} dimensions", b->ndim));
  RLX_TRY(out, binaryDType(c, a->dtype, b->dtype, "x1", "x2"));
  RLX_TRY(vdev, unifyVDevice(c, a->vdevice, b->vdevice));
  auto ad = a->dims(), bd = b->dims();
  if (!ad || !bd) return makeTensorNdim(out, 2, vdev);
  return makeTensor({(*ad)[0], (*bd)[0]}, out, vdev);
}

// One operand's subscript: letters, with an optional "..." standing for leading broadcast dims.
struct Term {
  std::string letters;
  int ellipsisAt = -1;  // index in letters where "..." sits
};

Result<Term> parseTerm(const Call& c, const std::string& s) {
  Term t;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 3, "...") == 0) {
      if (t.ellipsisAt >= 0) return opError(c, fmt::format("more than one ellipsis in \"{}\"", s));
      t.ellipsisAt = int(t.letters.size());
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(s[i]))) {
      t.letters += s[i];
    } else if (s[i] != ' ') {
      return opError(c, fmt::format("invalid character '{}' in subscripts", s[i]));
    }
  }
  return t;
}

Result<StructInfo> inferEinsum(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(ops, tensorTupleArg(c, 0, "operands"));
  std::string subs = attrString(c, "subscripts");
  DataType dt = DataType::void_();
  std::string vdev;
  for (auto& t : ops) {
    if (!t->dtype.isVoid() && !dt.isVoid() && t->dtype != dt) return opError(c, fmt::format("all operands must have the same dtype, but got {} and {}", dt.str(), t->dtype.str()));
    if (!t->dtype.isVoid()) dt = t->dtype;
    RLX_TRY(v, unifyVDevice(c, vdev, t->vdevice));
    vdev = v;
  }
  std::string lhs = subs, rhs;
  bool explicitOut = false;
  if (auto arrow = subs.find("->"); arrow != std::string::npos) {
    lhs = subs.substr(0, arrow);
    rhs = subs.substr(arrow + 2);
    explicitOut = true;
  }
  std::vector<Term> terms;
  size_t start = 0;
  while (true) {
    size_t comma = lhs.find(',', start);
    RLX_TRY(t, parseTerm(c, lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    terms.push_back(t);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != ops.size()) return opError(c, fmt::format("subscripts \"{}\" name {} operands but {} were given", subs, terms.size(), ops.size()));
  bool allKnown = true;
  std::map<char, PrimExpr> extent;
  std::map<char, int> count;
  std::vector<PrimExpr> ellipsis;
  bool anyEllipsis = false;
  for (size_t i = 0; i < ops.size(); ++i) {
    auto& t = terms[i];
    for (char ch : t.letters) count[ch]++;
    if (t.ellipsisAt >= 0) anyEllipsis = true;
    auto d = ops[i]->dims();
    if (!d) {
      if (ops[i]->ndim >= 0 && t.ellipsisAt < 0 && size_t(ops[i]->ndim) != t.letters.size())
        return opError(c, fmt::format("operand {} has {} dimensions but its subscript has {} letters", i, ops[i]->ndim, t.letters.size()));
      allKnown = false;
      continue;
    }
    size_t nl = t.letters.size();
    if (t.ellipsisAt < 0 ? d->size() != nl : d->size() < nl)
      return opError(c, fmt::format("operand {} has {} dimensions but its subscript has {} letters", i, d->size(), nl));
    size_t nell = d->size() - nl;
    std::vector<PrimExpr> ell;
    for (size_t k = 0, di = 0; k <= nl; ++k) {
      if (int(k) == t.ellipsisAt)
        for (size_t e = 0; e < nell; ++e) ell.push_back((*d)[di++]);
      if (k == nl) break;
      char ch = t.letters[k];
      const PrimExpr& dim = (*d)[di++];
      auto it = extent.find(ch);
      if (it == extent.end() || isConstInt(it->second, 1)) extent[ch] = dim;
      else if (!isConstInt(dim, 1) && provablyDifferent(it->second, dim))
        return opError(c, fmt::format("subscript '{}' has extent {} in one operand and {} in another", ch, primStr(it->second), primStr(dim)));
    }
    if (t.ellipsisAt >= 0) {
      RLX_TRY(b, broadcastShapes(c, ellipsis, ell, "one operand's ellipsis", "another's"));
      if (!b) allKnown = false;
      else ellipsis = *b;
    }
  }
  Term out;
  if (explicitOut) {
    RLX_TRY(t, parseTerm(c, rhs));
    out = t;
    for (char ch : out.letters)
      if (!count.count(ch)) return opError(c, fmt::format("output subscript '{}' does not appear in the inputs", ch));
  } else {
    for (auto& [ch, n] : count)
      if (n == 1) out.letters += ch;
    if (anyEllipsis) out.ellipsisAt = 0;
  }
  if (!allKnown) return makeTensorNdim(dt, out.ellipsisAt < 0 ? int(out.letters.size()) : -1, vdev);
  std::vector<PrimExpr> shape;
  for (size_t k = 0; k <= out.letters.size(); ++k) {
    if (int(k) == out.ellipsisAt) shape.insert(shape.end(), ellipsis.begin(), ellipsis.end());
    if (k == out.letters.size()) break;
    shape.push_back(extent[out.letters[k]]);
  }
  return makeTensor(shape, dt, vdev);
}

}  // namespace

void registerLinalgOps() {
  OpDef("relax.matmul")
      .attrs("relax.attrs.MatmulAttrs")
      .params({arg("x1"), arg("x2"), attr("out_dtype", OpParam::DTypeAttr, aDType("void"))})
      .infer(inferMatmul)
      .pattern(OpPattern::OutEWiseFusable)
      .doc("matrix product with numpy semantics")
      .done();
  OpDef("relax.einsum")
      .attrs("relax.attrs.EinsumAttrs")
      .params({arg("operands", OpParam::TupleOfExpr), reqAttr("subscripts", OpParam::StrAttr)})
      .infer(inferEinsum)
      .pattern(OpPattern::OutEWiseFusable)
      .doc("Einstein summation")
      .done();
  OpDef("relax.outer").params({arg("x1"), arg("x2")}).infer(inferOuter).pattern(OpPattern::Injective).doc("outer product of two vectors").done();
}

}  // namespace rlx
