// Legalization of the integer bit ops (bitwise_and/or/xor/not, left/right shift) and of mod, sign,
// log_add_exp and logical_xor: topi-style T_<op> blocks with numpy broadcasting, ax loops.
#include <cmath>

#include "passes/legalize/legalize.h"

namespace rlx::legalize {

namespace {

using te::Indices;
using te::Tensor;

using BinFn = std::function<PrimExpr(const PrimExpr&, const PrimExpr&)>;

// A 0-d constant operand as a scalar of dtype t (topi converts Python constants to the tensor's dtype).
PrimExpr scalarAs(const PrimExpr& c, DataType t) {
  if (c->dtype == t) return c;
  if (auto f = c.as<FloatImm>()) return te::constant(f->value, t);
  return te::constant(double(asIntImm(c)->value), t);
}

// One broadcasting T_<name> stage over two operands, either of which may be a 0-d constant.
// `accept` filters the operand dtype (bit ops need integers, log_add_exp floats).
Rule broadcastRule(const std::string& name, std::function<bool(DataType)> accept, BinFn fn) {
  return [name, accept, fn](Ctx& ctx) -> std::vector<Tensor> {
    auto shape = ctx.outShape();
    if (!shape || ctx.call.args.size() != 2) return {};
    PrimExpr sa = ctx.scalarConst(ctx.call.args[0]), sb = ctx.scalarConst(ctx.call.args[1]);
    if (sa && sb) return {};
    std::optional<Tensor> a, b;
    if (!sa && !(a = ctx.arg(0))) return {};
    if (!sb && !(b = ctx.arg(1))) return {};
    DataType t = a ? a->dtype() : b->dtype();
    if (!accept(t)) return {};
    if (sa) sa = scalarAs(sa, t);
    if (sb) sb = scalarAs(sb, t);
    std::vector<PrimExpr> out = *shape;
    return {ctx.kb.compute("T_" + name, out, ctx.outDtype(), [&](const Indices& i) {
      return fn(a ? (*a)(broadcastIndex(*a, i, out)) : sa, b ? (*b)(broadcastIndex(*b, i, out)) : sb);
    }, "ax")};
  };
}

Rule unaryRule(const std::string& name, std::function<bool(DataType)> accept, std::function<PrimExpr(const PrimExpr&)> fn) {
  return [name, accept, fn](Ctx& ctx) -> std::vector<Tensor> {
    auto x = ctx.arg(0);
    auto shape = ctx.outShape();
    if (!x || !shape || !accept(x->dtype())) return {};
    return {ctx.kb.compute("T_" + name, *shape, ctx.outDtype(), [&](const Indices& i) { return fn((*x)(i)); }, "ax")};
  };
}

bool isInteger(DataType t) { return t.isInt() || t.isUInt() || t.isBool(); }
bool isFloat(DataType t) { return t.isFloat(); }
bool anyType(DataType) { return true; }

BinFn intrinsic(const std::string& name) {
  return [name](const PrimExpr& a, const PrimExpr& b) { return te::call("tir." + name, a->dtype, {a, b}); };
}

// log(exp(a) + exp(b)) without overflow: max + log1p(exp(-|a - b|)). Equal operands take
// a + log 2 so that two equal infinities give that infinity rather than inf - inf = NaN.
PrimExpr logAddExp(const PrimExpr& a, const PrimExpr& b) {
  DataType t = a->dtype;
  PrimExpr diff = te::call("tir.fabs", t, {te::bin(NodeKind::Sub, a, b)});
  PrimExpr tail = te::call("tir.log1p", t, {te::call("tir.exp", t, {te::bin(NodeKind::Sub, te::constant(0, t), diff)})});
  PrimExpr general = te::bin(NodeKind::Add, te::bin(NodeKind::Max, a, b), tail);
  return make<Select>(te::bin(NodeKind::EQ, a, b), te::bin(NodeKind::Add, a, te::constant(std::log(2.0), t)), general);
}

// numpy's sign: 1, -1 or 0; a float NaN (and the sign of a zero) passes through as x itself.
PrimExpr sign(const PrimExpr& x) {
  DataType t = x->dtype;
  PrimExpr zero = te::constant(0, t);
  PrimExpr rest = t.isFloat() ? x : zero;
  PrimExpr negOrRest = make<Select>(te::bin(NodeKind::LT, x, zero), te::constant(-1, t), rest);
  return make<Select>(te::bin(NodeKind::LT, zero, x), te::constant(1, t), negOrRest);
}

// Truthiness XOR: on bools a != b; other dtypes compare each side with 0 first (0 / 1 result).
PrimExpr logicalXor(const PrimExpr& a, const PrimExpr& b) {
  if (a->dtype.isBool()) return te::bin(NodeKind::NE, a, b);
  PrimExpr za = te::constant(0, a->dtype), zb = te::constant(0, b->dtype);
  return make<Cast>(a->dtype, te::bin(NodeKind::NE, te::bin(NodeKind::NE, a, za), te::bin(NodeKind::NE, b, zb)));
}

}  // namespace

void registerBitwiseRules() {
  for (auto [op, intrin] : {std::pair{"bitwise_and", "bitwise_and"}, std::pair{"bitwise_or", "bitwise_or"}, std::pair{"bitwise_xor", "bitwise_xor"},
                            std::pair{"left_shift", "shift_left"}, std::pair{"right_shift", "shift_right"}})
    registerRule(std::string("relax.") + op, op, broadcastRule(op, isInteger, intrinsic(intrin)));
  registerRule("relax.bitwise_not", "bitwise_not", unaryRule("bitwise_not", isInteger, [](const PrimExpr& x) { return te::call("tir.bitwise_not", x->dtype, {x}); }));
  // relax.mod is topi.mod, a truncated remainder: C's % on integers, fmod (LLVM's frem) on floats.
  registerRule("relax.mod", "mod", broadcastRule("mod", anyType, [](const PrimExpr& a, const PrimExpr& b) { return te::bin(NodeKind::Mod, a, b); }));
  registerRule("relax.log_add_exp", "log_add_exp", broadcastRule("log_add_exp", isFloat, logAddExp));
  registerRule("relax.logical_xor", "logical_xor", broadcastRule("logical_xor", anyType, logicalXor));
  registerRule("relax.sign", "sign", unaryRule("sign", anyType, sign));
}

}  // namespace rlx::legalize
