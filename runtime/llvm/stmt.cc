// LLVM codegen, statements: loops, blocks (iter vars, T.where, init, alloc_buffer, match_buffer),
// stores, lets, asserts and conditionals, with runPrimFunc's semantics. T.parallel loops go to
// parallel.cc; every other loop kind runs serially.
#include <algorithm>
#include <memory>

#include <llvm/IR/Intrinsics.h>

#include "ir/attrs.h"
#include "runtime/llvm/codegen.h"
#include "runtime/llvm/schedule_alloc.h"
#include "runtime/llvm/schedule_epilogue.h"
#include "runtime/llvm/schedule_reduction.h"

namespace rlx::codegen {

namespace {

std::string dimName(const Buffer& buf, const char* what, size_t k) { return "buffer '" + buf.name + "' " + what + " " + std::to_string(k); }

// Allocations above this many bytes fail with a message (as the interpreter's cap).
constexpr int64_t kMaxAllocBytes = int64_t(1) << 32;
// Constant-size scratch buffers up to this size live on the stack.
constexpr int64_t kMaxStackBytes = 64 << 10;

}  // namespace

void Codegen::exec(const Stmt& s) {
  if (!s) return;
  switch (s->kind()) {
    case NodeKind::BufferStore: {
      auto& st = static_cast<const BufferStore&>(*s);
      if (st.buffer->dtype.lanes > 1) {
        fail("buffer '" + st.buffer->name + "' has the vector dtype " + st.buffer->dtype.str() + ", which the LLVM code generator does not support");
        return;
      }
      int lanes = st.value->dtype.lanes > 1 ? int(st.value->dtype.lanes) : 1;
      for (auto& i : st.indices) lanes = std::max(lanes, i->dtype.lanes > 1 ? int(i->dtype.lanes) : 1);
      for (int lane = 0; lane < lanes; ++lane) {
        TV v = storedValue(st, lane);
        storeElement(*st.buffer, elementPtr(*st.buffer, st.indices, lane), v);
      }
      return;
    }
    case NodeKind::SeqStmt:
      for (auto& x : static_cast<const SeqStmt&>(*s).seq) exec(x);
      return;
    case NodeKind::For: return execFor(static_cast<const For&>(*s));
    case NodeKind::IfThenElse: {
      auto& i = static_cast<const IfThenElse&>(*s);
      llvm::Value* cond = truthy(emit(i.cond));
      llvm::Function* fn = b.GetInsertBlock()->getParent();
      auto* thenBlock = llvm::BasicBlock::Create(ctx, "if_then", fn);
      auto* elseBlock = llvm::BasicBlock::Create(ctx, "if_else", fn);
      auto* join = llvm::BasicBlock::Create(ctx, "if_end", fn);
      b.CreateCondBr(cond, thenBlock, elseBlock);
      b.SetInsertPoint(thenBlock);
      exec(i.thenCase);
      b.CreateBr(join);
      b.SetInsertPoint(elseBlock);
      exec(i.elseCase);
      b.CreateBr(join);
      b.SetInsertPoint(join);
      return;
    }
    case NodeKind::LetStmt: {
      auto& l = static_cast<const LetStmt&>(*s);
      std::vector<llvm::Value*> lanes;
      int n = l.value->dtype.lanes > 1 ? int(l.value->dtype.lanes) : 1;
      for (int lane = 0; lane < n; ++lane) lanes.push_back(cast(emit(l.value, lane), l.var->dtype).v);
      ScopedVar bound(*this, l.var.get(), std::move(lanes));
      exec(l.body);
      return;
    }
    case NodeKind::Evaluate: {
      auto& v = static_cast<const Evaluate&>(*s).value;
      int n = v->dtype.lanes > 1 ? int(v->dtype.lanes) : 1;
      for (int lane = 0; lane < n; ++lane) emit(v, lane);
      return;
    }
    case NodeKind::AssertStmt: {
      auto& a = static_cast<const AssertStmt&>(*s);
      auto* msg = a.message && a.message->kind() == NodeKind::TirStringImm ? static_cast<const TirStringImm*>(a.message.get()) : nullptr;
      check(truthy(emit(a.cond)), "T.Assert failed" + (msg ? ": " + msg->value : std::string()));
      exec(a.body);
      return;
    }
    case NodeKind::BlockRealize: return execRealize(static_cast<const BlockRealize&>(*s));
    case NodeKind::TirBlock: {
      auto& blk = static_cast<const TirBlock&>(*s);
      if (!blk.iterVars.empty()) return fail("block '" + blk.name + "' has iter vars but no BlockRealize binding them");
      return execBlock(blk, {});
    }
    default: fail(std::string("the LLVM code generator cannot compile a ") + nodeKindName(s->kind()) + " statement");
  }
}

void Codegen::execFor(const For& f) {
  DataType t = f.loopVar->dtype;
  if (!t.isIntegral() || t.isBool()) fail("loop variable '" + f.loopVar->name + "' has dtype " + t.str());
  TV lo = cast(emit(f.min), t);
  llvm::Value* extent = emitI64(f.extent);
  if (f.loopKind == For::Parallel) return execParallelFor(f, lo, extent);
  if (f.annotations)
    if (auto* gemm = f.annotations->find(kGemmEpilogueAnnotation)) {
      auto* call = *gemm && (*gemm)->prim && (*gemm)->prim->kind() == NodeKind::PrimCall ? static_cast<const PrimCall*>((*gemm)->prim.get()) : nullptr;
      if (!call) fail("the " + std::string(kGemmEpilogueAnnotation) + " annotation does not hold a GEMM call");
      return execGemmEpilogue(f, *call);
    }
  bool outer = reassociating_;
  if (auto mark = attrInt(f.annotations, kReassociateAnnotation)) reassociating_ = *mark != 0;
  emitLoop(f, lo, b.getInt64(0), extent);
  reassociating_ = outer;
}

TV Codegen::storedValue(const BufferStore& st, int lane) {
  NodeKind k = st.value->kind();
  bool combiner = k == NodeKind::Add || k == NodeKind::Mul || k == NodeKind::Min || k == NodeKind::Max;
  DataType t = st.value->dtype;
  if (!reassociating_ || !combiner || !(t == DataType::float32() || t == DataType::float64())) return emit(st.value, lane);
  auto& bin = static_cast<const PrimBinary&>(*st.value);
  TV x = emit(bin.a, lane), y = emit(bin.b, lane);
  if (x.t != t || y.t != t) return binary(k, t, x, y);
  // min/max as llvm.minimum/maximum: associative and commutative even with NaN (it propagates)
  // and signed zeros, so the vectorizer needs no flags; sums and products may be reassociated.
  if (k == NodeKind::Min || k == NodeKind::Max)
    return {b.CreateBinaryIntrinsic(k == NodeKind::Max ? llvm::Intrinsic::maximum : llvm::Intrinsic::minimum, x.v, y.v), t};
  llvm::IRBuilder<>::FastMathFlagGuard keep(b);
  llvm::FastMathFlags flags;
  flags.setAllowReassoc();
  flags.setNoSignedZeros();
  b.setFastMathFlags(flags);
  return {k == NodeKind::Add ? b.CreateFAdd(x.v, y.v) : b.CreateFMul(x.v, y.v), t};
}

void Codegen::emitLoop(const For& f, const TV& lo, llvm::Value* begin, llvm::Value* end, const std::function<void()>& atEachStep) {
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  llvm::BasicBlock* pre = b.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(ctx, "for_" + f.loopVar->name, fn);
  auto* body = llvm::BasicBlock::Create(ctx, "for_body", fn);
  auto* exit = llvm::BasicBlock::Create(ctx, "for_end", fn);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  // A counter from begin to end; the loop variable is min + counter, wrapped to its dtype.
  llvm::PHINode* k = b.CreatePHI(i64(), 2);
  k->addIncoming(begin, pre);
  b.CreateCondBr(b.CreateICmpSLT(k, end), body, exit);
  b.SetInsertPoint(body);
  {
    ScopedVar bound(*this, f.loopVar.get(), {b.CreateAdd(lo.v, b.CreateTrunc(k, computeType(lo.t)))});
    if (atEachStep) atEachStep();
    exec(f.body);
  }
  k->addIncoming(b.CreateNUWAdd(k, b.getInt64(1)), b.GetInsertBlock());
  llvm::BranchInst* latch = b.CreateBr(header);
  // A reassociating reduction loop is the one to vectorize: kept from full unrolling, which would
  // leave the loop around it innermost (a 7 x 7 plane's 49-long sum unrolled, then the channels'
  // loop vectorized with a gather per element). Four vectors of partial sums hide the adds'
  // latency (what the unroller had given a 512-long row), one when the loop has fewer than 64 steps.
  if (reassociating_) {
    const IntImm* steps = asIntImm(f.extent);
    int32_t partialSums = steps && steps->value < 64 ? 1 : 4;
    llvm::Metadata* noUnroll = llvm::MDNode::get(ctx, llvm::MDString::get(ctx, "llvm.loop.unroll.disable"));
    llvm::Metadata* interleave = llvm::MDNode::get(ctx, {llvm::MDString::get(ctx, "llvm.loop.interleave.count"), llvm::ConstantAsMetadata::get(b.getInt32(partialSums))});
    llvm::MDNode* self = llvm::MDNode::getDistinct(ctx, {nullptr, noUnroll, interleave});
    self->replaceOperandWith(0, self);
    latch->setMetadata(llvm::LLVMContext::MD_loop, self);
  }
  b.SetInsertPoint(exit);
}

void Codegen::execRealize(const BlockRealize& r) {
  const TirBlock& blk = *r.block;
  if (r.iterValues.size() != blk.iterVars.size())
    return fail("block '" + blk.name + "' has " + std::to_string(blk.iterVars.size()) + " iter var(s) but " + std::to_string(r.iterValues.size()) + " binding value(s)");
  llvm::BasicBlock* skip = nullptr;
  if (r.predicate) {
    llvm::Value* p = truthy(emit(r.predicate));
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(p); !c || !c->isOne()) {
      llvm::Function* fn = b.GetInsertBlock()->getParent();
      auto* run = llvm::BasicBlock::Create(ctx, "where", fn);
      skip = llvm::BasicBlock::Create(ctx, "where_end", fn);
      b.CreateCondBr(p, run, skip);
      b.SetInsertPoint(run);
    }
  }
  std::vector<TV> values;
  for (size_t k = 0; k < r.iterValues.size(); ++k) values.push_back(cast(emit(r.iterValues[k]), blk.iterVars[k].var->dtype));
  execBlock(blk, values);
  if (skip) {
    b.CreateBr(skip);
    b.SetInsertPoint(skip);
  }
}

