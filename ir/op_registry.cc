// The operator registry (every op family registers once, on first lookup) and the schema-driven
// builder that maps TVMScript positional/keyword values onto an op's Call args and attrs.
#include <limits>
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <string_view>
#include <unordered_map>

#include "ir/op.h"
#include "ir/ops/infer_util.h"

namespace rlx {

namespace {

struct Registry {
  std::deque<OpInfo> ops;  // stable addresses
  // Hashed: the parser looks an op up for nearly every binding. Keys are the names in `ops`.
  std::unordered_map<std::string_view, const OpInfo*> byName;
  std::unordered_map<const OpInfo*, OpRef> refs;
  std::vector<const OpInfo*> sorted;
  std::vector<std::string> names;
  bool initialized = false;
};

Registry& registry() {
  static Registry r;
  return r;
}

void ensureRegistered() {
  Registry& r = registry();
  if (r.initialized) return;
  r.initialized = true;  // set first: family functions call registerOp, never findOp
  registerStructuralOps();
  registerUnaryOps();
  registerBinaryOps();
  registerCreateOps();
  registerManipulateOps();
  registerIndexOps();
  registerLinalgOps();
  registerStatisticalOps();
  registerSearchOps();
  registerNNOps();
  registerImageOps();
  registerMemoryOps();
  registerDistributedOps();
  for (auto& op : r.ops) r.sorted.push_back(&op);
  std::sort(r.sorted.begin(), r.sorted.end(), [](const OpInfo* a, const OpInfo* b) { return a->name < b->name; });
  for (auto* op : r.sorted) r.names.push_back(op->name);
}

}  // namespace

void registerOp(OpInfo info) {
  Registry& r = registry();
  RLX_CHECK(!r.byName.count(info.name), "op registered twice: " + info.name);
  r.ops.push_back(std::move(info));
  r.byName[std::string_view(r.ops.back().name)] = &r.ops.back();
}

const OpInfo* findOp(std::string_view name) {
  ensureRegistered();
  auto& m = registry().byName;
  auto it = m.find(name);
  return it == m.end() ? nullptr : it->second;
}

const std::vector<const OpInfo*>& allOps() {
  ensureRegistered();
  return registry().sorted;
}

OpRef opRef(std::string_view name) {
  const OpInfo* info = findOp(name);
  RLX_CHECK(info, "unknown op " + std::string(name));
  auto& refs = registry().refs;
  auto it = refs.find(info);
  if (it != refs.end()) return it->second;
  OpRef ref = make<Op>(info);
  refs.emplace(info, ref);
  return ref;
}

std::string suggestOp(std::string_view name) {
  ensureRegistered();
  std::string full(name);
  if (full.rfind("R.", 0) == 0) full = "relax." + full.substr(2);
  else if (full.rfind("relax.", 0) != 0) full = "relax." + full;
  return closestName(full, registry().names);
}

std::string OpInfo::scriptName() const {
  if (name.rfind("relax.", 0) == 0) return "R." + name.substr(6);
  return name;
}

std::string PyValue::describe() const {
  switch (kind) {
    case None: return "None";
    case Bool: return "a bool";
    case Int: return "an int";
    case Float: return "a float";
    case Str: return "a string";
    case List: return "a list";
    case Tuple: return "a tuple";
    case Dict: return "a dict";
    case Expr: return "a Relax expression";
    case Prim: return "a PrimExpr";
    case SInfo: return "a struct info";
    case Ctor: return "a constructor call";
  }
  return "a value";
}

Result<Expr> buildOpCall(const OpInfo& op, std::vector<PyValue> args, std::vector<std::pair<std::string, PyValue>> kwargs) {
  if (op.build) return op.build(op, args, kwargs);
  RLX_TRY(call, ops::buildGeneric(op, args, kwargs));
  return Expr(call);
}

// ---------------------------------------------------------------- conversions
namespace ops {

namespace {

Error kindError(const std::string& ctx, const char* expected, const PyValue& v) {
  Error e(fmt::format("{} expects {}, but got {}", ctx, expected, v.describe()));
  e.span = v.span;
  return e;
}

bool isSeq(const PyValue& v) { return v.kind == PyValue::List || v.kind == PyValue::Tuple; }

template <typename T>
Ref<T> withSInfo(Ref<T> e, StructInfo s) {
  e->sinfo = std::move(s);
  return e;
}

Expr primValueOf(PrimExpr p) {
  DataType t = p->dtype;
  auto pv = make<PrimValue>(p);
  pv->sinfo = make<PrimSInfo>(t, pv->value);
  return pv;
}

// An int-like PyValue (int, bool, integer PrimExpr constant).
std::optional<int64_t> intOf(const PyValue& v) {
  if (v.kind == PyValue::Int) return v.i;
  if (v.kind == PyValue::Bool) return v.b ? 1 : 0;
  if (v.kind == PyValue::Prim) {
    if (auto c = asIntImm(v.prim)) return c->value;
  }
  if (v.kind == PyValue::Expr) {
    if (auto pv = v.expr.as<PrimValue>())
      if (auto c = asIntImm(pv->value)) return c->value;
  }
  return std::nullopt;
}

std::optional<double> realOf(const PyValue& v) {
  if (v.kind == PyValue::Float) return v.d;
  if (v.kind == PyValue::Int) return double(v.i);
  if (v.kind == PyValue::Prim) {
    if (auto f = v.prim.as<FloatImm>()) return f->value;
    if (auto c = asIntImm(v.prim)) return double(c->value);
  }
  return std::nullopt;
}

Result<DataType> dtypeOf(const PyValue& v, const std::string& ctx) {
  if (v.kind == PyValue::None) return DataType::void_();
  if (v.kind == PyValue::Str) {
    if (v.s.empty()) return DataType::void_();
    auto t = DataType::parse(v.s);
    if (!t) {
      Error e(fmt::format("{}: unknown dtype \"{}\"", ctx, v.s));
      e.span = v.span;
      return e;
    }
    return *t;
  }
  if (v.kind == PyValue::Expr) {
    if (auto d = v.expr.as<DataTypeImm>()) return d->value;
  }
  return kindError(ctx, "a dtype string", v);
}

// Generic attr conversion (AnyAttr and nested values).
Result<Attr> anyAttr(const PyValue& v, const std::string& ctx) {
  switch (v.kind) {
    case PyValue::None: return Attr();
    case PyValue::Bool: return AttrValue::boolean(v.b);
    case PyValue::Int: return AttrValue::integer(v.i);
    case PyValue::Float: return AttrValue::real(v.d);
    case PyValue::Str: return AttrValue::str(v.s);
    case PyValue::Prim: return AttrValue::primOf(v.prim);
    case PyValue::Expr:
      if (auto s = v.expr.as<StringImm>()) return AttrValue::str(s->value);
      if (auto d = v.expr.as<DataTypeImm>()) return AttrValue::dtypeOf(d->value);
      return AttrValue::exprOf(v.expr);
    case PyValue::List:
    case PyValue::Tuple: {
      std::vector<Attr> items;
      for (auto& x : v.items) {
        RLX_TRY(a, anyAttr(x, ctx));
        items.push_back(a);
      }
      return AttrValue::array_(std::move(items));
    }
    case PyValue::Dict: {
      std::vector<std::pair<std::string, Attr>> m;
      for (auto& [k, x] : v.dict) {
        RLX_TRY(a, anyAttr(x, ctx));
        m.emplace_back(k, a);
      }
      return AttrValue::map_(std::move(m));
    }
    case PyValue::Ctor: {
      std::vector<Attr> items;
      for (auto& x : v.items) {
        RLX_TRY(a, anyAttr(x, ctx));
        items.push_back(a);
      }
      return AttrValue::ctor(v.s, std::move(items));
    }
    case PyValue::SInfo: return kindError(ctx, "an attribute value", v);
  }
  return kindError(ctx, "an attribute value", v);
}

Result<Attr> convertAttr(const PyValue& v, Conv conv, const std::string& ctx) {
  bool none = v.kind == PyValue::None;
  switch (conv) {
    case OpParam::OptIntAttr:
      if (none) return Attr();
      [[fallthrough]];
    case OpParam::IntAttr:
      if (auto i = intOf(v)) return AttrValue::integer(*i);
      return kindError(ctx, "an int", v);
    case OpParam::BoolAttr:
      if (v.kind == PyValue::Bool) return AttrValue::boolean(v.b);
      if (auto i = intOf(v)) return AttrValue::boolean(*i != 0);
      return kindError(ctx, "a bool", v);
    case OpParam::OptDoubleAttr:
      if (none) return Attr();
      [[fallthrough]];
    case OpParam::DoubleAttr:
      if (auto d = realOf(v)) return AttrValue::real(*d);
      // Non-finite values print quoted ("inf", "-inf", "nan"), as Python's float() reads them.
      if (v.kind == PyValue::Str && (v.s == "inf" || v.s == "-inf" || v.s == "+inf" || v.s == "nan"))
        return AttrValue::real(v.s == "nan" ? std::numeric_limits<double>::quiet_NaN() : v.s == "-inf" ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity());
      return kindError(ctx, "a float", v);
    case OpParam::OptStrAttr:
      if (none) return Attr();
      [[fallthrough]];
    case OpParam::StrAttr:
      if (v.kind == PyValue::Str) return AttrValue::str(v.s);
      if (v.kind == PyValue::Expr)
        if (auto s = v.expr.as<StringImm>()) return AttrValue::str(s->value);
      return kindError(ctx, "a string", v);
    case OpParam::DTypeAttr: {
      RLX_TRY(t, dtypeOf(v, ctx));
      return AttrValue::dtypeOf(t);
    }
    case OpParam::OptIntArrayAttr:
      if (none) return Attr();
      [[fallthrough]];
    case OpParam::IntArrayAttr: {
      RLX_TRY(ints, toInts(v, ctx));
      return AttrValue::ints(ints);
    }
    case OpParam::IntOrIntArrayAttr:
      if (auto i = intOf(v); i && !isSeq(v)) return AttrValue::integer(*i);
      if (isSeq(v)) {
        RLX_TRY(ints, toInts(v, ctx));
        return AttrValue::ints(ints);
      }
      return kindError(ctx, "an int or a list of ints", v);
    case OpParam::PrimArrayAttr: {
      if (none) return Attr();
      std::vector<Attr> items;
      auto one = [&](const PyValue& x) -> Status {
        if (auto i = intOf(x)) items.push_back(AttrValue::integer(*i));
        else if (x.kind == PyValue::Prim) items.push_back(AttrValue::primOf(x.prim));
        else return kindError(ctx, "a list of ints or PrimExprs", x);
        return okStatus();
      };
      if (isSeq(v)) {
        for (auto& x : v.items) RLX_TRY_OK(one(x));
      } else {
        RLX_TRY_OK(one(v));
      }
      return AttrValue::array_(std::move(items));
    }
    case OpParam::FloatArrayAttr: {
      if (none) return Attr();
      if (!isSeq(v)) return kindError(ctx, "a list of floats", v);
      std::vector<Attr> items;
      for (auto& x : v.items) {
        if (x.kind == PyValue::Prim && x.prim.is<FloatImm>()) {
          items.push_back(AttrValue::primOf(x.prim));
          continue;
        }
        auto d = realOf(x);
        if (!d) return kindError(ctx, "a list of floats", x);
        items.push_back(AttrValue::primOf(floatImm(*d, DataType::float32())));
      }
      return AttrValue::array_(std::move(items));
    }
    case OpParam::AnyAttr:
    default:
      return anyAttr(v, ctx);
  }
}

struct BuildCtx {
  DataType constDType = DataType::void_();  // from an explicit dtype= value
  DataType firstTensorDType = DataType::void_();
};

Result<Expr> convertArg(const PyValue& v, Conv conv, const std::string& ctx, const BuildCtx& bc) {
  switch (conv) {
    case OpParam::TupleOfExpr:
      if (isSeq(v)) return toExpr(v, ctx);
      if (v.kind == PyValue::Expr) return v.expr;
      return kindError(ctx, "a tuple of Relax expressions", v);
    case OpParam::ShapeArg: return toShapeExpr(v, ctx);
    case OpParam::PrimArg: return toPrimValue(v, ctx);
    case OpParam::PrimTuple: {
      if (v.kind == PyValue::Expr) return v.expr;
      std::vector<Expr> fields;
      if (isSeq(v)) {
        for (auto& x : v.items) {
          RLX_TRY(p, toPrimValue(x, ctx));
          fields.push_back(p);
        }
      } else {
        RLX_TRY(p, toPrimValue(v, ctx));
        fields.push_back(p);
      }
      std::vector<StructInfo> fs;
      for (auto& f : fields) fs.push_back(f->sinfo);
      return Expr(withSInfo(make<Tuple>(std::move(fields)), make<TupleSInfo>(std::move(fs))));
    }
    case OpParam::ConstArg: {
      if (v.kind == PyValue::Int || v.kind == PyValue::Float || v.kind == PyValue::Bool) {
        DataType t = !bc.constDType.isVoid() ? bc.constDType : bc.firstTensorDType;
        if (t.isVoid()) t = v.kind == PyValue::Int ? DataType::int32() : v.kind == PyValue::Float ? DataType::float32() : DataType::boolean();
        double x = v.kind == PyValue::Int ? double(v.i) : v.kind == PyValue::Float ? v.d : (v.b ? 1.0 : 0.0);
        return makeScalarConst(x, t);
      }
      return toExpr(v, ctx);
    }
    case OpParam::DTypeArg: {
      if (v.kind == PyValue::Expr) return v.expr;
      RLX_TRY(t, dtypeOf(v, ctx));
      return Expr(withSInfo(make<DataTypeImm>(t), objectSInfo()));
    }
    case OpParam::StrArg:
      if (v.kind == PyValue::Str) return Expr(withSInfo(make<StringImm>(v.s), objectSInfo()));
      if (v.kind == PyValue::Expr) return v.expr;
      return kindError(ctx, "a string", v);
    case OpParam::AnyExpr:
    default:
      return toExpr(v, ctx);
  }
}

}  // namespace

Result<Expr> toExpr(const PyValue& v, const std::string& ctx) {
  switch (v.kind) {
    case PyValue::Expr: return v.expr;
    case PyValue::Int: return primValueOf(intImm(v.i));
    case PyValue::Float: return primValueOf(floatImm(v.d, DataType::float32()));
    case PyValue::Bool: return primValueOf(intImm(v.b ? 1 : 0));  // TVM converts a Python bool to an int64 prim value
    case PyValue::Prim: return primValueOf(v.prim);
    case PyValue::Str: return Expr(withSInfo(make<StringImm>(v.s), objectSInfo()));
    case PyValue::List:
    case PyValue::Tuple: {
      std::vector<Expr> fields;
      std::vector<StructInfo> fs;
      bool known = true;
      for (auto& x : v.items) {
        RLX_TRY(e, toExpr(x, ctx));
        if (e->sinfo) fs.push_back(e->sinfo);
        else known = false;
        fields.push_back(e);
      }
      auto t = make<Tuple>(std::move(fields));
      if (known) t->sinfo = make<TupleSInfo>(std::move(fs));
      return Expr(t);
    }
    default: return kindError(ctx, "a Relax expression", v);
  }
}

Result<Expr> toShapeExpr(const PyValue& v, const std::string& ctx) {
  if (v.kind == PyValue::Expr) return v.expr;
  if (!isSeq(v)) return kindError(ctx, "a shape (R.shape([..]) or a list of ints)", v);
  std::vector<PrimExpr> dims;
  for (auto& x : v.items) {
    if (auto i = intOf(x)) dims.push_back(intImm(*i));
    else if (x.kind == PyValue::Prim) dims.push_back(x.prim);
    else return kindError(ctx, "a list of ints or PrimExprs", x);
  }
  auto s = make<ShapeExpr>(dims);
  s->sinfo = makeShape(std::move(dims));
  return Expr(s);
}

Result<Expr> toPrimValue(const PyValue& v, const std::string& ctx) {
  switch (v.kind) {
    case PyValue::Expr: return v.expr;
    case PyValue::Int: return primValueOf(intImm(v.i));
    case PyValue::Float: return primValueOf(floatImm(v.d, DataType::float32()));
    case PyValue::Bool: return primValueOf(intImm(v.b ? 1 : 0));  // TVM converts a Python bool to an int64 prim value
    case PyValue::Prim: return primValueOf(v.prim);
    default: return kindError(ctx, "a number or PrimExpr", v);
  }
}

Result<std::vector<int64_t>> toInts(const PyValue& v, const std::string& ctx) {
  if (!isSeq(v)) {
    if (auto i = intOf(v)) return std::vector<int64_t>{*i};
    return kindError(ctx, "an int or a list of ints", v);
  }
  std::vector<int64_t> out;
  for (auto& x : v.items) {
    auto i = intOf(x);
    if (!i) return kindError(ctx, "a list of ints", x);
    out.push_back(*i);
  }
  return out;
}

Result<StructInfo> toSInfo(const PyValue& v, const std::string& ctx) {
  if (v.kind == PyValue::SInfo) return v.sinfo;
  if (isSeq(v)) {
    std::vector<StructInfo> fields;
    for (auto& x : v.items) {
      RLX_TRY(s, toSInfo(x, ctx));
      fields.push_back(s);
    }
    return StructInfo(make<TupleSInfo>(std::move(fields)));
  }
  return kindError(ctx, "a struct info (R.Tensor(...), R.Object, ...)", v);
}

Result<std::vector<const PyValue*>> bindPy(const std::string& label, const std::vector<std::string>& names, size_t required, const std::vector<PyValue>& args, const std::vector<std::pair<std::string, PyValue>>& kwargs) {
  std::vector<const PyValue*> out(names.size(), nullptr);
  if (args.size() > names.size()) {
    Error e(fmt::format("{} takes at most {} positional argument{}, but {} were given", label, names.size(), names.size() == 1 ? "" : "s", args.size()));
    e.span = args[names.size()].span;
    return e;
  }
  for (size_t i = 0; i < args.size(); ++i) out[i] = &args[i];
  for (auto& [key, v] : kwargs) {
    auto it = std::find(names.begin(), names.end(), key);
    if (it == names.end()) {
      Error e(fmt::format("{} got an unexpected keyword argument '{}'", label, key));
      e.span = v.span;
      std::string near = closestName(key, names);
      if (!near.empty()) e.hint = fmt::format("did you mean '{}'?", near);
      return e;
    }
    size_t idx = size_t(it - names.begin());
    if (out[idx]) {
      Error e(fmt::format("{} got multiple values for argument '{}'", label, key));
      e.span = v.span;
      return e;
    }
    out[idx] = &v;
  }
  for (size_t i = 0; i < required && i < names.size(); ++i)
    if (!out[i]) return Error(fmt::format("{} missing required argument '{}'", label, names[i]));
  return out;
}

Result<Expr> wrapArgTuple(const PyValue& v, const std::string& ctx) {
  if (isSeq(v)) return toExpr(v, ctx);
  if (v.kind != PyValue::Expr) return kindError(ctx, "a Relax expression or a tuple of them", v);
  if (v.expr.is<Tuple>() || sinfoOf(v.expr).is<TupleSInfo>()) return v.expr;
  auto t = make<Tuple>(std::vector<Expr>{v.expr});
  if (v.expr->sinfo) t->sinfo = make<TupleSInfo>(std::vector<StructInfo>{v.expr->sinfo});
  return Expr(t);
}

Result<Expr> calleeExpr(const PyValue& v, const std::string& ctx) {
  if (v.kind == PyValue::Str) {
    auto f = make<ExternFunc>(v.s);
    f->sinfo = make<FuncSInfo>(std::nullopt, objectSInfo(), false);
    return Expr(f);
  }
  if (v.kind == PyValue::Expr) return v.expr;
  return kindError(ctx, "a function (a string symbol or an expression)", v);
}

Result<Attr> pyToAttr(const PyValue& v, const std::string& ctx) { return anyAttr(v, ctx); }

Result<Ref<Call>> buildGeneric(const OpInfo& op, std::vector<PyValue>& args, std::vector<std::pair<std::string, PyValue>>& kwargs) {
  const std::string label = op.scriptName();
  const auto& params = op.params;
  std::vector<const PyValue*> slots(params.size(), nullptr);
  std::vector<const PyValue*> rest;  // *args
  std::vector<StructInfo> sinfoArgs;

  size_t pi = 0;
  for (auto& v : args) {
    if (pi < params.size() && params[pi].role == OpParam::VarArgs) {
      rest.push_back(&v);
      continue;
    }
    if (pi >= params.size()) {
      size_t maxPos = 0;
      for (auto& p : params) maxPos += p.role == OpParam::VarArgs ? 0 : 1;
      Error e(fmt::format("{} takes at most {} positional argument{}, but {} were given", label, maxPos, maxPos == 1 ? "" : "s", args.size()));
      e.span = v.span;
      return e;
    }
    slots[pi++] = &v;
  }
  for (auto& [key, v] : kwargs) {
    size_t idx = params.size();
    for (size_t i = 0; i < params.size(); ++i)
      if (params[i].name == key) idx = i;
    if (idx == params.size()) {
      if (key == "sinfo_args") {
        RLX_TRY(s, toSInfo(v, label + " sinfo_args"));
        if (auto t = s.as<TupleSInfo>(); t && isSeq(v)) sinfoArgs = t->fields;
        else sinfoArgs = {s};
        continue;
      }
      std::vector<std::string> names;
      for (auto& p : params)
        if (p.role != OpParam::VarArgs) names.push_back(p.name);
      Error e(fmt::format("{} got an unexpected keyword argument '{}'", label, key));
      e.span = v.span;
      std::string near = closestName(key, names);
      if (!near.empty()) e.hint = fmt::format("did you mean '{}'?", near);
      return e;
    }
    if (params[idx].role == OpParam::VarArgs) {
      Error e(fmt::format("{}: '{}' takes positional values only", label, key));
      e.span = v.span;
      return e;
    }
    if (slots[idx]) {
      Error e(fmt::format("{} got multiple values for argument '{}'", label, key));
      e.span = v.span;
      return e;
    }
    slots[idx] = &v;
  }

  BuildCtx bc;
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].name == "dtype" && slots[i]) {
      if (auto t = dtypeOf(*slots[i], label); t.ok()) bc.constDType = *t;
    }
  }
  auto noteTensor = [&](const Expr& e) {
    if (!bc.firstTensorDType.isVoid() || !e) return;
    if (auto t = probeSInfo(e).as<TensorSInfo>()) bc.firstTensorDType = t->dtype;
  };
  // A Python number given for a ConstArg takes the dtype of a tensor given for another ConstArg
  // (R.where(c, 0.0, x) → float like x, not bool like c), else of the first tensor argument.
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].conv == OpParam::ConstArg && slots[i] && slots[i]->kind == PyValue::Expr) noteTensor(slots[i]->expr);
  for (size_t i = 0; i < params.size(); ++i)
    if (slots[i] && slots[i]->kind == PyValue::Expr) noteTensor(slots[i]->expr);

  std::vector<Expr> callArgs;
  std::vector<std::pair<std::string, Attr>> fields;
  std::string ctx;  // the error context, one buffer for every parameter
  for (size_t i = 0; i < params.size(); ++i) {
    const OpParam& p = params[i];
    ctx.assign(label).append(" argument '").append(p.name).append("'");
    if (p.role == OpParam::VarArgs) {
      for (auto* v : rest) {
        RLX_TRY(e, convertArg(*v, p.conv, ctx, bc));
        callArgs.push_back(e);
      }
      continue;
    }
    const PyValue* v = slots[i];
    if (!v) {
      if (!p.hasDefault) return Error(fmt::format("{} missing required argument '{}'", label, p.name));
      if (p.role == OpParam::Attr) fields.emplace_back(p.name, p.defaultValue ? *p.defaultValue : Attr());
      continue;
    }
    if (p.role == OpParam::Attr) {
      auto a = convertAttr(*v, p.conv, ctx);
      if (!a.ok()) return std::move(a.error().at(v->span));
      fields.emplace_back(p.name, *a);
      continue;
    }
    if (p.role == OpParam::OptionalArg && v->kind == PyValue::None) continue;
    auto e = convertArg(*v, p.conv, ctx, bc);
    if (!e.ok()) return std::move(e.error().at(v->span));
    callArgs.push_back(*e);
  }

  if (!op.attrOrder.empty()) {
    std::vector<std::pair<std::string, Attr>> ordered;
    for (auto& key : op.attrOrder)
      for (auto& f : fields)
        if (f.first == key) ordered.push_back(f);
    for (auto& f : fields)
      if (std::find(op.attrOrder.begin(), op.attrOrder.end(), f.first) == op.attrOrder.end()) ordered.push_back(f);
    fields = std::move(ordered);
  }
  AttrsRef attrs;
  if (!op.attrsType.empty() || !fields.empty()) {
    attrs = make<Attrs>();
    attrs->typeKey = op.attrsType;
    attrs->fields = std::move(fields);
  }
  return make<Call>(opRef(op.name), std::move(callArgs), std::move(attrs), std::move(sinfoArgs));
}

}  // namespace ops
}  // namespace rlx
