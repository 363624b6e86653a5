// StructInfo algebra (equality, subtyping, LCA, substitution, matching) following TVM's
// struct_info_analysis.cc; symbolic dims are compared with the shape simplifier's proveEqual.
#include "ir/struct_info.h"

#include "ir/arith.h"
#include "ir/tir.h"

namespace rlx {
namespace {

const TensorSInfo* asTensor(const StructInfo& s) { return static_cast<const TensorSInfo*>(s.get()); }

bool dimsEqual(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!proveEqual(a[i], b[i])) return false;
  return true;
}

// Shape expressions of tensors: ShapeExprs compare by dims, shape Vars by identity.
bool shapeEqual(const Expr& a, const Expr& b) {
  if (a.get() == b.get()) return true;
  if (!a || !b) return false;
  auto sa = a.as<ShapeExpr>(), sb = b.as<ShapeExpr>();
  if (sa && sb) return dimsEqual(sa->values, sb->values);
  return false;
}

bool optionalPrimEqual(const PrimExpr& a, const PrimExpr& b) {
  if (!a || !b) return !a && !b;
  return proveEqual(a, b);
}

}  // namespace

bool sinfoEqual(const StructInfo& a, const StructInfo& b) {
  if (a.get() == b.get()) return true;
  if (!a || !b || a->kind() != b->kind()) return false;
  switch (a->kind()) {
    case NodeKind::ObjectSInfo: return true;
    case NodeKind::PrimSInfo: {
      auto *x = static_cast<const PrimSInfo*>(a.get()), *y = static_cast<const PrimSInfo*>(b.get());
      return x->dtype == y->dtype && optionalPrimEqual(x->value, y->value);
    }
    case NodeKind::ShapeSInfo: {
      auto *x = static_cast<const ShapeSInfo*>(a.get()), *y = static_cast<const ShapeSInfo*>(b.get());
      if (x->ndim != y->ndim || x->values.has_value() != y->values.has_value()) return false;
      return !x->values || dimsEqual(*x->values, *y->values);
    }
    case NodeKind::TensorSInfo: {
      auto *x = asTensor(a), *y = asTensor(b);
      if (x->dtype != y->dtype || x->ndim != y->ndim || x->vdevice != y->vdevice) return false;
      if (!x->shape || !y->shape) return !x->shape && !y->shape;
      return shapeEqual(x->shape, y->shape);
    }
    case NodeKind::TupleSInfo: {
      auto *x = static_cast<const TupleSInfo*>(a.get()), *y = static_cast<const TupleSInfo*>(b.get());
      if (x->fields.size() != y->fields.size()) return false;
      for (size_t i = 0; i < x->fields.size(); ++i)
        if (!sinfoEqual(x->fields[i], y->fields[i])) return false;
      return true;
    }
    case NodeKind::FuncSInfo: {
      auto *x = static_cast<const FuncSInfo*>(a.get()), *y = static_cast<const FuncSInfo*>(b.get());
      if (x->isPure != y->isPure || x->params.has_value() != y->params.has_value()) return false;
      if (x->params) {
        if (x->params->size() != y->params->size()) return false;
        for (size_t i = 0; i < x->params->size(); ++i)
          if (!sinfoEqual((*x->params)[i], (*y->params)[i])) return false;
      }
      return sinfoEqual(x->ret, y->ret);
    }
    default: return false;
  }
}

