// LLVM codegen, expressions: PrimExprs to LLVM values with runPrimFunc's semantics (integers wrap to
// their width, floats round to their dtype, TVM's Cast, truncating and flooring division).
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>

#include "ir/minifloat.h"
#include "ir/ndarray.h"
#include "runtime/llvm/codegen.h"

// The float8/float4 encoder kernels call (exported to the JIT by engine.cc): one out-of-line
// function shared with the interpreter, so both round exactly alike.
extern "C" int32_t rlx_minifloat_encode(float v, int32_t dtypeCode) {
  return rlx::encodeMiniFloat(rlx::DataType(rlx::DataType::Code(dtypeCode), 8), v);
}

namespace rlx::codegen {

namespace {

bool isUInt64(DataType t) { return t.code == DataType::UInt && t.bits == 64; }
bool isHalfLike(DataType t) { return (t.code == DataType::Float && t.bits == 16) || t.code == DataType::BFloat; }
// int2/int4/uint2/uint4: computed as i2/i4, stored one a byte (ir/dtype.h).
bool isSubByteInt(DataType t) { return t.isIntegral() && !t.isBool() && t.bits < 8; }

std::string opName(NodeKind k) {
  if (k == NodeKind::Min) return "min";
  if (k == NodeKind::Max) return "max";
  const char* s = binaryOpSymbol(k);
  return s ? s : "?";
}

}  // namespace

Codegen::Codegen(llvm::Module& m, const PrimFunc& f) : ctx(m.getContext()), mod(m), func(f), b(m.getContext()) {}

void Codegen::fail(const std::string& message) { throw Unsupported{Error(message)}; }

llvm::Type* Codegen::computeType(DataType t) {
  t = t.element();
  if (t.isIntegral() && t.bits >= 1 && t.bits <= 64) return b.getIntNTy(t.bits);
  if (t.code == DataType::Float && t.bits == 64) return b.getDoubleTy();
  if ((t.code == DataType::Float && (t.bits == 16 || t.bits == 32)) || (t.code == DataType::BFloat && t.bits == 16) || t.isMiniFloat()) return b.getFloatTy();
  fail("dtype " + t.str() + " is not supported by the LLVM code generator");
}

llvm::Type* Codegen::storageType(DataType t) {
  if (t.isBool() || t.isMiniFloat() || isSubByteInt(t)) return b.getInt8Ty();
  if (isHalfLike(t)) return b.getInt16Ty();
  return computeType(t);
}

llvm::Value* Codegen::encodeMiniFloat(llvm::Value* f, DataType t) {
  t = t.element();
  if (auto* c = llvm::dyn_cast<llvm::ConstantFP>(f)) return b.getInt8(rlx::encodeMiniFloat(t, c->getValueAPF().convertToFloat()));
  auto* type = llvm::FunctionType::get(b.getInt32Ty(), {b.getFloatTy(), b.getInt32Ty()}, false);
  llvm::FunctionCallee callee = mod.getOrInsertFunction("rlx_minifloat_encode", type);
  // A pure function of its arguments: LLVM may hoist it out of loops and merge repeated calls.
  if (auto* fn = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    fn->setDoesNotAccessMemory();
    fn->setDoesNotThrow();
    fn->setWillReturn();
    fn->addFnAttr(llvm::Attribute::Speculatable);
  }
  return b.CreateTrunc(b.CreateCall(callee, {f, b.getInt32(int32_t(t.code))}), b.getInt8Ty());
}

llvm::Value* Codegen::decodeMiniFloat(llvm::Value* code, DataType t) {
  t = t.element();
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(code)) return llvm::ConstantFP::get(b.getFloatTy(), rlx::decodeMiniFloat(t, uint8_t(c->getZExtValue())));
  // A load from the 256 values of the format (a constant table in the module): every code
  // decodes in one indexed load, which the vectorizer can turn into a gather.
  std::string name = "rlx.decode." + t.str();
  llvm::GlobalVariable* table = mod.getNamedGlobal(name);
  auto* arrayType = llvm::ArrayType::get(b.getFloatTy(), 256);
  if (!table) {
    std::vector<float> values(256);
    for (unsigned k = 0; k < 256; ++k) values[k] = rlx::decodeMiniFloat(t, uint8_t(k));
    table = new llvm::GlobalVariable(mod, arrayType, true, llvm::GlobalValue::PrivateLinkage, llvm::ConstantDataArray::get(ctx, values), name);
    table->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  }
  llvm::Value* slot = b.CreateInBoundsGEP(arrayType, table, {b.getInt64(0), b.CreateZExt(code, i64())});
  return b.CreateLoad(b.getFloatTy(), slot);
}

