// Legalization of gather/scatter and copy-like ops: gather_elements, gather_nd, scatter_elements,
// scatter_nd (negative indices wrap, as ONNX asks), one_hot, flip, tile, repeat, stack, eye(_like).
#include "ir/arith.h"
#include "ir/ops/infer_util.h"
#include "passes/legalize/legalize.h"

namespace rlx::legalize {

namespace {

using te::Indices;
using te::Tensor;

// `a` normalized into [0, nd) (negative counts from the end); -1 when out of range.
int64_t normAxis(int64_t a, size_t nd) {
  int64_t v = a < 0 ? a + int64_t(nd) : a;
  return v >= 0 && v < int64_t(nd) ? v : -1;
}

PrimExpr castTo(const PrimExpr& e, DataType t) { return e->dtype == t ? e : PrimExpr(make<Cast>(t, e)); }

// An index read from an index tensor, in the dtype of the extent `n` it indexes: a negative index
// counts from the end (ONNX's [-n, n) contract); others are used as given.
PrimExpr wrapIndex(const PrimExpr& idx, const PrimExpr& n) {
  PrimExpr i = castTo(idx, n->dtype);
  return make<Select>(te::bin(NodeKind::LT, i, intImm(0, i->dtype)), te::bin(NodeKind::Add, i, n), i);
}

PrimExpr both(const PrimExpr& a, const PrimExpr& b) { return a ? te::bin(NodeKind::And, a, b) : b; }

bool indexTensor(const std::optional<Tensor>& t) { return t && t->dtype().isIntegral() && !t->dtype().isBool(); }

// ---------------------------------------------------------------- gather

// out[i] = data[i with i[axis] replaced by indices[i]] (topi.gather, T_gather).
std::vector<Tensor> gatherElements(Ctx& ctx) {
  auto x = ctx.arg(0), ind = ctx.arg(1);
  auto shape = ctx.outShape();
  if (!x || !indexTensor(ind) || !shape || ind->ndim() != x->ndim()) return {};
  int64_t axis = normAxis(ops::attrInt(ctx.call, "axis", 0), x->ndim());
  if (axis < 0) return {};
  return {ctx.kb.compute("T_gather", *shape, x->dtype(), [&](const Indices& i) {
    Indices idx = i;
    idx[axis] = wrapIndex((*ind)(i), x->shape()[axis]);
    return (*x)(idx);
  }, "ax")};
}

// ONNX GatherND: out[p..., t...] = data[p[:b]..., indices[p..., 0..M)..., t...] for the positions
// p of indices.shape[:-1] and the trailing data dims t (b = batch_dims, M = indices.shape[-1]).
std::vector<Tensor> gatherND(Ctx& ctx) {
  auto x = ctx.arg(0), ind = ctx.arg(1);
  auto shape = ctx.outShape();
  if (!x || !indexTensor(ind) || !shape || ind->ndim() == 0) return {};
  auto depth = asIntImm(ind->shape().back());
  int64_t b = ops::attrInt(ctx.call, "batch_dims", 0);
  size_t q = ind->ndim() - 1;
  if (!depth || b < 0 || b > int64_t(q) || b + depth->value > int64_t(x->ndim())) return {};
  int64_t m = depth->value;
  return {ctx.kb.compute("T_gather_nd", *shape, x->dtype(), [&](const Indices& o) {
    Indices pos(o.begin(), o.begin() + q);
    Indices idx(o.begin(), o.begin() + b);
    for (int64_t j = 0; j < m; ++j) {
      Indices at = pos;
      at.push_back(intImm(j));
      idx.push_back(wrapIndex((*ind)(at), x->shape()[b + j]));
    }
    idx.insert(idx.end(), o.begin() + q, o.end());
    return (*x)(idx);
  }, "ax")};
}

// ---------------------------------------------------------------- scatter
// A scatter is a reduction over the update positions: every output element walks the positions
// that may target it, in index order, combining each matching update into the running value (the
// data element at the first step). Walking in order keeps TVM's sequential semantics: the last
// update wins, and add/mul/mean combine in index order, as the reference evaluator does.

// The running value after one more update `u`, for the reduction attr; empty when unknown.
std::function<PrimExpr(const PrimExpr&, const PrimExpr&)> combiner(const std::string& r) {
  if (r == "update") return [](const PrimExpr&, const PrimExpr& u) { return u; };
  if (r == "add") return [](const PrimExpr& a, const PrimExpr& u) { return te::bin(NodeKind::Add, a, u); };
  if (r == "mul") return [](const PrimExpr& a, const PrimExpr& u) { return te::bin(NodeKind::Mul, a, u); };
  // min/max as std::min/std::max choose (the first operand on ties and NaN).
  if (r == "min") return [](const PrimExpr& a, const PrimExpr& u) { return PrimExpr(make<Select>(te::bin(NodeKind::LT, u, a), u, a)); };
  if (r == "max") return [](const PrimExpr& a, const PrimExpr& u) { return PrimExpr(make<Select>(te::bin(NodeKind::LT, a, u), u, a)); };
  if (r == "mean")  // TVM's running pairwise mean; integers truncate
    return [](const PrimExpr& a, const PrimExpr& u) { return te::bin(NodeKind::Div, te::bin(NodeKind::Add, a, u), te::constant(2, a->dtype)); };
  return nullptr;
}

struct ScatterWalk {
  std::vector<te::ReduceAxis> axes;  // the update positions each output element walks
  // Whether position `k` updates output element `i`, and the update it brings (read only when it
  // matches: both go through tir.if_then_else so that a guarded read stays in bounds).
  std::function<PrimExpr(const Indices& i, const Indices& k)> matches, update;
};

// The scatter as one reduction `name` (or, when the walk may be empty, the reduction followed by
// a copy of the data where it did not run).
std::vector<Tensor> scatterReduce(Ctx& ctx, const Tensor& data, const ScatterWalk& w, const std::string& reduction, const std::string& name) {
  auto combine = combiner(reduction);
  if (!combine) return {};
  DataType t = data.dtype();
  PrimExpr steps = intImm(1);
  for (auto& a : w.axes) steps = te::idxMul(steps, a.extent);
  auto st = asIntImm(steps);
  if (st && st->value == 0)
    return {ctx.kb.compute("T_" + name, data.shape(), t, [&](const Indices& i) { return data(i); }, "ax")};
  auto acc = ctx.kb.reduceTuple(name + "_generic", data.shape(), {t}, w.axes, {te::constant(0, t)},
                                [&](const Indices& i, const Indices& k, const std::vector<PrimExpr>& a) -> std::vector<PrimExpr> {
                                  PrimExpr first;
                                  for (auto& kv : k) first = both(first, te::bin(NodeKind::EQ, kv, intImm(0, kv->dtype)));
                                  PrimExpr base = first ? PrimExpr(make<Select>(first, data(i), a[0])) : data(i);
                                  return {te::call("tir.if_then_else", t, {w.matches(i, k), combine(base, w.update(i, k)), base})};
                                });
  if (st) return acc;
  // An empty walk runs only the reduction's init: the data is copied through instead.
  PrimExpr ran = te::bin(NodeKind::LT, intImm(0, steps->dtype), steps);
  return {ctx.kb.compute("T_" + name, data.shape(), t, [&](const Indices& i) { return PrimExpr(make<Select>(ran, acc[0](i), data(i))); }, "ax")};
}

// ONNX ScatterElements: out = data; out[p with p[axis] = indices[p]] (op)= updates[p].
std::vector<Tensor> scatterElements(Ctx& ctx) {
  auto x = ctx.arg(0), ind = ctx.arg(1), upd = ctx.arg(2);
  if (!x || !indexTensor(ind) || !upd || ind->ndim() != x->ndim() || upd->ndim() != x->ndim() || upd->dtype() != x->dtype()) return {};
  int64_t axis = normAxis(ops::attrInt(ctx.call, "axis", 0), x->ndim());
  if (axis < 0) return {};
  ScatterWalk w;
  w.axes.push_back(ctx.kb.reduceAxis(ind->shape()[axis], "k"));
  // Output element i sees the positions i with i[axis] replaced by k; outside the indices' extent
  // on another axis (indices may be smaller than the data there) it sees none.
  auto position = [&](const Indices& i, const Indices& k) {
    Indices p = i;
    p[axis] = k[0];
    return p;
  };
  auto inside = [&](const Indices& i) {
    PrimExpr c;
    for (size_t d = 0; d < x->ndim(); ++d)
      if (int64_t(d) != axis && !proveEqual(ind->shape()[d], x->shape()[d])) c = both(c, te::bin(NodeKind::LT, i[d], ind->shape()[d]));
    return c;
  };
  w.matches = [&](const Indices& i, const Indices& k) {
    PrimExpr hit = te::bin(NodeKind::EQ, wrapIndex((*ind)(position(i, k)), x->shape()[axis]), i[axis]);
    PrimExpr c = inside(i);
    return c ? te::call("tir.if_then_else", DataType::boolean(), {c, hit, boolImm(false)}) : hit;
  };
  w.update = [&](const Indices& i, const Indices& k) { return (*upd)(position(i, k)); };
  return scatterReduce(ctx, *x, w, ops::attrString(ctx.call, "reduction", "update"), "scatter_elements");
}

// ONNX ScatterND: indices (L..., M) address data[i_0, ..., i_{M-1}, ...]; the update slice at
// position l (updates[l..., t...]) is combined into out[indices[l], t...].
std::vector<Tensor> scatterND(Ctx& ctx) {
  auto x = ctx.arg(0), ind = ctx.arg(1), upd = ctx.arg(2);
  if (!x || !indexTensor(ind) || !upd || ind->ndim() == 0 || upd->dtype() != x->dtype()) return {};
  auto depth = asIntImm(ind->shape().back());
  size_t q = ind->ndim() - 1;
  if (!depth || depth->value > int64_t(x->ndim()) || upd->ndim() != q + x->ndim() - size_t(depth->value)) return {};
  size_t m = size_t(depth->value);
  ScatterWalk w;
  for (size_t d = 0; d < q; ++d) w.axes.push_back(ctx.kb.reduceAxis(ind->shape()[d], "k" + std::to_string(d)));
  w.matches = [&](const Indices& i, const Indices& k) {
    PrimExpr hit = boolImm(true);
    for (size_t j = 0; j < m; ++j) {
      Indices at = k;
      at.push_back(intImm(int64_t(j)));
      PrimExpr eq = te::bin(NodeKind::EQ, wrapIndex((*ind)(at), x->shape()[j]), i[j]);
      hit = j == 0 ? eq : te::bin(NodeKind::And, hit, eq);
    }
    return hit;
  };
  w.update = [&](const Indices& i, const Indices& k) {
    Indices at = k;
    at.insert(at.end(), i.begin() + m, i.end());
    return (*upd)(at);
  };
  return scatterReduce(ctx, *x, w, ops::attrString(ctx.call, "reduction", "update"), "scatter_nd");
}

// ---------------------------------------------------------------- one_hot, flip, tile, repeat, stack, eye

// on_value where the index equals the position along the new axis, off_value elsewhere (topi's
// one_hot: indices used as given, so an out-of-range one matches nowhere).
std::vector<Tensor> oneHot(Ctx& ctx) {
  auto ind = ctx.arg(0);
  auto shape = ctx.outShape();
  PrimExpr on = ctx.primArg(1), off = ctx.primArg(2);
  DataType t = ctx.outDtype();
  if (!indexTensor(ind) || !shape || !on || !off || t.isVoid()) return {};
  int64_t axis = normAxis(ops::attrInt(ctx.call, "axis", -1), ind->ndim() + 1);
  if (axis < 0) return {};
  return {ctx.kb.compute("T_one_hot", *shape, t, [&](const Indices& i) {
    Indices idx(i.begin(), i.begin() + axis);
    idx.insert(idx.end(), i.begin() + axis + 1, i.end());
    PrimExpr hit = te::bin(NodeKind::EQ, (*ind)(idx), castTo(i[axis], ind->dtype()));
    return PrimExpr(make<Select>(hit, castTo(on, t), castTo(off, t)));
  }, "ax")};
}

// topi.flip is a reverse_sequence without lengths: element n - i - 1 along the axis.
std::vector<Tensor> flip(Ctx& ctx) {
  auto x = ctx.arg(0);
  if (!x || x->ndim() == 0) return {};
  int64_t axis = normAxis(ops::attrInt(ctx.call, "axis", 0), x->ndim());
  if (axis < 0) return {};
  return {ctx.kb.compute("T_reverse_sequence", x->shape(), x->dtype(), [&](const Indices& i) {
    Indices idx = i;
    PrimExpr n = x->shape()[axis];
    idx[axis] = te::bin(NodeKind::Sub, te::bin(NodeKind::Sub, n, i[axis]), intImm(1, n->dtype));
    return (*x)(idx);
  }, "ax")};
}

// numpy tile: data and repeats right-aligned (the shorter padded with leading ones); each output
// index reads the data at index % extent.
std::vector<Tensor> tile(Ctx& ctx) {
  auto x = ctx.arg(0);
  if (!x) return {};
  std::vector<int64_t> reps = ops::attrInts(ctx.call, "repeats");
  size_t nd = std::max(x->ndim(), reps.size()), lead = nd - x->ndim();
  std::vector<PrimExpr> shape;
  for (size_t d = 0; d < nd; ++d) {
    int64_t r = d + reps.size() < nd ? 1 : reps[d + reps.size() - nd];
    if (r < 0) return {};
    shape.push_back(d < lead ? intImm(r) : te::idxMul(x->shape()[d - lead], intImm(r, x->shape()[d - lead]->dtype)));
  }
  return {ctx.kb.compute("T_tile", shape, x->dtype(), [&](const Indices& i) {
    Indices idx;
    for (size_t d = lead; d < nd; ++d) {
      const PrimExpr& n = x->shape()[d - lead];
      auto c = asIntImm(n);
      idx.push_back(c && c->value == 1 ? intImm(0, n->dtype) : te::bin(NodeKind::FloorMod, i[d], n));
    }
    return (*x)(idx);
  }, "ax")};
}

// numpy repeat: output index i along the axis reads i // repeats; axis=None repeats the
// flattened data (the flat index unraveled into the data's shape).
std::vector<Tensor> repeat(Ctx& ctx) {
  auto x = ctx.arg(0);
  int64_t reps = ops::attrInt(ctx.call, "repeats", 1);
  if (!x || reps <= 0) return {};
  if (ops::attrIsNone(ctx.call, "axis")) {
    PrimExpr n = intImm(1);
    for (auto& d : x->shape()) n = te::idxMul(n, d);
    std::vector<PrimExpr> shape{te::idxMul(n, intImm(reps))};
    return {ctx.kb.compute("T_repeat", shape, x->dtype(), [&](const Indices& i) { return (*x)(reshapeIndex({idxFloorDiv(i[0], reps)}, {n}, x->shape())); }, "ax")};
  }
  int64_t axis = normAxis(ops::attrInt(ctx.call, "axis", 0), x->ndim());
  if (axis < 0) return {};
  std::vector<PrimExpr> shape = x->shape();
  PrimExpr dim = shape[axis];
  shape[axis] = te::idxMul(dim, intImm(reps, dim->dtype));
  Tensor out = ctx.kb.compute("T_repeat", shape, x->dtype(), [&](const Indices& i) {
    Indices idx = i;
    idx[axis] = idxFloorDiv(i[axis], reps);
    return (*x)(idx);
  }, "ax");
  // topi declares the output as repeats * dim (2 * a); only the loop extent is simplified.
  if (!asIntImm(dim)) out.buf->shape[axis] = binary(NodeKind::Mul, intImm(reps, dim->dtype), dim);
  return {out};
}

// topi.stack: the new axis picks the input; an if_then_else chain tests it against 1, 2, ...
std::vector<Tensor> stack(Ctx& ctx) {
  auto tup = ctx.call.args.empty() ? nullptr : ctx.call.args[0].as<Tuple>();
  auto shape = ctx.outShape();
  if (!tup || !shape || tup->fields.empty()) return {};
  std::vector<Tensor> parts;
  for (auto& f : tup->fields) {
    auto t = ctx.tensor(f);
    if (!t) return {};
    parts.push_back(*t);
  }
  int64_t axis = ops::attrIsNone(ctx.call, "axis") ? 0 : normAxis(ops::attrInt(ctx.call, "axis", 0), parts[0].ndim() + 1);
  if (axis < 0) return {};
  return {ctx.kb.compute("T_stack", *shape, ctx.outDtype(), [&](const Indices& i) {
    Indices idx(i.begin(), i.begin() + axis);
    idx.insert(idx.end(), i.begin() + axis + 1, i.end());
    PrimExpr v = parts[0](idx);
    for (size_t p = 1; p < parts.size(); ++p)
      v = te::call("tir.if_then_else", v->dtype, {te::bin(NodeKind::EQ, i[axis], intImm(int64_t(p), i[axis]->dtype)), parts[p](idx), v});
    return v;
  }, "ax")};
}

// 1 where column - row == k, else 0; eye_like takes only the shape of its argument.
Rule eye(size_t kArg) {
  return [kArg](Ctx& ctx) -> std::vector<Tensor> {
    auto shape = ctx.outShape();
    DataType t = ctx.outDtype();
    PrimExpr k = ctx.primArg(kArg);
    if (!shape || shape->size() != 2 || t.isVoid()) return {};
    if (!k) k = intImm(0);
    return {ctx.kb.compute("T_eye", *shape, t, [&](const Indices& i) {
      PrimExpr onDiag = te::bin(NodeKind::EQ, te::idxAdd(i[0], castTo(k, i[0]->dtype)), i[1]);
      return PrimExpr(make<Select>(onDiag, te::constant(1, t), te::constant(0, t)));
    }, std::vector<std::string>{"i", "j"})};
  };
}

}  // namespace

void registerGatherScatterRules() {
  registerRule("relax.gather_elements", "gather_elements", gatherElements);
  registerRule("relax.gather_nd", "gather_nd", gatherND);
  registerRule("relax.scatter_elements", "scatter_elements", scatterElements);
  registerRule("relax.scatter_nd", "scatter_nd", scatterND);
  registerRule("relax.one_hot", "one_hot", oneHot);
  registerRule("relax.flip", "flip", flip);
  registerRule("relax.tile", "tile", tile);
  registerRule("relax.repeat", "repeat", repeat);
  registerRule("relax.stack", "stack", stack);
  registerRule("relax.eye", "eye", eye(2));
  registerRule("relax.eye_like", "eye_like", eye(1));
}

}  // namespace rlx::legalize