void Codegen::execBlock(const TirBlock& blk, const std::vector<TV>& iterValues) {
  std::vector<std::unique_ptr<ScopedVar>> bound;
  for (size_t k = 0; k < blk.iterVars.size(); ++k) bound.push_back(std::make_unique<ScopedVar>(*this, blk.iterVars[k].var.get(), std::vector<llvm::Value*>{iterValues[k].v}));
  // Buffers this block installs hide outer bindings of the same buffer until it ends.
  std::vector<std::pair<const Buffer*, std::optional<BufferBinding>>> hidden;
  auto hide = [&](const Buffer* buf) {
    auto it = buffers.find(buf);
    hidden.emplace_back(buf, it == buffers.end() ? std::nullopt : std::optional<BufferBinding>(it->second));
  };
  size_t heapMark = heapBuffers.size();
  std::vector<int64_t> writtenFirst = attrInts(blk.annotations, kWrittenFirstAnnotation);
  for (size_t k = 0; k < blk.allocBuffers.size(); ++k) {
    const BufferRef& buf = blk.allocBuffers[k];
    hide(buf.get());
    allocate(buf, std::find(writtenFirst.begin(), writtenFirst.end(), int64_t(k)) == writtenFirst.end());
  }
  // Variables that match_buffer shapes bind are unbound when the block ends.
  std::vector<const PrimVar*> before;
  for (auto& [v, _] : vars) before.push_back(v);
  for (auto& mb : blk.matchBuffers) {
    hide(mb.buffer.get());
    matchRegion(mb.buffer, mb.source);
  }
  if (blk.init) {
    // TVM's LowerInitBlock: the init runs when every reduction iter var is at its domain's start.
    llvm::Value* first = b.getTrue();
    for (size_t k = 0; k < blk.iterVars.size(); ++k) {
      if (blk.iterVars[k].kind != IterVar::CommReduce) continue;
      first = b.CreateAnd(first, b.CreateICmpEQ(toI64(iterValues[k]), emitI64(blk.iterVars[k].dom.min)));
    }
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(first); c && c->isOne()) {
      exec(blk.init);
    } else {
      llvm::Function* fn = b.GetInsertBlock()->getParent();
      auto* init = llvm::BasicBlock::Create(ctx, "init", fn);
      auto* after = llvm::BasicBlock::Create(ctx, "init_end", fn);
      b.CreateCondBr(first, init, after);
      b.SetInsertPoint(init);
      exec(blk.init);
      b.CreateBr(after);
      b.SetInsertPoint(after);
    }
  }
  exec(blk.body);
  freeHeapBuffers(heapMark);
  heapBuffers.resize(heapMark);
  for (auto it = hidden.rbegin(); it != hidden.rend(); ++it) {
    if (it->second) buffers[it->first] = std::move(*it->second);
    else buffers.erase(it->first);
  }
  std::vector<const PrimVar*> added;
  for (auto& [v, _] : vars)
    if (std::find(before.begin(), before.end(), v) == before.end()) added.push_back(v);
  for (auto* v : added) vars.erase(v);
}