void Codegen::check(llvm::Value* ok, const std::string& message) {
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(ok); c && c->isOne()) return;
  messages.push_back(message);
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  auto* failBlock = llvm::BasicBlock::Create(ctx, "check_failed", fn);
  auto* cont = llvm::BasicBlock::Create(ctx, "check_ok", fn);
  llvm::MDBuilder md(ctx);
  b.CreateCondBr(ok, cont, failBlock, md.createBranchWeights(1 << 20, 1));
  b.SetInsertPoint(failBlock);
  freeHeapBuffers();
  b.CreateRet(b.getInt32(int32_t(messages.size())));
  b.SetInsertPoint(cont);
}

Codegen::ScopedVar::ScopedVar(Codegen& cg, const PrimVar* v, std::vector<llvm::Value*> lanes) : cg_(cg), v_(v) {
  if (auto it = cg.vars.find(v); it != cg.vars.end()) saved_ = std::move(it->second);
  cg.vars[v] = std::move(lanes);
}

Codegen::ScopedVar::~ScopedVar() {
  if (saved_) cg_.vars[v_] = std::move(*saved_);
  else cg_.vars.erase(v_);
}

// ---- conversions ----

llvm::Value* Codegen::truthy(const TV& x) {
  if (x.t.isFloat()) return b.CreateFCmpUNE(x.v, llvm::ConstantFP::get(x.v->getType(), 0.0));
  if (x.v->getType()->isIntegerTy(1)) return x.v;
  return b.CreateICmpNE(x.v, llvm::ConstantInt::get(x.v->getType(), 0));
}

llvm::Value* Codegen::toI64(const TV& x) {
  if (x.t.isFloat()) {
    fail("expected an integer but got a " + x.t.str() + " value");
  }
  return x.t.code == DataType::Int ? b.CreateSExtOrTrunc(x.v, i64()) : b.CreateZExtOrTrunc(x.v, i64());
}

TV Codegen::fromI64(llvm::Value* v, DataType t) {
  if (t.isBool()) return {b.CreateICmpNE(v, b.getInt64(0)), t};
  return {b.CreateTrunc(v, computeType(t)), t};
}

llvm::Value* Codegen::toDouble(const TV& x) {
  if (x.t.isFloat()) return b.CreateFPExt(x.v, b.getDoubleTy());
  return x.t.code == DataType::Int ? b.CreateSIToFP(x.v, b.getDoubleTy()) : b.CreateUIToFP(x.v, b.getDoubleTy());
}

