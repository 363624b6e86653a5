// PrimExpr: scalar integer/float/bool expressions used for symbolic shapes and inside TIR kernels.
// Constructors here never simplify; ir/simplify.h canonicalizes and arith.h folds constants.
#pragma once
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/object.h"
#include "ir/span.h"

namespace rlx {

inline constexpr bool inFamily(NodeKind k, NodeKind first, NodeKind last) { return k >= first && k <= last; }

class PrimExprNode : public Object {
 public:
  PrimExprNode(NodeKind k, DataType t) : Object(k), dtype(t) {}
  static bool classOf(NodeKind k) { return inFamily(k, NodeKind::IntImm, NodeKind::Broadcast); }
  DataType dtype;
};
using PrimExpr = Ref<PrimExprNode>;

class IntImm final : public PrimExprNode {
 public:
  IntImm(DataType t, int64_t v) : PrimExprNode(NodeKind::IntImm, t), value(v) {}
  static bool classOf(NodeKind k) { return k == NodeKind::IntImm; }
  int64_t value;
};

class FloatImm final : public PrimExprNode {
 public:
  FloatImm(DataType t, double v) : PrimExprNode(NodeKind::FloatImm, t), value(v) {}
  static bool classOf(NodeKind k) { return k == NodeKind::FloatImm; }
  double value;
};

class TirStringImm final : public PrimExprNode {
 public:
  explicit TirStringImm(std::string v) : PrimExprNode(NodeKind::TirStringImm, DataType::handle()), value(std::move(v)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::TirStringImm; }
  std::string value;
};

// A symbolic variable (tir.Var, or tir.SizeVar when isSizeVar). Identity is the pointer.
class PrimVar final : public PrimExprNode {
 public:
  PrimVar(std::string n, DataType t, bool size = false) : PrimExprNode(NodeKind::PrimVar, t), name(std::move(n)), isSizeVar(size) {}
  static bool classOf(NodeKind k) { return k == NodeKind::PrimVar; }
  std::string name;
  bool isSizeVar;
};
using PrimVarRef = Ref<PrimVar>;

// Every binary operator: arithmetic (Add..Max), comparisons (EQ..GE, bool result), And/Or.
class PrimBinary final : public PrimExprNode {
 public:
  PrimBinary(NodeKind k, DataType t, PrimExpr x, PrimExpr y) : PrimExprNode(k, t), a(std::move(x)), b(std::move(y)) {}
  static bool classOf(NodeKind k) { return inFamily(k, NodeKind::Add, NodeKind::Or); }
  PrimExpr a, b;
};

class PrimNot final : public PrimExprNode {
 public:
  explicit PrimNot(PrimExpr x) : PrimExprNode(NodeKind::Not, DataType::boolean()), a(std::move(x)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::Not; }
  PrimExpr a;
};

class Select final : public PrimExprNode {
 public:
  Select(PrimExpr c, PrimExpr t, PrimExpr f) : PrimExprNode(NodeKind::Select, t->dtype), cond(std::move(c)), trueValue(std::move(t)), falseValue(std::move(f)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::Select; }
  PrimExpr cond, trueValue, falseValue;
};

class Cast final : public PrimExprNode {
 public:
  Cast(DataType t, PrimExpr v) : PrimExprNode(NodeKind::Cast, t), value(std::move(v)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::Cast; }
  PrimExpr value;
};

// A call of a TIR intrinsic or builtin by name ("tir.exp", "tir.if_then_else", "tir.call_extern").
class PrimCall final : public PrimExprNode {
 public:
  PrimCall(DataType t, std::string o, std::vector<PrimExpr> a) : PrimExprNode(NodeKind::PrimCall, t), op(std::move(o)), args(std::move(a)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::PrimCall; }
  std::string op;
  std::vector<PrimExpr> args;
};

// A TIR buffer (declared here because BufferLoad holds one).
class Buffer final : public Object {
 public:
  Buffer() : Object(NodeKind::Buffer) {}
  static bool classOf(NodeKind k) { return k == NodeKind::Buffer; }
  std::string name;
  DataType dtype = DataType::float32();
  std::vector<PrimExpr> shape;
  std::vector<PrimExpr> strides;  // empty = compact
  PrimExpr elemOffset;            // null = 0 / default
  std::string scope = "global";
  int alignment = 64;  // TVM's default; printed only when it differs... see printer
  int offsetFactor = 1;
  std::vector<int64_t> axisSeparators;  // where the physical (flattened) axes split; empty = one
  bool explicitAlign = false, explicitOffsetFactor = false, explicitElemOffset = false;
  PrimVarRef data;  // the handle var
};
using BufferRef = Ref<Buffer>;

class BufferLoad final : public PrimExprNode {
 public:
  BufferLoad(DataType t, Ref<Buffer> b, std::vector<PrimExpr> idx) : PrimExprNode(NodeKind::BufferLoad, t), buffer(std::move(b)), indices(std::move(idx)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::BufferLoad; }
  Ref<Buffer> buffer;
  std::vector<PrimExpr> indices;
};

class PrimLet final : public PrimExprNode {
 public:
  PrimLet(PrimVarRef v, PrimExpr val, PrimExpr b) : PrimExprNode(NodeKind::PrimLet, b->dtype), var(std::move(v)), value(std::move(val)), body(std::move(b)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::PrimLet; }
  PrimVarRef var;
  PrimExpr value, body;
};

class Ramp final : public PrimExprNode {
 public:
  Ramp(PrimExpr b, PrimExpr s, int l) : PrimExprNode(NodeKind::Ramp, b->dtype.withLanes(l)), base(std::move(b)), stride(std::move(s)), lanes(l) {}
  static bool classOf(NodeKind k) { return k == NodeKind::Ramp; }
  PrimExpr base, stride;
  int lanes;
};

class Broadcast final : public PrimExprNode {
 public:
  Broadcast(PrimExpr v, int l) : PrimExprNode(NodeKind::Broadcast, v->dtype.withLanes(l)), value(std::move(v)), lanes(l) {}
  static bool classOf(NodeKind k) { return k == NodeKind::Broadcast; }
  PrimExpr value;
  int lanes;
};

// Plain constructors (no folding).
inline PrimExpr intImm(int64_t v, DataType t = DataType::int64()) { return make<IntImm>(t, v); }
inline PrimExpr floatImm(double v, DataType t = DataType::float32()) { return make<FloatImm>(t, v); }
inline PrimExpr boolImm(bool v) { return make<IntImm>(DataType::boolean(), v ? 1 : 0); }
PrimExpr binary(NodeKind k, PrimExpr a, PrimExpr b);  // result dtype: bool for comparisons, else a's

// Queries.
inline const IntImm* asIntImm(const PrimExpr& e) { return e && e->kind() == NodeKind::IntImm ? static_cast<const IntImm*>(e.get()) : nullptr; }
bool isComparison(NodeKind k);
// Syntactic equality with variables and buffers by identity (TVM's ExprDeepEqual); no alpha-renaming,
// no simplification. Node kinds it does not know compare unequal unless they are the same object.
bool exprDeepEqual(const PrimExpr& a, const PrimExpr& b);
const char* binaryOpSymbol(NodeKind k);  // "+", "//", "==", "and", ... ; min/max return nullptr

}  // namespace rlx
