// Gradient rules of the Gradient pass: for each differentiable op, the partial derivative of the
// target w.r.t. each argument given the adjoint of the op's result (TVM v0.23's rule set, plus max/min, gelu, squeeze...).
#include "passes/gradient_rules.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "ir/arith.h"
#include "ir/ops/infer_util.h"
#include "passes/op_builder.h"

namespace rlx::grad {

// ---- Emitter -------------------------------------------------------------------------------

Result<Expr> Emitter::norm(const Expr& e) {
  if (isLeafExpr(e)) return e;
  if (auto t = e.as<Tuple>()) {
    std::vector<Expr> fields;
    for (auto& f : t->fields) {
      RLX_TRY(a, atom(f));
      fields.push_back(a);
    }
    return tupleOf(std::move(fields));
  }
  if (auto g = e.as<TupleGetItem>()) {
    RLX_TRY(t, atom(g->tuple));
    return bb_.normalize(make<TupleGetItem>(t, g->index));
  }
  if (auto c = e.as<Call>()) {
    std::vector<Expr> args;
    for (auto& a : c->args) {
      RLX_TRY(n, atom(a));
      args.push_back(n);
    }
    return bb_.normalize(make<Call>(c->op, std::move(args), c->attrs, c->sinfoArgs));
  }
  return bb_.normalize(e);
}

Result<Expr> Emitter::atom(const Expr& e) {
  if (isLeafExpr(e)) return e;
  auto it = memo_.find(e.get());
  if (it != memo_.end()) return it->second.second;
  RLX_TRY(n, norm(e));
  Expr out = n;
  if (!isAtomExpr(n)) {
    RLX_TRY(v, bb_.emit(n, "", Span{}));
    out = v;
  }
  memo_[e.get()] = {e, out};
  return out;
}

Result<VarRef> Emitter::emit(const Expr& e, const std::string& name, bool output) {
  RLX_TRY(n, norm(e));
  return bb_.emit(n, name, Span{}, nullptr, output);
}

namespace {

using namespace build;
using Partials = Result<std::vector<Expr>>;

// ---- helpers -------------------------------------------------------------------------------

Ref<TensorSInfo> tensorOf(const Expr& x) { return sinfoOf(x).as<TensorSInfo>(); }
DataType dtypeOf(const Expr& x) {
  auto t = tensorOf(x);
  return t ? t->dtype : DataType::float32();
}
int ndimOf(const Expr& x) {
  auto t = tensorOf(x);
  return t ? t->ndim : -1;
}

Error ruleError(const Call& c, const std::string& msg) { return Error("Gradient: " + ops::opLabel(c) + ": " + msg); }

// R.shape(dims of x): the gradient rules need the input's shape to restore it.
Result<Expr> shapeOf(const Call& c, const Expr& x) {
  auto t = tensorOf(x);
  if (!t || !t->dims()) return ruleError(c, "needs operands of known shape");
  auto s = make<ShapeExpr>(*t->dims());
  s->sinfo = make<ShapeSInfo>(*t->dims(), 0);
  return Expr(s);
}

// Static dims of x, or an error (conv2d and mean need them as numbers).
Result<std::vector<int64_t>> staticDims(const Call& c, const Expr& x) {
  auto t = tensorOf(x);
  if (!t || !t->dims()) return ruleError(c, "needs operands of known shape");
  std::vector<int64_t> out;
  for (auto& d : *t->dims()) {
    auto v = constInt(d);
    if (!v) return ruleError(c, "needs static shapes");
    out.push_back(*v);
  }
  return out;
}

Expr k(double v, const Expr& like) { return scalar(v, dtypeOf(like)); }
Expr op1(const char* name, Expr a) { return call(name, {e(std::move(a))}); }
Expr op2(const char* name, Expr a, Expr b) { return call(name, {e(std::move(a)), e(std::move(b))}); }
Expr mul(Expr a, Expr b) { return op2("multiply", std::move(a), std::move(b)); }
Expr sub(Expr a, Expr b) { return op2("subtract", std::move(a), std::move(b)); }
Expr add(Expr a, Expr b) { return op2("add", std::move(a), std::move(b)); }
Expr div(Expr a, Expr b) { return op2("divide", std::move(a), std::move(b)); }
Expr neg(Expr a) { return op1("negative", std::move(a)); }
Expr where(Expr c, Expr a, Expr b) { return call("where", {e(std::move(c)), e(std::move(a)), e(std::move(b))}); }
Expr sumKeep(Expr x, const std::optional<std::vector<int64_t>>& axis) {
  KwArgs kw;
  if (axis) kw.push_back({"axis", ints(*axis)});
  kw.push_back({"keepdims", b(true)});
  return call("sum", {e(std::move(x))}, std::move(kw));
}

// The partial `g` summed down to x's shape when broadcasting made it larger (TVM's _fit_shape):
// g is normalized first to learn its shape.
Result<Expr> fit(const RuleInput& in, const Expr& g, const Expr& x) {
  RLX_TRY(n, in.em.norm(g));
  auto gt = tensorOf(n);
  auto xt = tensorOf(x);
  if (!xt) return n;  // a non-tensor operand (constant prim) gets no adjoint anyway
  if (gt && gt->dims() && xt->dims() && gt->dims()->size() == xt->dims()->size()) {
    bool same = true;
    for (size_t i = 0; i < xt->dims()->size(); ++i) same &= proveEqual((*gt->dims())[i], (*xt->dims())[i]);
    if (same) return n;
  }
  RLX_TRY(shape, shapeOf(in.call, x));
  return call("collapse_sum_to", {e(n), e(shape)});
}

// The reduced axes of a reduction call, normalized; nullopt when it reduces everything.
std::optional<std::vector<int64_t>> reducedAxes(const Call& c, int ndim) {
  auto axes = ops::attrOptInts(c, "axis");
  if (!axes) return std::nullopt;
  for (auto& a : *axes)
    if (a < 0) a += ndim;
  return axes;
}

// The adjoint of a reduction result brought back to rank ndim (keepdims=False drops the axes).
Expr unreduce(const Call& c, Expr g, const std::optional<std::vector<int64_t>>& axes) {
  if (!ops::attrBool(c, "keepdims", false) && axes && !axes->empty()) g = call("expand_dims", {e(g), ints(*axes)});
  return g;
}

std::vector<int64_t> swapLastTwo(int ndim) {
  std::vector<int64_t> p(ndim);
  std::iota(p.begin(), p.end(), 0);
  std::swap(p[ndim - 1], p[ndim - 2]);
  return p;
}

// ---- binary arithmetic ---------------------------------------------------------------------

Partials gAdd(const RuleInput& in) {
  RLX_TRY(a, fit(in, in.outGrad, in.call.args[0]));
  RLX_TRY(b, fit(in, in.outGrad, in.call.args[1]));
  return std::vector<Expr>{a, b};
}

Partials gSubtract(const RuleInput& in) {
  RLX_TRY(a, fit(in, in.outGrad, in.call.args[0]));
  RLX_TRY(b, fit(in, neg(in.outGrad), in.call.args[1]));
  return std::vector<Expr>{a, b};
}

Partials gMultiply(const RuleInput& in) {
  const Expr &x = in.call.args[0], &y = in.call.args[1];
  RLX_TRY(a, fit(in, mul(in.outGrad, y), x));
  RLX_TRY(b, fit(in, mul(in.outGrad, x), y));
  return std::vector<Expr>{a, b};
}

// z = x / y: dz/dx = 1 / y, dz/dy = -z / y.
Partials gDivide(const RuleInput& in) {
  const Expr &x = in.call.args[0], &y = in.call.args[1];
  RLX_TRY(a, fit(in, div(in.outGrad, y), x));
  RLX_TRY(b, fit(in, div(mul(neg(in.outGrad), in.out), y), y));
  return std::vector<Expr>{a, b};
}

// z = x ** y: dz/dx = y * x ** (y - 1), dz/dy = z * log(x) (meaningful for x > 0).
Partials gPower(const RuleInput& in) {
  const Expr &x = in.call.args[0], &y = in.call.args[1];
  RLX_TRY(a, fit(in, mul(mul(in.outGrad, y), op2("power", x, sub(y, k(1, y)))), x));
  RLX_TRY(b, fit(in, mul(mul(in.outGrad, in.out), op1("log", x)), y));
  return std::vector<Expr>{a, b};
}

// maximum / minimum: the adjoint goes to the operand that was selected (x on ties).
Partials gMaximum(const RuleInput& in) {
  const Expr &x = in.call.args[0], &y = in.call.args[1];
  RLX_TRY(a, fit(in, where(op2("less", x, y), k(0, x), in.outGrad), x));
  RLX_TRY(b, fit(in, where(op2("greater_equal", x, y), k(0, x), in.outGrad), y));
  return std::vector<Expr>{a, b};
}

Partials gMinimum(const RuleInput& in) {
  const Expr &x = in.call.args[0], &y = in.call.args[1];
  RLX_TRY(a, fit(in, where(op2("greater_equal", x, y), k(0, x), in.outGrad), x));
  RLX_TRY(b, fit(in, where(op2("less", x, y), k(0, x), in.outGrad), y));
  return std::vector<Expr>{a, b};
}

// Comparisons, creation ops and other piecewise-constant results: nothing flows back.
Partials gNone(const RuleInput& in) { return std::vector<Expr>(in.call.args.size()); }

// ---- unary math ----------------------------------------------------------------------------

Partials gAbs(const RuleInput& in) {
  const Expr& x = in.call.args[0];
  return std::vector<Expr>{mul(in.outGrad, where(op2("less", x, k(0, x)), k(-1, x), k(1, x)))};
}
Partials gCos(const RuleInput& in) { return std::vector<Expr>{mul(neg(in.outGrad), op1("sin", in.call.args[0]))}; }
Partials gSin(const RuleInput& in) { return std::vector<Expr>{mul(in.outGrad, op1("cos", in.call.args[0]))}; }
Partials gExp(const RuleInput& in) { return std::vector<Expr>{mul(in.outGrad, in.out)}; }
Partials gLog(const RuleInput& in) { return std::vector<Expr>{div(in.outGrad, in.call.args[0])}; }
Partials gNegative(const RuleInput& in) { return std::vector<Expr>{neg(in.outGrad)}; }
Partials gSigmoid(const RuleInput& in) {
  return std::vector<Expr>{mul(mul(in.outGrad, in.out), sub(k(1, in.out), in.out))};
}
Partials gSqrt(const RuleInput& in) { return std::vector<Expr>{div(mul(k(0.5, in.out), in.outGrad), in.out)}; }
// rsqrt: d(x^-1/2)/dx = -0.5 * y^3.
Partials gRsqrt(const RuleInput& in) {
  return std::vector<Expr>{mul(mul(k(-0.5, in.out), in.outGrad), mul(in.out, mul(in.out, in.out)))};
}
Partials gSquare(const RuleInput& in) { return std::vector<Expr>{mul(mul(k(2, in.out), in.outGrad), in.call.args[0])}; }
Partials gTanh(const RuleInput& in) {
  return std::vector<Expr>{mul(in.outGrad, sub(k(1, in.out), mul(in.out, in.out)))};
}

// ---- reductions ----------------------------------------------------------------------------

Partials gSum(const RuleInput& in) {
  const Expr& x = in.call.args[0];
  RLX_TRY(shape, shapeOf(in.call, x));
  auto axes = reducedAxes(in.call, ndimOf(x));
  return std::vector<Expr>{call("broadcast_to", {e(unreduce(in.call, in.outGrad, axes)), e(shape)})};
}

Partials gMean(const RuleInput& in) {
  const Expr& x = in.call.args[0];
  RLX_TRY(dims, staticDims(in.call, x));
  RLX_TRY(shape, shapeOf(in.call, x));
  auto axes = reducedAxes(in.call, int(dims.size()));
  int64_t count = 1;
  if (axes)
    for (auto a : *axes) count *= dims[a];
  else
    for (auto d : dims) count *= d;
  Expr g = div(in.outGrad, k(double(count), in.outGrad));
  return std::vector<Expr>{call("broadcast_to", {e(unreduce(in.call, g, axes)), e(shape)})};
}

// variance = mean((x - mean(x))^2): d/dx = 2/N * x - 2/N^2 * sum(x).
Partials gVariance(const RuleInput& in) {
  const Expr& x = in.call.args[0];
  RLX_TRY(dims, staticDims(in.call, x));
  auto axes = reducedAxes(in.call, int(dims.size()));
  double n = 1;
  if (axes)
    for (auto a : *axes) n *= double(dims[a]);
  else
    for (auto d : dims) n *= double(d);
  Expr centered = sub(mul(k(2.0 / n, x), x), mul(k(2.0 / n / n, x), sumKeep(x, axes)));
  return std::vector<Expr>{mul(unreduce(in.call, in.outGrad, axes), centered)};
}

// max / min reductions: the adjoint goes to every element equal to the result.
Partials gMaxMin(const RuleInput& in) {
  const Expr& x = in.call.args[0];
  RLX_TRY(shape, shapeOf(in.call, x));
  auto axes = reducedAxes(in.call, ndimOf(x));
  Expr og = call("broadcast_to", {e(unreduce(in.call, in.outGrad, axes)), e(shape)});
  Expr hit = op2("equal", x, unreduce(in.call, in.out, axes));
  return std::vector<Expr>{where(hit, og, k(0, x))};
}

// cumsum: the reversed cumulative sum of the adjoint (total - prefix + own).
Partials gCumsum(const RuleInput& in) {
  const Expr& x = in.call.args[0];
  Expr g = in.outGrad;
  Expr out;
  if (ops::attrIsNone(in.call, "axis")) {
    RLX_TRY(shape, shapeOf(in.call, x));
    Expr flat = call("reshape", {e(g), ints({-1})});
    out = call("reshape", {e(add(sub(call("sum", {e(flat)}, {{"keepdims", b(true)}}), call("cumsum", {e(flat)})), flat)), e(shape)});
  } else {
    int64_t axis = ops::attrInt(in.call, "axis");
    out = add(sub(sumKeep(g, std::vector<int64_t>{axis}), call("cumsum", {e(g)}, {{"axis", i(axis)}})), g);
  }
  if (!ops::attrDType(in.call, "dtype").isVoid()) out = call("astype", {e(out), s(dtypeOf(x).str())});
  return std::vector<Expr>{out};
}

// ---- shape manipulation --------------------------------------------------------------------

Partials gPermuteDims(const RuleInput& in) {
  auto axes = ops::attrOptInts(in.call, "axes");
  if (!axes) return std::vector<Expr>{call("permute_dims", {e(in.outGrad)})};
  int n = int(axes->size());
  std::vector<int64_t> inverse(n);
  for (int i = 0; i < n; ++i) inverse[((*axes)[i] % n + n) % n] = i;
  return std::vector<Expr>{call("permute_dims", {e(in.outGrad), ints(inverse)})};
}

Partials gReshapeLike(const RuleInput& in) {
  RLX_TRY(shape, shapeOf(in.call, in.call.args[0]));
  std::vector<Expr> out(in.call.args.size());
  out[0] = call("reshape", {e(in.outGrad), e(shape)});
  return out;
}

Partials gBroadcastTo(const RuleInput& in) {
  RLX_TRY(shape, shapeOf(in.call, in.call.args[0]));
  return std::vector<Expr>{call("collapse_sum_to", {e(in.outGrad), e(shape)}), Expr()};
}

Partials gExpandDims(const RuleInput& in) {
  return std::vector<Expr>{call("squeeze", {e(in.outGrad), ints(ops::attrInts(in.call, "axis"))})};
}

// concat((x1, x2, ...), axis): split the adjoint at the running offsets of the inputs.
Partials gConcat(const RuleInput& in) {
  auto tuple = sinfoOf(in.call.args[0]).as<TupleSInfo>();
  if (!tuple) return ruleError(in.call, "needs a tuple of tensors");
  int64_t axis = ops::attrInt(in.call, "axis");
  std::vector<PrimExpr> cuts;
  for (size_t f = 0; f + 1 < tuple->fields.size(); ++f) {
    auto t = tuple->fields[f].as<TensorSInfo>();
    if (!t || !t->dims()) return ruleError(in.call, "needs inputs of known shape");
    int64_t a = axis < 0 ? axis + t->ndim : axis;
    PrimExpr d = (*t->dims())[a];
    cuts.push_back(cuts.empty() ? d : rlx::add(cuts.back(), d));
  }
  PyValue list;
  list.kind = PyValue::List;
  for (auto& c : cuts) {
    auto v = constInt(simplify(c));
    if (!v) return ruleError(in.call, "needs static sizes along the axis");
    list.items.push_back(i(*v));
  }
  return std::vector<Expr>{call("split", {e(in.outGrad), list}, {{"axis", i(axis)}})};
}

Partials gSplit(const RuleInput& in) {
  return std::vector<Expr>{call("concat", {e(in.outGrad)}, {{"axis", i(ops::attrInt(in.call, "axis"))}})};
}

Partials gTake(const RuleInput& in) {
  return std::vector<Expr>{makeCall("relax.grad.take_backward", {in.outGrad, in.call.args[0], in.call.args[1]}, in.call.attrs), Expr()};
}

Partials gWhere(const RuleInput& in) {
  const Expr &cond = in.call.args[0], &x = in.call.args[1], &y = in.call.args[2];
  RLX_TRY(a, fit(in, where(cond, in.outGrad, k(0, x)), x));
  RLX_TRY(b, fit(in, where(cond, k(0, y), in.outGrad), y));
  return std::vector<Expr>{Expr(), a, b};
}

Partials gTrilu(const RuleInput& in) {
  return std::vector<Expr>{makeCall(in.call.opName(), {in.outGrad, in.call.args[1]}, in.call.attrs), Expr()};
}

Partials gAstype(const RuleInput& in) {
  return std::vector<Expr>{call("astype", {e(in.outGrad), s(dtypeOf(in.call.args[0]).str())})};
}

// ---- linear algebra ------------------------------------------------------------------------

// c = a @ b (batched over leading dims, 1-D operands promoted): a' = c' @ b^T, b' = a^T @ c'.
Partials gMatmul(const RuleInput& in) {
  const Expr &a = in.call.args[0], &bm = in.call.args[1];
  int na = ndimOf(a), nb = ndimOf(bm);
  if (na < 1 || nb < 1) return ruleError(in.call, "needs operands of known rank");
  auto tr = [](Expr t, int n) { return call("permute_dims", {e(std::move(t)), ints(swapLastTwo(n))}); };
  const Expr& g = in.outGrad;
  Expr ga, gb;
  if (na > 1 && nb > 1) {
    ga = call("matmul", {e(g), e(tr(bm, nb))});
    gb = call("matmul", {e(tr(a, na)), e(g)});
  } else if (na == 1 && nb > 1) {
    Expr g2 = call("expand_dims", {e(g), ints({-2})});
    ga = call("matmul", {e(g2), e(tr(bm, nb))});
    gb = call("matmul", {e(call("expand_dims", {e(a), ints({1})})), e(g2)});
  } else if (nb == 1 && na > 1) {
    Expr g2 = call("expand_dims", {e(g), ints({-1})});
    ga = call("matmul", {e(g2), e(call("expand_dims", {e(bm), ints({0})}))});
    gb = call("squeeze", {e(call("matmul", {e(tr(a, na)), e(g2)})), ints({-1})});
  } else {
    ga = mul(g, bm);
    gb = mul(g, a);
  }
  RLX_TRY(pa, fit(in, ga, a));
  RLX_TRY(pb, fit(in, gb, bm));
  return std::vector<Expr>{pa, pb};
}

// ---- neural network ------------------------------------------------------------------------

Partials gRelu(const RuleInput& in) {
  const Expr& x = in.call.args[0];
  return std::vector<Expr>{where(op2("less", x, k(0, x)), k(0, x), in.outGrad)};
}

Partials gLeakyRelu(const RuleInput& in) {
  const Expr& x = in.call.args[0];
  double alpha = ops::attrReal(in.call, "alpha", 0.01);
  return std::vector<Expr>{where(op2("less", x, k(0, x)), mul(in.outGrad, k(alpha, x)), in.outGrad)};
}

Partials gSilu(const RuleInput& in) {
  const Expr& x = in.call.args[0];
  Expr sig = op1("sigmoid", x);
  return std::vector<Expr>{mul(in.outGrad, add(sig, mul(in.out, sub(k(1, x), sig))))};
}

// gelu(x) = x * Phi(x): d/dx = Phi(x) + x * phi(x), phi the standard normal density.
Partials gGelu(const RuleInput& in) {
  const Expr& x = in.call.args[0];
  Expr cdf = mul(k(0.5, x), add(k(1, x), op1("erf", mul(x, k(M_SQRT1_2, x)))));
  Expr pdf = mul(k(0.5 * M_2_SQRTPI * M_SQRT1_2, x), op1("exp", mul(k(-0.5, x), mul(x, x))));
  return std::vector<Expr>{mul(in.outGrad, add(cdf, mul(x, pdf)))};
}

// gelu_tanh(x) = 0.5 x (1 + tanh(u)), u = c (x + 0.044715 x^3), c = sqrt(2 / pi).
Partials gGeluTanh(const RuleInput& in) {
  const Expr& x = in.call.args[0];
  double c = std::sqrt(2.0 / M_PI), a = 0.044715;
  Expr x2 = mul(x, x);
  Expr t = op1("tanh", mul(k(c, x), add(x, mul(k(a, x), mul(x2, x)))));
  Expr du = mul(k(c, x), add(k(1, x), mul(k(3 * a, x), x2)));
  Expr d = add(mul(k(0.5, x), add(k(1, x), t)), mul(mul(k(0.5, x), x), mul(sub(k(1, x), mul(t, t)), du)));
  return std::vector<Expr>{mul(in.outGrad, d)};
}

Partials gSoftmax(const RuleInput& in) {
  std::vector<int64_t> axis{ops::attrInt(in.call, "axis", -1)};
  return std::vector<Expr>{mul(sub(in.outGrad, sumKeep(mul(in.outGrad, in.out), axis)), in.out)};
}

Partials gLogSoftmax(const RuleInput& in) {
  std::vector<int64_t> axis{ops::attrInt(in.call, "axis", -1)};
  return std::vector<Expr>{sub(in.outGrad, mul(sumKeep(in.outGrad, axis), op1("exp", in.out)))};
}

// cross_entropy_with_logits(x, y) = -sum(x * y) / N (N the batch when x has one).
Partials gCrossEntropy(const RuleInput& in) {
  const Expr &x = in.call.args[0], &y = in.call.args[1];
  Expr g = in.outGrad;
  if (ndimOf(x) > 1) {
    RLX_TRY(dims, staticDims(in.call, x));
    g = div(g, k(double(dims[0]), g));
  }
  return std::vector<Expr>{mul(neg(g), y), mul(neg(g), x)};
}

Partials gNLLLoss(const RuleInput& in) {
  std::vector<Expr> args{in.outGrad};
  for (auto& a : in.call.args) args.push_back(a);
  std::vector<Expr> out(in.call.args.size());
  out[0] = makeCall("relax.grad.nll_loss_backward", std::move(args), in.call.attrs);
  return out;
}

Partials gPool2d(const RuleInput& in) {
  std::string name = in.call.opName() == "relax.nn.max_pool2d" ? "relax.grad.max_pool2d_backward" : "relax.grad.avg_pool2d_backward";
  if (ops::attrString(in.call, "layout", "NCHW") != "NCHW") return ruleError(in.call, "only supports the NCHW layout");
  return std::vector<Expr>{makeCall(name, {in.outGrad, in.call.args[0]}, in.call.attrs)};
}

// conv2d (NCHW / OIHW): the data adjoint is a transposed convolution of the output adjoint by
// the same weight; the weight adjoint a convolution of the data by the output adjoint with
// strides and dilation swapped (batch and channel axes exchanged, per group), cut to the kernel.
Partials gConv2d(const RuleInput& in) {
  const Call& c = in.call;
  if (ops::attrString(c, "data_layout", "NCHW") != "NCHW" || ops::attrString(c, "kernel_layout", "OIHW") != "OIHW" ||
      ops::attrString(c, "out_layout", "NCHW") != "NCHW")
    return ruleError(c, "only supports NCHW data, OIHW kernels and NCHW outputs");
  const Expr &data = c.args[0], &weight = c.args[1];
  RLX_TRY(xd, staticDims(c, data));
  RLX_TRY(wd, staticDims(c, weight));
  RLX_TRY(yd, staticDims(c, in.out));
  auto strides = ops::attrInts(c, "strides"), dilation = ops::attrInts(c, "dilation"), padding = ops::attrInts(c, "padding");
  int64_t groups = ops::attrInt(c, "groups", 1);
  if (strides.size() != 2 || dilation.size() != 2 || padding.size() != 4) return ruleError(c, "expects 2 strides, 2 dilations and 4 paddings");
  std::string outDtype = ops::attrDType(c, "out_dtype").isVoid() ? "" : ops::attrDType(c, "out_dtype").str();
  // What a transposed convolution of the adjoint would produce, and the rows/cols it misses.
  std::vector<int64_t> outputPadding(2);
  for (int a = 0; a < 2; ++a) {
    int64_t full = (yd[2 + a] - 1) * strides[a] - padding[a] - padding[a + 2] + (wd[2 + a] - 1) * dilation[a] + 1;
    outputPadding[a] = xd[2 + a] - full;
  }
  KwArgs tk{{"strides", ints(strides)}, {"padding", ints(padding)}, {"output_padding", ints(outputPadding)}, {"dilation", ints(dilation)}, {"groups", i(groups)}};
  if (!outDtype.empty()) tk.push_back({"out_dtype", s(outDtype)});
  Expr dataGrad = call("nn.conv2d_transpose", {e(in.outGrad), e(weight)}, tk);

  int64_t n = xd[0], ci = xd[1], h = xd[2], w = xd[3];
  // data as (C/G, G*N, H, W): each group's channels become a batch, the batch channels.
  Expr d = call("permute_dims", {e(data), ints({1, 0, 2, 3})});
  if (groups != 1) {
    d = call("reshape", {e(data), ints({n, groups, ci / groups, h, w})});
    d = call("permute_dims", {e(d), ints({2, 1, 0, 3, 4})});
    d = call("reshape", {e(d), ints({ci / groups, groups * n, h, w})});
  }
  Expr g = call("permute_dims", {e(in.outGrad), ints({1, 0, 2, 3})});
  KwArgs wk{{"strides", ints(dilation)}, {"padding", ints(padding)}, {"dilation", ints(strides)}, {"groups", i(groups)}};
  if (!outDtype.empty()) wk.push_back({"out_dtype", s(outDtype)});
  Expr wg = call("permute_dims", {e(call("nn.conv2d", {e(d), e(g)}, wk)), ints({1, 0, 2, 3})});
  int64_t kh = (h - (yd[2] - 1) * strides[0] - 1 + padding[0] + padding[2]) / dilation[0] + 1;
  int64_t kw = (w - (yd[3] - 1) * strides[1] - 1 + padding[1] + padding[3]) / dilation[1] + 1;
  if (kh > wd[2] || kw > wd[3])
    wg = call("strided_slice", {e(wg), ints({0, 1, 2, 3}), ints({0, 0, 0, 0}), ints({wd[0], wd[1], wd[2], wd[3]})});
  return std::vector<Expr>{dataGrad, wg};
}

const std::map<std::string, Rule>& table() {
  static const std::map<std::string, Rule> rules = {
      // binary arithmetic
      {"relax.add", gAdd},
      {"relax.subtract", gSubtract},
      {"relax.multiply", gMultiply},
      {"relax.divide", gDivide},
      {"relax.power", gPower},
      {"relax.maximum", gMaximum},
      {"relax.minimum", gMinimum},
      // piecewise constant: no gradient
      {"relax.equal", gNone},
      {"relax.not_equal", gNone},
      {"relax.greater", gNone},
      {"relax.greater_equal", gNone},
      {"relax.less", gNone},
      {"relax.less_equal", gNone},
      {"relax.zeros", gNone},
      {"relax.ones", gNone},
      {"relax.full", gNone},
      {"relax.zeros_like", gNone},
      {"relax.ones_like", gNone},
      {"relax.full_like", gNone},
      // unary math
      {"relax.abs", gAbs},
      {"relax.cos", gCos},
      {"relax.sin", gSin},
      {"relax.exp", gExp},
      {"relax.log", gLog},
      {"relax.negative", gNegative},
      {"relax.sigmoid", gSigmoid},
      {"relax.sqrt", gSqrt},
      {"relax.rsqrt", gRsqrt},
      {"relax.square", gSquare},
      {"relax.tanh", gTanh},
      // reductions and scans
      {"relax.sum", gSum},
      {"relax.mean", gMean},
      {"relax.variance", gVariance},
      {"relax.max", gMaxMin},
      {"relax.min", gMaxMin},
      {"relax.cumsum", gCumsum},
      // manipulation and indexing
      {"relax.permute_dims", gPermuteDims},
      {"relax.reshape", gReshapeLike},
      {"relax.flatten", gReshapeLike},
      {"relax.squeeze", gReshapeLike},
      {"relax.expand_dims", gExpandDims},
      {"relax.broadcast_to", gBroadcastTo},
      {"relax.concat", gConcat},
      {"relax.split", gSplit},
      {"relax.take", gTake},
      {"relax.where", gWhere},
      {"relax.triu", gTrilu},
      {"relax.tril", gTrilu},
      {"relax.astype", gAstype},
      // linear algebra and neural network
      {"relax.matmul", gMatmul},
      {"relax.nn.relu", gRelu},
      {"relax.nn.leakyrelu", gLeakyRelu},
      {"relax.nn.silu", gSilu},
      {"relax.nn.gelu", gGelu},
      {"relax.nn.gelu_tanh", gGeluTanh},
      {"relax.nn.softmax", gSoftmax},
      {"relax.nn.log_softmax", gLogSoftmax},
      {"relax.nn.cross_entropy_with_logits", gCrossEntropy},
      {"relax.nn.nll_loss", gNLLLoss},
      {"relax.nn.conv2d", gConv2d},
      {"relax.nn.max_pool2d", gPool2d},
      {"relax.nn.avg_pool2d", gPool2d},
  };
  return rules;
}

}  // namespace

Rule findRule(const std::string& name) {
  auto it = table().find(name);
  return it == table().end() ? nullptr : it->second;
}

std::vector<std::string> ruleNames() {
  std::vector<std::string> out;
  for (auto& [n, r] : table()) out.push_back(n);
  return out;
}

}  // namespace rlx::grad
