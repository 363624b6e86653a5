// The tensor-expression builder behind LegalizeOps: each compute stage becomes loops around one
// block (iter vars v_<loop>, regions inferred as TVM's create_prim_func does), in creation order.
#include "ir/prim_expr_map.h"
#include "passes/legalize/te.h"
#include "passes/tir_merge.h"

#include <cmath>
#include <limits>
#include <set>

#include "ir/arith.h"
#include "parser/build_tir.h"
#include "parser/build_tir_internal.h"

namespace rlx::te {

PrimExpr Tensor::operator()(const Indices& idx) const { return make<BufferLoad>(buf->dtype, buf, idx); }

PrimExpr constant(double v, DataType t) {
  if (t.isFloat()) return floatImm(v, t);
  return intImm(int64_t(v), t);
}

PrimExpr identity(Combiner c, DataType t) {
  switch (c) {
    case Combiner::Sum: return constant(0, t);
    case Combiner::Prod: return constant(1, t);
    case Combiner::Max:
    case Combiner::Min: {
      bool lo = c == Combiner::Max;
      if (t.isFloat()) {
        double m = t.bits == 64 ? std::numeric_limits<double>::max() : t.bits == 16 ? 65504.0 : double(std::numeric_limits<float>::max());
        return floatImm(lo ? -m : m, t);
      }
      if (t.isBool()) return intImm(lo ? 0 : 1, t);
      if (t.isUInt()) return intImm(lo ? 0 : int64_t(t.bits >= 64 ? -1 : (int64_t(1) << t.bits) - 1), t);
      int64_t mx = t.bits >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (t.bits - 1)) - 1;
      return intImm(lo ? -mx - 1 : mx, t);
    }
  }
  return constant(0, t);
}

PrimExpr bin(NodeKind k, const PrimExpr& a, const PrimExpr& b) { return binary(k, a, b); }

PrimExpr call(const std::string& op, DataType t, std::vector<PrimExpr> args) { return make<PrimCall>(t, op, std::move(args)); }

PrimExpr idxAdd(const PrimExpr& a, const PrimExpr& b) {
  if (auto f = foldConstants(NodeKind::Add, a, b)) return f;
  if (auto i = asIntImm(b); i && i->value == 0) return a;
  if (auto i = asIntImm(a); i && i->value == 0) return b;
  return binary(NodeKind::Add, a, b);
}

PrimExpr idxMul(const PrimExpr& a, const PrimExpr& b) {
  if (auto f = foldConstants(NodeKind::Mul, a, b)) return f;
  if (auto i = asIntImm(b); i && i->value == 1) return a;
  if (auto i = asIntImm(a); i && i->value == 1) return b;
  return binary(NodeKind::Mul, a, b);
}

namespace {

PrimExpr substVars(const PrimExpr& e, const std::function<PrimExpr(const PrimVar&)>& f) {
  if (!e) return e;
  switch (e->kind()) {
    case NodeKind::PrimVar: {
      PrimExpr r = f(static_cast<const PrimVar&>(*e));
      return r ? r : e;
    }
    case NodeKind::Not: return make<PrimNot>(substVars(static_cast<const PrimNot&>(*e).a, f));
    case NodeKind::Select: {
      auto& s = static_cast<const Select&>(*e);
      return make<Select>(substVars(s.cond, f), substVars(s.trueValue, f), substVars(s.falseValue, f));
    }
    case NodeKind::Cast: return make<Cast>(e->dtype, substVars(static_cast<const Cast&>(*e).value, f));
    case NodeKind::PrimCall: {
      auto& c = static_cast<const PrimCall&>(*e);
      std::vector<PrimExpr> args;
      for (auto& a : c.args) args.push_back(substVars(a, f));
      return make<PrimCall>(c.dtype, c.op, std::move(args));
    }
    default:
      if (auto b = e.as<PrimBinary>()) return make<PrimBinary>(e->kind(), e->dtype, substVars(b->a, f), substVars(b->b, f));
      return e;
  }
}

}  // namespace