bool sinfoIsBaseOf(const StructInfo& base, const StructInfo& derived) {
  if (!base || base->kind() == NodeKind::ObjectSInfo) return true;
  if (base.get() == derived.get()) return true;
  if (!derived || base->kind() != derived->kind()) return false;
  switch (base->kind()) {
    case NodeKind::PrimSInfo: {
      auto *b = static_cast<const PrimSInfo*>(base.get()), *d = static_cast<const PrimSInfo*>(derived.get());
      if (!b->dtype.isVoid() && b->dtype != d->dtype) return false;
      if (!b->value) return true;
      return d->value && proveEqual(b->value, d->value);
    }
    case NodeKind::ShapeSInfo: {
      auto *b = static_cast<const ShapeSInfo*>(base.get()), *d = static_cast<const ShapeSInfo*>(derived.get());
      if (b->ndim == -1) return true;
      if (b->ndim != d->ndim) return false;
      if (!b->values) return true;
      return d->values && dimsEqual(*b->values, *d->values);
    }
    case NodeKind::TensorSInfo: {
      auto *b = asTensor(base), *d = asTensor(derived);
      if (!b->dtype.isVoid() && b->dtype != d->dtype) return false;
      if (b->ndim != -1 && b->ndim != d->ndim) return false;
      if (!b->vdevice.empty() && b->vdevice != d->vdevice) return false;
      if (!b->shape) return true;
      return d->shape && shapeEqual(b->shape, d->shape);
    }
    case NodeKind::TupleSInfo: {
      auto *b = static_cast<const TupleSInfo*>(base.get()), *d = static_cast<const TupleSInfo*>(derived.get());
      if (b->fields.size() != d->fields.size()) return false;
      for (size_t i = 0; i < b->fields.size(); ++i)
        if (!sinfoIsBaseOf(b->fields[i], d->fields[i])) return false;
      return true;
    }
    case NodeKind::FuncSInfo: {
      auto *b = static_cast<const FuncSInfo*>(base.get()), *d = static_cast<const FuncSInfo*>(derived.get());
      // A pure function may stand where an impure one is expected, not the other way round.
      if (b->isPure && !d->isPure) return false;
      if (!b->params) return sinfoIsBaseOf(b->ret, d->ret);
      if (!d->params || b->params->size() != d->params->size()) return false;
      // Parameters are contravariant: the derived function must accept everything the base does.
      for (size_t i = 0; i < b->params->size(); ++i)
        if (!sinfoIsBaseOf((*d->params)[i], (*b->params)[i])) return false;
      return sinfoIsBaseOf(b->ret, d->ret);
    }
    default: return false;
  }
}

namespace {
// Extents that differ by a known non-zero constant can never be equal.
bool dimsNeverEqual(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  if (a.size() != b.size()) return true;
  for (size_t i = 0; i < a.size(); ++i) {
    auto d = constInt(simplify(sub(a[i], b[i])));
    if (d && *d != 0) return true;
  }
  return false;
}
}  // namespace

bool sinfoNeverBaseOf(const StructInfo& base, const StructInfo& value) {
  if (!base || !value || base->kind() == NodeKind::ObjectSInfo || value->kind() == NodeKind::ObjectSInfo) return false;
  if (base->kind() != value->kind()) return true;
  switch (base->kind()) {
    case NodeKind::PrimSInfo: {
      auto *b = static_cast<const PrimSInfo*>(base.get()), *d = static_cast<const PrimSInfo*>(value.get());
      if (!b->dtype.isVoid() && !d->dtype.isVoid() && b->dtype != d->dtype) return true;
      return b->value && d->value && dimsNeverEqual({b->value}, {d->value});
    }
    case NodeKind::ShapeSInfo: {
      auto *b = static_cast<const ShapeSInfo*>(base.get()), *d = static_cast<const ShapeSInfo*>(value.get());
      if (b->ndim != -1 && d->ndim != -1 && b->ndim != d->ndim) return true;
      return b->values && d->values && dimsNeverEqual(*b->values, *d->values);
    }
    case NodeKind::TensorSInfo: {
      auto *b = asTensor(base), *d = asTensor(value);
      if (!b->dtype.isVoid() && !d->dtype.isVoid() && b->dtype != d->dtype) return true;
      if (b->ndim != -1 && d->ndim != -1 && b->ndim != d->ndim) return true;
      if (!b->vdevice.empty() && !d->vdevice.empty() && b->vdevice != d->vdevice) return true;
      auto *db = b->dims(), *dd = d->dims();
      return db && dd && dimsNeverEqual(*db, *dd);
    }
    case NodeKind::TupleSInfo: {
      auto *b = static_cast<const TupleSInfo*>(base.get()), *d = static_cast<const TupleSInfo*>(value.get());
      if (b->fields.size() != d->fields.size()) return true;
      for (size_t i = 0; i < b->fields.size(); ++i)
        if (sinfoNeverBaseOf(b->fields[i], d->fields[i])) return true;
      return false;
    }
    case NodeKind::FuncSInfo: {
      auto *b = static_cast<const FuncSInfo*>(base.get()), *d = static_cast<const FuncSInfo*>(value.get());
      if (b->params && d->params) {
        if (b->params->size() != d->params->size()) return true;
        for (size_t i = 0; i < b->params->size(); ++i)
          if (sinfoNeverBaseOf((*d->params)[i], (*b->params)[i])) return true;
      }
      return sinfoNeverBaseOf(b->ret, d->ret);
    }
    default: return false;
  }
}