void Codegen::allocate(const BufferRef& buf, bool zeroed) {
  BufferBinding view;
  for (size_t k = 0; k < buf->shape.size(); ++k) {
    llvm::Value* d = emitI64(buf->shape[k]);
    check(b.CreateICmpSGE(d, b.getInt64(0)), dimName(*buf, "dim", k) + " is negative");
    view.shape.push_back(d);
  }
  view.strides.assign(view.shape.size(), b.getInt64(1));
  for (size_t k = view.shape.size(); k-- > 1;) view.strides[k - 1] = b.CreateMul(view.strides[k], view.shape[k]);
  for (size_t k = 0; k < buf->strides.size() && k < view.shape.size(); ++k) {
    view.strides[k] = emitI64(buf->strides[k]);
    check(b.CreateICmpSGE(view.strides[k], b.getInt64(0)), dimName(*buf, "stride", k) + " is negative");
  }
  view.offset = buf->elemOffset ? emitI64(buf->elemOffset) : b.getInt64(0);
  // Enough elements for the furthest index the strides reach; none when a dim is 0.
  llvm::Value* last = view.offset;
  llvm::Value* empty = b.getFalse();
  for (size_t k = 0; k < view.shape.size(); ++k) {
    empty = b.CreateOr(empty, b.CreateICmpEQ(view.shape[k], b.getInt64(0)));
    llvm::Value* span = b.CreateSelect(b.CreateICmpSGT(view.shape[k], b.getInt64(0)), b.CreateSub(view.shape[k], b.getInt64(1)), b.getInt64(0));
    last = b.CreateAdd(last, b.CreateMul(span, view.strides[k]));
  }
  llvm::Value* elems = b.CreateSelect(empty, b.getInt64(0), b.CreateAdd(last, b.getInt64(1)));
  int64_t elemBytes = buf->dtype.bytes();
  check(b.CreateAnd(b.CreateICmpSGE(view.offset, b.getInt64(0)), b.CreateICmpULE(elems, b.getInt64(kMaxAllocBytes / elemBytes))), "buffer '" + buf->name + "' is too large to allocate");
  llvm::Value* bytes = b.CreateMul(elems, b.getInt64(uint64_t(elemBytes)));
  auto* constBytes = llvm::dyn_cast<llvm::ConstantInt>(bytes);
  if (constBytes && constBytes->getSExtValue() <= kMaxStackBytes) {
    // A static alloca in the entry block, zeroed where the block starts (as the interpreter's) unless
    // it is written before it is read.
    llvm::IRBuilder<> entry(&b.GetInsertBlock()->getParent()->getEntryBlock(), b.GetInsertBlock()->getParent()->getEntryBlock().begin());
    int64_t n = std::max<int64_t>(constBytes->getSExtValue(), 1);
    auto* slot = entry.CreateAlloca(b.getInt8Ty(), b.getInt64(uint64_t(n)), buf->name);
    slot->setAlignment(llvm::Align(64));
    if (zeroed) b.CreateMemSet(slot, b.getInt8(0), b.getInt64(uint64_t(n)), llvm::MaybeAlign(64));
    view.base = slot;
  } else {
    // From the thread's recycled workspace (workspace.cc), zeroed like the interpreter's unless it is
    // written before it is read.
    llvm::FunctionCallee alloc = mod.getOrInsertFunction(zeroed ? "rlx_workspace_alloc" : "rlx_workspace_take", b.getPtrTy(), i64());
    llvm::Value* p = b.CreateCall(alloc, {b.CreateSelect(empty, b.getInt64(1), bytes)}, buf->name);
    check(b.CreateIsNotNull(p), "out of memory allocating buffer '" + buf->name + "'");
    heapBuffers.push_back(p);
    view.base = p;
  }
  buffers[buf.get()] = std::move(view);
}

