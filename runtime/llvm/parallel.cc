// LLVM codegen, parallel loops: the body becomes a function of an iteration range [begin, end) and
// of the values in scope it uses (passed in a context of 8-byte slots), run by rlx_parallel_for.
#include <unordered_set>

#include "ir/prim_expr_map.h"
#include "runtime/llvm/codegen.h"
#include "runtime/llvm/thread_pool.h"

namespace rlx::codegen {

namespace {

// The variables and buffers a loop body refers to, in order of first use (so the generated code
// does not depend on pointer values).
struct Uses {
  std::vector<const PrimVar*> vars;
  std::vector<const Buffer*> buffers;
  std::unordered_set<const void*> seen;

  void var(const PrimVar* v) {
    if (seen.insert(v).second) vars.push_back(v);
  }
  void buffer(const Buffer& b) {
    if (!seen.insert(&b).second) return;
    buffers.push_back(&b);
    exprs(b.shape);
    exprs(b.strides);
    expr(b.elemOffset);
  }
  void exprs(const std::vector<PrimExpr>& es) {
    for (auto& e : es) expr(e);
  }
  void expr(const PrimExpr& e) {
    if (!e) return;
    if (e->kind() == NodeKind::PrimVar) return var(static_cast<const PrimVar*>(e.get()));
    if (e->kind() == NodeKind::BufferLoad) buffer(*static_cast<const BufferLoad&>(*e).buffer);
    forEachOperand(e, [&](const PrimExpr& x) { expr(x); });
  }
  void stmt(const Stmt& s) {
    if (!s) return;
    switch (s->kind()) {
      case NodeKind::BufferStore: {
        auto& st = static_cast<const BufferStore&>(*s);
        buffer(*st.buffer);
        expr(st.value);
        return exprs(st.indices);
      }
      case NodeKind::SeqStmt:
        for (auto& x : static_cast<const SeqStmt&>(*s).seq) stmt(x);
        return;
      case NodeKind::For: {
        auto& f = static_cast<const For&>(*s);
        expr(f.min), expr(f.extent);
        return stmt(f.body);
      }
      case NodeKind::IfThenElse: {
        auto& i = static_cast<const IfThenElse&>(*s);
        expr(i.cond), stmt(i.thenCase), stmt(i.elseCase);
        return;
      }
      case NodeKind::LetStmt: {
        auto& l = static_cast<const LetStmt&>(*s);
        expr(l.value), stmt(l.body);
        return;
      }
      case NodeKind::Evaluate: return expr(static_cast<const Evaluate&>(*s).value);
      case NodeKind::AssertStmt: {
        auto& a = static_cast<const AssertStmt&>(*s);
        expr(a.cond), stmt(a.body);
        return;
      }
      case NodeKind::BlockRealize: {
        auto& r = static_cast<const BlockRealize&>(*s);
        exprs(r.iterValues), expr(r.predicate);
        return stmt(r.block);
      }
      case NodeKind::TirBlock: {
        auto& b = static_cast<const TirBlock&>(*s);
        for (auto& iv : b.iterVars) expr(iv.dom.min), expr(iv.dom.extent);
        for (auto& buf : b.allocBuffers) buffer(*buf);
        for (auto& mb : b.matchBuffers) {
          buffer(*mb.source.buffer);
          for (auto& r : mb.source.region) expr(r.min), expr(r.extent);
          buffer(*mb.buffer);
        }
        stmt(b.init), stmt(b.body);
        return;
      }
      default: return;
    }
  }
};

// Elements touched by one run of `s`, roughly; -1 when a loop extent is not a constant.
int64_t workOf(const Stmt& s) {
  if (!s) return 0;
  switch (s->kind()) {
    case NodeKind::SeqStmt: {
      int64_t sum = 0;
      for (auto& x : static_cast<const SeqStmt&>(*s).seq) {
        int64_t w = workOf(x);
        if (w < 0) return -1;
        sum += w;
      }
      return sum;
    }
    case NodeKind::For: {
      auto& f = static_cast<const For&>(*s);
      auto c = asIntImm(f.extent);
      int64_t inner = workOf(f.body);
      if (!c || inner < 0) return -1;
      return c->value * std::max<int64_t>(inner, 1);
    }
    case NodeKind::BlockRealize: return std::max<int64_t>(workOf(static_cast<const BlockRealize&>(*s).block->body), 1);
    case NodeKind::LetStmt: return workOf(static_cast<const LetStmt&>(*s).body);
    default: return 1;
  }
}

}  // namespace

Codegen::Outlined Codegen::outline(const Stmt& body, const std::vector<llvm::Value*>& extra, unsigned ranges, const std::string& name, const EmitOutlined& emitBody) {
  // 1. The values the body uses: variables in scope (each lane), buffer views, then `extra`.
  Uses uses;
  uses.stmt(body);
  std::vector<llvm::Value*> captured;
  std::vector<std::pair<const PrimVar*, size_t>> capturedVars;
  for (const PrimVar* v : uses.vars) {
    auto it = vars.find(v);
    if (it == vars.end()) continue;
    capturedVars.emplace_back(v, it->second.size());
    captured.insert(captured.end(), it->second.begin(), it->second.end());
  }
  std::vector<const Buffer*> capturedBuffers;
  for (const Buffer* buf : uses.buffers) {
    auto it = buffers.find(buf);
    if (it == buffers.end()) continue;
    capturedBuffers.push_back(buf);
    const BufferBinding& view = it->second;
    captured.push_back(view.base);
    captured.insert(captured.end(), view.shape.begin(), view.shape.end());
    captured.insert(captured.end(), view.strides.begin(), view.strides.end());
    captured.push_back(view.offset);
  }
  captured.insert(captured.end(), extra.begin(), extra.end());

  // 2. The range function: (passed..., ranges...) -> code, with noalias buffer pointers. Constants
  // among the captured values (static shapes and strides, mostly) stay constants in it, so that its
  // loops keep known trip counts and strides; only run-time values travel through the context.
  std::vector<llvm::Value*> passed;
  for (auto* v : captured)
    if (!llvm::isa<llvm::Constant>(v)) passed.push_back(v);
  std::vector<llvm::Type*> types;
  for (auto* v : passed) types.push_back(v->getType());
  for (unsigned r = 0; r < ranges; ++r) types.push_back(i64());
  llvm::Function* caller = b.GetInsertBlock()->getParent();
  auto* range = llvm::Function::Create(llvm::FunctionType::get(b.getInt32Ty(), types, false), llvm::Function::InternalLinkage, name + "_range", mod);
  auto savedVars = vars;
  auto savedBuffers = buffers;
  auto savedHeap = std::move(heapBuffers);
  heapBuffers.clear();
  llvm::BasicBlock* callerBlock = b.GetInsertBlock();
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", range));
  unsigned arg = 0;
  size_t next = 0;
  auto value = [&]() -> llvm::Value* {
    llvm::Value* v = captured[next++];
    return llvm::isa<llvm::Constant>(v) ? v : range->getArg(arg++);
  };
  vars.clear();
  for (auto& [v, lanes] : capturedVars) {
    std::vector<llvm::Value*> values;
    for (size_t l = 0; l < lanes; ++l) values.push_back(value());
    vars[v] = std::move(values);
  }
  buffers.clear();
  for (const Buffer* buf : capturedBuffers) {
    size_t rank = savedBuffers[buf].shape.size();
    if (noAlias() && !llvm::isa<llvm::Constant>(captured[next])) range->addParamAttr(arg, llvm::Attribute::NoAlias);
    BufferBinding view{value(), {}, {}, nullptr};
    for (size_t k = 0; k < rank; ++k) view.shape.push_back(value());
    for (size_t k = 0; k < rank; ++k) view.strides.push_back(value());
    view.offset = value();
    buffers[buf] = std::move(view);
  }
  std::vector<llvm::Value*> extraIn, rangeArgs;
  for (size_t i = 0; i < extra.size(); ++i) extraIn.push_back(value());
  for (unsigned r = 0; r < ranges; ++r) rangeArgs.push_back(range->getArg(arg++));
  emitBody(extraIn, rangeArgs);
  b.CreateRet(b.getInt32(0));

  // 3. The wrapper the runtime calls: (ctx, ranges...) unpacks the slots into a range call.
  std::vector<llvm::Type*> wrapperTypes = {b.getPtrTy()};
  for (unsigned r = 0; r < ranges; ++r) wrapperTypes.push_back(i64());
  auto* wrapper = llvm::Function::Create(llvm::FunctionType::get(b.getInt32Ty(), wrapperTypes, false), llvm::Function::InternalLinkage, name + "_chunk", mod);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", wrapper));
  std::vector<llvm::Value*> unpacked;
  for (size_t i = 0; i < passed.size(); ++i) unpacked.push_back(b.CreateLoad(types[i], b.CreateConstInBoundsGEP1_64(i64(), wrapper->getArg(0), i)));
  for (unsigned r = 0; r < ranges; ++r) unpacked.push_back(wrapper->getArg(1 + r));
  b.CreateRet(b.CreateCall(range, unpacked));

  // 4. Back in the caller: the context filled with the passed values.
  vars = std::move(savedVars);
  buffers = std::move(savedBuffers);
  heapBuffers = std::move(savedHeap);
  b.SetInsertPoint(callerBlock);
  llvm::IRBuilder<> entry(&caller->getEntryBlock(), caller->getEntryBlock().begin());
  auto* slots = entry.CreateAlloca(i64(), b.getInt64(std::max<size_t>(passed.size(), 1)), "parallel_ctx");
  for (size_t i = 0; i < passed.size(); ++i) b.CreateStore(passed[i], b.CreateConstInBoundsGEP1_64(i64(), slots, i));
  return {wrapper, slots};
}

void Codegen::returnOnFailure(llvm::Value* code) {
  llvm::Function* caller = b.GetInsertBlock()->getParent();
  auto* failed = llvm::BasicBlock::Create(ctx, "parallel_failed", caller);
  auto* ok = llvm::BasicBlock::Create(ctx, "parallel_ok", caller);
  b.CreateCondBr(b.CreateICmpEQ(code, b.getInt32(0)), ok, failed);
  b.SetInsertPoint(failed);
  freeHeapBuffers();
  b.CreateRet(code);
  b.SetInsertPoint(ok);
}

void Codegen::execParallelFor(const For& f, const TV& lo, llvm::Value* extent) {
  // A loop of constant size with too little work for threads runs inline, as rlx_parallel_for would
  // run it, without the context, the call and the chunk function (the cost of a small kernel).
  if (auto c = asIntImm(f.extent)) {
    int64_t perIteration = workOf(f.body), total = 0;
    bool small = perIteration > 0 && !__builtin_mul_overflow(c->value, perIteration, &total) && total < kMinParallelWork;
    if (c->value <= 1 || small) return emitLoop(f, lo, b.getInt64(0), extent);
  }
  std::string name = b.GetInsertBlock()->getParent()->getName().str() + "_parallel" + std::to_string(parallelLoops_++);
  Outlined chunk = outline(f.body, {lo.v}, 2, name, [&](const std::vector<llvm::Value*>& extraIn, const std::vector<llvm::Value*>& range) {
    emitLoop(f, TV{extraIn[0], lo.t}, range[0], range[1]);
  });
  llvm::FunctionCallee parallelFor = mod.getOrInsertFunction("rlx_parallel_for", b.getInt32Ty(), b.getPtrTy(), b.getPtrTy(), i64(), i64());
  returnOnFailure(b.CreateCall(parallelFor, {chunk.function, chunk.context, extent, b.getInt64(uint64_t(std::max<int64_t>(workOf(f.body), 0)))}));
}

}  // namespace rlx::codegen
