// CPU schedule, intermediate buffers (schedule_alloc.h): a convolution's padded input and a GEMM's
// output are overwritten whole by their first nest, so zeroing them first would be wasted bandwidth.
#include "runtime/llvm/schedule_alloc.h"

#include "runtime/llvm/tir_copy.h"
#include "runtime/llvm/tir_usage.h"

namespace rlx {

namespace {

bool writtenFirst(const std::vector<Stmt>& seq, const Buffer* t) {
  for (size_t p = 0; p < seq.size(); ++p) {
    Usage u = usageOf(seq, p, p + 1);
    if (!u.touches(t)) continue;
    if (u.opaque(t)) return false;
    auto w = fullWriteNest(seq[p]);
    if (!w || w->store->buffer.get() != t) return false;
    // The write's value (and its indices) must not read T: the element it reads would be unset.
    Usage value;
    value.expr(w->store->value, nullptr);
    if (value.touches(t)) return false;
    // A reduction's update reads T where its init wrote it first: it must store T at the init's
    // indices.
    if (w->block->init) {
      const Stmt& body = w->block->body;
      if (!body || body->kind() != NodeKind::BufferStore) return false;
      auto& update = static_cast<const BufferStore&>(*body);
      if (update.buffer.get() != t || update.indices.size() != w->store->indices.size()) return false;
      for (size_t d = 0; d < update.indices.size(); ++d)
        if (update.indices[d].get() != w->store->indices[d].get()) return false;
    }
    return true;
  }
  return false;
}

}  // namespace

PrimFuncRef markWrittenFirst(const PrimFuncRef& func) {
  const TirBlock* rb = rootBlock(*func);
  if (!rb || rb->allocBuffers.empty()) return func;
  std::vector<Stmt> seq = statementsOf(rb->body);
  std::vector<int64_t> fresh;
  for (size_t k = 0; k < rb->allocBuffers.size(); ++k)
    if (writtenFirst(seq, rb->allocBuffers[k].get())) fresh.push_back(int64_t(k));
  if (fresh.empty()) return func;
  auto blk = copyBlock(*rb);
  blk->annotations = withDictAttr(rb->annotations, kWrittenFirstAnnotation, AttrValue::ints(fresh));
  return withRootBlock(*func, blk);
}

}  // namespace rlx
