// Out-of-line pieces of the Relax node classes and small constructors shared by all layers.
// Shared singletons (R.Object, void tuple) avoid allocating the commonest struct infos repeatedly.
#include "ir/expr.h"

#include <algorithm>

#include "ir/op.h"

namespace rlx {

TensorSInfo::TensorSInfo(Expr s, DataType t, int n, std::string vdev)
    : StructInfoNode(NodeKind::TensorSInfo), shape(std::move(s)), dtype(t), ndim(n), vdevice(std::move(vdev)) {
  if (shape && shape->kind() == NodeKind::ShapeExpr) ndim = int(static_cast<const ShapeExpr*>(shape.get())->values.size());
  else if (shape && shape->sinfo && shape->sinfo->kind() == NodeKind::ShapeSInfo) ndim = static_cast<const ShapeSInfo*>(shape->sinfo.get())->ndim;
}

const std::vector<PrimExpr>* TensorSInfo::dims() const {
  if (shape && shape->kind() == NodeKind::ShapeExpr) return &static_cast<const ShapeExpr*>(shape.get())->values;
  return nullptr;
}

StructInfo objectSInfo() {
  static StructInfo s = make<ObjectSInfo>();
  return s;
}

StructInfo voidSInfo() {
  static StructInfo s = make<TupleSInfo>(std::vector<StructInfo>{});
  return s;
}

StructInfo primFuncSInfo() {
  static StructInfo s = make<FuncSInfo>(std::nullopt, voidSInfo(), false);
  return s;
}

bool isVoidSInfo(const StructInfo& s) {
  auto t = s.as<TupleSInfo>();
  return t && t->fields.empty();
}

std::string fullVDevice(const std::string& v) {
  auto colons = std::count(v.begin(), v.end(), ':');
  return colons >= 2 ? v : v + (colons == 0 ? ":0:global" : ":global");
}

StructInfo tensorSInfo(std::vector<PrimExpr> dims, DataType t, std::string vdev) {
  auto shape = make<ShapeExpr>(std::move(dims));
  shape->sinfo = make<ShapeSInfo>(shape->values, int(shape->values.size()));
  return make<TensorSInfo>(shape, t, -1, std::move(vdev));
}

const std::string& Op::name() const { return info->name; }

const std::string& Call::opName() const {
  static const std::string empty;
  if (op && op->kind() == NodeKind::Op) return static_cast<const Op*>(op.get())->name();
  return empty;
}

Expr makeCall(const std::string& opName, std::vector<Expr> args, AttrsRef attrs, std::vector<StructInfo> sinfoArgs) {
  return make<Call>(opRef(opName), std::move(args), std::move(attrs), std::move(sinfoArgs));
}

Expr primValue(int64_t v) {
  auto p = make<PrimValue>(intImm(v));
  p->sinfo = make<PrimSInfo>(DataType::int64(), p->value);
  return p;
}

Expr tupleOf(std::vector<Expr> fields) {
  std::vector<StructInfo> s;
  for (auto& f : fields) s.push_back(sinfoOf(f));
  auto t = make<Tuple>(std::move(fields));
  t->sinfo = make<TupleSInfo>(std::move(s));
  return t;
}

bool isAtomExpr(const Expr& e) {
  if (isLeafExpr(e)) return true;
  if (auto t = e.as<Tuple>()) {
    for (auto& f : t->fields)
      if (!isAtomExpr(f)) return false;
    return true;
  }
  return false;
}

bool isLeafExpr(const Expr& e) {
  switch (e->kind()) {
    case NodeKind::Var:
    case NodeKind::DataflowVar:
    case NodeKind::Constant:
    case NodeKind::ShapeExpr:
    case NodeKind::PrimValue:
    case NodeKind::StringImm:
    case NodeKind::DataTypeImm:
    case NodeKind::GlobalVar:
    case NodeKind::ExternFunc:
    case NodeKind::Op:
      return true;
    default:
      return false;
  }
}

}  // namespace rlx
