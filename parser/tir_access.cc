// T.reads/T.writes inference for blocks written without them, following TVM's block access-region
// detector: first-access order, point indices kept as written, loops inside the block relaxed.
#include <unordered_map>
#include <unordered_set>

#include "ir/arith.h"
#include "parser/build_tir_internal.h"

namespace rlx::tirbuild {
namespace {

// a + b with constants folded, as TVM's operator+ (x + 0 is x).
PrimExpr foldAdd(const PrimExpr& a, const PrimExpr& b) {
  auto *x = asIntImm(a), *y = asIntImm(b);
  if (x && y) return intImm(x->value + y->value, a->dtype.bits >= b->dtype.bits ? a->dtype : b->dtype);
  if (y && y->value == 0) return a;
  if (x && x->value == 0) return b;
  return binary(NodeKind::Add, a, y ? intImm(y->value, a->dtype) : b);
}

// An interval [lo, hi] of index values, or everything (unknown bounds).
struct IntSet {
  PrimExpr lo, hi;
  bool everything = false;
  static IntSet point(PrimExpr e) { return {e, e, false}; }
  static IntSet all() { return {nullptr, nullptr, true}; }
  bool isPoint() const { return !everything && lo.get() == hi.get(); }
};

struct Access {
  BufferRef buffer;
  std::vector<IntSet> region;
};

class Detector {
 public:
  std::unordered_set<const Buffer*> excluded;
  std::unordered_map<const Buffer*, const MatchBufferRegion*> matched;
  std::vector<Access> reads, writes;

  void visitStmt(const Stmt& s) {
    if (!s) return;
    switch (s->kind()) {
      case NodeKind::BufferStore: {
        auto& st = static_cast<const BufferStore&>(*s);
        update(writes, st.buffer, relaxIndices(st.indices));
        visitExpr(st.value);
        for (auto& i : st.indices) visitExpr(i);
        return;
      }
      case NodeKind::SeqStmt:
        for (auto& x : static_cast<const SeqStmt&>(*s).seq) visitStmt(x);
        return;
      case NodeKind::For: {
        auto& f = static_cast<const For&>(*s);
        visitExpr(f.min);
        visitExpr(f.extent);
        dom_[f.loopVar.get()] = {f.min, f.extent};
        visitStmt(f.body);
        dom_.erase(f.loopVar.get());
        return;
      }
      case NodeKind::IfThenElse: {
        auto& i = static_cast<const IfThenElse&>(*s);
        visitExpr(i.cond);
        visitStmt(i.thenCase);
        visitStmt(i.elseCase);
        return;
      }
      case NodeKind::LetStmt: {
        auto& l = static_cast<const LetStmt&>(*s);
        visitExpr(l.value);
        visitStmt(l.body);
        return;
      }
      case NodeKind::Evaluate: visitExpr(static_cast<const Evaluate&>(*s).value); return;
      case NodeKind::AssertStmt: {
        auto& a = static_cast<const AssertStmt&>(*s);
        visitExpr(a.cond);
        visitExpr(a.message);
        visitStmt(a.body);
        return;
      }
      case NodeKind::BlockRealize: {
        // A nested block is not entered: its own regions count, bindings substituted.
        auto& r = static_cast<const BlockRealize&>(*s);
        for (auto& v : r.iterValues) visitExpr(v);
        visitExpr(r.predicate);
        std::unordered_map<const PrimVar*, PrimExpr> vmap;
        for (size_t i = 0; i < r.block->iterVars.size() && i < r.iterValues.size(); ++i) vmap[r.block->iterVars[i].var.get()] = r.iterValues[i];
        childRegions(*r.block, vmap);
        return;
      }
      case NodeKind::TirBlock: childRegions(static_cast<const TirBlock&>(*s), {}); return;
      default: return;
    }
  }

  void visitExpr(const PrimExpr& e) {
    if (!e) return;
    switch (e->kind()) {
      case NodeKind::BufferLoad: {
        auto& l = static_cast<const BufferLoad&>(*e);
        update(reads, l.buffer, relaxIndices(l.indices));
        for (auto& i : l.indices) visitExpr(i);
        return;
      }
      case NodeKind::Not: visitExpr(static_cast<const PrimNot&>(*e).a); return;
      case NodeKind::Select: {
        auto& s = static_cast<const Select&>(*e);
        visitExpr(s.cond);
        visitExpr(s.trueValue);
        visitExpr(s.falseValue);
        return;
      }
      case NodeKind::Cast: visitExpr(static_cast<const Cast&>(*e).value); return;
      case NodeKind::PrimCall:
        for (auto& a : static_cast<const PrimCall&>(*e).args) visitExpr(a);
        return;
      case NodeKind::PrimLet: {
        auto& l = static_cast<const PrimLet&>(*e);
        visitExpr(l.value);
        visitExpr(l.body);
        return;
      }
      case NodeKind::Ramp: {
        auto& r = static_cast<const Ramp&>(*e);
        visitExpr(r.base);
        visitExpr(r.stride);
        return;
      }
      case NodeKind::Broadcast: visitExpr(static_cast<const Broadcast&>(*e).value); return;
      default:
        if (PrimBinary::classOf(e->kind())) {
          auto& b = static_cast<const PrimBinary&>(*e);
          visitExpr(b.a);
          visitExpr(b.b);
        }
        return;
    }
  }