void Codegen::freeHeapBuffers(size_t from) {
  llvm::FunctionCallee release = mod.getOrInsertFunction("rlx_workspace_free", b.getVoidTy(), b.getPtrTy());
  for (size_t i = heapBuffers.size(); i-- > from;) b.CreateCall(release, {heapBuffers[i]});
}

void Codegen::matchRegion(const BufferRef& buf, const BufferRegion& source) {
  auto it = buffers.find(source.buffer.get());
  if (it == buffers.end()) return fail("T.match_buffer source '" + source.buffer->name + "' has no storage here");
  BufferBinding src = it->second;
  if (buf->dtype != source.buffer->dtype) return fail("T.match_buffer '" + buf->name + "' has dtype " + buf->dtype.str() + " but its source '" + source.buffer->name + "' is " + source.buffer->dtype.str());
  size_t n = source.region.size(), m = buf->shape.size();
  if (n != src.shape.size() || m > n) return fail("T.match_buffer '" + buf->name + "': the region of '" + source.buffer->name + "' does not fit the buffer's " + std::to_string(m) + " dimension(s)");
  BufferBinding view{src.base, {}, {}, src.offset};
  for (size_t k = 0; k < n; ++k) {
    llvm::Value* lo = emitI64(source.region[k].min);
    llvm::Value* ext = emitI64(source.region[k].extent);
    llvm::Value* inBounds = b.CreateAnd(b.CreateAnd(b.CreateICmpSGE(lo, b.getInt64(0)), b.CreateICmpSGE(ext, b.getInt64(0))), b.CreateICmpSLE(b.CreateAdd(lo, ext), src.shape[k]));
    check(inBounds, "T.match_buffer '" + buf->name + "': the region is out of bounds for dim " + std::to_string(k) + " of '" + source.buffer->name + "'");
    view.offset = b.CreateAdd(view.offset, b.CreateMul(lo, src.strides[k]));
    // The buffer matches the region's trailing dims; the leading ones must be single elements.
    if (k < n - m) {
      check(b.CreateICmpEQ(ext, b.getInt64(1)), "T.match_buffer '" + buf->name + "' has fewer dimensions than the region, whose dim " + std::to_string(k) + " must have extent 1");
      continue;
    }
    size_t j = k - (n - m);
    bindOrCheck(buf->shape[j], ext, dimName(*buf, "dim", j));
    if (j < buf->strides.size()) bindOrCheck(buf->strides[j], src.strides[k], dimName(*buf, "stride", j));
    view.shape.push_back(ext);
    view.strides.push_back(src.strides[k]);
  }
  if (buf->elemOffset) bindOrCheck(buf->elemOffset, view.offset, "buffer '" + buf->name + "' elem_offset");
  buffers[buf.get()] = std::move(view);
}

}  // namespace rlx::codegen