PrimExpr KernelBuilder::mapShape(const PrimExpr& e) {
  return substVars(e, [&](const PrimVar& v) -> PrimExpr {
    for (auto& [k, mine] : vars_)
      if (k == &v) return mine;
    auto mine = make<PrimVar>(v.name, v.dtype);
    vars_.emplace_back(&v, mine);
    return mine;
  });
}

std::vector<PrimExpr> KernelBuilder::mapShape(const std::vector<PrimExpr>& dims) {
  std::vector<PrimExpr> out;
  for (auto& d : dims) out.push_back(mapShape(d));
  return out;
}

Tensor KernelBuilder::placeholder(const std::string& name, const std::vector<PrimExpr>& shape, DataType dtype) { return Tensor{tir_merge::declBuffer(name, shape, dtype)}; }

std::string KernelBuilder::blockName(const std::string& base) {
  int& n = blockNames_[base];
  std::string s = n == 0 ? base : base + "_" + std::to_string(n);
  ++n;
  return s;
}

Stmt KernelBuilder::nest(const std::vector<PrimVarRef>& loops, const std::vector<PrimExpr>& extents, Stmt body) {
  for (size_t i = loops.size(); i-- > 0;) {
    auto f = make<For>();
    f->loopVar = loops[i];
    f->min = intImm(0, extents[i]->dtype);
    f->extent = extents[i];
    f->body = body;
    body = f;
  }
  return body;
}

namespace {

// Loops and block iter vars for spatial extents (DataPar) then reduce axes (CommReduce).
struct Iters {
  std::vector<PrimVarRef> loops;
  std::vector<PrimExpr> extents;
  std::vector<IterVar> ivars;
  Indices spatial, reduce;
};

Iters makeIters(const std::vector<PrimExpr>& shape, const LoopNames& names, const std::vector<ReduceAxis>& axes) {
  Iters it;
  auto add = [&](PrimVarRef loop, const PrimExpr& extent, IterVar::Kind kind) {
    it.loops.push_back(loop);
    it.extents.push_back(extent);
    auto v = make<PrimVar>("v_" + loop->name, extent->dtype);
    it.ivars.push_back(IterVar{v, Range{intImm(0, extent->dtype), extent}, kind});
    (kind == IterVar::DataPar ? it.spatial : it.reduce).push_back(v);
  };
  for (size_t i = 0; i < shape.size(); ++i) add(make<PrimVar>(names.at(i), shape[i]->dtype), shape[i], IterVar::DataPar);
  for (auto& a : axes) add(a.var, a.extent, IterVar::CommReduce);
  return it;
}

Stmt realize(const Iters& it, TirBlockRef block) {
  tirbuild::inferAccessRegions(*block, true, true);
  auto r = make<BlockRealize>();
  for (auto& l : it.loops) r->iterValues.push_back(l);
  r->predicate = boolImm(true);
  r->block = block;
  return r;
}

}  // namespace

Tensor KernelBuilder::compute(const std::string& name, const std::vector<PrimExpr>& shape, DataType dtype, const std::function<PrimExpr(const Indices&)>& fn,
                              const LoopNames& loops, AttrsRef blockAttrs) {
  Iters it = makeIters(shape, loops, {});
  BufferRef out = tir_merge::declBuffer(name, shape, dtype);
  auto block = make<TirBlock>();
  block->name = blockName(name);
  block->iterVars = it.ivars;
  block->annotations = blockAttrs;
  block->body = make<BufferStore>(out, tirbuild::castTo(dtype, fn(it.spatial)), it.spatial);
  Stmt stage = realize(it, block);
  if (shape.empty()) {
    // TVM gives a 0-d compute one unit spatial axis, bound to 0: vi = T.axis.spatial(1, T.int64(0)),
    // its extent int64 when the value indexes a buffer with int64 values (a gathered element).
    bool int64Index = false;
    std::function<void(const PrimExpr&)> scan = [&](const PrimExpr& e) {
      if (auto* l = e->kind() == NodeKind::BufferLoad ? static_cast<const BufferLoad*>(e.get()) : nullptr)
        for (auto& i : l->indices) int64Index |= i->dtype == DataType::int64();
      forEachOperand(e, scan);
    };
    scan(static_cast<const BufferStore&>(*block->body).value);
    DataType dt = int64Index ? DataType::int64() : DataType::int32();
    block->iterVars.push_back(IterVar{make<PrimVar>("vi", dt), Range{intImm(0, dt), intImm(1, dt)}, IterVar::DataPar});
    static_cast<BlockRealize&>(*stage).iterValues.push_back(intImm(0));
  }
  stages_.push_back({{out}, nest(it.loops, it.extents, stage)});
  return Tensor{out};
}

