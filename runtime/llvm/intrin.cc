// LLVM codegen, TIR intrinsics: math (libm or LLVM intrinsics in the dtype's precision), float
// predicates, bitwise operations and reinterpret, matching the interpreter's tir_eval_intrin.cc.
#include <iterator>
#include <set>

#include <llvm/IR/Intrinsics.h>

#include "runtime/llvm/codegen.h"
#include "ir/rational_erf_tanh.h"
#include "runtime/llvm/exp_float.h"

namespace rlx::codegen {

namespace {

const std::set<std::string, std::less<>>& unaryNames() {
  static const std::set<std::string, std::less<>> names = {
      "exp",  "exp2",  "exp10", "log",  "log2",  "log10", "log1p", "sqrt",  "rsqrt", "tanh", "sigmoid", "erf",  "erfc",      "lgamma", "sin",  "cos",
      "tan",  "sinh",  "cosh",  "asin", "acos",  "atan",  "asinh", "acosh", "atanh", "floor", "ceil",   "round", "nearbyint", "trunc",  "fabs",
  };
  return names;
}

const std::set<std::string, std::less<>>& binaryNames() {
  static const std::set<std::string, std::less<>> names = {"pow", "atan2", "fmod", "hypot", "copysign"};
  return names;
}

bool isExternCall(const std::string& op) { return op == "tir.call_extern" || op == "tir.call_pure_extern" || op == "tir.call_intrin" || op == "tir.call_llvm_intrin" || op == "tir.call_llvm_pure_intrin"; }

}  // namespace

llvm::Value* Codegen::callMath(const std::string& name, llvm::Type* ty, std::vector<llvm::Value*> args) {
  std::vector<llvm::Type*> params;
  for (auto* a : args) params.push_back(a->getType());
  std::string symbol = ty->isFloatTy() ? name + "f" : name;
  llvm::FunctionCallee f = mod.getOrInsertFunction(symbol, llvm::FunctionType::get(ty, params, false));
  if (auto* fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
    // errno is never read: the call is a pure function, so loops with it can be hoisted and vectorized.
    fn->setDoesNotThrow();
    fn->setWillReturn();
    fn->setMemoryEffects(llvm::MemoryEffects::none());
  }
  auto* call = b.CreateCall(f, args);
  call->setDoesNotThrow();
  call->setMemoryEffects(llvm::MemoryEffects::none());
  return call;
}

namespace {

// exp(x) in float for x in [kClampLow, kClampHigh] (exp_float.h), inline so that it vectorizes at
// any width with no call: x = (n + 1/2) ln2 + s (n = x / ln2 rounded down, s in [-ln2/2, ln2/2) by a
// two-part ln2, Cody and Waite's reduction), sqrt(2) e^s by exp_float.h's degree-5 polynomial
// (coefficients times sqrt(2); within 2.2 ulp of the rounded result), times 2^n built in the
// exponent field. Rounding n down makes the clamped range's n run
// from -127 to 128, the field's 0 (so 0, for results that would be denormals) to 255 (infinity, past
// ln(largest finite)): no case of its own at either end. libmvec's AVX2 expf, what the vectorizer
// called at 8 lanes, cost about 3.5 cycles per element: half of a softmax over Whisper's 1500-wide
// rows went there.
llvm::Value* expFloat(Codegen& cg, llvm::Value* x) {
  llvm::IRBuilder<>& b = cg.b;
  llvm::Type* ty = x->getType();
  auto c = [&](double v) { return llvm::ConstantFP::get(ty, v); };
  auto fma = [&](llvm::Value* m, llvm::Value* a, llvm::Value* add) { return b.CreateIntrinsic(llvm::Intrinsic::fma, {ty}, {m, a, add}); };
  llvm::Value* n = b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b.CreateFMul(x, c(exp_float::kLog2e)));
  llvm::Value* middle = b.CreateFAdd(n, c(0.5));  // n + 1/2 times ln2's high part is exact
  llvm::Value* r = fma(middle, c(-exp_float::kLn2High), x);
  r = fma(middle, c(-exp_float::kLn2Low), r);
  llvm::Value* p = c(exp_float::kPolynomial[0] * exp_float::kSqrt2);
  for (size_t i = 1; i < std::size(exp_float::kPolynomial); ++i) p = fma(p, r, c(exp_float::kPolynomial[i] * exp_float::kSqrt2));
  llvm::Value* ni = b.CreateFPToSI(n, b.getInt32Ty());
  return b.CreateFMul(p, b.CreateBitCast(b.CreateShl(b.CreateAdd(ni, b.getInt32(127)), 23), ty));
}

// exp(x), the arguments whose result is not a normal number included: libmvec's vector exp takes a
// scalar fallback for each such lane, and a causal mask's -1e9 puts one in every vector of a
// softmax row (11x slower). In float the input is clamped to expFloat's range, which gives 0 below
// (a denormal flushed to zero, as oneDNN's exp does) and infinity above; the clamps are ordered
// compares (a max and a min), so a NaN stays NaN.
llvm::Value* expNormalRange(Codegen& cg, llvm::Value* x) {
  llvm::IRBuilder<>& b = cg.b;
  llvm::Type* ty = x->getType();
  if (ty->isFloatTy()) {
    auto lo = llvm::ConstantFP::get(ty, exp_float::kClampLow), hi = llvm::ConstantFP::get(ty, exp_float::kClampHigh);
    llvm::Value* clamped = b.CreateSelect(b.CreateFCmpOLT(x, lo), lo, x);
    return expFloat(cg, b.CreateSelect(b.CreateFCmpOGT(clamped, hi), hi, clamped));
  }
  auto lo = llvm::ConstantFP::get(ty, -708.3964), hi = llvm::ConstantFP::get(ty, 709.7827);
  llvm::Value *below = b.CreateFCmpOLT(x, lo), *above = b.CreateFCmpOGT(x, hi);
  llvm::Value* e = cg.callMath("exp", ty, {b.CreateSelect(below, lo, b.CreateSelect(above, hi, x))});
  return b.CreateSelect(below, llvm::ConstantFP::get(ty, 0.0), b.CreateSelect(above, llvm::ConstantFP::getInfinity(ty), e));
}

// x * P(x^2) / Q(x^2) on x clamped to f's range (rational_erf_tanh.h), inline like expFloat: libmvec's
// vector erff cost about 2.5 cycles per element, so a GELU epilogue took a sixth of Whisper's
// 1500 x 384 x 1536 GEMM. The clamp is two ordered compares, so a NaN stays NaN.
llvm::Value* oddRationalFloat(Codegen& cg, const rational::OddRational& f, llvm::Value* x) {
  llvm::IRBuilder<>& b = cg.b;
  llvm::Type* ty = x->getType();
  auto c = [&](double v) { return llvm::ConstantFP::get(ty, v); };
  auto horner = [&](const double* k, int n, llvm::Value* t) {
    llvm::Value* p = c(k[0]);
    for (int i = 1; i < n; ++i) p = b.CreateIntrinsic(llvm::Intrinsic::fma, {ty}, {p, t, c(k[i])});
    return p;
  };
  llvm::Value* clamped = b.CreateSelect(b.CreateFCmpOGT(x, c(f.clamp)), c(f.clamp), x);
  clamped = b.CreateSelect(b.CreateFCmpOLT(clamped, c(-f.clamp)), c(-f.clamp), clamped);
  llvm::Value* x2 = b.CreateFMul(clamped, clamped);
  return b.CreateFDiv(b.CreateFMul(clamped, horner(f.p, f.pSize, x2)), horner(f.q, f.qSize, x2));
}

// One-argument float math on `x` (float or double), as the interpreter's table defines each name.
llvm::Value* unaryFloat(Codegen& cg, const std::string& name, llvm::Value* x) {
  llvm::IRBuilder<>& b = cg.b;
  llvm::Type* ty = x->getType();
  auto one = llvm::ConstantFP::get(ty, 1.0);
  auto intrinsic = [&](llvm::Intrinsic::ID id) { return b.CreateUnaryIntrinsic(id, x); };
  if (name == "sqrt") return intrinsic(llvm::Intrinsic::sqrt);
  if (name == "floor") return intrinsic(llvm::Intrinsic::floor);
  if (name == "ceil") return intrinsic(llvm::Intrinsic::ceil);
  if (name == "trunc") return intrinsic(llvm::Intrinsic::trunc);
  if (name == "fabs") return intrinsic(llvm::Intrinsic::fabs);
  // TVM lowers tir.round to nearbyint: halfway cases go to the even neighbour.
  if (name == "round" || name == "nearbyint") return intrinsic(llvm::Intrinsic::roundeven);
  if (name == "rsqrt") return b.CreateFDiv(one, intrinsic(llvm::Intrinsic::sqrt));
  if (name == "exp") return expNormalRange(cg, x);
  if (name == "erf" && ty->isFloatTy()) return oddRationalFloat(cg, rational::kErf, x);
  if (name == "tanh" && ty->isFloatTy()) return oddRationalFloat(cg, rational::kTanh, x);
  if (name == "sigmoid") return b.CreateFDiv(one, b.CreateFAdd(one, expNormalRange(cg, b.CreateFNeg(x))));
  if (name == "exp10") return cg.callMath("pow", ty, {llvm::ConstantFP::get(ty, 10.0), x});
  return cg.callMath(name, ty, {x});
}

llvm::Value* binaryFloat(Codegen& cg, const std::string& name, llvm::Value* x, llvm::Value* y) {
  if (name == "fmod") return cg.b.CreateFRem(x, y);
  if (name == "copysign") return cg.b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, x, y);
  // x ** 2 and x ** 3 (GPT-2's GELU cubes its input) as products: libmvec's vector pow takes its
  // scalar fallback for every lane with a negative base, which half of a GELU's inputs are (its
  // kernel ran 5x slower than the matmul feeding it). Within an ulp or two of pow's result.
  if (name == "pow")
    if (auto* c = llvm::dyn_cast<llvm::ConstantFP>(y); c && (c->isExactlyValue(2.0) || c->isExactlyValue(3.0))) {
      llvm::Value* square = cg.b.CreateFMul(x, x);
      return c->isExactlyValue(2.0) ? square : cg.b.CreateFMul(square, x);
    }
  return cg.callMath(name, x->getType(), {x, y});
}

}  // namespace

