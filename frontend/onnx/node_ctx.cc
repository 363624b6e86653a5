// NodeCtx: input access with static knowledge, attribute reading with defaults and type checks,
// and the emission helpers converters build Relax with (see converter.h).
#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"
#include "frontend/onnx/tensor.h"
#include "ir/ops/infer_util.h"

namespace rlx::onnx {

void fail(const std::string& message) { throw ImportError(message); }

PyValue primValue(PrimExpr e) {
  PyValue v;
  v.kind = PyValue::Prim;
  v.prim = std::move(e);
  return v;
}

Expr shapeExpr(const std::vector<PrimExpr>& dims) {
  auto s = make<ShapeExpr>(dims);
  s->sinfo = make<ShapeSInfo>(dims, 0);
  return s;
}

StructInfo sinfoOfExpr(const Expr& e) { return sinfoOf(e); }

const TensorSInfo* tensorInfo(const Expr& e) {
  if (!e || !e->sinfo) return nullptr;
  return e->sinfo.as<TensorSInfo>().get();
}

NodeCtx::NodeCtx(GraphImporter& g, const ::onnx::NodeProto& n, int s, int o, std::vector<OValue> inputs) : node(n), since(s), opset(o), g_(g), inputs_(std::move(inputs)) {}

const OValue& NodeCtx::in(size_t i) const {
  if (!has(i)) fail("input " + std::to_string(i) + " is required but missing");
  return inputs_[i];
}

const TensorSInfo& NodeCtx::tensor(size_t i) const {
  auto t = tensorInfo(x(i));
  if (!t) fail("input " + std::to_string(i) + " ('" + node.input(int(i)) + "') is not a tensor");
  return *t;
}

int NodeCtx::ndim(size_t i) const {
  int n = tensor(i).ndim;
  if (n < 0) fail("the rank of input " + std::to_string(i) + " ('" + node.input(int(i)) + "') is not known");
  return n;
}

DataType NodeCtx::dtype(size_t i) const { return tensor(i).dtype; }

std::vector<PrimExpr> NodeCtx::dims(size_t i) const {
  auto d = tensor(i).dims();
  if (!d) fail("the shape of input " + std::to_string(i) + " ('" + node.input(int(i)) + "') is not known");
  return *d;
}

PrimExpr NodeCtx::dim(size_t i, int64_t k) const {
  auto d = dims(i);
  int64_t r = int64_t(d.size());
  if (k < -r || k >= r) fail("input " + std::to_string(i) + " ('" + node.input(int(i)) + "') has " + std::to_string(r) + " dims, no dim " + std::to_string(k));
  return d[size_t(k < 0 ? k + r : k)];
}

NDArrayRef NodeCtx::constant(size_t i) const {
  if (!has(i)) return nullptr;
  if (inputs_[i].known) return inputs_[i].known;
  if (auto c = inputs_[i].expr.as<Constant>()) return c->data;
  if (!inputs_[i].elems) g_.noteNeededValue(inputs_[i]);
  return nullptr;
}

std::optional<std::vector<int64_t>> NodeCtx::constInts(size_t i) const {
  NDArrayRef a = constant(i);
  if (!a) {
    // A shape value whose elements are all known ints is as good as a constant.
    if (has(i) && inputs_[i].elems) {
      std::vector<int64_t> out;
      for (auto& e : *inputs_[i].elems) {
        auto imm = e.as<IntImm>();
        if (!imm) return std::nullopt;
        out.push_back(imm->value);
      }
      return out;
    }
    return std::nullopt;
  }
  std::vector<int64_t> out;
  for (int64_t k = 0; k < a->numel(); ++k) out.push_back(a->dtype.isFloat() ? int64_t(a->getDouble(k)) : a->getInt(k));
  return out;
}

std::vector<int64_t> NodeCtx::requireInts(size_t i, const char* what) const {
  if (!has(i)) fail(std::string(what) + " (input " + std::to_string(i) + ") is required but missing");
  auto v = constInts(i);
  if (!v) fail(std::string(what) + " (input " + std::to_string(i) + ", '" + node.input(int(i)) + "') must be a constant; rlx cannot use a value computed at run time here");
  return *v;
}

std::optional<double> NodeCtx::constScalar(size_t i) const {
  NDArrayRef a = constant(i);
  if (!a || a->numel() != 1) return std::nullopt;
  return a->getDouble(0);
}

std::optional<std::vector<PrimExpr>> NodeCtx::knownValue(size_t i) const {
  if (!has(i)) return std::nullopt;
  if (inputs_[i].elems) return inputs_[i].elems;
  auto v = constInts(i);
  if (!v) return std::nullopt;
  std::vector<PrimExpr> out;
  for (auto x : *v) out.push_back(intImm(x));
  return out;
}

std::optional<std::vector<PrimExpr>> NodeCtx::shapeValue(size_t i) {
  if (auto known = knownValue(i)) return known;
  if (!has(i)) return std::nullopt;
  auto t = tensorInfo(x(i));
  if (!t || t->ndim != 1 || !t->dtype.isInt() || !t->dims()) return std::nullopt;
  auto len = (*t->dims())[0].as<IntImm>();
  if (!len) return std::nullopt;
  Expr shape = g_.emitCall(makeCall("relax.tensor_to_shape", {x(i)}));
  std::vector<PrimExpr> vars;
  for (int64_t k = 0; k < len->value; ++k) vars.push_back(g_.runTimeDim());
  auto bound = g_.builder().emitMatchCast(shape, make<ShapeSInfo>(vars, 0), "", {});
  if (!bound) fail(bound.error().message);
  inputs_[i].elems = vars;
  return vars;
}

int64_t normAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> NodeCtx::ints(const char* name, size_t count, int64_t def) const {
  auto v = intsOpt(name);
  if (!v) return std::vector<int64_t>(count, def);
  if (v->size() != count) fail(std::string(name) + " has " + std::to_string(v->size()) + " values, expected " + std::to_string(count));
  return *v;
}

bool NodeCtx::isRunTimeDim(const PrimExpr& e) const { return g_.isRunTimeDim(e); }

const ::onnx::AttributeProto* NodeCtx::attr(const char* name) const {
  for (auto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

bool NodeCtx::hasAttr(const char* name) const { return attr(name) != nullptr; }

int64_t NodeCtx::i(const char* name, int64_t def) const { return iOpt(name).value_or(def); }

std::optional<int64_t> NodeCtx::iOpt(const char* name) const {
  auto* a = attr(name);
  if (!a) return std::nullopt;
  if (a->type() != ::onnx::AttributeProto::INT && !(a->type() == 0 && a->has_i())) fail(std::string("attribute '") + name + "' must be an int");
  return a->i();
}

double NodeCtx::f(const char* name, double def) const {
  auto* a = attr(name);
  if (!a) return def;
  if (a->type() == ::onnx::AttributeProto::INT) return double(a->i());
  if (a->type() != ::onnx::AttributeProto::FLOAT && !(a->type() == 0 && a->has_f())) fail(std::string("attribute '") + name + "' must be a float");
  return a->f();
}

std::string NodeCtx::s(const char* name, const std::string& def) const {
  auto* a = attr(name);
  if (!a) return def;
  if (a->type() != ::onnx::AttributeProto::STRING && !(a->type() == 0 && a->has_s())) fail(std::string("attribute '") + name + "' must be a string");
  return a->s();
}

std::optional<std::vector<int64_t>> NodeCtx::intsOpt(const char* name) const {
  auto* a = attr(name);
  if (!a) return std::nullopt;
  if (a->type() == ::onnx::AttributeProto::INT) return std::vector<int64_t>{a->i()};
  if (a->type() != ::onnx::AttributeProto::INTS && a->type() != 0) fail(std::string("attribute '") + name + "' must be a list of ints");
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::vector<int64_t> NodeCtx::ints(const char* name, std::vector<int64_t> def) const { return intsOpt(name).value_or(std::move(def)); }

std::vector<double> NodeCtx::floats(const char* name) const {
  auto* a = attr(name);
  if (!a) return {};
  return std::vector<double>(a->floats().begin(), a->floats().end());
}

NDArrayRef NodeCtx::tensorAttr(const char* name) const {
  auto* a = attr(name);
  if (!a) return nullptr;
  if (!a->has_t()) fail(std::string("attribute '") + name + "' must be a tensor");
  ::onnx::TensorProto t = a->t();
  auto r = toNDArray(t, g_.baseDir());
  if (!r) fail(std::string("attribute '") + name + "': " + r.error().message);
  return *r;
}

Expr NodeCtx::op(const std::string& name, std::vector<PyValue> args, KwArgs kwargs) {
  const OpInfo* info = findOp("relax." + name);
  if (!info) fail("rlx has no op relax." + name);
  auto call = buildOpCall(*info, std::move(args), std::move(kwargs));
  if (!call) fail("R." + name + ": " + call.error().message);
  return g_.emitCall(*call);
}

Expr NodeCtx::emit(const Expr& e) { return g_.emitValue(e); }

Expr NodeCtx::constant(NDArrayRef a) const {
  std::vector<PrimExpr> dims;
  for (auto d : a->shape) dims.push_back(intImm(d));
  auto c = make<Constant>(a);
  c->sinfo = tensorSInfo(std::move(dims), a->dtype);
  return c;
}

Expr NodeCtx::scalar(double v, DataType t) const { return ops::makeScalarConst(v, t); }

Expr NodeCtx::ints64(const std::vector<int64_t>& v) const {
  auto a = make<NDArray>(DataType::int64(), std::vector<int64_t>{int64_t(v.size())});
  for (size_t k = 0; k < v.size(); ++k) a->setInt(int64_t(k), v[k]);
  return constant(a);
}

Expr NodeCtx::cast(const Expr& e, DataType t) {
  auto ti = tensorInfo(e);
  if (ti && ti->dtype == t) return e;
  return op("astype", {ex(e)}, {{"dtype", build::s(t.str())}});
}

}  // namespace rlx::onnx