TV Codegen::roundTo(llvm::Value* f, DataType t) {
  t = t.element();
  if (t.code == DataType::Float && t.bits == 64) return {b.CreateFPExt(f, b.getDoubleTy()), t};
  // As roundFloat: a double goes to float first, then to the 16-bit or narrower format.
  llvm::Value* x = b.CreateFPTrunc(f, b.getFloatTy());
  if (t.isMiniFloat()) return {decodeMiniFloat(encodeMiniFloat(x, t), t), t};
  if (t.code == DataType::Float && t.bits == 16) return {b.CreateFPExt(b.CreateFPTrunc(x, b.getHalfTy()), b.getFloatTy()), t};
  if (t.code == DataType::BFloat) {
    // floatToBfloat16: round to nearest even on the bits; NaN keeps its sign and becomes quiet.
    llvm::Value* bits = b.CreateBitCast(x, b.getInt32Ty());
    llvm::Value* odd = b.CreateAnd(b.CreateLShr(bits, 16), 1);
    llvm::Value* rounded = b.CreateAdd(bits, b.CreateAdd(odd, b.getInt32(0x7fff)));
    llvm::Value* quiet = b.CreateOr(bits, 0x400000);
    llvm::Value* pick = b.CreateSelect(b.CreateFCmpUNO(x, x), quiet, rounded);
    return {b.CreateBitCast(b.CreateAnd(pick, 0xffff0000u), b.getFloatTy()), t};
  }
  if (!(t.code == DataType::Float && t.bits == 32)) fail("cannot round to " + t.str());
  return {x, t};
}

TV Codegen::cast(const TV& x, DataType to) {
  DataType t = to.element(), s = x.t.element();
  if (t == s) return {x.v, t};
  if (t.isFloat()) {
    if (s.isFloat()) return roundTo(x.v, t);
    // Integers of up to 53 bits convert exactly to double, so one correctly rounded conversion
    // equals the interpreter's int -> double -> dtype.
    llvm::Type* direct = t.bits == 64 ? b.getDoubleTy() : b.getFloatTy();
    if (s.bits > 53) direct = b.getDoubleTy();
    llvm::Value* f = s.code == DataType::Int ? b.CreateSIToFP(x.v, direct) : b.CreateUIToFP(x.v, direct);
    return roundTo(f, t);
  }
  if (t.isBool()) return {truthy(x), t};
  if (!s.isFloat()) return fromI64(toI64(x), t);
  // Float -> int: truncate toward zero saturating to int64 (NaN -> 0), then wrap; uint64 targets
  // above INT64_MAX keep their bits.
  llvm::Value* i = b.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {i64(), x.v->getType()}, {x.v});
  if (isUInt64(t)) {
    llvm::Value* big = b.CreateFCmpOGE(x.v, llvm::ConstantFP::get(x.v->getType(), 9.2233720368547758e18));
    llvm::Value* u = b.CreateIntrinsic(llvm::Intrinsic::fptoui_sat, {i64(), x.v->getType()}, {x.v});
    i = b.CreateSelect(big, u, i);
  }
  return fromI64(i, t);
}

// ---- operators ----

