// LLVM codegen, the kernel entry: unpacks RlxArgs, checks ranks and dims against the buffers'
// declared shapes in runPrimFunc's order (binding symbolic vars at their first occurrence), then
// calls the body function, whose buffer pointers are noalias when the PrimFunc says tir.noalias.
#include "ir/attrs.h"
#include "runtime/llvm/codegen.h"

namespace rlx::codegen {

bool Codegen::noAlias() const {
  if (!func.attrs) return false;
  const Attr* a = func.attrs->find("tir.noalias");
  return a && *a && (((*a)->kind == AttrValue::Bool && (*a)->b) || ((*a)->kind == AttrValue::Int && (*a)->i != 0));
}

void Codegen::bindOrCheck(const PrimExpr& e, llvm::Value* value, const std::string& what) {
  auto v = e.as<PrimVar>();
  if (v && !vars.count(v.get())) {
    vars[v.get()] = {cast(TV{value, DataType::int64()}, v->dtype).v};
    origins_[v.get()] = what;
    return;
  }
  std::string msg = what + " does not match ";
  if (v) {
    msg += "'" + v->name + "'";
    if (auto it = origins_.find(v.get()); it != origins_.end()) msg += " (from " + it->second + ")";
  } else if (auto c = asIntImm(e)) {
    msg += "the declared " + std::to_string(c->value);
  } else {
    msg += "its declared expression";
  }
  check(b.CreateICmpEQ(emitI64(e), value), msg);
}

llvm::Function* Codegen::emitBody(const std::string& symbol, const std::vector<const PrimVar*>& entryVars) {
  std::vector<const Buffer*> params;
  std::vector<llvm::Type*> types;
  for (auto& [p, buf] : func.bufferMap) {
    params.push_back(buf.get());
    types.push_back(b.getPtrTy());
  }
  for (auto* v : entryVars) types.push_back(computeType(v->dtype));
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(b.getInt32Ty(), types, false), llvm::Function::InternalLinkage, symbol + "_body", mod);
  for (size_t i = 0; i < params.size(); ++i)
    if (noAlias()) fn->addParamAttr(unsigned(i), llvm::Attribute::NoAlias);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
  vars.clear();
  for (size_t j = 0; j < entryVars.size(); ++j) vars[entryVars[j]] = {fn->getArg(unsigned(params.size() + j))};
  // Parameter buffers are compact arrays whose dims equal the declared ones (the entry checked).
  for (size_t i = 0; i < params.size(); ++i) {
    const Buffer& buf = *params[i];
    BufferBinding view{fn->getArg(unsigned(i)), {}, {}, b.getInt64(0)};
    for (auto& d : buf.shape) view.shape.push_back(emitI64(d));
    view.strides.assign(view.shape.size(), b.getInt64(1));
    for (size_t k = view.shape.size(); k-- > 1;) view.strides[k - 1] = b.CreateNSWMul(view.strides[k], view.shape[k]);
    buffers[&buf] = std::move(view);
  }
  exec(func.body);
  b.CreateRet(b.getInt32(0));
  return fn;
}

Status Codegen::generate(const std::string& symbol) {
  try {
    emitEntry(symbol);
  } catch (Unsupported& u) {
    return std::move(u.error);
  }
  return okStatus();
}