StructInfo sinfoLCA(const StructInfo& a, const StructInfo& b) {
  if (!a || !b) return objectSInfo();
  if (a.get() == b.get()) return a;
  if (a->kind() != b->kind() || a->kind() == NodeKind::ObjectSInfo) return objectSInfo();
  switch (a->kind()) {
    case NodeKind::PrimSInfo: {
      auto *x = static_cast<const PrimSInfo*>(a.get()), *y = static_cast<const PrimSInfo*>(b.get());
      if (x->dtype != y->dtype) return objectSInfo();
      if (x->value && y->value && proveEqual(x->value, y->value)) return a;
      if (!x->value) return a;
      return make<PrimSInfo>(x->dtype);
    }
    case NodeKind::ShapeSInfo: {
      auto *x = static_cast<const ShapeSInfo*>(a.get()), *y = static_cast<const ShapeSInfo*>(b.get());
      int ndim = x->ndim == y->ndim ? x->ndim : -1;
      if (x->ndim != y->ndim || !x->values || !y->values || !dimsEqual(*x->values, *y->values)) {
        if (!x->values && x->ndim == ndim) return a;  // reuse the left side when it already fits
        return make<ShapeSInfo>(std::nullopt, ndim);
      }
      return a;
    }
    case NodeKind::TensorSInfo: {
      auto *x = asTensor(a), *y = asTensor(b);
      DataType dtype = x->dtype == y->dtype ? x->dtype : DataType::void_();
      int ndim = x->ndim == y->ndim ? x->ndim : -1;
      std::string vdev = (!x->vdevice.empty() && x->vdevice == y->vdevice) ? x->vdevice : std::string();
      if (x->ndim != y->ndim || !x->shape || !y->shape || !shapeEqual(x->shape, y->shape)) {
        if (!x->shape && x->dtype == dtype && x->ndim == ndim && x->vdevice == vdev) return a;
        return make<TensorSInfo>(nullptr, dtype, ndim, vdev);
      }
      if (x->dtype != dtype || x->vdevice != vdev) return make<TensorSInfo>(x->shape, dtype, ndim, vdev);
      return a;
    }
    case NodeKind::TupleSInfo: {
      auto *x = static_cast<const TupleSInfo*>(a.get()), *y = static_cast<const TupleSInfo*>(b.get());
      if (x->fields.size() != y->fields.size()) return objectSInfo();
      std::vector<StructInfo> fields;
      bool same = true;
      for (size_t i = 0; i < x->fields.size(); ++i) {
        fields.push_back(sinfoLCA(x->fields[i], y->fields[i]));
        same &= fields.back().get() == x->fields[i].get();
      }
      return same ? a : make<TupleSInfo>(std::move(fields));
    }
    case NodeKind::FuncSInfo: {
      auto *x = static_cast<const FuncSInfo*>(a.get()), *y = static_cast<const FuncSInfo*>(b.get());
      bool pure = x->isPure && y->isPure;
      StructInfo ret = sinfoLCA(x->ret, y->ret);
      // Differing signatures cannot be unified: fall back to an opaque callable.
      bool sameParams = x->params && y->params && x->params->size() == y->params->size();
      for (size_t i = 0; sameParams && i < x->params->size(); ++i) sameParams = sinfoEqual((*x->params)[i], (*y->params)[i]);
      if (!sameParams) return make<FuncSInfo>(std::nullopt, ret, pure);
      if (ret.get() == x->ret.get() && pure == x->isPure) return a;
      return make<FuncSInfo>(x->params, ret, pure);
    }
    default: return objectSInfo();
  }
}