namespace {

llvm::Value* compareFloat(llvm::IRBuilder<>& b, NodeKind k, llvm::Value* x, llvm::Value* y) {
  switch (k) {
    case NodeKind::EQ: return b.CreateFCmpOEQ(x, y);
    case NodeKind::NE: return b.CreateFCmpUNE(x, y);
    case NodeKind::LT: return b.CreateFCmpOLT(x, y);
    case NodeKind::LE: return b.CreateFCmpOLE(x, y);
    case NodeKind::GT: return b.CreateFCmpOGT(x, y);
    case NodeKind::GE: return b.CreateFCmpOGE(x, y);
    default: return nullptr;
  }
}

llvm::Value* compareInt(llvm::IRBuilder<>& b, NodeKind k, llvm::Value* x, llvm::Value* y, bool isSigned) {
  switch (k) {
    case NodeKind::EQ: return b.CreateICmpEQ(x, y);
    case NodeKind::NE: return b.CreateICmpNE(x, y);
    case NodeKind::LT: return isSigned ? b.CreateICmpSLT(x, y) : b.CreateICmpULT(x, y);
    case NodeKind::LE: return isSigned ? b.CreateICmpSLE(x, y) : b.CreateICmpULE(x, y);
    case NodeKind::GT: return isSigned ? b.CreateICmpSGT(x, y) : b.CreateICmpUGT(x, y);
    case NodeKind::GE: return isSigned ? b.CreateICmpSGE(x, y) : b.CreateICmpUGE(x, y);
    default: return nullptr;
  }
}

// Integer arithmetic on two values of one LLVM width. Signed division wraps INT_MIN / -1 (and its
// remainder is 0) instead of LLVM's undefined behaviour, as the interpreter does.
llvm::Value* intArith(llvm::IRBuilder<>& b, NodeKind k, llvm::Value* x, llvm::Value* y, bool isSigned) {
  llvm::Type* ty = x->getType();
  auto zero = llvm::ConstantInt::get(ty, 0), one = llvm::ConstantInt::get(ty, 1);
  switch (k) {
    case NodeKind::Add: return b.CreateAdd(x, y);
    case NodeKind::Sub: return b.CreateSub(x, y);
    case NodeKind::Mul: return b.CreateMul(x, y);
    case NodeKind::Min: return b.CreateSelect(isSigned ? b.CreateICmpSLT(x, y) : b.CreateICmpULT(x, y), x, y);
    case NodeKind::Max: return b.CreateSelect(isSigned ? b.CreateICmpSGT(x, y) : b.CreateICmpUGT(x, y), x, y);
    default: break;
  }
  if (!isSigned) return (k == NodeKind::Div || k == NodeKind::FloorDiv) ? b.CreateUDiv(x, y) : b.CreateURem(x, y);
  llvm::Value *q, *r;
  auto* c = llvm::dyn_cast<llvm::ConstantInt>(y);
  if (c && !c->isMinusOne()) {
    q = b.CreateSDiv(x, y);
    r = b.CreateSRem(x, y);
  } else {
    llvm::Value* minusOne = b.CreateICmpEQ(y, llvm::ConstantInt::getSigned(ty, -1));
    llvm::Value* safe = b.CreateSelect(minusOne, one, y);
    q = b.CreateSelect(minusOne, b.CreateSub(zero, x), b.CreateSDiv(x, safe));
    r = b.CreateSelect(minusOne, zero, b.CreateSRem(x, safe));
  }
  llvm::Value* yNeg = b.CreateICmpSLT(y, zero);
  switch (k) {
    case NodeKind::Div: return q;
    case NodeKind::Mod: return r;
    case NodeKind::FloorDiv: {
      llvm::Value* adjust = b.CreateAnd(b.CreateICmpNE(r, zero), b.CreateXor(b.CreateICmpSLT(x, zero), yNeg));
      return b.CreateSelect(adjust, b.CreateSub(q, one), q);
    }
    default: {  // FloorMod
      llvm::Value* adjust = b.CreateAnd(b.CreateICmpNE(r, zero), b.CreateXor(b.CreateICmpSLT(r, zero), yNeg));
      return b.CreateSelect(adjust, b.CreateAdd(r, y), r);
    }
  }
}

}  // namespace