  std::vector<BufferRegion> collect(const std::vector<Access>& accesses, const std::unordered_set<const Buffer*>& skip = {}) const {
    std::vector<BufferRegion> out;
    for (auto& a : accesses) {
      if (skip.count(a.buffer.get())) continue;
      BufferRegion r{a.buffer, {}};
      for (size_t j = 0; j < a.region.size(); ++j) r.region.push_back(cover(a.region[j], a.buffer->shape[j]));
      out.push_back(std::move(r));
    }
    return out;
  }

 private:
  std::unordered_map<const PrimVar*, Range> dom_;  // loops inside the block

  bool usesDom(const PrimExpr& e) const {
    if (dom_.empty()) return false;
    std::vector<PrimVarRef> vars;
    collectVars(e, vars);
    for (auto& v : vars)
      if (dom_.count(v.get())) return true;
    return false;
  }

  // Whether `e` computes through a call TVM's interval evaluator cannot bound (all but shifts and
  // masks; loads inside are not entered): such an index covers its whole dim, as when topi's
  // reflect / replicate pads index through T.if_then_else.
  static bool opaqueCall(const PrimExpr& e) {
    if (!e) return false;
    if (e->kind() == NodeKind::PrimCall) {
      auto& c = static_cast<const PrimCall&>(*e);
      if (c.op != "tir.shift_right" && c.op != "tir.bitwise_and") return true;
      for (auto& a : c.args)
        if (opaqueCall(a)) return true;
      return false;
    }
    if (PrimBinary::classOf(e->kind())) {
      auto& b = static_cast<const PrimBinary&>(*e);
      return opaqueCall(b.a) || opaqueCall(b.b);
    }
    if (e->kind() == NodeKind::Cast) return opaqueCall(static_cast<const Cast&>(*e).value);
    return false;
  }

  // The values `e` takes while the inner loops run (TVM's EvalSet, for affine indices).
  IntSet evalSet(const PrimExpr& e) const {
    if (!usesDom(e)) return IntSet::point(e);
    if (e->kind() == NodeKind::PrimVar) {
      auto& r = dom_.at(static_cast<const PrimVar*>(e.get()));
      return {r.min, add(r.min, sub(r.extent, intImm(1, r.extent->dtype))), false};
    }
    if (!PrimBinary::classOf(e->kind())) return IntSet::all();
    auto& b = static_cast<const PrimBinary&>(*e);
    IntSet x = evalSet(b.a), y = evalSet(b.b);
    if (x.everything || y.everything) return IntSet::all();
    auto c = y.isPoint() ? constInt(y.lo) : std::nullopt;
    switch (e->kind()) {
      case NodeKind::Add: return {add(x.lo, y.lo), add(x.hi, y.hi), false};
      case NodeKind::Sub: return {sub(x.lo, y.hi), sub(x.hi, y.lo), false};
      case NodeKind::Mul:
        if (!c) return IntSet::all();
        return *c >= 0 ? IntSet{mul(x.lo, y.lo), mul(x.hi, y.lo), false} : IntSet{mul(x.hi, y.lo), mul(x.lo, y.lo), false};
      case NodeKind::FloorDiv:
        if (!c || *c <= 0) return IntSet::all();
        return {floordiv(x.lo, y.lo), floordiv(x.hi, y.lo), false};
      case NodeKind::FloorMod:
        if (!c || *c <= 0) return IntSet::all();
        return {intImm(0, e->dtype), intImm(*c - 1, e->dtype), false};
      case NodeKind::Min: return {minExpr(x.lo, y.lo), minExpr(x.hi, y.hi), false};
      case NodeKind::Max: return {maxExpr(x.lo, y.lo), maxExpr(x.hi, y.hi), false};
      default: return IntSet::all();
    }
  }

  std::vector<IntSet> relaxIndices(const std::vector<PrimExpr>& indices) const {
    std::vector<IntSet> out;
    for (auto& i : indices) {
      if (opaqueCall(i)) {
        out.push_back(IntSet::all());
        continue;
      }
      if (i->kind() == NodeKind::Ramp) {
        auto& r = static_cast<const Ramp&>(*i);
        IntSet b = evalSet(r.base);
        if (b.everything) {
          out.push_back(b);
          continue;
        }
        PrimExpr span = mul(r.stride, intImm(r.lanes - 1, r.stride->dtype));
        out.push_back({b.lo, add(b.hi, span), false});
        continue;
      }
      out.push_back(evalSet(i));
    }
    return out;
  }