Tensor KernelBuilder::scan(const std::string& name, const std::vector<PrimExpr>& shape, DataType dtype, size_t axis,
                           const std::function<PrimExpr(const Indices&, const PrimExpr&)>& fn, const LoopNames& loops) {
  Iters it = makeIters(shape, loops, {});
  it.ivars[axis].kind = IterVar::Ordered;
  BufferRef out = tir_merge::declBuffer(name, shape, dtype);
  Indices before = it.spatial;
  before[axis] = binary(NodeKind::Sub, before[axis], intImm(1, before[axis]->dtype));
  auto block = make<TirBlock>();
  block->name = blockName(name);
  block->iterVars = it.ivars;
  block->body = make<BufferStore>(out, tirbuild::castTo(dtype, fn(it.spatial, make<BufferLoad>(dtype, out, before))), it.spatial);
  stages_.push_back({{out}, nest(it.loops, it.extents, realize(it, block))});
  return Tensor{out};
}

ReduceAxis KernelBuilder::reduceAxis(const PrimExpr& extent, const std::string& name) { return ReduceAxis{make<PrimVar>(name, extent->dtype), extent}; }

Tensor KernelBuilder::reduce(const std::string& name, const std::vector<PrimExpr>& shape, DataType dtype, const std::vector<ReduceAxis>& axes, Combiner c,
                             const std::function<PrimExpr(const Indices&, const Indices&)>& fn, const LoopNames& loops,
                             AttrsRef blockAttrs) {
  Iters it = makeIters(shape, loops, axes);
  BufferRef out = tir_merge::declBuffer(name, shape, dtype);
  PrimExpr acc = make<BufferLoad>(dtype, out, it.spatial);
  PrimExpr v = fn(it.spatial, it.reduce);
  PrimExpr combined;
  switch (c) {
    case Combiner::Sum: combined = binary(NodeKind::Add, acc, v); break;
    case Combiner::Prod: combined = binary(NodeKind::Mul, acc, v); break;
    case Combiner::Max: combined = binary(NodeKind::Max, acc, v); break;
    case Combiner::Min: combined = binary(NodeKind::Min, acc, v); break;
  }
  auto block = make<TirBlock>();
  block->name = blockName(name);
  block->iterVars = it.ivars;
  block->annotations = blockAttrs;
  block->init = make<BufferStore>(out, identity(c, dtype), it.spatial);
  block->body = make<BufferStore>(out, combined, it.spatial);
  stages_.push_back({{out}, nest(it.loops, it.extents, realize(it, block))});
  return Tensor{out};
}

std::vector<Tensor> KernelBuilder::reduceTuple(const std::string& name, const std::vector<PrimExpr>& shape, const std::vector<DataType>& dtypes,
                                               const std::vector<ReduceAxis>& axes, const std::vector<PrimExpr>& inits,
                                               const std::function<std::vector<PrimExpr>(const Indices&, const Indices&, const std::vector<PrimExpr>&)>& update,
                                               const LoopNames& loops) {
  Iters it = makeIters(shape, loops, axes);
  std::vector<Tensor> outs;
  std::vector<BufferRef> bufs;
  std::vector<PrimExpr> accs;
  std::vector<Stmt> initStores, stores;
  for (size_t i = 0; i < dtypes.size(); ++i) {
    BufferRef b = tir_merge::declBuffer(name + "_v" + std::to_string(i), shape, dtypes[i]);
    bufs.push_back(b);
    outs.push_back(Tensor{b});
    accs.push_back(make<BufferLoad>(dtypes[i], b, it.spatial));
    initStores.push_back(make<BufferStore>(b, inits[i], it.spatial));
  }
  std::vector<PrimExpr> values = update(it.spatial, it.reduce, accs);
  std::vector<PrimVarRef> lets;
  for (size_t i = 0; i < bufs.size(); ++i) {
    lets.push_back(make<PrimVar>("v_" + bufs[i]->name, dtypes[i]));
    stores.push_back(make<BufferStore>(bufs[i], lets[i], it.spatial));
  }
  Stmt body = make<SeqStmt>(stores);
  for (size_t i = lets.size(); i-- > 0;) body = make<LetStmt>(lets[i], values[i], body);
  auto block = make<TirBlock>();
  block->name = blockName(name);
  block->iterVars = it.ivars;
  block->init = make<SeqStmt>(initStores);
  block->body = body;
  stages_.push_back({bufs, nest(it.loops, it.extents, realize(it, block))});
  return outs;
}

