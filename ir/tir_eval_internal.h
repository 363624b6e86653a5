// Internals of the TIR interpreter (ir/tir_eval.h), shared by its statement, expression and
// intrinsic files: scalar values, buffer views and the interpreter state.
#pragma once
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/tir_eval.h"

namespace rlx::tireval {

// One lane of a TIR value. Integers and bools live in `i`, already wrapped to the dtype's width
// (uint64 keeps its bit pattern); floats live in `f`, already rounded to the dtype's precision.
struct Scalar {
  DataType dtype;
  int64_t i = 0;
  double f = 0;

  static Scalar ofInt(DataType t, int64_t v);    // wraps to t's width (bool: v != 0)
  static Scalar ofFloat(DataType t, double v);   // rounds to t's precision
  static Scalar ofBool(bool b) { return ofInt(DataType::boolean(), b); }
  bool isFloat() const { return dtype.isFloat(); }
  bool isUInt64() const { return dtype.code == DataType::UInt && dtype.bits == 64; }
  double toDouble() const;
  bool truthy() const { return isFloat() ? f != 0 : i != 0; }
};

int64_t wrapInt(DataType t, int64_t v);
double roundFloat(DataType t, double v);
// TVM's Cast: float→int truncates (saturating, NaN → 0), then wraps; anything → bool is `!= 0`.
Scalar castScalar(DataType to, const Scalar& v);
// Bit cast between dtypes of the same width (tir.reinterpret).
Result<Scalar> reinterpretScalar(DataType to, const Scalar& v);

// Arithmetic, comparison and logical operators (NodeKind Add..Or) on two lanes, TVM semantics.
Result<Scalar> applyBinary(NodeKind k, DataType resultType, const Scalar& a, const Scalar& b);
// A math/bitwise intrinsic ("tir.exp", "tir.shift_left", ...) whose arguments are all evaluated;
// nullopt when `op` is not one of them (the caller reports the unknown intrinsic).
std::optional<Result<Scalar>> applyIntrinsic(const std::string& op, DataType resultType, const std::vector<Scalar>& args);

// Where a buffer's elements live: flat storage plus the addressing the buffer declares.
struct BufferView {
  NDArrayRef storage;
  std::vector<int64_t> shape, strides;
  int64_t offset = 0;
};

// The value of a variable: one scalar, or one per lane for vectors.
struct VarValue {
  bool bound = false;
  Scalar scalar;
  std::vector<Scalar> lanes;  // vector values only
};

class Interp {
 public:
  std::unordered_map<const PrimVar*, VarValue> vars;
  std::unordered_map<const Buffer*, BufferView> buffers;
  // Where each variable bound by bindOrCheck got its value, for mismatch messages.
  std::unordered_map<const PrimVar*, std::string> origins;
  // Set by T.ret (a host function's result); no statement runs after it.
  std::optional<Scalar> returned;

  // Binds `v` (remembering its previous value on a stack, so restore(mark) undoes it). The slot
  // stays valid while bound: loops update it in place instead of rebinding every iteration.
  VarValue& bind(const PrimVar* v, Scalar s);
  VarValue& bindLanes(const PrimVar* v, std::vector<Scalar> lanes);
  bool isBound(const PrimVar* v) const;
  size_t mark() const { return saved_.size(); }
  void restore(size_t mark);

  // Expressions are evaluated one lane at a time: Ramp/Broadcast and vector loads pick `lane`.
  Result<Scalar> eval(const PrimExpr& e, int lane = 0);
  Result<int64_t> evalInt(const PrimExpr& e);
  Status exec(const Stmt& s);

  // Flat element offset of `indices` (at `lane`) into `buf`, bounds-checked per dimension; sets
  // `storage` to the array holding it.
  Result<int64_t> elementOffset(const Buffer& buf, const std::vector<PrimExpr>& indices, int lane, NDArray*& storage);
  // Gives `buf` fresh zeroed storage (alloc_buffer); its shape and strides are evaluated now.
  Status allocate(const BufferRef& buf);
  // Makes `buf` a view of `source` (a block's T.match_buffer), binding its symbolic shape/strides.
  Status matchRegion(const BufferRef& buf, const BufferRegion& source);
  // Binds `e` to `value` when it is an unbound variable; otherwise checks that it evaluates to
  // `value`. `what` names the place in messages ("buffer 'A' dim 1").
  Status bindOrCheck(const PrimExpr& e, int64_t value, const std::string& what);

 private:
  Result<Scalar> evalVar(const PrimVar& v, int lane);
  Result<Scalar> evalCall(const PrimCall& c, int lane);
  Result<Scalar> evalLoad(const BufferLoad& l, int lane);
  Status execNode(const StmtNode& s);
  Status execFor(const For& f);
  Status execStore(const BufferStore& s);
  Status execLet(const LetStmt& s);
  Status execRealize(const BlockRealize& r);
  Status execBlock(const TirBlock& b, const std::vector<Scalar>& iterValues);

  std::vector<std::pair<VarValue*, VarValue>> saved_;  // previous values of bound variables
};

// Undoes the bindings made while it lives (loops, lets, blocks).
class BindingScope {
 public:
  explicit BindingScope(Interp& in) : in_(in), mark_(in.mark()) {}
  ~BindingScope() { in_.restore(mark_); }
  BindingScope(const BindingScope&) = delete;
  BindingScope& operator=(const BindingScope&) = delete;

 private:
  Interp& in_;
  size_t mark_;
};

// Lane count of an expression's dtype (1 for scalars).
inline int lanesOf(const PrimExpr& e) { return e->dtype.lanes > 1 ? int(e->dtype.lanes) : 1; }

}  // namespace rlx::tireval
