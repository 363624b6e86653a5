// CPU schedule, GEMM nests: recognizes the blocks LegalizeOps/FuseTIR make for R.matmul (transposed,
// batched, vector operands) and R.nn.conv2d (affine indices) and replaces their loops by rlx.sgemm.
#include "runtime/llvm/schedule_gemm.h"

#include <algorithm>

#include "ir/arith.h"

namespace rlx {

namespace {

const PrimVar* asVar(const PrimExpr& e) { return e && e->kind() == NodeKind::PrimVar ? static_cast<const PrimVar*>(e.get()) : nullptr; }

bool isFloat32(DataType t) { return t == DataType::float32(); }

// Whether `e` is built from integer constants, variables and arithmetic only, none of them in `vars`
// (a loop extent the GEMM can take as a number computed before its loops).
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

// An index as constant + sum of coefficient * variable (y * 2 + ry - 1, as convolutions index).
struct Affine {
  int64_t constant = 0;
  std::vector<std::pair<const PrimVar*, int64_t>> terms;

  int64_t coef(const PrimVar* v) const {
    for (auto& [x, c] : terms)
      if (x == v) return c;
    return 0;
  }
};

bool parseAffine(const PrimExpr& e, int64_t scale, Affine& out) {
  if (auto* imm = asIntImm(e)) return out.constant += scale * imm->value, true;
  if (auto* v = asVar(e)) {
    for (auto& [x, c] : out.terms)
      if (x == v) return c += scale, true;
    out.terms.push_back({v, scale});
    return true;
  }
  if (!e || !PrimBinary::classOf(e->kind())) return false;
  auto& b = static_cast<const PrimBinary&>(*e);
  switch (e->kind()) {
    case NodeKind::Add: return parseAffine(b.a, scale, out) && parseAffine(b.b, scale, out);
    case NodeKind::Sub: return parseAffine(b.a, scale, out) && parseAffine(b.b, -scale, out);
    case NodeKind::Mul:
      if (auto* c = asIntImm(b.b)) return parseAffine(b.a, scale * c->value, out);
      if (auto* c = asIntImm(b.a)) return parseAffine(b.b, scale * c->value, out);
      return false;
    default: return false;
  }
}

// An operand load: its buffer and each index as an Affine over the block's iter vars.
struct Operand {
  const BufferLoad* load = nullptr;
  std::vector<Affine> index;