TV Codegen::binary(NodeKind k, DataType resultType, const TV& a, const TV& bv) {
  DataType t = resultType.element();
  DataType boolean = DataType::boolean();
  if (k == NodeKind::And) return {b.CreateAnd(truthy(a), truthy(bv)), boolean};
  if (k == NodeKind::Or) return {b.CreateOr(truthy(a), truthy(bv)), boolean};
  if (a.t.isFloat() || bv.t.isFloat()) {
    DataType ft = isComparison(k) ? (a.t.isFloat() ? a.t : bv.t) : t;
    if (!ft.isFloat()) ft = DataType::float64();
    // Float32 (and float16/bfloat16 computed in float) operations round exactly as the
    // interpreter's double operation rounded to the dtype; floor division needs the double quotient.
    bool native = a.t == ft && bv.t == ft && k != NodeKind::FloorDiv && k != NodeKind::FloorMod;
    llvm::Value* x = native ? a.v : toDouble(a);
    llvm::Value* y = native ? bv.v : toDouble(bv);
    if (llvm::Value* c = compareFloat(b, k, x, y)) return {c, boolean};
    llvm::Value* r = nullptr;
    switch (k) {
      case NodeKind::Add: r = b.CreateFAdd(x, y); break;
      case NodeKind::Sub: r = b.CreateFSub(x, y); break;
      case NodeKind::Mul: r = b.CreateFMul(x, y); break;
      case NodeKind::Div: r = b.CreateFDiv(x, y); break;
      case NodeKind::Mod: r = b.CreateFRem(x, y); break;
      case NodeKind::FloorDiv: r = b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b.CreateFDiv(x, y)); break;
      case NodeKind::FloorMod: r = b.CreateFSub(x, b.CreateFMul(b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b.CreateFDiv(x, y)), y)); break;
      // TVM's codegen emits select(a < b, a, b): a NaN in `b` wins, a NaN in `a` loses.
      case NodeKind::Min: r = b.CreateSelect(b.CreateFCmpOLT(x, y), x, y); break;
      case NodeKind::Max: r = b.CreateSelect(b.CreateFCmpOGT(x, y), x, y); break;
      default: fail("operator '" + opName(k) + "' on floats");
    }
    TV out = roundTo(r, ft);
    return t.isFloat() ? out : cast(out, t);
  }
  if (!isComparison(k) && !t.isIntegral()) {
    fail("operator '" + opName(k) + "' with result dtype " + t.str());
  }
  bool isDiv = k == NodeKind::Div || k == NodeKind::Mod || k == NodeKind::FloorDiv || k == NodeKind::FloorMod;
  if (isDiv) {
    auto* c = llvm::dyn_cast<llvm::ConstantInt>(bv.v);
    if (!c || c->isZero()) check(truthy(bv), "integer division by zero ('" + opName(k) + "' on " + a.t.str() + ")");
  }
  // One width when both operands and the result share a dtype; otherwise int64, as the interpreter.
  bool same = a.t == bv.t;
  if (same && isComparison(k)) return {compareInt(b, k, a.v, bv.v, a.t.code == DataType::Int), boolean};
  if (same && a.t == t && !t.isBool()) return {intArith(b, k, a.v, bv.v, t.code == DataType::Int), t};
  llvm::Value *x = toI64(a), *y = toI64(bv);
  bool isSigned = !(isUInt64(a.t) || isUInt64(bv.t));
  if (isComparison(k)) return {compareInt(b, k, x, y, isSigned), boolean};
  bool isOrder = k == NodeKind::Min || k == NodeKind::Max;
  return fromI64(intArith(b, k, x, y, isSigned || !(isDiv || isOrder)), t);
}

// ---- buffers ----

llvm::Value* Codegen::elementPtr(const Buffer& buf, const std::vector<PrimExpr>& indices, int lane) {
  auto it = buffers.find(&buf);
  if (it == buffers.end()) {
    fail("buffer '" + buf.name + "' has no storage here (not a parameter, nor an alloc_buffer or match_buffer in scope)");
  }
  const BufferBinding& view = it->second;
  if (indices.size() != view.shape.size()) {
    fail("buffer '" + buf.name + "' has " + std::to_string(view.shape.size()) + " dimension(s) but is indexed with " + std::to_string(indices.size()));
  }
  llvm::Value* off = view.offset;
  for (size_t k = 0; k < indices.size(); ++k) {
    TV idx = emit(indices[k], lane);
    if (idx.t.isFloat()) fail("index " + std::to_string(k) + " of buffer '" + buf.name + "' is a " + idx.t.str() + ", not an integer");
    // In-bounds indices (which the interpreter checks) never overflow the offset.
    off = b.CreateNSWAdd(off, b.CreateNSWMul(toI64(idx), view.strides[k]));
  }
  return b.CreateInBoundsGEP(storageType(buf.dtype), view.base, off);
}

