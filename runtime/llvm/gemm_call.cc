// LLVM codegen, the rlx.sgemm call the CPU schedule puts in place of a recognized float32 matmul or
// convolution nest (schedule_gemm.cc): C, A and B element pointers and a descriptor for rlx_sgemm.
#include "runtime/llvm/codegen.h"

namespace rlx::codegen {

// args: C[base], A[base], B[base] (BufferLoads naming each operand's first element), then the
// descriptor's integers (sgemm.h), stored in a stack array of the function's entry block.
TV Codegen::sgemmCall(const PrimCall& c) {
  if (c.args.size() < 6) fail("rlx.sgemm takes at least 6 arguments, got " + std::to_string(c.args.size()));
  std::vector<llvm::Value*> args;
  for (size_t i = 0; i < 3; ++i) {
    if (c.args[i]->kind() != NodeKind::BufferLoad) fail("rlx.sgemm argument " + std::to_string(i) + " is not a buffer element");
    auto& l = static_cast<const BufferLoad&>(*c.args[i]);
    args.push_back(elementPtr(*l.buffer, l.indices, 0));
  }
  // In the entry block, so that a call inside loops reuses one array instead of growing the stack.
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
  size_t count = c.args.size() - 3;
  llvm::Value* desc = entry.CreateAlloca(i64(), b.getInt64(count), "sgemm_desc");
  for (size_t i = 0; i < count; ++i) b.CreateStore(emitI64(c.args[3 + i]), b.CreateConstInBoundsGEP1_64(i64(), desc, i));
  args.push_back(desc);
  auto* type = llvm::FunctionType::get(b.getInt32Ty(), {b.getPtrTy(), b.getPtrTy(), b.getPtrTy(), b.getPtrTy()}, false);
  return {b.CreateCall(mod.getOrInsertFunction("rlx_sgemm", type), args), DataType::int32()};
}

}  // namespace rlx::codegen
