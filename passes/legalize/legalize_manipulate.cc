// Legalization of shape manipulation as topi computes it (T_<op> blocks, ax loops): reshape
// (ravel/unravel through the flat index, simplified), permute_dims, expand_dims, squeeze,
// split, concat, flatten (a reshape), broadcast_to.
#include "ir/arith.h"
#include "ir/ops/infer_util.h"
#include "passes/legalize/legalize.h"

namespace rlx::legalize {

namespace {

using te::Indices;
using te::Tensor;

// The flat index as TVM's canonical simplifier keeps it: a sum of split terms
// ((base % upper) // lower) * scale, so that dividing or taking the remainder by a constant only
// touches the terms whose scale it does not divide (which are grouped into one new term, first).
struct SplitTerm {
  PrimExpr base;
  int64_t lower = 1, upper = 0, scale = 1;  // upper 0: none
};
using SplitSum = std::vector<SplitTerm>;

PrimExpr termExpr(const SplitTerm& t) {
  PrimExpr e = t.base;
  if (t.upper) e = te::bin(NodeKind::FloorMod, e, intImm(t.upper));
  if (t.lower != 1) e = te::bin(NodeKind::FloorDiv, e, intImm(t.lower));
  return te::idxMul(e, intImm(t.scale));
}

PrimExpr sumExpr(const SplitSum& s) {
  PrimExpr e;
  for (auto& t : s) e = e ? te::bin(NodeKind::Add, e, termExpr(t)) : termExpr(t);
  return e ? e : intImm(0);
}

SplitSum splitDiv(const SplitSum& s, const PrimExpr& divisor) {
  auto c = asIntImm(divisor);
  if (!c) return {SplitTerm{te::bin(NodeKind::FloorDiv, sumExpr(s), divisor)}};
  if (c->value == 1) return s;
  SplitSum kept, rest;
  for (auto t : s) {
    if (t.scale % c->value == 0) {
      t.scale /= c->value;
      kept.push_back(t);
    } else {
      rest.push_back(t);
    }
  }
  if (rest.empty()) return kept;
  SplitTerm nt;
  if (rest.size() == 1 && rest[0].scale == 1 && (!rest[0].upper || rest[0].upper % (rest[0].lower * c->value) == 0)) {
    nt = rest[0];
    nt.lower *= c->value;
  } else {
    nt.base = sumExpr(rest);
    nt.lower = c->value;
  }
  kept.insert(kept.begin(), nt);
  return kept;
}

SplitSum splitMod(const SplitSum& s, const PrimExpr& divisor) {
  auto c = asIntImm(divisor);
  if (!c) return {SplitTerm{te::bin(NodeKind::FloorMod, sumExpr(s), divisor)}};
  if (c->value == 1) return {};
  SplitSum rest;
  for (auto& t : s)
    if (t.scale % c->value != 0) rest.push_back(t);
  if (rest.empty()) return {};
  if (rest.size() == 1 && rest[0].scale == 1 && (!rest[0].upper || rest[0].upper % (rest[0].lower * c->value) == 0)) {
    SplitTerm t = rest[0];
    t.upper = t.lower * c->value;
    return {t};
  }
  SplitTerm nt;
  nt.base = sumExpr(rest);
  nt.upper = c->value;
  return {nt};
}

}  // namespace

Indices reshapeIndex(const Indices& out, const std::vector<PrimExpr>& outShape, const std::vector<PrimExpr>& in) {
  // An input with a 0-size dim has no elements: no index is ever read (and splitting the flat
  // index by a 0 extent would divide by zero).
  for (auto& d : in)
    if (auto c = asIntImm(d); c && c->value == 0) return Indices(in.size(), intImm(0, out.empty() ? DataType::int64() : out[0]->dtype));
  SplitSum flat;
  for (size_t d = 0; d < out.size(); ++d) {
    PrimExpr base = out[d];
    int64_t scale = 1;
    for (size_t e = d + 1; e < out.size(); ++e) {
      if (auto c = asIntImm(outShape[e])) scale *= c->value;
      else base = te::idxMul(base, outShape[e]);
    }
    flat.push_back(SplitTerm{base, 1, 0, scale});
  }
  Indices idx(in.size());
  SplitSum cur = flat;
  for (size_t d = in.size(); d-- > 0;) {
    idx[d] = sumExpr(splitMod(cur, in[d]));
    cur = splitDiv(cur, in[d]);
  }
  return idx;
}

namespace {

std::vector<Tensor> copyLike(Ctx& ctx, const std::string& name, const std::function<Indices(const Tensor&, const Indices&)>& index) {
  auto x = ctx.arg(0);
  auto shape = ctx.outShape();
  if (!x || !shape) return {};
  return {ctx.kb.compute(name, *shape, x->dtype(), [&](const Indices& i) { return (*x)(index(*x, i)); }, "ax")};
}

int64_t normAxis(int64_t a, size_t nd) { return a < 0 ? a + int64_t(nd) : a; }

}  // namespace

void registerManipulateRules() {
  registerRule("relax.reshape", "reshape", [](Ctx& ctx) -> std::vector<Tensor> {
    auto shape = ctx.outShape();
    if (!shape) return {};
    std::vector<PrimExpr> out = *shape;
    return copyLike(ctx, "T_reshape", [&](const Tensor& x, const Indices& i) { return reshapeIndex(i, out, x.shape()); });
  });
  // flatten is a reshape to the one-dim result (TVM legalizes it with topi.reshape).
  registerRule("relax.flatten", "reshape", [](Ctx& ctx) -> std::vector<Tensor> {
    auto shape = ctx.outShape();
    if (!shape) return {};
    std::vector<PrimExpr> out = *shape;
    return copyLike(ctx, "T_reshape", [&](const Tensor& x, const Indices& i) { return reshapeIndex(i, out, x.shape()); });
  });
  registerRule("relax.broadcast_to", "broadcast_to", [](Ctx& ctx) -> std::vector<Tensor> {
    auto shape = ctx.outShape();
    if (!shape) return {};
    std::vector<PrimExpr> out = *shape;
    return copyLike(ctx, "T_broadcast_to", [&](const Tensor& x, const Indices& i) { return broadcastIndex(x, i, out); });
  });
  registerRule("relax.permute_dims", "transpose", [](Ctx& ctx) -> std::vector<Tensor> {
    auto axesOpt = ops::attrOptInts(ctx.call, "axes");
    return copyLike(ctx, "T_transpose", [&](const Tensor& x, const Indices& i) {
      size_t nd = x.ndim();
      std::vector<int64_t> axes;
      if (axesOpt) axes = *axesOpt;
      else
        for (size_t d = nd; d-- > 0;) axes.push_back(int64_t(d));
      Indices idx(nd);
      for (size_t j = 0; j < nd && j < axes.size(); ++j) idx[normAxis(axes[j], nd)] = i[j];
      return idx;
    });
  });
  registerRule("relax.expand_dims", "expand_dims", [](Ctx& ctx) -> std::vector<Tensor> {
    std::vector<int64_t> axes = ops::attrInts(ctx.call, "axis");
    return copyLike(ctx, "T_expand_dims", [&](const Tensor& x, const Indices& i) {
      size_t outNd = x.ndim() + axes.size();
      std::vector<bool> added(outNd, false);
      for (auto a : axes) added[normAxis(a, outNd)] = true;
      Indices idx;
      for (size_t d = 0; d < outNd; ++d)
        if (!added[d]) idx.push_back(i[d]);
      return idx;
    });
  });
  registerRule("relax.squeeze", "squeeze", [](Ctx& ctx) -> std::vector<Tensor> {
    auto axesOpt = ops::attrOptInts(ctx.call, "axis");
    return copyLike(ctx, "T_squeeze", [&](const Tensor& x, const Indices& i) {
      size_t nd = x.ndim();
      std::vector<bool> removed(nd, false);
      if (axesOpt) {
        for (auto a : *axesOpt) {
          auto c = asIntImm(x.shape()[normAxis(a, nd)]);
          removed[normAxis(a, nd)] = !c || c->value == 1;  // a static non-unit axis stays
        }
      } else {
        for (size_t d = 0; d < nd; ++d)
          if (auto c = asIntImm(x.shape()[d]); c && c->value == 1) removed[d] = true;
      }
      Indices idx;
      size_t j = 0;
      for (size_t d = 0; d < nd; ++d) idx.push_back(removed[d] ? intImm(0) : i[j++]);
      return idx;
    });
  });
  registerRule("relax.split", "split", [](Ctx& ctx) -> std::vector<Tensor> {
    auto x = ctx.arg(0);
    if (!x) return {};
    size_t nd = x->ndim();
    int64_t axis = normAxis(ops::attrInt(ctx.call, "axis", 0), nd);
    if (axis < 0 || axis >= int64_t(nd)) return {};
    // TVM names the outputs T_split_sections for an int section count, T_split for indices.
    const Attr* ios = ops::findAttr(ctx.call, "indices_or_sections");
    bool sections = ios && *ios && (*ios)->kind == AttrValue::Int;
    std::vector<Tensor> outs;
    PrimExpr offset = intImm(0);
    for (size_t o = 0; o < ctx.outCount(); ++o) {
      auto shape = ctx.outShape(o);
      if (!shape) return {};
      PrimExpr off = offset;
      outs.push_back(ctx.kb.compute(sections ? "T_split_sections" : "T_split", *shape, x->dtype(), [&](const Indices& i) {
        Indices idx(i.begin(), i.end());
        idx[axis] = te::idxAdd(i[axis], off);
        return (*x)(idx);
      }, "ax"));
      offset = add(offset, (*shape)[axis]);
    }
    return outs;
  });
  registerRule("relax.concat", "concatenate", [](Ctx& ctx) -> std::vector<Tensor> {
    auto shape = ctx.outShape();
    if (ctx.call.args.empty() || !shape) return {};
    // The parts: a tuple literal's fields, or the items of a tuple value (t[0], t[1], ... which
    // the call's normalization binds, as TVM's legalizer emits them).
    std::vector<Expr> fields;
    if (auto tup = ctx.call.args[0].as<Tuple>()) {
      fields = tup->fields;
    } else if (auto ts = sinfoOf(ctx.call.args[0]).as<TupleSInfo>()) {
      for (size_t k = 0; k < ts->fields.size(); ++k) {
        Expr item = make<TupleGetItem>(ctx.call.args[0], int(k));
        item->sinfo = ts->fields[k];
        fields.push_back(item);
      }
    }
    if (fields.empty()) return {};
    std::vector<Tensor> parts;
    for (auto& fld : fields) {
      auto t = ctx.tensor(fld);
      if (!t) return {};
      parts.push_back(*t);
    }
    size_t nd = parts[0].ndim();
    int64_t axis = normAxis(ops::attrInt(ctx.call, "axis", 0), nd);
    if (axis < 0 || axis >= int64_t(nd)) return {};
    return {ctx.kb.compute("T_concat", *shape, ctx.outDtype(), [&](const Indices& i) {
      // topi's if_then_else chain, the last part outermost: part p is read when i[axis] has reached
      // its start (later parts were tested first, further out in the chain).
      std::vector<PrimExpr> starts{intImm(0)};
      for (size_t p = 0; p < parts.size(); ++p) starts.push_back(add(starts.back(), parts[p].shape()[axis]));
      auto load = [&](size_t p) {
        Indices idx(i.begin(), i.end());
        idx[axis] = simplify(sub(i[axis], starts[p]));
        return parts[p](idx);
      };
      PrimExpr v = load(0);
      for (size_t p = 1; p < parts.size(); ++p) {
        // topi tests 0 <= i - start; TVM's simplifier turns it into start <= i for a constant start.
        PrimExpr start = simplify(starts[p]);
        PrimExpr cond = asIntImm(start) ? te::bin(NodeKind::LE, start, i[axis]) : te::bin(NodeKind::LE, intImm(0, start->dtype), simplify(sub(i[axis], start)));
        v = te::call("tir.if_then_else", v->dtype, {cond, load(p), v});
      }
      return v;
    }, "ax")};
  });
}

}  // namespace rlx::legalize