// ---------------------------------------------------------------- substitution
PrimExpr primSubstitute(const PrimExpr& e, const PrimVarMap& map) {
  if (!e || map.empty()) return e;
  switch (e->kind()) {
    case NodeKind::PrimVar: {
      auto it = map.find(static_cast<const PrimVar*>(e.get()));
      return it == map.end() ? e : it->second;
    }
    case NodeKind::IntImm:
    case NodeKind::FloatImm:
    case NodeKind::TirStringImm: return e;
    default: break;
  }
  // Rebuild only changed children, then simplify once at this level (simplify recurses anyway).
  auto subst = [&](const PrimExpr& x, bool& changed) {
    PrimExpr r = primSubstitute(x, map);
    changed |= r.get() != x.get();
    return r;
  };
  bool changed = false;
  PrimExpr out;
  if (PrimBinary::classOf(e->kind())) {
    auto* b = static_cast<const PrimBinary*>(e.get());
    PrimExpr x = subst(b->a, changed), y = subst(b->b, changed);
    if (changed) out = make<PrimBinary>(e->kind(), e->dtype, x, y);
  } else {
    switch (e->kind()) {
      case NodeKind::Not: {
        PrimExpr x = subst(static_cast<const PrimNot*>(e.get())->a, changed);
        if (changed) out = make<PrimNot>(x);
        break;
      }
      case NodeKind::Select: {
        auto* s = static_cast<const Select*>(e.get());
        PrimExpr c = subst(s->cond, changed), t = subst(s->trueValue, changed), f = subst(s->falseValue, changed);
        if (changed) out = make<Select>(c, t, f);
        break;
      }
      case NodeKind::Cast: {
        PrimExpr v = subst(static_cast<const Cast*>(e.get())->value, changed);
        if (changed) out = make<Cast>(e->dtype, v);
        break;
      }
      case NodeKind::PrimCall: {
        auto* c = static_cast<const PrimCall*>(e.get());
        std::vector<PrimExpr> args;
        for (auto& x : c->args) args.push_back(subst(x, changed));
        if (changed) out = make<PrimCall>(e->dtype, c->op, std::move(args));
        break;
      }
      case NodeKind::BufferLoad: {
        auto* l = static_cast<const BufferLoad*>(e.get());
        std::vector<PrimExpr> idx;
        for (auto& x : l->indices) idx.push_back(subst(x, changed));
        if (changed) out = make<BufferLoad>(e->dtype, l->buffer, std::move(idx));
        break;
      }
      case NodeKind::PrimLet: {
        auto* l = static_cast<const PrimLet*>(e.get());
        PrimExpr v = subst(l->value, changed), body = subst(l->body, changed);
        if (changed) out = make<PrimLet>(l->var, v, body);
        break;
      }
      case NodeKind::Ramp: {
        auto* r = static_cast<const Ramp*>(e.get());
        PrimExpr b = subst(r->base, changed), s = subst(r->stride, changed);
        if (changed) out = make<Ramp>(b, s, r->lanes);
        break;
      }
      case NodeKind::Broadcast: {
        auto* r = static_cast<const Broadcast*>(e.get());
        PrimExpr v = subst(r->value, changed);
        if (changed) out = make<Broadcast>(v, r->lanes);
        break;
      }
      default: break;
    }
  }
  return changed ? simplify(out) : e;
}

namespace {
// Substitutes a dim list; null when nothing changed (so callers keep their node).
std::optional<std::vector<PrimExpr>> substDims(const std::vector<PrimExpr>& dims, const PrimVarMap& map) {
  std::vector<PrimExpr> out;
  bool changed = false;
  out.reserve(dims.size());
  for (auto& d : dims) {
    out.push_back(primSubstitute(d, map));
    changed |= out.back().get() != d.get();
  }
  if (!changed) return std::nullopt;
  return out;
}
}  // namespace

