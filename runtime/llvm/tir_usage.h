// What TIR statements do with buffers, for the CPU schedule's steps: which buffers a statement list
// loads, stores or uses opaquely, and the loop nests that write every element of a buffer.
#pragma once
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/tir.h"

namespace rlx {

bool isTrue(const PrimExpr& e);  // null (absent) or the constant 1
bool isZero(const PrimExpr& e);
bool isReduction(const TirBlock& b);  // has an init or a non-spatial iter var
bool compact(const Buffer& b);         // default (row-major) strides, no element offset

// What a list of statements does with buffers and variables.
struct Usage {
  std::unordered_map<const Buffer*, int> loads;           // BufferLoad sites
  std::unordered_map<const Buffer*, int> reductionLoads;  // of them, in a reduction block
  std::unordered_map<const Buffer*, int> broadcastLoads;  // in a block some of whose spatial iter vars
                                                          // the indices do not use
  std::unordered_map<const Buffer*, int> windowLoads;     // in a reduction block, an index of which
                                                          // slides a window (mentions a spatial and a
                                                          // reduction iter var: yy + ry)
  std::unordered_set<const Buffer*> stored, matched;   // BufferStore targets; match_buffer sources
  std::unordered_set<const PrimVar*> vars;             // every variable mentioned (a data var: opaque use)

  void expr(const PrimExpr& e, const TirBlock* block);
  void stmt(const Stmt& s, const TirBlock* block);
  bool opaque(const Buffer* b) const { return matched.count(b) || matched.count(nullptr) || (b->data && vars.count(b->data.get())); }
  // Whether the statements load, store or opaquely use `b` at all.
  bool touches(const Buffer* b) const { return loads.count(b) || stored.count(b) || opaque(b); }
};

Usage usageOf(const std::vector<Stmt>& seq, size_t begin, size_t end);

// A nest `for v0, .., vn: block` of serial loops from 0, each of the block's iter vars bound to a
// whole loop of its own, whose `store` (the block's body; a reduction's init) writes every element
// of a compact buffer: T[w0, .., wm] with each index a distinct spatial iter var over [0, T.shape[d]).
// Calls f on every BufferLoad in e (outermost first).
void forEachLoad(const PrimExpr& e, const std::function<void(const BufferLoad&)>& f);

struct NestWrite {
  const TirBlock* block = nullptr;
  const BufferStore* store = nullptr;
  std::vector<const PrimVar*> loopVars;  // outermost first
};
std::optional<NestWrite> fullWriteNest(const Stmt& s);

}  // namespace rlx
