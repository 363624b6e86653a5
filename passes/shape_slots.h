// The shape heap of VMShapeLower: one int64 slot per distinct symbolic PrimExpr of a function
// (vars and composite expressions), which composites wait for which vars, and the generated
// `shape_func` PrimFunc that computes composites from the heap.
#pragma once
#include <vector>

#include "ir/diagnostic.h"
#include "ir/tir.h"

namespace rlx {

struct ShapeSlot {
  PrimExpr expr;
  int index = 0;
  std::vector<int> users;  // for a var: the composite slots that use it
  int outstanding = 0;     // for a composite: vars not yet in the heap
  bool computed = false;
};

class ShapeSlots {
 public:
  // Collects the slots of `func` in TVM's visiting order: parameter struct info, the body (call
  // sinfo_args before args, match_cast targets, shapes and prim values), the return struct info.
  // Fails when a composite uses a var that never appears on its own (it could not be computed).
  static Result<ShapeSlots> collect(const Function& func);

  // The slot of an expression (compared syntactically, vars by identity), or null; never IntImms.
  ShapeSlot* find(const PrimExpr& e);
  int size() const { return int(slots_.size()); }
  ShapeSlot& operator[](int i) { return slots_[i]; }

 private:
  void add(const PrimExpr& e);
  void addSInfo(const StructInfo& s);
  void addExpr(const Expr& e);
  std::vector<ShapeSlot> slots_;
};

// `shape_func(H: T.Buffer((heapSize,), "int64"))` storing each slot's expression, its vars read
// from their heap slots, in the given order; a host function (attr tir.is_host_func).
PrimFuncRef makeShapeFunc(ShapeSlots& slots, const std::vector<int>& toCompute);

}  // namespace rlx
