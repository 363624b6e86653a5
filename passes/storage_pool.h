// Storage tokens and the free pool of StaticPlanBlockMemory: one token per reusable block of
// memory, released tokens kept per (storage scope, dtype) and handed out again by size.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ir/prim_expr.h"

namespace rlx {

// TVM's `a * b` on PrimExprs: folds constants and a factor 1, builds the product otherwise (no
// simplification, so sizes print as TVM computes them, e.g. `48 * (n * n)`).
PrimExpr tvmMul(const PrimExpr& a, const PrimExpr& b);

// A block of memory some builtin.alloc_tensor calls will share.
struct StorageToken {
  int refCount = 0;  // uses (PrimFunc / packed-call arguments) not yet passed
  PrimExpr bytes;    // constant, or symbolic when a dim has no upper bound
  DataType dtype;
  std::string scope;
  int storageId = -1;      // -1 until the pool allocates it
  bool discarded = false;  // not plannable (escapes the block, reaches a non-PrimFunc call, ...)

  // bytes = dtype size × constant dims × the symbolic dims in order (tvmMul).
  StorageToken(const std::vector<PrimExpr>& shape, DataType t, std::string storageScope);
  // The constant byte count, or -1 when symbolic.
  int64_t constBytes() const;
};

// TVM's TokenAllocator1D: released tokens sit in a pool per (scope, dtype) ordered by size;
// a request takes the first block of at least its size within [size/16, size*16), else the
// largest smaller one in that range (grown to the request). A symbolic size only reuses a block
// whose size is provably equal.
class StoragePool {
 public:
  // A released token to reuse (its refCount becomes the prototype's), or null.
  StorageToken* requestReuse(const StorageToken& prototype);
  // Gives the prototype its own new storage.
  StorageToken* allocate(StorageToken* prototype);
  void release(StorageToken* token);
  // Takes these tokens out of the free pool for good (storage whose var goes out of scope).
  void withdraw(const std::vector<StorageToken*>& tokens);

 private:
  static constexpr int64_t kMatchRange = 16;
  // Keyed by (scope, dtype spelling); within a size, tokens come back in release order.
  std::map<std::pair<std::string, std::string>, std::multimap<int64_t, StorageToken*>> available_;
  int nextId_ = 0;
};

}  // namespace rlx
