// LLVM codegen, the runtime calls the CPU schedule puts in place of recognized nests: rlx.sgemm for a
// float32 matmul or convolution (schedule_gemm.cc), with an element-wise epilogue it fused into it
// (schedule_epilogue.cc) as a block function, rlx.transpose32 (schedule_transpose.cc),
// rlx.attention (schedule_attention.cc), and rlx.pool_padded and rlx.window_channels_last
// (schedule_window.cc).
#include "runtime/llvm/codegen.h"

#include <llvm/IR/Intrinsics.h>

#include "ir/prim_expr_map.h"
#include "runtime/llvm/sgemm.h"
#include "runtime/llvm/tir_usage.h"

namespace rlx::codegen {

// Element pointers of the first `pointers` args (BufferLoads naming each operand's first element),
// then the remaining integer args stored in a stack array of the function's entry block.
std::vector<llvm::Value*> Codegen::pointersAndDescriptor(const PrimCall& c, size_t pointers) {
  if (c.args.size() < pointers + 1) fail(c.op + " takes at least " + std::to_string(pointers + 1) + " arguments, got " + std::to_string(c.args.size()));
  std::vector<llvm::Value*> args;
  for (size_t i = 0; i < pointers; ++i) {
    if (c.args[i]->kind() != NodeKind::BufferLoad) fail(c.op + " argument " + std::to_string(i) + " is not a buffer element");
    auto& l = static_cast<const BufferLoad&>(*c.args[i]);
    args.push_back(elementPtr(*l.buffer, l.indices, 0));
  }
  // In the entry block, so that a call inside loops reuses one array instead of growing the stack.
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
  size_t count = c.args.size() - pointers;
  llvm::Value* desc = entry.CreateAlloca(i64(), b.getInt64(count), "desc");
  for (size_t i = 0; i < count; ++i) b.CreateStore(emitI64(c.args[pointers + i]), b.CreateConstInBoundsGEP1_64(i64(), desc, i));
  args.push_back(desc);
  return args;
}

// rlx.sgemm — args: C[base], A[base], B[base], then the descriptor's integers (sgemm.h) — or
// rlx.sgemm_padded — B the unpadded input, the padding after the descriptor (window_conv.h) — or
// rlx.window_channels_last — C, the weights and the input, then its descriptor
// (window_channels_last.h); with an epilogue, the runtime's *_epilogue entry with (function, context)
// appended. A non-zero return (an epilogue's failure, a descriptor the runtime refuses) returns from
// the kernel, as the other runtime calls do, instead of leaving C unwritten unnoticed.
TV Codegen::sgemmCall(const PrimCall& c, const Outlined* epilogue) {
  if (c.args.size() < 6) fail(c.op + " takes at least 6 arguments, got " + std::to_string(c.args.size()));
  std::vector<llvm::Value*> args = pointersAndDescriptor(c, 3);
  std::vector<llvm::Type*> types(4, b.getPtrTy());
  if (epilogue) {
    args.push_back(epilogue->function), args.push_back(epilogue->context);
    types.insert(types.end(), {b.getPtrTy(), b.getPtrTy()});
  }
  std::string name = c.op == "rlx.sgemm_padded" ? "rlx_sgemm_padded" : c.op == "rlx.window_channels_last" ? "rlx_window_channels_last" : "rlx_sgemm";
  if (epilogue) name += "_epilogue";
  auto* type = llvm::FunctionType::get(b.getInt32Ty(), types, false);
  llvm::Value* code = b.CreateCall(mod.getOrInsertFunction(name, type), args);
  returnOnFailure(code);
  return {code, DataType::int32()};
}

// args: out[base], in[base], then the descriptor's integers (transpose.h).
TV Codegen::transposeCall(const PrimCall& c) {
  std::vector<llvm::Value*> args = pointersAndDescriptor(c, 2);
  auto* type = llvm::FunctionType::get(b.getInt32Ty(), {b.getPtrTy(), b.getPtrTy(), b.getPtrTy()}, false);
  return {b.CreateCall(mod.getOrInsertFunction("rlx_transpose32", type), args), DataType::int32()};
}

// args: out[base], in[base], then the descriptor's integers (window_conv.h: rlx_pool_padded).
TV Codegen::poolCall(const PrimCall& c) {
  std::vector<llvm::Value*> args = pointersAndDescriptor(c, 2);
  auto* type = llvm::FunctionType::get(b.getInt32Ty(), {b.getPtrTy(), b.getPtrTy(), b.getPtrTy()}, false);
  llvm::Value* code = b.CreateCall(mod.getOrInsertFunction("rlx_pool_padded", type), args);
  returnOnFailure(code);
  return {code, DataType::int32()};
}

// args: out[base], q[base], k[base], v[base], then the descriptor's integers (attention.h).
TV Codegen::attentionCall(const PrimCall& c) {
  std::vector<llvm::Value*> args = pointersAndDescriptor(c, 4);
  auto* type = llvm::FunctionType::get(b.getInt32Ty(), std::vector<llvm::Type*>(5, b.getPtrTy()), false);
  llvm::Value* code = b.CreateCall(mod.getOrInsertFunction("rlx_attention", type), args);
  returnOnFailure(code);
  return {code, DataType::int32()};
}

// f: `for m in [0, M): for n in [n0, n0 + count): ...` over C's flattened rows and columns, n0 and
// count variables: the block function (ctx, m0, m1, n0, n1) binds them to the block's columns.
void Codegen::execGemmEpilogue(const For& f, const PrimCall& gemm) {
  auto* inner = f.body && f.body->kind() == NodeKind::For ? static_cast<const For*>(f.body.get()) : nullptr;
  auto asVar = [](const PrimExpr& e) { return e && e->kind() == NodeKind::PrimVar ? static_cast<const PrimVar*>(e.get()) : nullptr; };
  const PrimVar *first = inner ? asVar(inner->min) : nullptr, *count = inner ? asVar(inner->extent) : nullptr;
  if (!first || !count) fail("a GEMM epilogue loop must hold a column loop over variables");
  std::string name = b.GetInsertBlock()->getParent()->getName().str() + "_epilogue" + std::to_string(parallelLoops_++);
  // The operands other than the output that each row reads along its columns (a residual): the
  // GEMM calls the epilogue a sliver of 32 columns at a time, each row's run a whole image row
  // apart from the next, too many streams for the hardware prefetchers (ResNet-50's 64 -> 256 1x1
  // convolution at 56 x 56 spent a fifth of its time waiting on its residual's lines). Each row
  // requests the next sliver's two lines of them.
  std::vector<const BufferLoad*> alongColumns;
  if (inner->body && inner->body->kind() == NodeKind::BufferStore) {
    auto& store = static_cast<const BufferStore&>(*inner->body);
    forEachLoad(store.value, [&](const BufferLoad& l) {
      // (An operand the same for every row, a bias along the columns, stays in cache anyway.)
      bool perRow = false;
      for (auto& i : l.indices) perRow |= mentions(i, f.loopVar.get());
      if (l.buffer.get() != store.buffer.get() && perRow && !l.indices.empty() && mentions(l.indices.back(), inner->loopVar.get()) && l.buffer->dtype == DataType::float32())
        alongColumns.push_back(&l);
    });
  }
  Outlined epilogue = outline(f.body, {}, 4, name, [&](const std::vector<llvm::Value*>&, const std::vector<llvm::Value*>& block) {
    ScopedVar n0(*this, first, {block[2]});
    auto prefetchNextSliver = [&] {
      // The block's last column, an element inside the operand; the next sliver starts one after.
      TV last = cast(TV{b.CreateSub(block[3], b.getInt64(1)), DataType::int64()}, inner->loopVar->dtype);
      ScopedVar at(*this, inner->loopVar.get(), {last.v});
      llvm::Function* prefetch = llvm::Intrinsic::getDeclaration(&mod, llvm::Intrinsic::prefetch, {b.getPtrTy()});
      for (const BufferLoad* l : alongColumns) {
        llvm::Value* lastElement = elementPtr(*l->buffer, l->indices, 0);
        for (int64_t line : {1, 17})  // plain GEPs: the addresses may lie past the operand
          b.CreateCall(prefetch, {b.CreateGEP(b.getFloatTy(), lastElement, b.getInt64(line)), b.getInt32(0), b.getInt32(3), b.getInt32(1)});
      }
    };
    auto rows = [&](llvm::Value* columns) {
      ScopedVar n(*this, count, {columns});
      emitLoop(f, cast(TV{b.getInt64(0), DataType::int64()}, f.loopVar->dtype), block[0], block[1], alongColumns.empty() ? std::function<void()>() : prefetchNextSliver);
    };
    // A block of the GEMM's usual sliver width gets its own copy of the loops with that constant
    // width: each row becomes two whole vectors. With a variable width, LLVM's vectorized loop took
    // 64 columns a step, so each 32-column row ran an 8-wide remainder loop four times, with the
    // loop checks around it (a SiLU epilogue: 16 -> 96 1x1 convolution at 112 x 112, 1.05 -> 0.94 ms).
    llvm::Value* columns = b.CreateSub(block[3], block[2]);
    llvm::Function* fn = b.GetInsertBlock()->getParent();
    auto* sliver = llvm::BasicBlock::Create(ctx, "sliver_width", fn);
    auto* other = llvm::BasicBlock::Create(ctx, "other_width", fn);
    auto* done = llvm::BasicBlock::Create(ctx, "rows_done", fn);
    b.CreateCondBr(b.CreateICmpEQ(columns, b.getInt64(RLX_SGEMM_SLIVER_COLUMNS)), sliver, other);
    b.SetInsertPoint(sliver);
    rows(b.getInt64(RLX_SGEMM_SLIVER_COLUMNS));
    b.CreateBr(done);
    b.SetInsertPoint(other);
    rows(columns);
    b.CreateBr(done);
    b.SetInsertPoint(done);
  });
  sgemmCall(gemm, &epilogue);
}

}  // namespace rlx::codegen
