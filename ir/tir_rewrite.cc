// TirRewriter (tir_rewrite.h): each statement kind rebuilt from its rewritten parts, the original
// node kept when none of them changed.
#include "ir/tir_rewrite.h"

namespace rlx {

namespace {

bool sameExprs(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].get() != b[i].get()) return false;
  return true;
}

}  // namespace

Stmt TirRewriter::stmt(const Stmt& s) const {
  if (!s) return s;
  auto e = [&](const PrimExpr& x) { return x ? expr(x) : x; };
  auto exprs = [&](const std::vector<PrimExpr>& xs) {
    std::vector<PrimExpr> out;
    out.reserve(xs.size());
    for (auto& x : xs) out.push_back(e(x));
    return out;
  };
  switch (s->kind()) {
    case NodeKind::BufferStore: {
      auto& st = static_cast<const BufferStore&>(*s);
      PrimExpr v = e(st.value);
      auto idx = exprs(st.indices);
      if (v.get() == st.value.get() && sameExprs(idx, st.indices)) return s;
      auto out = make<BufferStore>(st.buffer, v, std::move(idx));
      out->span = st.span;
      return out;
    }
    case NodeKind::SeqStmt: {
      auto& seq = static_cast<const SeqStmt&>(*s);
      std::vector<Stmt> out;
      bool changed = false;
      for (auto& x : seq.seq) {
        out.push_back(stmt(x));
        changed |= out.back().get() != x.get();
      }
      return changed ? Stmt(make<SeqStmt>(std::move(out))) : s;
    }
    case NodeKind::For: {
      auto& f = static_cast<const For&>(*s);
      PrimExpr mn = e(f.min), ext = e(f.extent);
      Stmt body = stmt(f.body);
      if (mn.get() == f.min.get() && ext.get() == f.extent.get() && body.get() == f.body.get()) return s;
      auto out = make<For>();
      out->loopVar = f.loopVar, out->min = mn, out->extent = ext, out->loopKind = f.loopKind, out->body = body;
      out->threadTag = f.threadTag, out->annotations = f.annotations, out->span = f.span;
      return out;
    }
    case NodeKind::IfThenElse: {
      auto& i = static_cast<const IfThenElse&>(*s);
      PrimExpr c = e(i.cond);
      Stmt t = stmt(i.thenCase), el = stmt(i.elseCase);
      if (c.get() == i.cond.get() && t.get() == i.thenCase.get() && el.get() == i.elseCase.get()) return s;
      auto out = make<IfThenElse>(c, t, el);
      out->span = i.span;
      return out;
    }
    case NodeKind::LetStmt: {
      auto& l = static_cast<const LetStmt&>(*s);
      PrimExpr v = e(l.value);
      Stmt body = stmt(l.body);
      if (v.get() == l.value.get() && body.get() == l.body.get()) return s;
      auto out = make<LetStmt>(l.var, v, body);
      out->span = l.span;
      return out;
    }
    case NodeKind::Evaluate: {
      auto& ev = static_cast<const Evaluate&>(*s);
      PrimExpr v = e(ev.value);
      if (v.get() == ev.value.get()) return s;
      auto out = make<Evaluate>(v);
      out->span = ev.span;
      return out;
    }
    case NodeKind::AssertStmt: {
      auto& a = static_cast<const AssertStmt&>(*s);
      PrimExpr c = e(a.cond);
      Stmt body = stmt(a.body);
      if (c.get() == a.cond.get() && body.get() == a.body.get()) return s;
      auto out = make<AssertStmt>(c, a.message, body);
      out->span = a.span;
      return out;
    }
    case NodeKind::BlockRealize: {
      auto& r = static_cast<const BlockRealize&>(*s);
      const TirBlock& b = *r.block;
      auto values = exprs(r.iterValues);
      PrimExpr pred = e(r.predicate);
      Stmt init = stmt(b.init), body = stmt(b.body);
      auto mapRegions = [&](const std::vector<BufferRegion>& rs, bool& changed) {
        if (!regions) return rs;
        std::vector<BufferRegion> out = regions(rs);
        changed |= out.size() != rs.size();
        for (size_t i = 0; i < out.size() && i < rs.size(); ++i) {
          changed |= out[i].buffer.get() != rs[i].buffer.get() || out[i].region.size() != rs[i].region.size();
          for (size_t d = 0; d < rs[i].region.size() && d < out[i].region.size(); ++d)
            changed |= out[i].region[d].min.get() != rs[i].region[d].min.get() || out[i].region[d].extent.get() != rs[i].region[d].extent.get();
        }
        return out;
      };
      bool changed = !sameExprs(values, r.iterValues) || pred.get() != r.predicate.get() || init.get() != b.init.get() || body.get() != b.body.get();
      auto reads = mapRegions(b.reads, changed), writes = mapRegions(b.writes, changed);
      if (!changed) return s;
      auto blk = make<TirBlock>();
      blk->name = b.name, blk->iterVars = b.iterVars, blk->reads = std::move(reads), blk->writes = std::move(writes);
      blk->init = init, blk->body = body, blk->allocBuffers = b.allocBuffers, blk->matchBuffers = b.matchBuffers;
      blk->annotations = b.annotations, blk->span = b.span;
      auto out = make<BlockRealize>();
      out->iterValues = std::move(values), out->predicate = pred, out->block = blk, out->span = r.span;
      return out;
    }
    default: return s;
  }
}

}  // namespace rlx
