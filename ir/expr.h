// Relax IR: StructInfo (types with shapes) and expressions, bindings, blocks, functions.
// Every expression carries the struct info the normalizer inferred for it (null until normalized).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ir/attrs.h"
#include "ir/ndarray.h"
#include "ir/prim_expr.h"
#include "ir/span.h"

namespace rlx {

// ---------------------------------------------------------------- StructInfo
class StructInfoNode : public Object {
 public:
  explicit StructInfoNode(NodeKind k) : Object(k) {}
  static bool classOf(NodeKind k) { return inFamily(k, NodeKind::ObjectSInfo, NodeKind::FuncSInfo); }
};
using StructInfo = Ref<StructInfoNode>;

class ExprNode;
using Expr = Ref<ExprNode>;

class ObjectSInfo final : public StructInfoNode {
 public:
  ObjectSInfo() : StructInfoNode(NodeKind::ObjectSInfo) {}
  static bool classOf(NodeKind k) { return k == NodeKind::ObjectSInfo; }
};

// R.Prim("int64") or R.Prim(value=n): a scalar, optionally with a known symbolic value.
class PrimSInfo final : public StructInfoNode {
 public:
  PrimSInfo(DataType t, PrimExpr v = nullptr) : StructInfoNode(NodeKind::PrimSInfo), dtype(t), value(std::move(v)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::PrimSInfo; }
  DataType dtype;
  PrimExpr value;  // may be null
};

// R.Shape([2, n]) (values known) or R.Shape(ndim=k) (ndim -1 = unknown).
class ShapeSInfo final : public StructInfoNode {
 public:
  ShapeSInfo(std::optional<std::vector<PrimExpr>> v, int n) : StructInfoNode(NodeKind::ShapeSInfo), values(std::move(v)), ndim(values ? int(values->size()) : n) {}
  static bool classOf(NodeKind k) { return k == NodeKind::ShapeSInfo; }
  std::optional<std::vector<PrimExpr>> values;
  int ndim;  // -1 = unknown
};

// R.Tensor(shape, dtype, ndim, vdevice). shape is a ShapeExpr or a Var of Shape struct info, or null.
class TensorSInfo final : public StructInfoNode {
 public:
  TensorSInfo(Expr s, DataType t, int n, std::string vdev = {});
  static bool classOf(NodeKind k) { return k == NodeKind::TensorSInfo; }
  Expr shape;  // null when unknown
  DataType dtype;  // void = unknown
  int ndim;        // -1 = unknown
  std::string vdevice;  // "" = none, else "kind:index:scope"
  // The dims when shape is a ShapeExpr; null otherwise.
  const std::vector<PrimExpr>* dims() const;
};

class TupleSInfo final : public StructInfoNode {
 public:
  explicit TupleSInfo(std::vector<StructInfo> f) : StructInfoNode(NodeKind::TupleSInfo), fields(std::move(f)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::TupleSInfo; }
  std::vector<StructInfo> fields;
};

// R.Callable(params, ret, purity); opaque when params are unknown.
class FuncSInfo final : public StructInfoNode {
 public:
  FuncSInfo(std::optional<std::vector<StructInfo>> p, StructInfo r, bool pure) : StructInfoNode(NodeKind::FuncSInfo), params(std::move(p)), ret(std::move(r)), isPure(pure) {}
  static bool classOf(NodeKind k) { return k == NodeKind::FuncSInfo; }
  std::optional<std::vector<StructInfo>> params;  // nullopt = opaque
  StructInfo ret;
  bool isPure;
};

StructInfo objectSInfo();  // shared R.Object
StructInfo voidSInfo();    // shared empty R.Tuple
StructInfo tensorSInfo(std::vector<PrimExpr> dims, DataType t, std::string vdev = {});
// A vdevice as TVMScript may write it ("llvm", "cuda:1") in full: "kind:index:scope".
std::string fullVDevice(const std::string& v);
bool isVoidSInfo(const StructInfo& s);
// A PrimFunc called directly (destination passing) returns nothing and may write its arguments.
StructInfo primFuncSInfo();

// ---------------------------------------------------------------- Expressions
class ExprNode : public Object {
 public:
  explicit ExprNode(NodeKind k) : Object(k) {}
  static bool classOf(NodeKind k) { return inFamily(k, NodeKind::Var, NodeKind::Op); }
  StructInfo sinfo;  // inferred struct info (null before normalization)
  Span span;
};

// A Relax variable: Var, or DataflowVar (kind DataflowVar) local to a dataflow block.
class Var final : public ExprNode {
 public:
  Var(std::string n, StructInfo s, bool dataflow = false) : ExprNode(dataflow ? NodeKind::DataflowVar : NodeKind::Var), name(std::move(n)) { sinfo = std::move(s); }
  static bool classOf(NodeKind k) { return k == NodeKind::Var || k == NodeKind::DataflowVar; }
  bool isDataflow() const { return kind() == NodeKind::DataflowVar; }
  std::string name;
};
using VarRef = Ref<Var>;

class GlobalVar final : public ExprNode {
 public:
  explicit GlobalVar(std::string n) : ExprNode(NodeKind::GlobalVar), name(std::move(n)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::GlobalVar; }
  std::string name;
};
using GlobalVarRef = Ref<GlobalVar>;

class ExternFunc final : public ExprNode {
 public:
  explicit ExternFunc(std::string s) : ExprNode(NodeKind::ExternFunc), symbol(std::move(s)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::ExternFunc; }
  std::string symbol;
};

class Constant final : public ExprNode {
 public:
  explicit Constant(NDArrayRef d) : ExprNode(NodeKind::Constant), data(std::move(d)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::Constant; }
  NDArrayRef data;
};

class Tuple final : public ExprNode {
 public:
  explicit Tuple(std::vector<Expr> f) : ExprNode(NodeKind::Tuple), fields(std::move(f)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::Tuple; }
  std::vector<Expr> fields;
};

class TupleGetItem final : public ExprNode {
 public:
  TupleGetItem(Expr t, int i) : ExprNode(NodeKind::TupleGetItem), tuple(std::move(t)), index(i) {}
  static bool classOf(NodeKind k) { return k == NodeKind::TupleGetItem; }
  Expr tuple;
  int index;
};

struct OpInfo;
// A reference to a registered operator ("relax.add").
class Op final : public ExprNode {
 public:
  explicit Op(const OpInfo* i) : ExprNode(NodeKind::Op), info(i) {}
  static bool classOf(NodeKind k) { return k == NodeKind::Op; }
  const OpInfo* info;
  const std::string& name() const;
};
using OpRef = Ref<Op>;

class Call final : public ExprNode {
 public:
  Call(Expr o, std::vector<Expr> a, AttrsRef at = nullptr, std::vector<StructInfo> sa = {}) : ExprNode(NodeKind::Call), op(std::move(o)), args(std::move(a)), attrs(std::move(at)), sinfoArgs(std::move(sa)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::Call; }
  Expr op;  // Op, GlobalVar, Var (closure), ExternFunc
  std::vector<Expr> args;
  AttrsRef attrs;  // may be null
  std::vector<StructInfo> sinfoArgs;
  // The op's name when the callee is an Op, else "".
  const std::string& opName() const;
};
using CallRef = Ref<Call>;

class ShapeExpr final : public ExprNode {
 public:
  explicit ShapeExpr(std::vector<PrimExpr> v) : ExprNode(NodeKind::ShapeExpr), values(std::move(v)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::ShapeExpr; }
  std::vector<PrimExpr> values;
};

class PrimValue final : public ExprNode {
 public:
  explicit PrimValue(PrimExpr v) : ExprNode(NodeKind::PrimValue), value(std::move(v)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::PrimValue; }
  PrimExpr value;
};

class StringImm final : public ExprNode {
 public:
  explicit StringImm(std::string v) : ExprNode(NodeKind::StringImm), value(std::move(v)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::StringImm; }
  std::string value;
};

class DataTypeImm final : public ExprNode {
 public:
  explicit DataTypeImm(DataType t) : ExprNode(NodeKind::DataTypeImm), value(t) {}
  static bool classOf(NodeKind k) { return k == NodeKind::DataTypeImm; }
  DataType value;
};

// ---------------------------------------------------------------- Bindings and blocks
// VarBinding (kind VarBinding) or MatchCast (kind MatchCast, castSInfo set).
class Binding final : public Object {
 public:
  Binding(VarRef v, Expr val, StructInfo cast = nullptr) : Object(cast ? NodeKind::MatchCast : NodeKind::VarBinding), var(std::move(v)), value(std::move(val)), castSInfo(std::move(cast)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::VarBinding || k == NodeKind::MatchCast; }
  bool isMatchCast() const { return kind() == NodeKind::MatchCast; }
  VarRef var;
  Expr value;
  StructInfo castSInfo;
  Span span;
};
using BindingRef = Ref<Binding>;

class BindingBlock final : public Object {
 public:
  BindingBlock(std::vector<BindingRef> b, bool dataflow) : Object(dataflow ? NodeKind::DataflowBlock : NodeKind::BindingBlock), bindings(std::move(b)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::BindingBlock || k == NodeKind::DataflowBlock; }
  bool isDataflow() const { return kind() == NodeKind::DataflowBlock; }
  std::vector<BindingRef> bindings;
};
using BlockRef = Ref<BindingBlock>;

class SeqExpr final : public ExprNode {
 public:
  SeqExpr(std::vector<BlockRef> b, Expr r) : ExprNode(NodeKind::SeqExpr), blocks(std::move(b)), body(std::move(r)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::SeqExpr; }
  std::vector<BlockRef> blocks;
  Expr body;
};
using SeqExprRef = Ref<SeqExpr>;

class If final : public ExprNode {
 public:
  If(Expr c, Expr t, Expr f) : ExprNode(NodeKind::If), cond(std::move(c)), thenBranch(std::move(t)), elseBranch(std::move(f)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::If; }
  Expr cond;
  Expr thenBranch, elseBranch;  // SeqExprs after normalization
};

class Function final : public ExprNode {
 public:
  Function(std::vector<VarRef> p, Expr b, StructInfo r, bool pure, AttrsRef a) : ExprNode(NodeKind::Function), params(std::move(p)), body(std::move(b)), retSInfo(std::move(r)), isPure(pure), attrs(std::move(a)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::Function; }
  std::vector<VarRef> params;
  Expr body;  // SeqExpr after normalization
  StructInfo retSInfo;
  bool isPure;
  AttrsRef attrs;  // DictAttrs, may be null
};
using FunctionRef = Ref<Function>;

// Helpers.
Expr makeCall(const std::string& opName, std::vector<Expr> args, AttrsRef attrs = nullptr, std::vector<StructInfo> sinfoArgs = {});
Expr primValue(int64_t v);
// A tuple of `fields` with its struct info (the fields' own) already set.
Expr tupleOf(std::vector<Expr> fields);
// Struct info of an expression as far as it is known (Object when absent).
inline StructInfo sinfoOf(const Expr& e) { return e && e->sinfo ? e->sinfo : objectSInfo(); }
bool isLeafExpr(const Expr& e);  // Var, Constant, ShapeExpr, PrimValue, StringImm, DataTypeImm, GlobalVar, ExternFunc, Op
// A leaf or a tuple of atoms: what normalized Relax keeps inline (everything else gets a binding).
bool isAtomExpr(const Expr& e);

}  // namespace rlx