TV Codegen::intrinsic(const PrimCall& c, int lane) {
  DataType t = c.dtype.element();
  if (c.op == "rlx.transpose32") return transposeCall(c);
  if (c.op == "rlx.attention") return attentionCall(c);
  if (c.op == "rlx.sgemm" || c.op == "rlx.sgemm_padded" || c.op == "rlx.window_channels_last") return sgemmCall(c);
  if (c.op == "rlx.pool_padded") return poolCall(c);
  if (isExternCall(c.op) || c.op.compare(0, 4, "tir.") != 0) {
    std::string callee = !c.args.empty() && c.args[0]->kind() == NodeKind::TirStringImm ? " of '" + static_cast<const TirStringImm&>(*c.args[0]).value + "'" : "";
    fail("cannot compile " + c.op + callee + ": the LLVM code generator knows only TVM's built-in intrinsics");
  }
  std::string name = c.op.substr(4);
  std::vector<TV> args;
  for (auto& a : c.args) {
    if (a->kind() == NodeKind::TirStringImm) {
      fail("unsupported TIR intrinsic '" + c.op + "'");
    }
    args.push_back(emit(a, lane));
  }
  auto arity = [&](size_t n) {
    if (args.size() != n) fail(c.op + " takes " + std::to_string(n) + " argument(s), got " + std::to_string(args.size()));
  };
  // A double result in the call's dtype (rounded, or TVM's cast for an integral dtype).
  auto fromDouble = [&](llvm::Value* d) { return t.isFloat() ? roundTo(d, t) : cast(TV{d, DataType::float64()}, t); };

  if (name == "likely") {
    arity(1);
    return args[0];
  }
  if (name == "reinterpret") {
    arity(1);
    const TV& x = args[0];
    if (x.t.bits != t.bits) {
      fail("T.reinterpret from " + x.t.str() + " to " + t.str() + ": the widths differ");
    }
    // To the storage bits (16-bit floats are exact in their format), then to t's representation.
    llvm::Value* bits = x.v;
    if (x.t.isMiniFloat()) bits = b.CreateTrunc(encodeMiniFloat(x.v, x.t), b.getIntNTy(x.t.bits));
    else if (x.t.code == DataType::Float && x.t.bits == 16) bits = b.CreateBitCast(b.CreateFPTrunc(x.v, b.getHalfTy()), b.getInt16Ty());
    else if (x.t.code == DataType::BFloat) bits = b.CreateTrunc(b.CreateLShr(b.CreateBitCast(x.v, b.getInt32Ty()), 16), b.getInt16Ty());
    else if (x.t.isFloat()) bits = b.CreateBitCast(x.v, b.getIntNTy(x.t.bits));
    if (t.isMiniFloat()) return {decodeMiniFloat(b.CreateZExtOrTrunc(bits, b.getInt8Ty()), t), t};
    if (t.code == DataType::Float && t.bits == 16) return {b.CreateFPExt(b.CreateBitCast(bits, b.getHalfTy()), b.getFloatTy()), t};
    if (t.code == DataType::BFloat) return {b.CreateBitCast(b.CreateShl(b.CreateZExt(bits, b.getInt32Ty()), 16), b.getFloatTy()), t};
    return {b.CreateBitCast(bits, computeType(t)), t};
  }
  if (unaryNames().count(name)) {
    arity(1);
    const TV& x = args[0];
    if (!x.t.isFloat() && t.isIntegral()) {
      // Rounding and abs on integers are exact: no detour through double.
      bool rounding = name == "floor" || name == "ceil" || name == "round" || name == "nearbyint" || name == "trunc";
      if (name == "fabs" || rounding) {
        llvm::Value* v = toI64(x);
        if (name == "fabs" && x.t.code == DataType::Int) v = b.CreateSelect(b.CreateICmpSLT(v, b.getInt64(0)), b.CreateSub(b.getInt64(0), v), v);
        return fromI64(v, t);
      }
    }
    // In the dtype's own precision when the argument has it (float16/bfloat16 via float).
    if (t.isFloat() && x.t == t) return roundTo(unaryFloat(*this, name, x.v), t);
    return fromDouble(unaryFloat(*this, name, toDouble(x)));
  }
  if (binaryNames().count(name)) {
    arity(2);
    if (t.isFloat() && args[0].t == t && args[1].t == t) return roundTo(binaryFloat(*this, name, args[0].v, args[1].v), t);
    return fromDouble(binaryFloat(*this, name, toDouble(args[0]), toDouble(args[1])));
  }
  if (name == "nextafter") {
    arity(2);
    if (!(t.code == DataType::Float && (t.bits == 32 || t.bits == 64))) {
      fail("tir.nextafter on " + t.str() + " is not supported (float32/float64 only)");
    }
    llvm::Type* ty = computeType(t);
    return {callMath("nextafter", ty, {b.CreateFPTrunc(toDouble(args[0]), ty), b.CreateFPTrunc(toDouble(args[1]), ty)}), t};
  }
  if (name == "ldexp") {
    arity(2);
    llvm::Value* e = args[1].t.isFloat() ? b.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {i64(), b.getDoubleTy()}, {toDouble(args[1])}) : toI64(args[1]);
    e = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, e, b.getInt64(-100000));
    e = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, e, b.getInt64(100000));
    return fromDouble(b.CreateCall(mod.getOrInsertFunction("ldexp", b.getDoubleTy(), b.getDoubleTy(), b.getInt32Ty()), {toDouble(args[0]), b.CreateTrunc(e, b.getInt32Ty())}));
  }
  if (name == "isnan" || name == "isinf" || name == "isfinite") {
    arity(1);
    DataType boolean = DataType::boolean();
    if (!args[0].t.isFloat()) return {b.getInt1(name == "isfinite"), boolean};
    llvm::Value* x = args[0].v;
    if (name == "isnan") return {b.CreateFCmpUNO(x, x), boolean};
    llvm::Value* inf = llvm::ConstantFP::getInfinity(x->getType());
    llvm::Value* mag = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    return {name == "isinf" ? b.CreateFCmpOEQ(mag, inf) : b.CreateFCmpOLT(mag, inf), boolean};
  }
  bool binaryBits = name == "shift_left" || name == "shift_right" || name == "bitwise_and" || name == "bitwise_or" || name == "bitwise_xor";
  bool unaryBits = name == "bitwise_not" || name == "clz" || name == "popcount";
  if (!binaryBits && !unaryBits) {
    fail("unsupported TIR intrinsic '" + c.op + "'");
  }
  arity(binaryBits ? 2 : 1);
  for (auto& a : args)
    if (a.t.isFloat()) {
      fail("tir." + name + " needs integer arguments, got " + a.t.str());
    }
  // As the interpreter: on the operands' 64-bit values, wrapped to the call's dtype at the end.
  const TV& a = args[0];
  llvm::Value* x = toI64(a);
  if (name == "bitwise_not") return fromI64(b.CreateNot(x), t);
  if (name == "popcount") return fromI64(b.CreateZExt(b.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, b.CreateZExt(a.v, i64())), i64()), t);
  if (name == "clz") return fromI64(b.CreateZExt(b.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, a.v, b.getFalse()), i64()), t);
  llvm::Value* y = toI64(args[1]);
  if (name == "bitwise_and") return fromI64(b.CreateAnd(x, y), t);
  if (name == "bitwise_or") return fromI64(b.CreateOr(x, y), t);
  if (name == "bitwise_xor") return fromI64(b.CreateXor(x, y), t);
  // Shifts by a negative amount or by the width or more shift every bit out (0, or the sign for
  // an arithmetic right shift) instead of LLVM's poison.
  bool isSigned = a.t.code == DataType::Int;
  llvm::Value* outOfRange = b.CreateICmpUGE(y, b.getInt64(uint64_t(a.t.bits)));
  llvm::Value* amount = b.CreateSelect(outOfRange, b.getInt64(0), y);
  llvm::Value* shifted;
  llvm::Value* fill = b.getInt64(0);
  if (name == "shift_left") {
    shifted = b.CreateShl(x, amount);
  } else {
    shifted = isSigned ? b.CreateAShr(x, amount) : b.CreateLShr(b.CreateZExt(a.v, i64()), amount);
    if (isSigned) fill = b.CreateSelect(b.CreateICmpSLT(x, b.getInt64(0)), b.getInt64(-1), b.getInt64(0));
  }
  return fromI64(b.CreateSelect(outOfRange, fill, shifted), t);
}

}  // namespace rlx::codegen
