// TIR merging helpers for FuseTIR: a rebuilding substituter over statements and expressions, the
// symbolic shape matcher and the block-name de-duplication.
#include "passes/tir_merge.h"

#include <cctype>
#include <functional>
#include <string>

namespace rlx::tir_merge {

BufferRef declBuffer(const std::string& name, const std::vector<PrimExpr>& shape, DataType dtype) {
  auto b = make<Buffer>();
  b->name = name;
  b->shape = shape;
  b->dtype = dtype;
  b->data = make<PrimVar>(name, DataType::handle());
  return b;
}

PrimVarRef Substituter::renewVar(const PrimVarRef& v) {
  auto fresh = make<PrimVar>(v->name, v->dtype, v->isSizeVar);
  vars[v.get()] = fresh;
  return fresh;
}

BufferRef Substituter::buffer(const BufferRef& b) const {
  auto it = buffers.find(b.get());
  return it == buffers.end() ? b : it->second;
}

BufferRef Substituter::renewBuffer(const BufferRef& b) {
  auto n = make<Buffer>();
  n->name = b->name;
  n->dtype = b->dtype;
  for (auto& d : b->shape) n->shape.push_back(expr(d));
  for (auto& s : b->strides) n->strides.push_back(expr(s));
  n->elemOffset = b->elemOffset ? expr(b->elemOffset) : nullptr;
  n->scope = b->scope;
  n->alignment = b->alignment;
  n->offsetFactor = b->offsetFactor;
  n->axisSeparators = b->axisSeparators;
  n->explicitAlign = b->explicitAlign;
  n->explicitOffsetFactor = b->explicitOffsetFactor;
  n->explicitElemOffset = b->explicitElemOffset;
  n->data = b->data ? make<PrimVar>(b->data->name, b->data->dtype) : nullptr;
  buffers[b.get()] = n;
  return n;
}

PrimExpr Substituter::expr(const PrimExpr& e) {
  if (!e) return e;
  auto list = [&](const std::vector<PrimExpr>& xs) {
    std::vector<PrimExpr> out;
    for (auto& x : xs) out.push_back(expr(x));
    return out;
  };
  switch (e->kind()) {
    case NodeKind::PrimVar: {
      auto it = vars.find(static_cast<const PrimVar*>(e.get()));
      return it == vars.end() ? e : it->second;
    }
    case NodeKind::Not: return make<PrimNot>(expr(static_cast<const PrimNot&>(*e).a));
    case NodeKind::Select: {
      auto& s = static_cast<const Select&>(*e);
      return make<Select>(expr(s.cond), expr(s.trueValue), expr(s.falseValue));
    }
    case NodeKind::Cast: return make<Cast>(e->dtype, expr(static_cast<const Cast&>(*e).value));
    case NodeKind::PrimCall: {
      auto& c = static_cast<const PrimCall&>(*e);
      return make<PrimCall>(e->dtype, c.op, list(c.args));
    }
    case NodeKind::BufferLoad: {
      auto& l = static_cast<const BufferLoad&>(*e);
      return make<BufferLoad>(e->dtype, buffer(l.buffer), list(l.indices));
    }
    case NodeKind::PrimLet: {
      auto& l = static_cast<const PrimLet&>(*e);
      PrimExpr value = expr(l.value);
      PrimVarRef v = renewVar(l.var);
      return make<PrimLet>(v, value, expr(l.body));
    }
    case NodeKind::Ramp: {
      auto& r = static_cast<const Ramp&>(*e);
      return make<Ramp>(expr(r.base), expr(r.stride), r.lanes);
    }
    case NodeKind::Broadcast: {
      auto& b = static_cast<const Broadcast&>(*e);
      return make<Broadcast>(expr(b.value), b.lanes);
    }
    default:
      if (PrimBinary::classOf(e->kind())) {
        auto& b = static_cast<const PrimBinary&>(*e);
        return make<PrimBinary>(e->kind(), e->dtype, expr(b.a), expr(b.b));
      }
      return e;  // immediates
  }
}

BufferRegion Substituter::region(const BufferRegion& r) {
  BufferRegion out{buffer(r.buffer), {}};
  for (auto& rg : r.region) out.region.push_back({expr(rg.min), expr(rg.extent)});
  return out;
}

std::vector<BufferRegion> Substituter::regions(const std::vector<BufferRegion>& rs) {
  std::vector<BufferRegion> out;
  std::set<const Buffer*> seen;
  for (auto& r : rs) {
    BufferRegion n = region(r);
    if (seen.insert(n.buffer.get()).second) out.push_back(std::move(n));
  }
  return out;
}

Stmt Substituter::block(const TirBlock& b) {
  auto n = make<TirBlock>();
  n->name = b.name;
  for (auto& iv : b.iterVars) {
    Range dom{expr(iv.dom.min), expr(iv.dom.extent)};
    n->iterVars.push_back({renewVar(iv.var), dom, iv.kind});
  }
  for (auto& a : b.allocBuffers) n->allocBuffers.push_back(renewBuffer(a));
  for (auto& m : b.matchBuffers) {
    BufferRegion src = region(m.source);
    n->matchBuffers.push_back({renewBuffer(m.buffer), src});
  }
  n->reads = regions(b.reads);
  n->writes = regions(b.writes);
  n->init = b.init ? stmt(b.init) : nullptr;
  n->body = stmt(b.body);
  // Named after its children, the order in which TVM's de-duplicator renames blocks.
  if (blockNames) n->name = blockNames->unique(b.name);
  n->annotations = b.annotations;
  n->span = b.span;
  return n;
}

Stmt Substituter::stmt(const Stmt& s) {
  if (!s) return s;
  Stmt out;
  switch (s->kind()) {
    case NodeKind::BufferStore: {
      auto& st = static_cast<const BufferStore&>(*s);
      std::vector<PrimExpr> idx;
      for (auto& i : st.indices) idx.push_back(expr(i));
      out = make<BufferStore>(buffer(st.buffer), expr(st.value), std::move(idx));
      break;
    }
    case NodeKind::SeqStmt: {
      std::vector<Stmt> seq;
      for (auto& x : static_cast<const SeqStmt&>(*s).seq) seq.push_back(stmt(x));
      out = make<SeqStmt>(std::move(seq));
      break;
    }
    case NodeKind::For: {
      auto& f = static_cast<const For&>(*s);
      auto n = make<For>();
      n->min = expr(f.min);
      n->extent = expr(f.extent);
      n->loopVar = renewVar(f.loopVar);
      n->loopKind = f.loopKind;
      n->threadTag = f.threadTag;
      n->annotations = f.annotations;
      n->body = stmt(f.body);
      out = n;
      break;
    }
    case NodeKind::IfThenElse: {
      auto& i = static_cast<const IfThenElse&>(*s);
      out = make<IfThenElse>(expr(i.cond), stmt(i.thenCase), stmt(i.elseCase));
      break;
    }
    case NodeKind::LetStmt: {
      auto& l = static_cast<const LetStmt&>(*s);
      PrimExpr value = expr(l.value);
      PrimVarRef v = renewVar(l.var);
      out = make<LetStmt>(v, value, stmt(l.body));
      break;
    }
    case NodeKind::Evaluate: out = make<Evaluate>(expr(static_cast<const Evaluate&>(*s).value)); break;
    case NodeKind::AssertStmt: {
      auto& a = static_cast<const AssertStmt&>(*s);
      out = make<AssertStmt>(expr(a.cond), expr(a.message), stmt(a.body));
      break;
    }
    case NodeKind::BlockRealize: {
      auto& r = static_cast<const BlockRealize&>(*s);
      auto n = make<BlockRealize>();
      for (auto& v : r.iterValues) n->iterValues.push_back(expr(v));
      n->predicate = expr(r.predicate);
      n->block = block(*r.block).as<TirBlock>();
      out = n;
      break;
    }
    case NodeKind::TirBlock: out = block(static_cast<const TirBlock&>(*s)); break;
    default: return s;
  }
  out->span = s->span;
  return out;
}

void matchSymbolic(const PrimExpr& pattern, const PrimExpr& actual, std::unordered_map<const PrimVar*, PrimExpr>& map) {
  if (!pattern || !actual || pattern.same(actual)) return;
  if (auto v = pattern.as<PrimVar>()) {
    map.emplace(v.get(), actual);
    return;
  }
  if (pattern->kind() != actual->kind()) return;
  if (PrimBinary::classOf(pattern->kind())) {
    auto &p = static_cast<const PrimBinary&>(*pattern), &a = static_cast<const PrimBinary&>(*actual);
    matchSymbolic(p.a, a.a, map);
    matchSymbolic(p.b, a.b, map);
  } else if (pattern->kind() == NodeKind::Cast) {
    matchSymbolic(static_cast<const Cast&>(*pattern).value, static_cast<const Cast&>(*actual).value, map);
  } else if (pattern->kind() == NodeKind::Select) {
    auto &p = static_cast<const Select&>(*pattern), &a = static_cast<const Select&>(*actual);
    matchSymbolic(p.trueValue, a.trueValue, map);
    matchSymbolic(p.falseValue, a.falseValue, map);
  }
}

Stmt flatten(const std::vector<Stmt>& stmts) {
  std::vector<Stmt> out;
  std::function<void(const Stmt&)> add = [&](const Stmt& s) {
    if (auto seq = s.as<SeqStmt>()) {
      for (auto& x : seq->seq) add(x);
    } else if (s) {
      out.push_back(s);
    }
  };
  for (auto& s : stmts) add(s);
  return out.size() == 1 ? out[0] : Stmt(make<SeqStmt>(std::move(out)));
}

std::string BlockNames::unique(const std::string& name) {
  if (used_.insert(name).second) return name;
  size_t base = name.size();
  while (base > 0 && std::isdigit(static_cast<unsigned char>(name[base - 1]))) --base;
  // Trailing digits too long for an integer count as part of the stem (as in TVM).
  bool numbered = base < name.size() && name.size() - base < 18;
  std::string stem = numbered ? name.substr(0, base) : name;
  long long n = numbered ? std::stoll(name.substr(base)) + 1 : 1;
  while (!used_.insert(stem + std::to_string(n)).second) ++n;
  return stem + std::to_string(n);
}

}  // namespace rlx::tir_merge
