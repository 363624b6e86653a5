// A small tensor-expression kernel builder (TVM's te.placeholder / te.compute / reductions and
// create_prim_func): stages of loops + one block each, turned into a private T.prim_func.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/tir.h"

namespace rlx::te {

using Indices = std::vector<PrimExpr>;

// A tensor of the kernel: an input placeholder or the buffer a compute stage writes.
struct Tensor {
  BufferRef buf;
  PrimVarRef scalar;  // instead of buf: a scalar parameter of the kernel (an R.Prim argument)
  const std::vector<PrimExpr>& shape() const { return buf->shape; }
  size_t ndim() const { return buf->shape.size(); }
  DataType dtype() const { return buf->dtype; }
  PrimExpr operator()(const Indices& idx) const;  // the element load
};

struct ReduceAxis {
  PrimVarRef var;  // the loop var ("k", "k2", ...)
  PrimExpr extent;
};

enum class Combiner { Sum, Max, Min, Prod };

// The loop names of a stage: a prefix numbered per dim ("ax" -> ax0, ax1, ...), or one name per
// dim (topi's named compute axes, e.g. conv's nn, ff, yy, xx).
struct LoopNames {
  LoopNames(const char* p) : prefix(p) {}
  LoopNames(std::string p) : prefix(std::move(p)) {}
  LoopNames(std::vector<std::string> n) : names(std::move(n)) {}
  std::string at(size_t i) const { return i < names.size() ? names[i] : prefix + std::to_string(i); }
  std::string prefix;
  std::vector<std::string> names;
};

class KernelBuilder {
 public:
  // Maps a shape expression of the Relax program into the kernel: its symbolic vars become the
  // kernel's own vars of the same names (one per Relax var).
  PrimExpr mapShape(const PrimExpr& e);
  std::vector<PrimExpr> mapShape(const std::vector<PrimExpr>& dims);

  // An input tensor; `shape` is already in kernel terms (see mapShape).
  Tensor placeholder(const std::string& name, const std::vector<PrimExpr>& shape, DataType dtype);

  // A spatial stage: loops `<prefix>0..` over `shape`, a block named after `name` (made unique),
  // writing a buffer `name` with fn(block iter vars).
  Tensor compute(const std::string& name, const std::vector<PrimExpr>& shape, DataType dtype, const std::function<PrimExpr(const Indices&)>& fn,
                 const LoopNames& loops = "i", AttrsRef blockAttrs = nullptr);

  // A scan along `axis`: loops over `shape` (the scan axis keeps its place, its iter var is ordered,
  // T.axis.scan, so the CPU schedule never runs it in parallel); fn(i, prev) gives the element at
  // i, where prev loads the element before it along the axis (only read when i[axis] > 0: guard it
  // with tir.if_then_else).
  Tensor scan(const std::string& name, const std::vector<PrimExpr>& shape, DataType dtype, size_t axis,
              const std::function<PrimExpr(const Indices&, const PrimExpr&)>& fn, const LoopNames& loops = "i");
  ReduceAxis reduceAxis(const PrimExpr& extent, const std::string& name = "k");
  // A reduction stage: spatial loops over `shape` then the reduce axes; `out[i] = combine(out[i],
  // fn(i, k))` with `init` in T.init(). fn gets the block iter vars of the spatial then reduce axes.
  Tensor reduce(const std::string& name, const std::vector<PrimExpr>& shape, DataType dtype, const std::vector<ReduceAxis>& axes, Combiner c,
                const std::function<PrimExpr(const Indices&, const Indices&)>& fn, const LoopNames& loops = "i", AttrsRef blockAttrs = nullptr);
  // A reduction producing several buffers at once (TVM's tuple reductions): `<name>_v0..` buffers;
  // update(i, k, accumulators) returns the new value of each accumulator; inits are the identities.
  std::vector<Tensor> reduceTuple(const std::string& name, const std::vector<PrimExpr>& shape, const std::vector<DataType>& dtypes, const std::vector<ReduceAxis>& axes,
                                  const std::vector<PrimExpr>& inits,
                                  const std::function<std::vector<PrimExpr>(const Indices&, const Indices&, const std::vector<PrimExpr>&)>& update,
                                  const LoopNames& loops = "ax");

  // The kernel: params are `inputs` then `outputs` (each a buffer; handles named var_<name>);
  // stages that no output depends on are dropped; other intermediates are root allocations.
  PrimFuncRef build(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs);

 private:
  struct Stage {
    std::vector<BufferRef> writes;
    Stmt stmt;
  };
  std::string blockName(const std::string& base);
  Stmt nest(const std::vector<PrimVarRef>& loops, const std::vector<PrimExpr>& extents, Stmt body);

  std::vector<Stage> stages_;
  std::map<std::string, int> blockNames_;
  std::vector<std::pair<const PrimVar*, PrimVarRef>> vars_;
};

// The identity of a combiner for dtype t (0, -max, +max, 1 as TVM's min_value/max_value).
PrimExpr identity(Combiner c, DataType t);
// The constant v as a PrimExpr of dtype t (T.float32(v), T.int64(v), ...).
PrimExpr constant(double v, DataType t);
// Folding arithmetic for index expressions (TVM's operator overloads: x + 0, x * 1, constants).
PrimExpr idxAdd(const PrimExpr& a, const PrimExpr& b);
PrimExpr idxMul(const PrimExpr& a, const PrimExpr& b);
// Plain binary node (no folding) and intrinsic call.
PrimExpr bin(NodeKind k, const PrimExpr& a, const PrimExpr& b);
PrimExpr call(const std::string& op, DataType t, std::vector<PrimExpr> args);

}  // namespace rlx::te
