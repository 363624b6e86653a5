// Inference building blocks shared by the op families: tensor/tuple/shape accessors, attr getters,
// axis normalization, numpy broadcasting with symbolic dims, and short renderings for error messages.
#include <cctype>
#include "ir/ops/infer_util.h"

#include <fmt/format.h>

#include <cmath>

namespace rlx::ops {

// ---------------------------------------------------------------- registration DSL
OpParam arg(std::string name, Conv c) {
  OpParam p;
  p.name = std::move(name);
  p.role = OpParam::Arg;
  p.conv = c;
  return p;
}
OpParam optArg(std::string name, Conv c) {
  OpParam p = arg(std::move(name), c);
  p.role = OpParam::OptionalArg;
  p.hasDefault = true;
  p.defaultValue = Attr();
  return p;
}
OpParam varArgs(std::string name, Conv c) {
  OpParam p = arg(std::move(name), c);
  p.role = OpParam::VarArgs;
  p.hasDefault = true;
  return p;
}
OpParam attr(std::string name, Conv c, Attr def) {
  OpParam p = arg(std::move(name), c);
  p.role = OpParam::Attr;
  p.hasDefault = true;
  p.defaultValue = std::move(def);
  return p;
}
OpParam reqAttr(std::string name, Conv c) {
  OpParam p = arg(std::move(name), c);
  p.role = OpParam::Attr;
  return p;
}

Attr aDType(const char* s) {
  auto t = DataType::parse(s);
  return AttrValue::dtypeOf(t ? *t : DataType::void_());
}

OpDef::OpDef(std::string name) { info_.name = std::move(name); }
OpDef& OpDef::attrs(std::string typeKey) { info_.attrsType = std::move(typeKey); return *this; }
OpDef& OpDef::params(std::vector<OpParam> p) { info_.params = std::move(p); return *this; }
OpDef& OpDef::attrOrder(std::vector<std::string> order) { info_.attrOrder = std::move(order); return *this; }
OpDef& OpDef::infer(InferFn f) { info_.infer = std::move(f); return *this; }
OpDef& OpDef::build(BuildFn f) { info_.build = std::move(f); return *this; }
OpDef& OpDef::fixup(FixupFn f) {
  info_.build = [f = std::move(f)](const OpInfo& op, std::vector<PyValue>& args, std::vector<std::pair<std::string, PyValue>>& kwargs) -> Result<Expr> {
    RLX_TRY(call, buildGeneric(op, args, kwargs));
    auto st = f(*call);
    if (!st.ok()) return std::move(st.error());
    return Expr(call);
  };
  return *this;
}
OpDef& OpDef::pattern(OpPattern p) { info_.pattern = p; return *this; }
OpDef& OpDef::impure() { info_.pure = false; return *this; }
OpDef& OpDef::doc(std::string d) { info_.doc = std::move(d); return *this; }
void OpDef::done() { registerOp(std::move(info_)); }

void setAttr(Call& call, const std::string& key, Attr v) {
  if (!call.attrs) {
    call.attrs = make<Attrs>();
    if (call.op && call.op->kind() == NodeKind::Op) call.attrs->typeKey = static_cast<const Op*>(call.op.get())->info->attrsType;
  }
  for (auto& [k, val] : call.attrs->fields)
    if (k == key) {
      val = std::move(v);
      return;
    }
  call.attrs->fields.emplace_back(key, std::move(v));
}

Expr makeScalarConst(double v, DataType t) {
  auto arr = make<NDArray>(t, std::vector<int64_t>{});
  if (t.isFloat()) arr->setDouble(0, v);
  else arr->setInt(0, int64_t(v));
  auto c = make<Constant>(arr);
  c->sinfo = tensorSInfo({}, t);
  return c;
}

// ---------------------------------------------------------------- diagnostics
std::string opLabel(const Call& call) {
  if (call.op && call.op->kind() == NodeKind::Op) return static_cast<const Op*>(call.op.get())->info->scriptName();
  return "call";
}

Error opError(const Call& call, const std::string& msg) { return Error(opLabel(call) + ": " + msg); }

std::string primStr(const PrimExpr& e) {
  if (!e) return "?";
  switch (e->kind()) {
    case NodeKind::IntImm: {
      auto* i = static_cast<const IntImm*>(e.get());
      if (i->dtype.isBool()) return i->value ? "True" : "False";
      return std::to_string(i->value);
    }
    case NodeKind::FloatImm: return fmt::format("{}", static_cast<const FloatImm*>(e.get())->value);
    case NodeKind::PrimVar: return static_cast<const PrimVar*>(e.get())->name;
    case NodeKind::Min:
    case NodeKind::Max: {
      auto* b = static_cast<const PrimBinary*>(e.get());
      return fmt::format("T.{}({}, {})", e->kind() == NodeKind::Min ? "min" : "max", primStr(b->a), primStr(b->b));
    }
    default:
      break;
  }
  if (auto b = e.as<PrimBinary>()) {
    auto wrap = [](const PrimExpr& x) {
      std::string s = primStr(x);
      return x.is<PrimBinary>() && x->kind() != NodeKind::Min && x->kind() != NodeKind::Max ? "(" + s + ")" : s;
    };
    const char* sym = binaryOpSymbol(e->kind());
    return fmt::format("{} {} {}", wrap(b->a), sym ? sym : "?", wrap(b->b));
  }
  if (auto c = e.as<Cast>()) return fmt::format("T.Cast(\"{}\", {})", c->dtype.str(), primStr(c->value));
  if (auto c = e.as<PrimCall>()) {
    // tir.if_then_else(...) reads as TVMScript's T.if_then_else(...).
    std::string name = c->op.compare(0, 4, "tir.") == 0 ? "T." + c->op.substr(4) : c->op;
    std::string args;
    for (auto& a : c->args) args += (args.empty() ? "" : ", ") + primStr(a);
    return name + "(" + args + ")";
  }
  if (auto s = e.as<Select>()) return fmt::format("T.Select({}, {}, {})", primStr(s->cond), primStr(s->trueValue), primStr(s->falseValue));
  return nodeKindName(e->kind());
}

std::string shapeStr(const std::vector<PrimExpr>& dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + primStr(dims[i]);
  if (dims.size() == 1) s += ",";
  return s + ")";
}

std::string sinfoStr(const StructInfo& s) {
  if (!s) return "R.Object";
  switch (s->kind()) {
    case NodeKind::ObjectSInfo: return "R.Object";
    case NodeKind::PrimSInfo: {
      auto p = s.as<PrimSInfo>();
      if (p->value) return "R.Prim(value=" + primStr(p->value) + ")";
      return "R.Prim(\"" + p->dtype.str() + "\")";
    }
    case NodeKind::ShapeSInfo: {
      auto p = s.as<ShapeSInfo>();
      if (p->values) {
        std::string r = "R.Shape([";
        for (size_t i = 0; i < p->values->size(); ++i) r += (i ? ", " : "") + primStr((*p->values)[i]);
        return r + "])";
      }
      return fmt::format("R.Shape(ndim={})", p->ndim);
    }
    case NodeKind::TensorSInfo: {
      auto t = s.as<TensorSInfo>();
      std::vector<std::string> parts;
      if (auto d = t->dims()) parts.push_back(shapeStr(*d));
      else if (t->shape && t->shape.is<Var>()) parts.push_back(t->shape.as<Var>()->name);
      if (!t->dtype.isVoid()) parts.push_back("dtype=\"" + t->dtype.str() + "\"");
      if (!t->dims() && !t->shape && t->ndim >= 0) parts.push_back(fmt::format("ndim={}", t->ndim));
      if (!t->vdevice.empty()) parts.push_back("vdevice=\"" + t->vdevice + "\"");
      if (parts.empty()) return "R.Tensor";
      return "R.Tensor(" + fmt::format("{}", fmt::join(parts, ", ")) + ")";
    }
    case NodeKind::TupleSInfo: {
      auto t = s.as<TupleSInfo>();
      if (t->fields.empty()) return "R.Tuple";
      std::string r = "R.Tuple(";
      for (size_t i = 0; i < t->fields.size(); ++i) r += (i ? ", " : "") + sinfoStr(t->fields[i]);
      return r + ")";
    }
    case NodeKind::FuncSInfo: return "R.Callable";
    default: return "?";
  }
}

// ---------------------------------------------------------------- attr access
const Attr* findAttr(const Call& call, std::string_view key) { return call.attrs ? call.attrs->find(key) : nullptr; }

bool attrIsNone(const Call& call, std::string_view key) {
  auto* a = findAttr(call, key);
  return !a || !*a;
}

int64_t attrInt(const Call& call, std::string_view key, int64_t def) {
  auto* a = findAttr(call, key);
  if (!a || !*a) return def;
  if ((*a)->kind == AttrValue::Int) return (*a)->i;
  if ((*a)->kind == AttrValue::Bool) return (*a)->b;
  if ((*a)->kind == AttrValue::Prim) {
    if (auto c = asIntImm((*a)->prim)) return c->value;
  }
  if ((*a)->kind == AttrValue::Array && (*a)->array.size() == 1 && (*a)->array[0]) return (*a)->array[0]->i;
  return def;
}

bool attrBool(const Call& call, std::string_view key, bool def) {
  auto* a = findAttr(call, key);
  if (!a || !*a) return def;
  if ((*a)->kind == AttrValue::Bool) return (*a)->b;
  if ((*a)->kind == AttrValue::Int) return (*a)->i != 0;
  return def;
}

double attrReal(const Call& call, std::string_view key, double def) {
  auto* a = findAttr(call, key);
  if (!a || !*a) return def;
  if ((*a)->kind == AttrValue::Double) return (*a)->d;
  if ((*a)->kind == AttrValue::Int) return double((*a)->i);
  if ((*a)->kind == AttrValue::Prim) {
    if (auto f = (*a)->prim.as<FloatImm>()) return f->value;
    if (auto i = asIntImm((*a)->prim)) return double(i->value);
  }
  return def;
}

std::string attrString(const Call& call, std::string_view key, std::string def) {
  auto* a = findAttr(call, key);
  if (!a || !*a || (*a)->kind != AttrValue::Str) return def;
  return (*a)->s;
}

DataType attrDType(const Call& call, std::string_view key) {
  auto* a = findAttr(call, key);
  if (!a || !*a) return DataType::void_();
  if ((*a)->kind == AttrValue::DType) return (*a)->dtype;
  if ((*a)->kind == AttrValue::Str) {
    if (auto t = DataType::parse((*a)->s)) return *t;
  }
  return DataType::void_();
}

std::vector<int64_t> attrInts(const Call& call, std::string_view key) {
  auto* a = findAttr(call, key);
  return a ? intsOf(*a) : std::vector<int64_t>{};
}

std::optional<std::vector<int64_t>> attrOptInts(const Call& call, std::string_view key) {
  auto* a = findAttr(call, key);
  if (!a || !*a) return std::nullopt;
  return intsOf(*a);
}

bool swapsLastTwoAxes(const Call& c) {
  if (c.opName() != "relax.permute_dims" || c.args.empty()) return false;
  auto in = sinfoOf(c.args[0]).as<TensorSInfo>();
  if (!in || in->ndim < 2) return false;
  auto axes = attrOptInts(c, "axes");
  if (!axes) return in->ndim == 2;  // None reverses the axes
  if (int(axes->size()) != in->ndim) return false;
  for (int k = 0; k < in->ndim; ++k) {
    int64_t want = k == in->ndim - 2 ? in->ndim - 1 : k == in->ndim - 1 ? in->ndim - 2 : k;
    int64_t got = (*axes)[k] < 0 ? (*axes)[k] + in->ndim : (*axes)[k];
    if (got != want) return false;
  }
  return true;
}

// ---------------------------------------------------------------- struct info access
Status checkArgCount(const Call& call, size_t lo, size_t hi) {
  size_t n = call.args.size();
  if (n >= lo && n <= hi) return okStatus();
  if (lo == hi) return opError(call, fmt::format("expects {} argument{}, but got {}", lo, lo == 1 ? "" : "s", n));
  return opError(call, fmt::format("expects {} to {} arguments, but got {}", lo, hi, n));
}

Result<TensorRef> tensorArg(const Call& call, size_t i, const char* name) {
  if (i >= call.args.size()) return opError(call, fmt::format("missing argument {}", name));
  StructInfo s = sinfoOf(call.args[i]);
  if (auto t = s.as<TensorSInfo>()) return t;
  return opError(call, fmt::format("expected {} to be a tensor, but it is {}", name, sinfoStr(s)));
}

Result<std::vector<TensorRef>> tensorTupleArg(const Call& call, size_t i, const char* name) {
  if (i >= call.args.size()) return opError(call, fmt::format("missing argument {}", name));
  std::vector<TensorRef> out;
  const Expr& e = call.args[i];
  if (auto t = e.as<Tuple>()) {
    for (size_t k = 0; k < t->fields.size(); ++k) {
      StructInfo s = sinfoOf(t->fields[k]);
      auto ts = s.as<TensorSInfo>();
      if (!ts) return opError(call, fmt::format("expected every element of {} to be a tensor, but element {} is {}", name, k, sinfoStr(s)));
      out.push_back(ts);
    }
    return out;
  }
  StructInfo s = sinfoOf(e);
  auto tup = s.as<TupleSInfo>();
  if (!tup) return opError(call, fmt::format("expected {} to be a tuple of tensors, but it is {}", name, sinfoStr(s)));
  for (size_t k = 0; k < tup->fields.size(); ++k) {
    auto ts = tup->fields[k].as<TensorSInfo>();
    if (!ts) return opError(call, fmt::format("expected every element of {} to be a tensor, but element {} is {}", name, k, sinfoStr(tup->fields[k])));
    out.push_back(ts);
  }
  return out;
}

Result<Ref<ShapeSInfo>> shapeArg(const Call& call, size_t i, const char* name) {
  if (i >= call.args.size()) return opError(call, fmt::format("missing argument {}", name));
  const Expr& e = call.args[i];
  if (auto se = e.as<ShapeExpr>()) {
    if (auto s = sinfoOf(e).as<ShapeSInfo>()) return s;
    return make<ShapeSInfo>(se->values, int(se->values.size()));
  }
  StructInfo s = sinfoOf(e);
  if (auto sh = s.as<ShapeSInfo>()) return sh;
  return opError(call, fmt::format("expected {} to be a shape, but it is {}", name, sinfoStr(s)));
}

PrimExpr primArgValue(const Call& call, size_t i) {
  if (i >= call.args.size()) return nullptr;
  const Expr& e = call.args[i];
  if (auto pv = e.as<PrimValue>()) return pv->value;
  if (auto ps = sinfoOf(e).as<PrimSInfo>()) return ps->value;
  return nullptr;
}

std::optional<std::vector<PrimExpr>> primTupleArg(const Call& call, size_t i) {
  if (i >= call.args.size()) return std::nullopt;
  const Expr& e = call.args[i];
  std::vector<PrimExpr> out;
  if (auto t = e.as<Tuple>()) {
    for (auto& f : t->fields) {
      PrimExpr v;
      if (auto pv = f.as<PrimValue>()) v = pv->value;
      else if (auto ps = sinfoOf(f).as<PrimSInfo>()) v = ps->value;
      if (!v) return std::nullopt;
      out.push_back(v);
    }
    return out;
  }
  auto tup = sinfoOf(e).as<TupleSInfo>();
  if (!tup) return std::nullopt;
  for (auto& f : tup->fields) {
    auto ps = f.as<PrimSInfo>();
    if (!ps || !ps->value) return std::nullopt;
    out.push_back(ps->value);
  }
  return out;
}

StructInfo makeTensor(std::vector<PrimExpr> dims, DataType t, const std::string& vdev) { return tensorSInfo(std::move(dims), t, vdev); }

StructInfo makeTensorNdim(DataType t, int ndim, const std::string& vdev) { return make<TensorSInfo>(Expr(), t, ndim, vdev); }

StructInfo makeShape(std::vector<PrimExpr> dims) {
  int n = int(dims.size());
  return make<ShapeSInfo>(std::move(dims), n);
}

StructInfo withDType(const TensorRef& t, DataType d) {
  if (t->dtype == d) return t;
  return make<TensorSInfo>(t->shape, d, t->ndim, t->vdevice);
}

StructInfo likeTensor(const TensorRef& t, const std::optional<std::vector<PrimExpr>>& dims, DataType d, int ndim) {
  if (dims) return makeTensor(*dims, d, t->vdevice);
  return makeTensorNdim(d, ndim, t->vdevice);
}

// ---------------------------------------------------------------- shape arithmetic
std::optional<int64_t> asConst(const PrimExpr& e) {
  if (auto i = asIntImm(e)) return i->value;
  return std::nullopt;
}

bool isConstInt(const PrimExpr& e, int64_t v) {
  auto c = asConst(e);
  return c && *c == v;
}

PrimExpr shapeProduct(const std::vector<PrimExpr>& dims) {
  PrimExpr p = i64(1);
  for (auto& d : dims) p = mul(p, d);
  return p;
}

PrimExpr ceilDiv(const PrimExpr& a, const PrimExpr& b) {
  // ceil(a / b) = floor((a + b - 1) / b) for b > 0, floor((a + b + 1) / b) for b < 0 (a slice
  // stepping backwards: ceil(-19 / -1) is 19, where the b > 0 form gives 21).
  if (auto k = constInt(b); k && *k < 0) return floordiv(add(add(a, b), i64(1)), b);
  return floordiv(sub(add(a, b), i64(1)), b);
}

bool provablyDifferent(const PrimExpr& a, const PrimExpr& b) {
  auto d = constInt(sub(a, b));
  return d && *d != 0;
}

Result<std::vector<int>> layoutPerm(const Call& c, const std::string& layout, const std::string& canonical, const char* what) {
  std::vector<int> perm(canonical.size(), -1);
  bool ok = layout.size() == canonical.size();
  for (size_t i = 0; ok && i < layout.size(); ++i) {
    auto p = canonical.find(layout[i]);
    if (p == std::string::npos || perm[p] >= 0) ok = false;
    else perm[p] = int(i);
  }
  if (!ok) return opError(c, fmt::format("the {} layout \"{}\" is not convertible from {}", what, layout, canonical));
  return perm;
}

Result<LayoutMap> layoutMap(const Call& c, const std::string& layout, const std::string& canonical, const char* what) {
  LayoutMap m;
  m.primal.assign(canonical.size(), -1);
  m.inner.assign(canonical.size(), -1);
  m.factor.assign(canonical.size(), 1);
  auto bad = [&] { return opError(c, fmt::format("the {} layout \"{}\" is not convertible from {}", what, layout, canonical)); };
  for (size_t i = 0; i < layout.size();) {
    int64_t f = 0;
    while (i < layout.size() && std::isdigit(static_cast<unsigned char>(layout[i]))) {
      f = f * 10 + (layout[i++] - '0');
      if (f > (int64_t(1) << 32)) return bad();
    }
    if (i == layout.size()) return bad();
    char axis = layout[i++];
    bool upper = std::isupper(static_cast<unsigned char>(axis));
    auto k = canonical.find(char(std::toupper(static_cast<unsigned char>(axis))));
    if (k == std::string::npos || !std::isalpha(static_cast<unsigned char>(axis)) || (upper ? f != 0 : f <= 0)) return bad();
    int& slot = upper ? m.primal[k] : m.inner[k];
    if (slot >= 0) return bad();
    slot = int(m.rank++);
    if (!upper) m.factor[k] = f;
  }
  for (int p : m.primal)
    if (p < 0) return bad();
  return m;
}

std::vector<PrimExpr> LayoutMap::forward(const std::vector<PrimExpr>& dims) const {
  std::vector<PrimExpr> out;
  for (size_t k = 0; k < primal.size(); ++k) out.push_back(inner[k] < 0 ? dims[size_t(primal[k])] : mul(dims[size_t(primal[k])], i64(factor[k])));
  return out;
}

std::vector<PrimExpr> LayoutMap::backward(const std::vector<PrimExpr>& canon) const {
  std::vector<PrimExpr> out(rank);
  for (size_t k = 0; k < primal.size(); ++k) {
    if (inner[k] < 0) {
      out[size_t(primal[k])] = canon[k];
      continue;
    }
    out[size_t(primal[k])] = floordiv(canon[k], i64(factor[k]));
    out[size_t(inner[k])] = i64(factor[k]);
  }
  return out;
}

Result<int> normalizeAxis(const Call& call, int ndim, int64_t axis) {
  if (axis < -ndim || axis >= ndim)
    return opError(call, fmt::format("axis {} is out of range for a tensor of {} dimension{} (expected {} <= axis < {})", axis, ndim, ndim == 1 ? "" : "s", -ndim, ndim));
  return int(axis < 0 ? axis + ndim : axis);
}

Result<std::vector<int>> normalizeAxes(const Call& call, int ndim, const std::vector<int64_t>& axes) {
  std::vector<int> out;
  std::vector<bool> seen(size_t(std::max(ndim, 0)), false);
  for (auto a : axes) {
    RLX_TRY(n, normalizeAxis(call, ndim, a));
    if (seen[size_t(n)]) return opError(call, fmt::format("axes must not repeat, but axis {} appears more than once", n));
    seen[size_t(n)] = true;
    out.push_back(n);
  }
  return out;
}

Result<std::optional<std::vector<PrimExpr>>> broadcastShapes(const Call& call, const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b, const char* nameA, const char* nameB) {
  size_t na = a.size(), nb = b.size(), n = std::max(na, nb);
  std::vector<PrimExpr> out(n);
  for (size_t i = 1; i <= n; ++i) {
    if (i > na) { out[n - i] = b[nb - i]; continue; }
    if (i > nb) { out[n - i] = a[na - i]; continue; }
    const PrimExpr& d0 = a[na - i];
    const PrimExpr& d1 = b[nb - i];
    auto c0 = asConst(d0), c1 = asConst(d1);
    if (c0 && *c0 == 1) out[n - i] = d1;
    else if (c1 && *c1 == 1) out[n - i] = d0;
    else if (proveEqual(d0, d1)) out[n - i] = d0;
    else if (c0 && c1)
      return opError(call, fmt::format("broadcasting mismatch: dim {} is {} in {} and {} in {}", n - i, *c0, nameA, *c1, nameB));
    else
      return std::optional<std::vector<PrimExpr>>();
  }
  return std::optional<std::vector<PrimExpr>>(std::move(out));
}

Result<DataType> binaryDType(const Call& call, DataType a, DataType b, const char* nameA, const char* nameB) {
  if (a.isVoid() || b.isVoid()) return DataType::void_();
  if (a != b) return opError(call, fmt::format("dtype mismatch: {} is {} but {} is {} (binary operators need equal dtypes)", nameA, a.str(), nameB, b.str()));
  return a;
}

Result<std::string> unifyVDevice(const Call& call, const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  if (a != b) return opError(call, fmt::format("vdevice mismatch: \"{}\" vs \"{}\"", a, b));
  return a;
}

DataType dtypeOfSInfo(const StructInfo& s) {
  if (auto t = s.as<TensorSInfo>()) return t->dtype;
  if (auto p = s.as<PrimSInfo>()) return p->dtype;
  return DataType::void_();
}

StructInfo probeSInfo(const Expr& e, int depth) {
  if (!e) return objectSInfo();
  if (e->sinfo) return e->sinfo;
  if (depth <= 0) return objectSInfo();
  // Non-leaf args are replaced by placeholder vars carrying their probed struct info.
  auto placeholder = [&](const Expr& a) -> Expr {
    if (a->sinfo || isLeafExpr(a)) return a;
    return make<Var>("_", probeSInfo(a, depth - 1));
  };
  if (auto t = e.as<Tuple>()) {
    std::vector<StructInfo> fs;
    for (auto& f : t->fields) fs.push_back(probeSInfo(f, depth - 1));
    return make<TupleSInfo>(std::move(fs));
  }
  auto c = e.as<Call>();
  if (!c) return objectSInfo();
  auto op = c->op.as<Op>();
  if (!op || !op->info->infer) return objectSInfo();
  std::vector<Expr> args;
  for (auto& a : c->args) {
    if (auto t = a.as<Tuple>(); t && !a->sinfo) {
      std::vector<Expr> fields;
      for (auto& f : t->fields) fields.push_back(placeholder(f));
      auto nt = make<Tuple>(std::move(fields));
      nt->sinfo = probeSInfo(a, depth - 1);
      args.push_back(nt);
    } else {
      args.push_back(placeholder(a));
    }
  }
  auto tmp = make<Call>(c->op, std::move(args), c->attrs, c->sinfoArgs);
  auto r = op->info->infer(*tmp);
  return r.ok() ? r.value() : objectSInfo();
}

Result<StructInfo> inferUnaryArith(const Call& call, bool requireFloat) {
  RLX_TRY_OK(checkArgCount(call, 1, 1));
  RLX_TRY(x, tensorArg(call, 0, "x"));
  if (requireFloat && !x->dtype.isVoid() && !x->dtype.isFloat())
    return opError(call, fmt::format("requires a float tensor, but the input dtype is {}", x->dtype.str()));
  return StructInfo(x);
}

Result<StructInfo> inferSameAsArg0(const Call& call) {
  if (call.args.empty()) return opError(call, "expects an argument");
  return sinfoOf(call.args[0]);
}

}  // namespace rlx::ops