  static Range cover(const IntSet& s, const PrimExpr& dim) {
    if (s.everything) return {intImm(0, dim->dtype), dim};
    if (s.isPoint()) return {s.lo, intImm(1, s.lo->dtype)};
    return {s.lo, sub(add(s.hi, intImm(1, s.hi->dtype)), s.lo)};
  }

  static IntSet unite(const IntSet& a, const IntSet& b) {
    if (a.everything || b.everything) return IntSet::all();
    if (a.isPoint() && b.isPoint() && exprDeepEqual(a.lo, b.lo)) return a;
    return {minExpr(a.lo, b.lo), maxExpr(a.hi, b.hi), false};
  }

  void update(std::vector<Access>& list, BufferRef buffer, std::vector<IntSet> region) {
    auto m = matched.find(buffer.get());
    if (m != matched.end()) {
      // An access through a matched buffer is an access of its source, shifted by the source
      // region's start (TVM's ConvertRegion; leading source dims beyond the target's are points).
      const MatchBufferRegion& mb = *m->second;
      const auto& src = mb.source.region;
      if (region.size() > src.size()) return;
      size_t offset = src.size() - region.size();
      std::vector<IntSet> converted;
      for (size_t j = 0; j < offset; ++j) converted.push_back(IntSet::point(src[j].min));
      for (size_t j = 0; j < region.size(); ++j) {
        Range t = cover(region[j], mb.buffer->shape[j]);
        PrimExpr lo = foldAdd(src[j + offset].min, t.min);
        auto one = asIntImm(t.extent);
        converted.push_back(one && one->value == 1 ? IntSet::point(lo) : IntSet{lo, add(lo, sub(t.extent, intImm(1, t.extent->dtype))), false});
      }
      buffer = mb.source.buffer;
      region = std::move(converted);
    }
    if (excluded.count(buffer.get())) return;
    for (auto& a : list) {
      if (a.buffer.get() != buffer.get()) continue;
      if (a.region.size() != region.size()) return;
      for (size_t j = 0; j < region.size(); ++j) a.region[j] = unite(a.region[j], region[j]);
      return;
    }
    list.push_back({std::move(buffer), std::move(region)});
  }

  static PrimExpr substitute(const PrimExpr& e, const std::unordered_map<const PrimVar*, PrimExpr>& vmap) {
    if (vmap.empty() || !e) return e;
    if (e->kind() == NodeKind::PrimVar) {
      auto it = vmap.find(static_cast<const PrimVar*>(e.get()));
      return it == vmap.end() ? e : it->second;
    }
    if (PrimBinary::classOf(e->kind())) {
      auto& b = static_cast<const PrimBinary&>(*e);
      PrimExpr x = substitute(b.a, vmap), y = substitute(b.b, vmap);
      if (x.get() == b.a.get() && y.get() == b.b.get()) return e;
      return make<PrimBinary>(e->kind(), e->dtype, x, y);
    }
    if (e->kind() == NodeKind::Cast) {
      auto& c = static_cast<const Cast&>(*e);
      PrimExpr v = substitute(c.value, vmap);
      return v.get() == c.value.get() ? e : PrimExpr(make<Cast>(e->dtype, v));
    }
    return e;
  }

  void childRegions(const TirBlock& child, const std::unordered_map<const PrimVar*, PrimExpr>& vmap) {
    auto relax = [&](const std::vector<BufferRegion>& regions, std::vector<Access>& into) {
      for (auto& br : regions) {
        std::vector<IntSet> sets;
        for (auto& r : br.region) {
          PrimExpr lo = substitute(r.min, vmap), ext = substitute(r.extent, vmap);
          auto one = asIntImm(ext);
          IntSet a = evalSet(lo);
          if (one && one->value == 1) {
            sets.push_back(a);
            continue;
          }
          IntSet b = evalSet(add(lo, sub(ext, intImm(1, ext->dtype))));
          sets.push_back(a.everything || b.everything ? IntSet::all() : IntSet{a.lo, b.hi, false});
        }
        update(into, br.buffer, std::move(sets));
      }
    };
    relax(child.reads, reads);
    relax(child.writes, writes);
  }
};

}  // namespace

void inferAccessRegions(TirBlock& block, bool reads, bool writes) {
  if (!reads && !writes) return;
  Detector d;
  for (auto& b : block.allocBuffers) d.excluded.insert(b.get());
  for (auto& m : block.matchBuffers) d.matched[m.buffer.get()] = &m;
  // TVM visits the init statement before the body.
  d.visitStmt(block.init);
  d.visitStmt(block.body);
  auto w = d.collect(d.writes);
  // A reduction with an init block does not list its accumulators as reads.
  std::unordered_set<const Buffer*> skip;
  if (block.init)
    for (auto& r : w) skip.insert(r.buffer.get());
  if (reads) block.reads = d.collect(d.reads, skip);
  if (writes) block.writes = std::move(w);
}

}  // namespace rlx::tirbuild