StructInfo sinfoSubstitute(const StructInfo& s, const PrimVarMap& map) {
  if (!s || map.empty()) return s;
  switch (s->kind()) {
    case NodeKind::PrimSInfo: {
      auto* p = static_cast<const PrimSInfo*>(s.get());
      PrimExpr v = primSubstitute(p->value, map);
      return v.get() == p->value.get() ? s : make<PrimSInfo>(p->dtype, v);
    }
    case NodeKind::ShapeSInfo: {
      auto* p = static_cast<const ShapeSInfo*>(s.get());
      if (!p->values) return s;
      auto dims = substDims(*p->values, map);
      return dims ? make<ShapeSInfo>(std::move(dims), p->ndim) : s;
    }
    case NodeKind::TensorSInfo: {
      auto* t = asTensor(s);
      auto* d = t->dims();
      if (!d) return s;
      auto dims = substDims(*d, map);
      return dims ? tensorSInfo(std::move(*dims), t->dtype, t->vdevice) : s;
    }
    case NodeKind::TupleSInfo: {
      auto* t = static_cast<const TupleSInfo*>(s.get());
      std::vector<StructInfo> fields;
      bool changed = false;
      for (auto& f : t->fields) {
        fields.push_back(sinfoSubstitute(f, map));
        changed |= fields.back().get() != f.get();
      }
      return changed ? make<TupleSInfo>(std::move(fields)) : s;
    }
    case NodeKind::FuncSInfo: {
      auto* f = static_cast<const FuncSInfo*>(s.get());
      bool changed = false;
      std::optional<std::vector<StructInfo>> params;
      if (f->params) {
        params.emplace();
        for (auto& p : *f->params) {
          params->push_back(sinfoSubstitute(p, map));
          changed |= params->back().get() != p.get();
        }
      }
      StructInfo ret = sinfoSubstitute(f->ret, map);
      changed |= ret.get() != f->ret.get();
      return changed ? make<FuncSInfo>(std::move(params), ret, f->isPure) : s;
    }
    default: return s;
  }
}

void sinfoCollectVars(const StructInfo& s, std::vector<Ref<PrimVar>>& out) {
  if (!s) return;
  switch (s->kind()) {
    case NodeKind::PrimSInfo: collectVars(static_cast<const PrimSInfo*>(s.get())->value, out); return;
    case NodeKind::ShapeSInfo: {
      auto* p = static_cast<const ShapeSInfo*>(s.get());
      if (p->values)
        for (auto& d : *p->values) collectVars(d, out);
      return;
    }
    case NodeKind::TensorSInfo:
      if (auto* d = asTensor(s)->dims())
        for (auto& x : *d) collectVars(x, out);
      return;
    case NodeKind::TupleSInfo:
      for (auto& f : static_cast<const TupleSInfo*>(s.get())->fields) sinfoCollectVars(f, out);
      return;
    case NodeKind::FuncSInfo: {
      auto* f = static_cast<const FuncSInfo*>(s.get());
      if (f->params)
        for (auto& p : *f->params) sinfoCollectVars(p, out);
      sinfoCollectVars(f->ret, out);
      return;
    }
    default: return;
  }
}

// ---------------------------------------------------------------- matching
namespace {

// Two passes over the pattern: the first binds bare vars (n -> 4) and checks repeats, the second
// checks compound dims (n * 2) once every var they use may be bound.
class Matcher {
 public:
  explicit Matcher(PrimVarMap& map) : map_(map) {}

  bool run(const StructInfo& pattern, const StructInfo& actual) {
    compound_.clear();
    if (!walk(pattern, actual)) return false;
    for (auto& [p, a] : compound_)
      if (!checkCompound(p, a)) return false;
    return true;
  }

 private:
  PrimVarMap& map_;
  std::vector<std::pair<PrimExpr, PrimExpr>> compound_;

  bool dim(const PrimExpr& p, const PrimExpr& a) {
    if (!p || !a) return true;
    if (p->kind() == NodeKind::PrimVar) {
      auto* v = static_cast<const PrimVar*>(p.get());
      auto it = map_.find(v);
      if (it != map_.end()) return proveEqual(it->second, a);
      map_.emplace(v, a);
      return true;
    }
    compound_.emplace_back(p, a);
    return true;
  }

