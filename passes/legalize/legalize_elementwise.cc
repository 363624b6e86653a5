// Legalization of elementwise ops as topi computes them: binary arithmetic and comparisons with
// numpy broadcasting (T_<op> blocks, ax loops), unary math (compute blocks), where, clip, astype.
#include "ir/eval.h"
#include "ir/ops/infer_util.h"
#include "passes/legalize/legalize.h"

namespace rlx::legalize {

namespace {

using te::Indices;
using te::Tensor;

using BinFn = std::function<PrimExpr(const PrimExpr&, const PrimExpr&)>;

// A binary op over two tensors or a tensor and a 0-d constant (folded into the kernel).
Rule binaryRule(const std::string& topiName, BinFn fn) {
  return [topiName, fn](Ctx& ctx) -> std::vector<Tensor> {
    if (ctx.call.args.size() != 2) return {};
    auto shape = ctx.outShape();
    if (!shape) return {};
    PrimExpr sa = ctx.scalarConst(ctx.call.args[0]), sb = ctx.scalarConst(ctx.call.args[1]);
    std::optional<Tensor> a, b;
    // An operand is a tensor, a constant scalar, or an R.Prim known at run time (a kernel param).
    if (!sa && !(a = ctx.arg(0)) && !(sa = ctx.scalarInput(ctx.call.args[0]))) return {};
    if (!sb && !(b = ctx.arg(1)) && !(sb = ctx.scalarInput(ctx.call.args[1]))) return {};
    if (!a && !b) return {};
    // Constant scalars take the other operand's dtype (topi's const conversion).
    auto convert = [](const PrimExpr& s, DataType t) -> PrimExpr {
      if (s->kind() == NodeKind::FloatImm) return te::constant(static_cast<const FloatImm&>(*s).value, t);
      if (auto k = asIntImm(s)) return te::constant(double(k->value), t);
      return s->dtype == t ? s : PrimExpr(make<Cast>(t, s));
    };
    if (sa) sa = convert(sa, b->dtype());
    if (sb) sb = convert(sb, a->dtype());
    std::vector<PrimExpr> out = *shape;
    return {ctx.kb.compute("T_" + topiName, out, ctx.outDtype(), [&](const Indices& i) {
      PrimExpr x = a ? (*a)(broadcastIndex(*a, i, out)) : sa;
      PrimExpr y = b ? (*b)(broadcastIndex(*b, i, out)) : sb;
      return fn(x, y);
    }, "ax")};
  };
}

BinFn op(NodeKind k) {
  return [k](const PrimExpr& a, const PrimExpr& b) { return te::bin(k, a, b); };
}

Rule unaryRule(std::function<PrimExpr(const PrimExpr&)> fn) {
  return [fn](Ctx& ctx) -> std::vector<Tensor> {
    auto x = ctx.arg(0);
    auto shape = ctx.outShape();
    if (!x || !shape) return {};
    return {ctx.kb.compute("compute", *shape, ctx.outDtype(), [&](const Indices& i) { return fn((*x)(i)); })};
  };
}

Rule intrinsicRule(const std::string& intrin) {
  return unaryRule([intrin](const PrimExpr& x) { return te::call("tir." + intrin, x->dtype, {x}); });
}

}  // namespace

void registerElementwiseRules() {
  struct B {
    const char* op;
    NodeKind k;
  };
  for (auto [name, k] : {B{"add", NodeKind::Add}, B{"subtract", NodeKind::Sub}, B{"multiply", NodeKind::Mul}, B{"maximum", NodeKind::Max}, B{"minimum", NodeKind::Min},
                         B{"equal", NodeKind::EQ}, B{"not_equal", NodeKind::NE}, B{"less", NodeKind::LT}, B{"less_equal", NodeKind::LE},
                         B{"logical_and", NodeKind::And}, B{"logical_or", NodeKind::Or}, B{"floor_mod", NodeKind::FloorMod}})
    registerRule(std::string("relax.") + name, name, binaryRule(name, op(k)));
  // TVM's simplifier writes a > b as b < a and a >= b as b <= a.
  registerRule("relax.greater", "greater", binaryRule("greater", [](const PrimExpr& a, const PrimExpr& b) { return te::bin(NodeKind::LT, b, a); }));
  registerRule("relax.greater_equal", "greater_equal", binaryRule("greater_equal", [](const PrimExpr& a, const PrimExpr& b) { return te::bin(NodeKind::LE, b, a); }));
  registerRule("relax.divide", "divide", binaryRule("divide", [](const PrimExpr& a, const PrimExpr& b) {
    return te::bin(NodeKind::Div, a, b);  // topi.divide: tir Div, which truncates on integers
  }));
  registerRule("relax.floor_divide", "floor_divide", binaryRule("floor_divide", [](const PrimExpr& a, const PrimExpr& b) {
    return a->dtype.isFloat() ? te::call("tir.floor", a->dtype, {te::bin(NodeKind::Div, a, b)}) : te::bin(NodeKind::FloorDiv, a, b);
  }));
  registerRule("relax.power", "power", binaryRule("power", [](const PrimExpr& a, const PrimExpr& b) { return te::call("tir.pow", a->dtype, {a, b}); }));

  for (const char* f : {"exp", "log", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "sigmoid", "erf", "floor", "ceil", "round", "trunc", "asin", "acos", "atan", "sinh",
                        "cosh", "asinh", "acosh", "atanh", "isnan", "isinf", "isfinite"})
    registerRule(std::string("relax.") + f, f, intrinsicRule(f));
  registerRule("relax.abs", "abs", intrinsicRule("fabs"));
  registerRule("relax.negative", "negative", unaryRule([](const PrimExpr& x) { return te::bin(NodeKind::Sub, te::constant(0, x->dtype), x); }));
  registerRule("relax.square", "square", unaryRule([](const PrimExpr& x) { return te::bin(NodeKind::Mul, x, x); }));
  registerRule("relax.logical_not", "logical_not", unaryRule([](const PrimExpr& x) {
    if (x->dtype.isBool()) return PrimExpr(make<PrimNot>(x));
    return PrimExpr(make<Cast>(x->dtype, te::bin(NodeKind::EQ, x, te::constant(0, x->dtype))));  // 1 where x is 0
  }));

  registerRule("relax.clip", "clip", [](Ctx& ctx) -> std::vector<Tensor> {
    auto x = ctx.arg(0);
    auto shape = ctx.outShape();
    PrimExpr lo = ctx.primArg(1), hi = ctx.primArg(2);
    if (!x || !shape || !lo || !hi) return {};
    DataType t = x->dtype();
    auto conv = [&](const PrimExpr& v) -> PrimExpr {
      if (v->dtype == t) return v;
      if (auto f = v.as<FloatImm>()) return te::constant(f->value, t);
      if (auto i = asIntImm(v)) return te::constant(double(i->value), t);
      return make<Cast>(t, v);
    };
    return {ctx.kb.compute("compute", *shape, t, [&](const Indices& i) { return te::bin(NodeKind::Max, te::bin(NodeKind::Min, (*x)(i), conv(hi)), conv(lo)); })};
  });

  registerRule("relax.astype", "cast", [](Ctx& ctx) -> std::vector<Tensor> {
    auto x = ctx.arg(0);
    auto shape = ctx.outShape();
    if (!x || !shape || x->dtype() == ctx.outDtype()) return {};
    DataType t = ctx.outDtype();
    return {ctx.kb.compute("T_cast", *shape, t, [&](const Indices& i) { return PrimExpr(make<Cast>(t, (*x)(i))); }, "ax")};
  });

  // A 0-d constant converts at compile time (TVM's legalizer returns the cast constant).
  registerFold("relax.astype", [](const Call& call) -> Expr {
    auto c = call.args.empty() ? nullptr : call.args[0].as<Constant>();
    if (!c || !c->data || !c->data->shape.empty()) return nullptr;
    auto v = evaluateOp("relax.astype", {Value::ofTensor(c->data)}, call.attrs);
    if (!v.ok() || v.value().kind != Value::Tensor) return nullptr;
    return make<Constant>(v.value().tensor);
  });

  registerRule("relax.where", "where", [](Ctx& ctx) -> std::vector<Tensor> {
    auto shape = ctx.outShape();
    if (!shape || ctx.call.args.size() != 3) return {};
    auto c = ctx.arg(0), a = ctx.arg(1), b = ctx.arg(2);
    if (!c || !a || !b) return {};
    std::vector<PrimExpr> out = *shape;
    return {ctx.kb.compute("T_where", out, ctx.outDtype(), [&](const Indices& i) {
      PrimExpr cond = (*c)(broadcastIndex(*c, i, out));
      // topi tests cond != 0; TVM's simplifier turns that into 0 < cast(int64, cond) for bools.
      PrimExpr test = cond->dtype.isBool() ? te::bin(NodeKind::LT, intImm(0), make<Cast>(DataType::int64(), cond))
                                           : te::bin(NodeKind::NE, cond, te::constant(0, cond->dtype));
      return PrimExpr(make<Select>(test, (*a)(broadcastIndex(*a, i, out)), (*b)(broadcastIndex(*b, i, out))));
    }, "ax")};
  });
}

}  // namespace rlx::legalize