  bool uses(const PrimVar* v) const {
    return std::any_of(index.begin(), index.end(), [&](const Affine& a) { return a.coef(v) != 0; });
  }
  // The element stride along `v`: sum over dims of coefficient * the dim's stride.
  PrimExpr stride(const PrimVar* v) const {
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
};

bool parseOperand(const PrimExpr& e, const TirBlock& block, Operand& out) {
  if (!e || e->kind() != NodeKind::BufferLoad) return false;
  out.load = static_cast<const BufferLoad*>(e.get());
  for (auto& idx : out.load->indices) {
    out.index.emplace_back();
    if (!parseAffine(idx, 1, out.index.back())) return false;
    for (auto& [v, c] : out.index.back().terms) {
      bool isIter = std::any_of(block.iterVars.begin(), block.iterVars.end(), [&](const IterVar& iv) { return iv.var.get() == v; });
      if (!isIter) return false;
    }
  }
  return isFloat32(out.load->buffer->dtype) && out.load->dtype.lanes <= 1;
}

bool sameIndices(const std::vector<PrimExpr>& x, const std::vector<PrimExpr>& y) {
  if (x.size() != y.size()) return false;
  for (size_t d = 0; d < x.size(); ++d)
    if (!asVar(x[d]) || asVar(x[d]) != asVar(y[d])) return false;
  return true;
}

}  // namespace

std::optional<GemmNest> matchMatmulNest(const Stmt& s) {
  // 1. A perfect nest of serial loops from 0 over one block binding each loop var to one iter var.
  std::vector<const For*> nest;
  Stmt cur = s;
  while (cur && cur->kind() == NodeKind::For) {
    auto* f = static_cast<const For*>(cur.get());
    auto* lo = asIntImm(f->min);
    if (f->loopKind != For::Serial || !lo || lo->value != 0) return std::nullopt;
    nest.push_back(f);
    cur = f->body;
  }
  if (nest.size() < 2 || !cur || cur->kind() != NodeKind::BlockRealize) return std::nullopt;
  auto& realize = static_cast<const BlockRealize&>(*cur);
  const TirBlock& block = *realize.block;
  if (auto* p = asIntImm(realize.predicate); realize.predicate && (!p || p->value == 0)) return std::nullopt;
  if (!block.allocBuffers.empty() || !block.matchBuffers.empty() || !block.init) return std::nullopt;
  if (realize.iterValues.size() != nest.size() || block.iterVars.size() != nest.size()) return std::nullopt;
  std::vector<const PrimVar*> loopVars;
  for (auto* f : nest) loopVars.push_back(f->loopVar.get());
  for (auto* f : nest)
    if (!invariant(f->extent, loopVars)) return std::nullopt;
  std::vector<size_t> loopOf(nest.size(), nest.size());  // iter var index -> nest position
  for (size_t k = 0; k < nest.size(); ++k) {
    auto it = std::find(loopVars.begin(), loopVars.end(), asVar(realize.iterValues[k]));
    size_t pos = size_t(it - loopVars.begin());
    if (it == loopVars.end() || std::find(loopOf.begin(), loopOf.end(), pos) != loopOf.end()) return std::nullopt;
    loopOf[k] = pos;
    auto kind = block.iterVars[k].kind;
    if (kind != IterVar::CommReduce && kind != IterVar::DataPar) return std::nullopt;
  }

  // 2. init C[I] = 0 and body C[I] = C[I] + X * Y in float32, C indexed by spatial iter vars.
  if (block.init->kind() != NodeKind::BufferStore || !block.body || block.body->kind() != NodeKind::BufferStore) return std::nullopt;
  auto& init = static_cast<const BufferStore&>(*block.init);
  auto& update = static_cast<const BufferStore&>(*block.body);
  const Buffer& c = *update.buffer;
  auto* zero = init.value && init.value->kind() == NodeKind::FloatImm ? static_cast<const FloatImm*>(init.value.get()) : nullptr;
  if (init.buffer.get() != &c || !sameIndices(init.indices, update.indices) || !zero || zero->value != 0 || !isFloat32(c.dtype)) return std::nullopt;
  if (update.indices.empty() || !update.value || update.value->kind() != NodeKind::Add) return std::nullopt;
  auto& sum = static_cast<const PrimBinary&>(*update.value);
  auto isSelf = [&](const PrimExpr& e) {
    if (e->kind() != NodeKind::BufferLoad) return false;
    auto& l = static_cast<const BufferLoad&>(*e);
    return l.buffer.get() == &c && sameIndices(l.indices, update.indices);
  };
  const PrimExpr& product = isSelf(sum.a) ? sum.b : isSelf(sum.b) ? sum.a : PrimExpr();
  if (!product || product->kind() != NodeKind::Mul || !isFloat32(product->dtype)) return std::nullopt;
  auto& mulNode = static_cast<const PrimBinary&>(*product);
  Operand x, y;
  if (!parseOperand(mulNode.a, block, x) || !parseOperand(mulNode.b, block, y)) return std::nullopt;
  for (auto* o : {&x, &y})
    if (o->load->buffer.get() == &c || (c.data && o->load->buffer->data.get() == c.data.get())) return std::nullopt;
  std::vector<const PrimVar*> cVars;
  for (auto& e : update.indices) {
    auto* v = asVar(e);
    if (!v || std::find(cVars.begin(), cVars.end(), v) != cVars.end()) return std::nullopt;
    cVars.push_back(v);
  }

  // 3. Roles: B is the operand indexed by C's last index (j) and A the other; a spatial var in A only
  // is a row (i) dim, in B only a column dim, else a batch dim; reductions are k dims.
  const PrimVar* j = cVars.back();
  if ((x.uses(j) != 0) == (y.uses(j) != 0)) return std::nullopt;
  const Operand& b = x.uses(j) ? x : y;
  const Operand& a = x.uses(j) ? y : x;
  std::vector<const PrimVar*> rows, cols, red, batch;
  for (auto* v : cVars) {
    bool inA = a.uses(v), inB = b.uses(v);
    (inA && !inB ? rows : inB && !inA ? cols : batch).push_back(v);
  }
  std::vector<std::pair<size_t, const PrimVar*>> reductions;  // in nest (summation) order
  for (size_t k = 0; k < block.iterVars.size(); ++k) {
    const PrimVar* v = block.iterVars[k].var.get();
    if (block.iterVars[k].kind == IterVar::CommReduce) reductions.push_back({loopOf[k], v});
    else if (std::find(cVars.begin(), cVars.end(), v) == cVars.end()) return std::nullopt;  // spatial but not an output index
  }
  std::sort(reductions.begin(), reductions.end());
  for (auto& r : reductions) red.push_back(r.second);
  if (red.empty()) return std::nullopt;
  auto posOf = [&](const PrimVar* v) {
    for (size_t k = 0; k < block.iterVars.size(); ++k)
      if (block.iterVars[k].var.get() == v) return loopOf[k];
    return nest.size();
  };
  // C's strides come from its own indices (each a single var).
  auto cStride = [&](const PrimVar* v) {
    PrimExpr s = intImm(1);
    for (size_t d = update.indices.size(); d-- > 0;) {
      if (asVar(update.indices[d]) == v) return c.strides.empty() ? s : c.strides[d];
      s = mul(s, c.shape[d]);
    }
    return intImm(0);
  };

  // 4. rlx.sgemm(C, A, B at their first element, descriptor): the batch dims too go into the call,
  // so that its threads share out batch elements and blocks as one loop (attention's 12 heads of
  // 128x128x64 as 12 serial GEMMs each split two ways ran at half the speed of one thread).
  auto first = [](const Operand& o) {
    std::vector<PrimExpr> idx;
    for (auto& af : o.index) idx.push_back(intImm(af.constant));
    return PrimExpr(make<BufferLoad>(o.load->dtype, o.load->buffer, std::move(idx)));
  };
  std::vector<PrimExpr> cIdx(update.indices.size(), intImm(0));
  std::vector<PrimExpr> args = {make<BufferLoad>(c.dtype, update.buffer, std::move(cIdx)), first(a), first(b), intImm(int64_t(rows.size())),
                                intImm(int64_t(cols.size())), intImm(int64_t(red.size())), intImm(int64_t(batch.size()))};
  for (auto* v : rows) args.insert(args.end(), {nest[posOf(v)]->extent, a.stride(v), cStride(v)});
  for (auto* v : cols) args.insert(args.end(), {nest[posOf(v)]->extent, b.stride(v), cStride(v)});
  for (auto* v : red) args.insert(args.end(), {nest[posOf(v)]->extent, a.stride(v), b.stride(v)});
  for (auto* v : batch) args.insert(args.end(), {nest[posOf(v)]->extent, a.stride(v), b.stride(v), cStride(v)});
  GemmNest out;
  out.call = make<PrimCall>(DataType::int32(), "rlx.sgemm", std::move(args));
  out.c = update.buffer;
  for (auto* v : cVars) out.rowDims.push_back(std::find(rows.begin(), rows.end(), v) != rows.end());
  out.batched = !batch.empty();
  out.stmt = make<Evaluate>(out.call);
  return out;
}

Stmt lowerMatmulNest(const Stmt& s) {
  auto gemm = matchMatmulNest(s);
  return gemm ? gemm->stmt : nullptr;
}

}  // namespace rlx