void Codegen::emitEntry(const std::string& symbol) {
  auto* entryType = llvm::FunctionType::get(b.getInt32Ty(), {b.getPtrTy(), b.getInt32Ty()}, false);
  auto* entry = llvm::Function::Create(entryType, llvm::Function::ExternalLinkage, symbol, mod);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", entry));
  llvm::Value* args = entry->getArg(0);
  size_t n = func.params.size();
  check(b.CreateICmpEQ(entry->getArg(1), b.getInt32(uint32_t(n))), "the PrimFunc takes " + std::to_string(n) + " argument(s)");
  auto slot = [&](size_t i) { return b.CreateConstInBoundsGEP1_64(i64(), args, i); };

  // 1. Scalar parameters first: a buffer dim may name one, and is then checked against it. An
  //    integer parameter reads RlxArg.i, a float one RlxArg.f.
  std::vector<const PrimVar*> entryVars;
  for (size_t i = 0; i < n; ++i) {
    const PrimVar& p = *func.params[i];
    if (func.bufferOf(func.params[i]) || p.dtype.isHandle()) continue;
    TV raw = p.dtype.isFloat() ? TV{b.CreateLoad(b.getDoubleTy(), slot(i)), DataType::float64()} : TV{b.CreateLoad(i64(), slot(i)), DataType::int64()};
    vars[&p] = {cast(raw, p.dtype).v};
    origins_[&p] = "parameter '" + p.name + "'";
    entryVars.push_back(&p);
  }
  // 2. Ranks, and the shape variables that bare dims determine, buffer by buffer.
  struct TensorArg {
    const Buffer* buf;
    llvm::Value* data;
    std::vector<llvm::Value*> dims;
  };
  std::vector<TensorArg> tensors;
  for (size_t i = 0; i < n; ++i) {
    const BufferRef* buf = func.bufferOf(func.params[i]);
    if (!buf) continue;
    const Buffer& bf = **buf;
    llvm::Value* tensor = b.CreateLoad(b.getPtrTy(), slot(i), bf.name + "_arg");
    TensorArg t{&bf, b.CreateLoad(b.getPtrTy(), tensor, bf.name + "_data"), {}};
    llvm::Value* shape = b.CreateLoad(b.getPtrTy(), b.CreateConstInBoundsGEP1_64(b.getPtrTy(), tensor, 1));
    llvm::Value* ndim = b.CreateLoad(i64(), b.CreateConstInBoundsGEP1_64(i64(), tensor, 2));
    size_t rank = bf.shape.size();
    check(b.CreateICmpEQ(ndim, b.getInt64(rank)), "buffer '" + bf.name + "' has " + std::to_string(rank) + " dimension(s) but the array has a different number");
    for (size_t k = 0; k < rank; ++k) {
      t.dims.push_back(b.CreateLoad(i64(), b.CreateConstInBoundsGEP1_64(i64(), shape, k)));
      auto v = bf.shape[k].as<PrimVar>();
      if (v && !vars.count(v.get())) {
        bindOrCheck(bf.shape[k], t.dims[k], "buffer '" + bf.name + "' dim " + std::to_string(k));
        entryVars.push_back(v.get());
      }
    }
    tensors.push_back(std::move(t));
  }
  // 3. Every dim, stride and elem_offset checked (dims like `n * 2` only now); arrays are compact.
  for (auto& t : tensors) {
    const Buffer& bf = *t.buf;
    for (size_t k = 0; k < t.dims.size(); ++k) bindOrCheck(bf.shape[k], t.dims[k], "buffer '" + bf.name + "' dim " + std::to_string(k));
    std::vector<llvm::Value*> strides(t.dims.size(), b.getInt64(1));
    for (size_t k = t.dims.size(); k-- > 1;) strides[k - 1] = b.CreateMul(strides[k], t.dims[k]);
    auto bindNew = [&](const PrimExpr& e, llvm::Value* value, const std::string& what) {
      auto v = e.as<PrimVar>();
      bool fresh = v && !vars.count(v.get());
      bindOrCheck(e, value, what);
      if (fresh) entryVars.push_back(v.get());
    };
    for (size_t k = 0; k < bf.strides.size() && k < strides.size(); ++k) bindNew(bf.strides[k], strides[k], "buffer '" + bf.name + "' stride " + std::to_string(k));
    if (bf.elemOffset) bindNew(bf.elemOffset, b.getInt64(0), "buffer '" + bf.name + "' elem_offset");
  }
  // 4. The body, in its own function so that its buffer pointers can be noalias.
  std::vector<llvm::Value*> callArgs;
  for (auto& [p, buf] : func.bufferMap) {
    for (auto& t : tensors)
      if (t.buf == buf.get()) callArgs.push_back(t.data);
  }
  if (callArgs.size() != func.bufferMap.size()) fail("a buffer_map entry is not a parameter of the PrimFunc");
  for (auto* v : entryVars) callArgs.push_back(vars[v][0]);
  llvm::BasicBlock* entryEnd = b.GetInsertBlock();
  auto entryVarsMap = vars;
  llvm::Function* body = emitBody(symbol, entryVars);
  b.SetInsertPoint(entryEnd);
  vars = std::move(entryVarsMap);
  b.CreateRet(b.CreateCall(body, callArgs));
}

}  // namespace rlx::codegen
