// CPU schedule, loop nests of one block (schedule_nest.h): the perfect-nest walk and affine operand
// loads the GEMM and transpose recognizers share.
#include "runtime/llvm/schedule_nest.h"

#include <algorithm>
#include <functional>

#include "ir/arith.h"

namespace rlx {

namespace {

// A floordiv / floormod leaf as the var standing for it (null: not affine).
using SplitLeaf = std::function<const PrimVar*(const PrimBinary&)>;

bool parseAffine(const PrimExpr& e, int64_t scale, Affine& out, const SplitLeaf* leaf = nullptr) {
  auto term = [&](const PrimVar* v) {
    for (auto& [x, c] : out.terms)
      if (x == v) return c += scale, true;
    out.terms.push_back({v, scale});
    return true;
  };
  if (auto* imm = asIntImm(e)) return out.constant += scale * imm->value, true;
  if (auto* v = asVar(e)) return term(v);
  if (!e || !PrimBinary::classOf(e->kind())) return false;
  auto& b = static_cast<const PrimBinary&>(*e);
  switch (e->kind()) {
    case NodeKind::Add: return parseAffine(b.a, scale, out, leaf) && parseAffine(b.b, scale, out, leaf);
    case NodeKind::Sub: return parseAffine(b.a, scale, out, leaf) && parseAffine(b.b, -scale, out, leaf);
    case NodeKind::Mul:
      if (auto* c = asIntImm(b.b)) return parseAffine(b.a, scale * c->value, out, leaf);
      if (auto* c = asIntImm(b.a)) return parseAffine(b.b, scale * c->value, out, leaf);
      return false;
    case NodeKind::FloorDiv:
    case NodeKind::FloorMod:
      if (const PrimVar* part = leaf ? (*leaf)(b) : nullptr) return term(part);
      return false;
    default: return false;
  }
}

}  // namespace

bool affineOf(const PrimExpr& e, Affine& out) {
  out = Affine{};
  return parseAffine(e, 1, out);
}

// `e` as a BoundAtom: a comparison of (iter var + constant) with a constant, either way round.
std::optional<BoundAtom> boundAtom(const PrimExpr& e) {
  auto k = e->kind();
  if (k != NodeKind::LT && k != NodeKind::LE && k != NodeKind::GT && k != NodeKind::GE) return std::nullopt;
  auto& cmp = static_cast<const PrimBinary&>(*e);
  Affine left, right;
  if (!affineOf(cmp.a, left) || !affineOf(cmp.b, right)) return std::nullopt;
  // Move everything to `coef * v + c OP 0` with the variable on the left.
  bool varLeft = left.terms.size() == 1 && right.terms.empty(), varRight = right.terms.size() == 1 && left.terms.empty();
  if (!varLeft && !varRight) return std::nullopt;
  const Affine& withVar = varLeft ? left : right;
  const Affine& constant = varLeft ? right : left;
  if (withVar.terms[0].second != 1) return std::nullopt;
  // v + c OP k  <=>  v OP k - c, with OP mirrored when the variable was on the right.
  int64_t k0 = constant.constant - withVar.constant;
  NodeKind op = k;
  if (varRight) op = k == NodeKind::LT ? NodeKind::GT : k == NodeKind::LE ? NodeKind::GE : k == NodeKind::GT ? NodeKind::LT : NodeKind::LE;
  BoundAtom a;
  a.var = withVar.terms[0].first;
  switch (op) {
    case NodeKind::LT: a.lower = false, a.bound = k0; break;       // v < k0
    case NodeKind::LE: a.lower = false, a.bound = k0 + 1; break;   // v < k0 + 1
    case NodeKind::GT: a.lower = true, a.bound = k0 + 1; break;    // v >= k0 + 1
    default: a.lower = true, a.bound = k0; break;                  // v >= k0
  }
  return a;
}

const PrimVar* asVar(const PrimExpr& e) { return e && e->kind() == NodeKind::PrimVar ? static_cast<const PrimVar*>(e.get()) : nullptr; }

bool invariant(const PrimExpr& e, const std::vector<const PrimVar*>& vars) {
  if (!e) return false;
  if (e->kind() == NodeKind::IntImm) return true;
  if (auto* v = asVar(e)) return std::find(vars.begin(), vars.end(), v) == vars.end();
  if (PrimBinary::classOf(e->kind())) {
    auto& b = static_cast<const PrimBinary&>(*e);
    return invariant(b.a, vars) && invariant(b.b, vars);
  }
  return false;
}

int64_t Affine::coef(const PrimVar* v) const {
  for (auto& [x, c] : terms)
    if (x == v) return c;
  return 0;
}

const SplitVar* Operand::splitOf(const PrimVar* v) const {
  for (auto& s : splits)
    if (s.var == v) return &s;
  return nullptr;
}

bool Operand::uses(const PrimVar* v) const {
  auto used = [&](const PrimVar* x) { return std::any_of(index.begin(), index.end(), [&](const Affine& a) { return a.coef(x) != 0; }); };
  if (used(v)) return true;
  const SplitVar* s = splitOf(v);
  return s && (used(s->outer.get()) || used(s->inner.get()));
}

PrimExpr Operand::stride(const PrimVar* v) const {
  const Buffer& buf = *load->buffer;
  PrimExpr s = intImm(0);
  for (size_t d = 0; d < index.size(); ++d) {
    int64_t c = index[d].coef(v);
    if (!c) continue;
    PrimExpr dim = intImm(1);
    if (!buf.strides.empty()) dim = buf.strides[d];
    else
      for (size_t e = d + 1; e < buf.shape.size(); ++e) dim = mul(dim, buf.shape[e]);
    s = add(s, mul(intImm(c), dim));
  }
  return s;
}

PrimExpr Operand::first() const {
  std::vector<PrimExpr> idx;
  for (auto& af : index) idx.push_back(intImm(af.constant));
  return make<BufferLoad>(load->dtype, load->buffer, std::move(idx));
}

bool parseOperand(const PrimExpr& e, const TirBlock& block, Operand& out) {
  if (!e || e->kind() != NodeKind::BufferLoad) return false;
  out.load = static_cast<const BufferLoad*>(e.get());
  auto isIter = [&](const PrimVar* v) { return std::any_of(block.iterVars.begin(), block.iterVars.end(), [&](const IterVar& iv) { return iv.var.get() == v; }); };
  // v // d or v % d (d a positive constant, the same for both of v): a part of a split var, as a
  // whole index or a term of an affine one (a grouped convolution's group, v // d * d + c).
  SplitLeaf splitPart = [&](const PrimBinary& bin) -> const PrimVar* {
    bool div = bin.kind() == NodeKind::FloorDiv;
    const PrimVar* v = asVar(bin.a);
    auto* d = asIntImm(bin.b);
    if (!v || !isIter(v) || !d || d->value <= 0) return nullptr;
    const SplitVar* known = out.splitOf(v);
    if (known && known->divisor != d->value) return nullptr;
    if (!known) {
      out.splits.push_back({v, d->value, make<PrimVar>(v->name + "_outer", v->dtype), make<PrimVar>(v->name + "_inner", v->dtype)});
      known = &out.splits.back();
    }
    return div ? known->outer.get() : known->inner.get();
  };
  auto isPart = [&](const PrimVar* v) { return std::any_of(out.splits.begin(), out.splits.end(), [&](const SplitVar& s) { return s.outer.get() == v || s.inner.get() == v; }); };
  for (auto& idx : out.load->indices) {
    out.index.emplace_back();
    if (!parseAffine(idx, 1, out.index.back(), &splitPart)) return false;
    for (auto& [v, c] : out.index.back().terms)
      if (!isIter(v) && !isPart(v)) return false;
  }
  return out.load->dtype.lanes <= 1;
}

const For& PerfectNest::loopOfVar(const PrimVar* v) const {
  for (size_t k = 0; k < block->iterVars.size(); ++k)
    if (block->iterVars[k].var.get() == v) return *loops[loopOf[k]];
  return *loops.back();  // not an iter var: callers ask only for their own
}

std::optional<PerfectNest> perfectNest(const Stmt& s) {
  PerfectNest n;
  Stmt cur = loopNest(s, n.loops);
  for (auto* f : n.loops) {
    auto* lo = asIntImm(f->min);
    if (f->loopKind != For::Serial || !lo || lo->value != 0) return std::nullopt;
  }
  if (n.loops.empty() || !cur || cur->kind() != NodeKind::BlockRealize) return std::nullopt;
  n.realize = static_cast<const BlockRealize*>(cur.get());
  n.block = n.realize->block.get();
  const BlockRealize& realize = *n.realize;
  const TirBlock& block = *n.block;
  if (auto* p = asIntImm(realize.predicate); realize.predicate && (!p || p->value == 0)) return std::nullopt;
  if (!block.allocBuffers.empty() || !block.matchBuffers.empty()) return std::nullopt;
  if (realize.iterValues.size() != n.loops.size() || block.iterVars.size() != n.loops.size()) return std::nullopt;
  std::vector<const PrimVar*> loopVars;
  for (auto* f : n.loops) loopVars.push_back(f->loopVar.get());
  for (auto* f : n.loops)
    if (!invariant(f->extent, loopVars)) return std::nullopt;
  n.loopOf.assign(n.loops.size(), n.loops.size());
  for (size_t k = 0; k < n.loops.size(); ++k) {
    auto it = std::find(loopVars.begin(), loopVars.end(), asVar(realize.iterValues[k]));
    size_t pos = size_t(it - loopVars.begin());
    if (it == loopVars.end() || std::find(n.loopOf.begin(), n.loopOf.end(), pos) != n.loopOf.end()) return std::nullopt;
    n.loopOf[k] = pos;
    auto kind = block.iterVars[k].kind;
    if (kind != IterVar::CommReduce && kind != IterVar::DataPar) return std::nullopt;
  }
  return n;
}

}  // namespace rlx