TV Codegen::loadElement(const Buffer& buf, llvm::Value* ptr) {
  DataType t = buf.dtype.element();
  llvm::Value* v = b.CreateLoad(storageType(t), ptr);
  if (t.isBool()) return {b.CreateICmpNE(v, b.getInt8(0)), t};
  if (t.isMiniFloat()) return {decodeMiniFloat(v, t), t};
  if (isSubByteInt(t)) return {b.CreateTrunc(v, computeType(t)), t};
  if (t.code == DataType::Float && t.bits == 16) return {b.CreateFPExt(b.CreateBitCast(v, b.getHalfTy()), b.getFloatTy()), t};
  if (t.code == DataType::BFloat) return {b.CreateBitCast(b.CreateShl(b.CreateZExt(v, b.getInt32Ty()), 16), b.getFloatTy()), t};
  return {v, t};
}

void Codegen::storeElement(const Buffer& buf, llvm::Value* ptr, const TV& value) {
  DataType t = buf.dtype.element();
  llvm::Value* v = cast(value, t).v;  // already exact in t: the conversions below lose nothing
  if (t.isBool() || isSubByteInt(t)) v = b.CreateZExt(v, b.getInt8Ty());  // the bits, zeros above
  else if (t.isMiniFloat()) v = encodeMiniFloat(v, t);
  else if (t.code == DataType::Float && t.bits == 16) v = b.CreateBitCast(b.CreateFPTrunc(v, b.getHalfTy()), b.getInt16Ty());
  else if (t.code == DataType::BFloat) v = b.CreateTrunc(b.CreateLShr(b.CreateBitCast(v, b.getInt32Ty()), 16), b.getInt16Ty());
  b.CreateStore(v, ptr);
}

// ---- expressions ----

TV Codegen::choose(llvm::Value* cond, const std::function<TV()>& whenTrue, const std::function<TV()>& whenFalse, DataType t) {
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(cond)) return cast(c->isOne() ? whenTrue() : whenFalse(), t);
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  auto* thenBlock = llvm::BasicBlock::Create(ctx, "then", fn);
  auto* elseBlock = llvm::BasicBlock::Create(ctx, "else", fn);
  auto* join = llvm::BasicBlock::Create(ctx, "join", fn);
  b.CreateCondBr(cond, thenBlock, elseBlock);
  b.SetInsertPoint(thenBlock);
  llvm::Value* x = cast(whenTrue(), t).v;
  llvm::BasicBlock* thenEnd = b.GetInsertBlock();
  b.CreateBr(join);
  b.SetInsertPoint(elseBlock);
  llvm::Value* y = cast(whenFalse(), t).v;
  llvm::BasicBlock* elseEnd = b.GetInsertBlock();
  b.CreateBr(join);
  b.SetInsertPoint(join);
  llvm::PHINode* phi = b.CreatePHI(computeType(t), 2);
  phi->addIncoming(x, thenEnd);
  phi->addIncoming(y, elseEnd);
  return {phi, t};
}

llvm::Value* Codegen::emitI64(const PrimExpr& e) { return toI64(emit(e)); }

