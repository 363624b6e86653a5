// CPU schedule, index simplification with loop bounds: interval bounds of integer expressions over
// the enclosing constant loops, and the divisions they make constant folded away.
#include "runtime/llvm/schedule_bounds.h"

#include <optional>
#include <unordered_map>

#include "ir/arith.h"
#include "ir/prim_expr_map.h"
#include "runtime/llvm/tir_copy.h"

namespace rlx {

namespace {

struct Interval {
  int64_t lo, hi;  // inclusive
};

int64_t floorDiv(int64_t a, int64_t c) { return a / c - ((a % c != 0) && ((a < 0) != (c < 0))); }

class IndexFolder {
 public:
  Stmt stmt(const Stmt& s);

 private:
  std::unordered_map<const PrimVar*, Interval> ranges_;

  std::optional<Interval> bound(const PrimExpr& e) const;
  PrimExpr expr(const PrimExpr& e) const;

  // Binds `v` to `r` until the returned guard dies (restoring an outer binding).
  struct Scoped {
    IndexFolder& f;
    const PrimVar* v;
    std::optional<Interval> saved;
    Scoped(IndexFolder& folder, const PrimVar* var, std::optional<Interval> r) : f(folder), v(var) {
      if (auto it = f.ranges_.find(v); it != f.ranges_.end()) saved = it->second;
      if (r) f.ranges_[v] = *r;
      else f.ranges_.erase(v);
    }
    ~Scoped() {
      if (saved) f.ranges_[v] = *saved;
      else f.ranges_.erase(v);
    }
  };
};

std::optional<Interval> IndexFolder::bound(const PrimExpr& e) const {
  if (!e || !e->dtype.isIntegral() || e->dtype.isBool()) return std::nullopt;
  switch (e->kind()) {
    case NodeKind::IntImm: {
      int64_t v = static_cast<const IntImm&>(*e).value;
      return Interval{v, v};
    }
    case NodeKind::PrimVar: {
      auto it = ranges_.find(static_cast<const PrimVar*>(e.get()));
      if (it == ranges_.end()) return std::nullopt;
      return it->second;
    }
    case NodeKind::Cast: {
      auto& c = static_cast<const Cast&>(*e);
      // Widening (or same-width) integer casts keep the value.
      if (!c.value->dtype.isIntegral() || c.value->dtype.bits > e->dtype.bits) return std::nullopt;
      return bound(c.value);
    }
    case NodeKind::Add:
    case NodeKind::Sub:
    case NodeKind::Mul:
    case NodeKind::Min:
    case NodeKind::Max:
    case NodeKind::FloorDiv:
    case NodeKind::FloorMod: {
      auto& bin = static_cast<const PrimBinary&>(*e);
      auto a = bound(bin.a), b = bound(bin.b);
      if (!a || !b) return std::nullopt;
      int64_t r[4];
      switch (e->kind()) {
        case NodeKind::Add:
          if (__builtin_add_overflow(a->lo, b->lo, &r[0]) || __builtin_add_overflow(a->hi, b->hi, &r[1])) return std::nullopt;
          return Interval{r[0], r[1]};
        case NodeKind::Sub:
          if (__builtin_sub_overflow(a->lo, b->hi, &r[0]) || __builtin_sub_overflow(a->hi, b->lo, &r[1])) return std::nullopt;
          return Interval{r[0], r[1]};
        case NodeKind::Mul:
          if (__builtin_mul_overflow(a->lo, b->lo, &r[0]) || __builtin_mul_overflow(a->lo, b->hi, &r[1]) || __builtin_mul_overflow(a->hi, b->lo, &r[2]) ||
              __builtin_mul_overflow(a->hi, b->hi, &r[3]))
            return std::nullopt;
          return Interval{std::min({r[0], r[1], r[2], r[3]}), std::max({r[0], r[1], r[2], r[3]})};
        case NodeKind::Min: return Interval{std::min(a->lo, b->lo), std::min(a->hi, b->hi)};
        case NodeKind::Max: return Interval{std::max(a->lo, b->lo), std::max(a->hi, b->hi)};
        default: {
          // By a positive constant only.
          if (b->lo != b->hi || b->lo <= 0) return std::nullopt;
          int64_t c = b->lo, qlo = floorDiv(a->lo, c), qhi = floorDiv(a->hi, c);
          if (e->kind() == NodeKind::FloorDiv) return Interval{qlo, qhi};
          if (qlo == qhi) return Interval{a->lo - qlo * c, a->hi - qlo * c};
          return Interval{0, c - 1};
        }
      }
    }
    default: return std::nullopt;
  }
}

PrimExpr IndexFolder::expr(const PrimExpr& e) const {
  if (!e) return e;
  PrimExpr out = mapOperands(e, [&](const PrimExpr& x) { return expr(x); });
  NodeKind k = out->kind();
  bool division = k == NodeKind::FloorDiv || k == NodeKind::FloorMod || k == NodeKind::Div || k == NodeKind::Mod;
  if (!division || !out->dtype.isIntegral() || out->dtype.isBool()) return out;
  auto& bin = static_cast<const PrimBinary&>(*out);
  auto a = bound(bin.a), b = bound(bin.b);
  if (!a || !b || b->lo != b->hi || b->lo <= 0) return out;
  // Truncating Div/Mod agree with the floored ones on a non-negative dividend.
  if ((k == NodeKind::Div || k == NodeKind::Mod) && a->lo < 0) return out;
  int64_t c = b->lo, q = floorDiv(a->lo, c);
  if (q != floorDiv(a->hi, c)) return out;
  if (k == NodeKind::FloorDiv || k == NodeKind::Div) return make<IntImm>(out->dtype, q);
  return q == 0 ? bin.a : simplify(sub(bin.a, make<IntImm>(out->dtype, q * c)));
}

Stmt IndexFolder::stmt(const Stmt& s) {
  if (!s) return s;
  switch (s->kind()) {
    case NodeKind::BufferStore: return mapStore(s, [&](const PrimExpr& e) { return expr(e); });
    case NodeKind::SeqStmt: return mapSeq(s, [&](const Stmt& x) { return stmt(x); });
    case NodeKind::For: {
      auto& f = static_cast<const For&>(*s);
      auto lo = bound(f.min), extent = bound(f.extent);
      std::optional<Interval> r;
      if (lo && extent && lo->lo == lo->hi && extent->lo == extent->hi && extent->lo > 0) r = Interval{lo->lo, lo->lo + extent->lo - 1};
      Scoped bind(*this, f.loopVar.get(), r);
      Stmt body = stmt(f.body);
      return body.get() == f.body.get() ? s : Stmt(copyFor(f, body, f.loopKind));
    }
    case NodeKind::BlockRealize: {
      auto& r = static_cast<const BlockRealize&>(*s);
      const TirBlock& blk = *r.block;
      std::vector<std::unique_ptr<Scoped>> bound;
      for (size_t k = 0; k < blk.iterVars.size() && k < r.iterValues.size(); ++k) {
        // The binding's range, narrowed by the iter var's declared domain.
        auto v = this->bound(r.iterValues[k]);
        auto dmin = this->bound(blk.iterVars[k].dom.min), dext = this->bound(blk.iterVars[k].dom.extent);
        if (v && dmin && dext && dmin->lo == dmin->hi && dext->lo == dext->hi) v = Interval{std::max(v->lo, dmin->lo), std::min(v->hi, dmin->lo + dext->lo - 1)};
        bound.push_back(std::make_unique<Scoped>(*this, blk.iterVars[k].var.get(), v && v->lo <= v->hi ? v : std::nullopt));
      }
      Stmt body = stmt(blk.body), init = stmt(blk.init);
      if (body.get() == blk.body.get() && init.get() == blk.init.get()) return s;
      auto copy = copyBlock(blk);
      copy->body = body;
      copy->init = init;
      return copyRealize(r, copy);
    }
    case NodeKind::IfThenElse: {
      auto& i = static_cast<const IfThenElse&>(*s);
      Stmt t = stmt(i.thenCase), e = stmt(i.elseCase);
      if (t.get() == i.thenCase.get() && e.get() == i.elseCase.get()) return s;
      auto out = make<IfThenElse>(i.cond, t, e);
      out->span = i.span;
      return out;
    }
    default: return s;  // lets, asserts, allocations: left as they are
  }
}

}  // namespace

Stmt foldIndexDivisions(const Stmt& s) { return IndexFolder().stmt(s); }

}  // namespace rlx
