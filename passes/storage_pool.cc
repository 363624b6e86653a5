// Storage tokens and the size-ordered free pool of StaticPlanBlockMemory (see storage_pool.h).
// The search order is TVM's, so plans (and the printed storage sizes) match its output.
#include "passes/storage_pool.h"

#include "ir/arith.h"

namespace rlx {

PrimExpr tvmMul(const PrimExpr& a, const PrimExpr& b) {
  if (PrimExpr folded = foldConstants(NodeKind::Mul, a, b)) return folded;
  if (auto c = asIntImm(a); c && c->value == 1) return b;
  if (auto c = asIntImm(b); c && c->value == 1) return a;
  return binary(NodeKind::Mul, a, b);
}

StorageToken::StorageToken(const std::vector<PrimExpr>& shape, DataType t, std::string storageScope)
    : dtype(t), scope(std::move(storageScope)) {
  int64_t coeff = t.bytes();
  PrimExpr size = intImm(1);
  for (auto& dim : shape) {
    if (auto c = asIntImm(dim)) coeff *= c->value;
    else size = tvmMul(size, dim);
  }
  bytes = tvmMul(intImm(coeff), size);
}

int64_t StorageToken::constBytes() const {
  auto c = asIntImm(bytes);
  return c ? c->value : -1;
}

StorageToken* StoragePool::requestReuse(const StorageToken& prototype) {
  // A token nobody uses gets fresh storage; cleanup passes remove the dead allocation.
  if (prototype.refCount == 0) return nullptr;
  auto& pool = available_[{prototype.scope, prototype.dtype.str()}];
  auto take = [&](std::multimap<int64_t, StorageToken*>::iterator it) {
    StorageToken* token = it->second;
    token->refCount = prototype.refCount;
    pool.erase(it);
    return token;
  };
  int64_t size = prototype.constBytes();
  if (size == -1) {
    auto [lo, hi] = pool.equal_range(-1);
    for (auto it = lo; it != hi; ++it)
      if (proveEqual(prototype.bytes, it->second->bytes)) return take(it);
    return nullptr;
  }
  auto begin = pool.lower_bound(size / kMatchRange);
  auto mid = pool.lower_bound(size);
  auto end = pool.upper_bound(size * kMatchRange);
  if (mid != end) return take(mid);
  if (mid != begin) {
    StorageToken* token = take(std::prev(mid));
    token->bytes = intImm(size);  // grow the smaller block to the request
    return token;
  }
  return nullptr;
}

StorageToken* StoragePool::allocate(StorageToken* prototype) {
  prototype->storageId = nextId_++;
  return prototype;
}

void StoragePool::release(StorageToken* token) {
  available_[{token->scope, token->dtype.str()}].emplace(token->constBytes(), token);
}

void StoragePool::withdraw(const std::vector<StorageToken*>& tokens) {
  for (StorageToken* token : tokens) {
    auto& pool = available_[{token->scope, token->dtype.str()}];
    for (auto it = pool.begin(); it != pool.end(); ++it)
      if (it->second == token) {
        pool.erase(it);
        break;
      }
  }
}

}  // namespace rlx
