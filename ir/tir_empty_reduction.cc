// Reductions over an empty domain get their init written (tir_empty_reduction.h): a guarded copy of
// the nest's spatial loops around the init, placed before the nest, which itself is unchanged.
#include "ir/tir_empty_reduction.h"

#include "ir/prim_expr_map.h"

namespace rlx {

namespace {

bool positiveConstant(const PrimExpr& e) {
  auto* i = asIntImm(e);
  return i && i->value > 0;
}

bool mentionsAny(const PrimExpr& e, const std::vector<const For*>& loops) {
  for (auto* f : loops)
    if (mentions(e, f->loopVar.get())) return true;
  return false;
}

Stmt loopAround(const For& f, Stmt body) {
  auto p = make<For>();
  p->loopVar = f.loopVar;
  p->min = f.min;
  p->extent = f.extent;
  p->loopKind = For::Serial;
  p->body = std::move(body);
  p->span = f.span;
  return p;
}

// The statement writing the init of nest `s` when its reduction is empty; null when `s` is not a
// perfect nest over a block with an init, its reductions cannot be empty, or the init's point does
// not follow from the spatial loops alone.
Stmt emptyReductionInit(const Stmt& s) {
  std::vector<const For*> nest;
  Stmt cur = loopNest(s, nest);
  if (nest.empty() || !cur || cur->kind() != NodeKind::BlockRealize) return nullptr;
  auto& r = static_cast<const BlockRealize&>(*cur);
  const TirBlock& blk = *r.block;
  if (!blk.init || r.iterValues.size() != blk.iterVars.size()) return nullptr;
  for (auto& iv : blk.iterVars)
    if (iv.kind != IterVar::DataPar && iv.kind != IterVar::CommReduce) return nullptr;
  // Reduction loops: those a reduction iter var's binding mentions; none may bind a spatial one too.
  std::vector<const For*> reduction, spatial;
  for (auto* f : nest) {
    bool inReduction = false, inSpatial = false;
    for (size_t k = 0; k < blk.iterVars.size(); ++k) {
      if (!mentions(r.iterValues[k], f->loopVar.get())) continue;
      (blk.iterVars[k].kind == IterVar::CommReduce ? inReduction : inSpatial) = true;
    }
    if (inReduction && inSpatial) return nullptr;
    (inReduction ? reduction : spatial).push_back(f);
  }
  PrimExpr empty;
  for (auto* f : reduction) {
    if (positiveConstant(f->extent)) continue;
    if (mentionsAny(f->extent, reduction)) return nullptr;
    PrimExpr none = make<PrimBinary>(NodeKind::LE, DataType::boolean(), f->extent, intImm(0, f->extent->dtype));
    empty = empty ? PrimExpr(make<PrimBinary>(NodeKind::Or, DataType::boolean(), empty, none)) : none;
  }
  if (!empty || mentionsAny(r.predicate, reduction)) return nullptr;
  for (auto* f : spatial)
    if (mentionsAny(f->min, reduction) || mentionsAny(f->extent, reduction)) return nullptr;
  auto realize = initRealize(r, blk.name + "_empty_init");
  // The guard outside the spatial loops when the extents do not depend on them.
  bool guardOutside = !mentionsAny(empty, spatial);
  Stmt body = guardOutside ? Stmt(realize) : Stmt(make<IfThenElse>(empty, realize, nullptr));
  for (size_t i = spatial.size(); i-- > 0;) body = loopAround(*spatial[i], body);
  return guardOutside ? Stmt(make<IfThenElse>(empty, body, nullptr)) : body;
}

// The statements of `s` (a SeqStmt or one statement), each reduction nest preceded by its init.
Stmt withInits(const Stmt& s) {
  std::vector<Stmt> in = s->kind() == NodeKind::SeqStmt ? static_cast<const SeqStmt&>(*s).seq : std::vector<Stmt>{s};
  std::vector<Stmt> out;
  for (auto& x : in) {
    if (Stmt init = emptyReductionInit(x)) out.push_back(init);
    out.push_back(x);
  }
  if (out.size() == in.size()) return s;
  return make<SeqStmt>(std::move(out));
}

}  // namespace

Ref<BlockRealize> initRealize(const BlockRealize& r, const std::string& name) {
  const TirBlock& blk = *r.block;
  auto init = make<TirBlock>();
  init->name = name;
  init->writes = blk.writes;
  init->body = blk.init;
  init->span = blk.span;
  auto realize = make<BlockRealize>();
  for (size_t i = 0; i < blk.iterVars.size() && i < r.iterValues.size(); ++i) {
    if (blk.iterVars[i].kind != IterVar::DataPar) continue;
    init->iterVars.push_back(blk.iterVars[i]);
    realize->iterValues.push_back(r.iterValues[i]);
  }
  realize->predicate = r.predicate;
  realize->block = init;
  realize->span = r.span;
  return realize;
}

Stmt initEmptyReductions(const Stmt& body) {
  if (!body) return body;
  // The root block (no iter vars) holds the nests.
  if (body->kind() == NodeKind::BlockRealize) {
    auto& r = static_cast<const BlockRealize&>(*body);
    if (!r.block->iterVars.empty() || !r.block->body) return body;
    Stmt inner = withInits(r.block->body);
    if (inner.get() == r.block->body.get()) return body;
    auto blk = make<TirBlock>();
    const TirBlock& old = *r.block;
    blk->name = old.name;
    blk->reads = old.reads;
    blk->writes = old.writes;
    blk->init = old.init;
    blk->body = inner;
    blk->allocBuffers = old.allocBuffers;
    blk->matchBuffers = old.matchBuffers;
    blk->annotations = old.annotations;
    blk->span = old.span;
    auto out = make<BlockRealize>();
    out->iterValues = r.iterValues;
    out->predicate = r.predicate;
    out->block = blk;
    out->span = r.span;
    return out;
  }
  return withInits(body);
}

}  // namespace rlx
