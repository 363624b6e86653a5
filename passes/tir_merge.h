// TIR helpers for merging kernels into one PrimFunc (FuseTIR): copying a kernel body with its
// buffers and symbolic vars replaced, matching symbolic shapes, and keeping block names unique.
#pragma once
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/struct_info.h"
#include "ir/tir.h"

namespace rlx::tir_merge {

// A fresh compact buffer (its own data var) of `shape` and `dtype`: kernel parameters and stages.
BufferRef declBuffer(const std::string& name, const std::vector<PrimExpr>& shape, DataType dtype);

// Unique block names in the order they are requested: a taken name gets the next free number
// after its own trailing digits (`T_add` again becomes `T_add1`, `x2` again `x3`), as TVM's
// SBlockNameDeduplicator does.
class BlockNames {
 public:
  std::string unique(const std::string& name);

 private:
  std::set<std::string> used_;
};

// Copies statements with buffers and vars substituted. Every definition met on the way (loop and
// block iter vars, lets, allocated and matched buffers) gets a fresh object, so one kernel body
// may be copied several times into the same function. A block's read/write regions of the same
// buffer (two params mapped to one buffer) collapse to the first, as in TVM's FuseTIR.
class Substituter {
 public:
  std::unordered_map<const PrimVar*, PrimExpr> vars;
  std::unordered_map<const Buffer*, BufferRef> buffers;
  BlockNames* blockNames = nullptr;  // when set, copied blocks get unique names from it

  Stmt stmt(const Stmt& s);
  PrimExpr expr(const PrimExpr& e);
  // A fresh buffer like `b` (same name) with its shape substituted; later uses of b map to it.
  BufferRef renewBuffer(const BufferRef& b);

 private:
  PrimVarRef renewVar(const PrimVarRef& v);
  BufferRef buffer(const BufferRef& b) const;
  BufferRegion region(const BufferRegion& r);
  std::vector<BufferRegion> regions(const std::vector<BufferRegion>& rs);
  Stmt block(const TirBlock& b);
};

// Binds the vars of `pattern` (a kernel's buffer dims) to the matching parts of `actual` (the
// dims the fused function gives that buffer); vars already bound keep their first value.
void matchSymbolic(const PrimExpr& pattern, const PrimExpr& actual, std::unordered_map<const PrimVar*, PrimExpr>& map);

// One statement for a list (nested SeqStmts flattened; a single statement stands alone).
Stmt flatten(const std::vector<Stmt>& stmts);

}  // namespace rlx::tir_merge