  bool dims(const std::vector<PrimExpr>& p, const std::vector<PrimExpr>& a) {
    if (p.size() != a.size()) return false;
    for (size_t i = 0; i < p.size(); ++i)
      if (!dim(p[i], a[i])) return false;
    return true;
  }

  // A compound pattern dim: substitute, then prove; with exactly one var still unbound and a
  // constant actual, solve the (linear) equation for it and verify by substitution.
  bool checkCompound(const PrimExpr& p, const PrimExpr& a) {
    PrimExpr s = primSubstitute(p, map_);
    std::vector<Ref<PrimVar>> vars;
    collectVars(s, vars);
    std::vector<Ref<PrimVar>> free;
    for (auto& v : vars)
      if (!map_.count(v.get())) free.push_back(v);
    if (free.empty()) return proveEqual(s, a);
    auto target = constInt(a);
    if (free.size() != 1 || !target) return true;  // not decidable here: leave it to runtime checks
    const PrimVar* v = free[0].get();
    auto at = [&](int64_t x) { return constInt(primSubstitute(s, PrimVarMap{{v, intImm(x, v->dtype)}})); };
    auto f0 = at(0), f1 = at(1);
    if (!f0 || !f1 || *f1 == *f0) return true;
    int64_t slope = *f1 - *f0, rhs = *target - *f0;
    if (rhs % slope != 0) return false;
    PrimExpr solution = intImm(rhs / slope, v->dtype);
    auto check = constInt(primSubstitute(s, PrimVarMap{{v, solution}}));
    if (!check) return true;
    if (*check != *target) return false;
    map_.emplace(v, solution);
    return true;
  }

  bool walk(const StructInfo& p, const StructInfo& a) {
    if (!p || p->kind() == NodeKind::ObjectSInfo) return true;
    if (!a || a->kind() == NodeKind::ObjectSInfo) return true;  // nothing known about the actual
    if (p->kind() != a->kind()) return false;
    switch (p->kind()) {
      case NodeKind::PrimSInfo: {
        auto *x = static_cast<const PrimSInfo*>(p.get()), *y = static_cast<const PrimSInfo*>(a.get());
        if (!x->dtype.isVoid() && !y->dtype.isVoid() && x->dtype != y->dtype) return false;
        return dim(x->value, y->value);
      }
      case NodeKind::ShapeSInfo: {
        auto *x = static_cast<const ShapeSInfo*>(p.get()), *y = static_cast<const ShapeSInfo*>(a.get());
        if (x->ndim != -1 && y->ndim != -1 && x->ndim != y->ndim) return false;
        if (!x->values || !y->values) return true;
        return dims(*x->values, *y->values);
      }
      case NodeKind::TensorSInfo: {
        auto *x = asTensor(p), *y = asTensor(a);
        if (!x->dtype.isVoid() && !y->dtype.isVoid() && x->dtype != y->dtype) return false;
        if (x->ndim != -1 && y->ndim != -1 && x->ndim != y->ndim) return false;
        auto *dx = x->dims(), *dy = y->dims();
        if (!dx || !dy) return true;
        return dims(*dx, *dy);
      }
      case NodeKind::TupleSInfo: {
        auto *x = static_cast<const TupleSInfo*>(p.get()), *y = static_cast<const TupleSInfo*>(a.get());
        if (x->fields.size() != y->fields.size()) return false;
        for (size_t i = 0; i < x->fields.size(); ++i)
          if (!walk(x->fields[i], y->fields[i])) return false;
        return true;
      }
      case NodeKind::FuncSInfo: {
        auto *x = static_cast<const FuncSInfo*>(p.get()), *y = static_cast<const FuncSInfo*>(a.get());
        if (x->params && y->params) {
          if (x->params->size() != y->params->size()) return false;
          for (size_t i = 0; i < x->params->size(); ++i)
            if (!walk((*x->params)[i], (*y->params)[i])) return false;
        }
        return walk(x->ret, y->ret);
      }
      default: return true;
    }
  }
};

}  // namespace

bool sinfoMatch(const StructInfo& pattern, const StructInfo& actual, PrimVarMap& map) {
  return Matcher(map).run(pattern, actual);
}

}  // namespace rlx