namespace {

void collectLoads(const PrimExpr& e, std::set<const Buffer*>& out) {
  if (!e) return;
  if (auto l = e.as<BufferLoad>()) {
    out.insert(l->buffer.get());
    for (auto& i : l->indices) collectLoads(i, out);
    return;
  }
  switch (e->kind()) {
    case NodeKind::Not: collectLoads(static_cast<const PrimNot&>(*e).a, out); return;
    case NodeKind::Select: {
      auto& s = static_cast<const Select&>(*e);
      collectLoads(s.cond, out), collectLoads(s.trueValue, out), collectLoads(s.falseValue, out);
      return;
    }
    case NodeKind::Cast: collectLoads(static_cast<const Cast&>(*e).value, out); return;
    case NodeKind::PrimCall:
      for (auto& a : static_cast<const PrimCall&>(*e).args) collectLoads(a, out);
      return;
    case NodeKind::PrimLet: {
      auto& l = static_cast<const PrimLet&>(*e);
      collectLoads(l.value, out), collectLoads(l.body, out);
      return;
    }
    default:
      if (auto b = e.as<PrimBinary>()) collectLoads(b->a, out), collectLoads(b->b, out);
  }
}

// The buffers a stage's block reads (its regions were inferred).
std::set<const Buffer*> stageReads(const Stmt& s) {
  std::set<const Buffer*> out;
  const Stmt* cur = &s;
  while (auto f = cur->as<For>()) cur = &f->body;
  if (auto r = cur->as<BlockRealize>())
    for (auto& reg : r->block->reads) out.insert(reg.buffer.get());
  return out;
}

}  // namespace

PrimFuncRef KernelBuilder::build(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs) {
  // Stages reachable from the outputs, in creation order.
  std::set<const Buffer*> needed;
  for (auto& o : outputs) needed.insert(o.buf.get());
  std::vector<bool> keep(stages_.size(), false);
  for (size_t i = stages_.size(); i-- > 0;) {
    bool used = false;
    for (auto& w : stages_[i].writes) used = used || needed.count(w.get());
    if (!used) continue;
    keep[i] = true;
    for (auto* b : stageReads(stages_[i].stmt)) needed.insert(b);
  }
  std::set<const Buffer*> params;
  auto func = make<PrimFunc>();
  for (auto* list : {&inputs, &outputs})
    for (auto& t : *list) {
      if (t.scalar) {
        func->params.push_back(t.scalar);
        continue;
      }
      auto handle = make<PrimVar>("var_" + t.buf->name, DataType::handle());
      func->params.push_back(handle);
      func->bufferMap.emplace_back(handle, t.buf);
      params.insert(t.buf.get());
    }
  std::vector<Stmt> body;
  std::vector<BufferRef> allocs;
  for (size_t i = 0; i < stages_.size(); ++i) {
    if (!keep[i]) continue;
    body.push_back(stages_[i].stmt);
    for (auto& w : stages_[i].writes)
      if (!params.count(w.get())) allocs.push_back(w);
  }
  auto root = make<TirBlock>();
  root->name = "root";
  root->body = body.size() == 1 ? body[0] : Stmt(make<SeqStmt>(body));
  root->allocBuffers = allocs;
  auto rr = make<BlockRealize>();
  rr->predicate = boolImm(true);
  rr->block = root;
  func->body = rr;
  func->attrs = withDictAttr(nullptr, "tir.noalias", AttrValue::boolean(true));
  func->sinfo = primFuncSInfo(*func);
  return func;
}

}  // namespace rlx::te