TV Codegen::emit(const PrimExpr& e, int lane) {
  DataType t = e->dtype.element();
  DataType boolean = DataType::boolean();
  switch (e->kind()) {
    case NodeKind::IntImm: {
      int64_t v = static_cast<const IntImm&>(*e).value;
      if (t.isFloat()) return roundTo(llvm::ConstantFP::get(b.getDoubleTy(), double(v)), t);
      if (t.isBool()) return {b.getInt1(v != 0), t};
      return fromI64(b.getInt64(uint64_t(v)), t);
    }
    case NodeKind::FloatImm: {
      TV d{llvm::ConstantFP::get(b.getDoubleTy(), static_cast<const FloatImm&>(*e).value), DataType::float64()};
      return cast(d, t);
    }
    case NodeKind::TirStringImm:
      fail("the string \"" + static_cast<const TirStringImm&>(*e).value + "\" cannot be used as a number");
    case NodeKind::PrimVar: {
      auto& v = static_cast<const PrimVar&>(*e);
      auto it = vars.find(&v);
      if (it == vars.end()) {
        fail("variable '" + v.name + "' has no value here");
      }
      if (it->second.size() == 1) return {it->second[0], t};
      if (lane < 0 || size_t(lane) >= it->second.size()) {
        fail("lane " + std::to_string(lane) + " of the " + std::to_string(it->second.size()) + "-lane variable '" + v.name + "'");
      }
      return {it->second[size_t(lane)], t};
    }
    case NodeKind::And:
    case NodeKind::Or: {
      // Short-circuit, so `i < n and A[i] > 0` never reads out of bounds.
      auto& bin = static_cast<const PrimBinary&>(*e);
      llvm::Value* x = truthy(emit(bin.a, lane));
      auto rhs = [&] { return TV{truthy(emit(bin.b, lane)), boolean}; };
      auto constant = [&](bool v) { return [&, v] { return TV{b.getInt1(v), boolean}; }; };
      if (e->kind() == NodeKind::Or) return choose(x, constant(true), rhs, boolean);
      return choose(x, rhs, constant(false), boolean);
    }
    case NodeKind::Not: return {b.CreateNot(truthy(emit(static_cast<const PrimNot&>(*e).a, lane))), boolean};
    case NodeKind::Select: {
      auto& s = static_cast<const Select&>(*e);
      return choose(truthy(emit(s.cond, lane)), [&] { return emit(s.trueValue, lane); }, [&] { return emit(s.falseValue, lane); }, t);
    }
    case NodeKind::Cast: return cast(emit(static_cast<const Cast&>(*e).value, lane), t);
    case NodeKind::PrimCall: {
      auto& c = static_cast<const PrimCall&>(*e);
      if (c.op != "tir.if_then_else") return intrinsic(c, lane);
      if (c.args.size() != 3) {
        fail("tir.if_then_else takes 3 arguments");
      }
      return choose(truthy(emit(c.args[0], lane)), [&] { return emit(c.args[1], lane); }, [&] { return emit(c.args[2], lane); }, t);
    }
    case NodeKind::BufferLoad: {
      auto& l = static_cast<const BufferLoad&>(*e);
      if (l.buffer->dtype.lanes > 1) {
        fail("buffer '" + l.buffer->name + "' has the vector dtype " + l.buffer->dtype.str() + ", which the LLVM code generator does not support");
      }
      return loadElement(*l.buffer, elementPtr(*l.buffer, l.indices, lane));
    }
    case NodeKind::PrimLet: {
      auto& l = static_cast<const PrimLet&>(*e);
      ScopedVar bound(*this, l.var.get(), {cast(emit(l.value, lane), l.var->dtype).v});
      return emit(l.body, lane);
    }
    case NodeKind::Ramp: {
      auto& r = static_cast<const Ramp&>(*e);
      if (lane >= r.lanes) {
        fail("lane " + std::to_string(lane) + " of a " + std::to_string(r.lanes) + "-lane T.Ramp");
      }
      TV base = emit(r.base), stride = emit(r.stride);
      DataType laneType = stride.t.isFloat() ? DataType::int64() : stride.t;
      TV step = binary(NodeKind::Mul, stride.t, stride, fromI64(b.getInt64(uint64_t(lane)), laneType));
      return binary(NodeKind::Add, t, base, step);
    }
    case NodeKind::Broadcast: return emit(static_cast<const Broadcast&>(*e).value);
    default: break;
  }
  if (PrimBinary::classOf(e->kind())) {
    auto& bin = static_cast<const PrimBinary&>(*e);
    TV x = emit(bin.a, lane);
    TV y = emit(bin.b, lane);
    return binary(e->kind(), e->dtype, x, y);
  }
  fail(std::string("the LLVM code generator cannot compile a ") + nodeKindName(e->kind()) + " expression");
}

}  // namespace rlx::codegen
