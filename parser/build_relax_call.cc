// Calls in Relax text: R.* constructors (const, shape, prim_value, str, dtype, tuple, ExternFunc,
// call_packed), registered ops through their schemas, struct-info annotations, function calls.
#include <cmath>
#include <functional>
#include <unordered_set>

#include "parser/line_parser.h"
#include "parser/relax_builder.h"
#include "ir/target.h"

namespace rlx {

using AK = ast::Expr::Kind;

namespace {

// Splits call arguments into positional values and keyword nodes.
void splitArgs(const ast::Expr* call, std::vector<const ast::Expr*>& pos, std::vector<const ast::Expr*>& kw) {
  for (auto* a : call->items) (a->kind == AK::Keyword ? kw : pos).push_back(a);
}

const ast::Expr* argAt(const ast::Expr* call, size_t index, const char* name) {
  size_t i = 0;
  for (auto* a : call->items) {
    if (a->kind == AK::Keyword) {
      if (a->str == name) return a->a;
    } else if (i++ == index) {
      return a;
    }
  }
  return nullptr;
}

Status checkKwargs(const ast::Expr* call, std::initializer_list<const char*> allowed, size_t maxPositional) {
  size_t pos = 0;
  for (auto* a : call->items) {
    if (a->kind != AK::Keyword) {
      if (++pos > maxPositional) return Error("too many positional arguments", a->span);
      continue;
    }
    bool ok = false;
    for (auto* n : allowed)
      if (a->str == n) ok = true;
    if (!ok) {
      std::vector<std::string> names(allowed.begin(), allowed.end());
      std::string hint = closestName(a->str, names);
      return Error("unexpected keyword argument '" + a->str + "'", a->span, hint.empty() ? "" : "did you mean '" + hint + "'?");
    }
  }
  return okStatus();
}

}  // namespace

Result<Attr> RelaxBuilder::toAttr(const ast::Expr* e) {
  switch (e->kind) {
    case AK::Int: return AttrValue::integer(e->i);
    case AK::Float: return AttrValue::real(e->d);
    case AK::Bool: return AttrValue::boolean(e->b);
    case AK::Str: return AttrValue::str(e->str);
    case AK::NoneLit: return Attr();
    case AK::UnaryOp:
      if (e->str == "-" && e->a->kind == AK::Int) return AttrValue::integer(-e->a->i);
      if (e->str == "-" && e->a->kind == AK::Float) return AttrValue::real(-e->a->d);
      break;
    case AK::List:
    case AK::Tuple: {
      std::vector<Attr> items;
      for (auto* i : e->items) {
        RLX_TRY(a, toAttr(i));
        items.push_back(a);
      }
      return AttrValue::array_(std::move(items));
    }
    case AK::Dict: {
      std::vector<std::pair<std::string, Attr>> m;
      for (size_t i = 0; i + 1 < e->items.size(); i += 2) {
        if (e->items[i]->kind != AK::Str) return Error("attribute dict keys must be strings", e->items[i]->span);
        RLX_TRY(a, toAttr(e->items[i + 1]));
        m.emplace_back(e->items[i]->str, a);
      }
      return AttrValue::map_(std::move(m));
    }
    case AK::Call: {
      std::string callee = e->a->dottedName();
      if (tirDtypeCallee(callee)) {
        RLX_TRY(p, evalPrimValue(e));
        return AttrValue::primOf(p);
      }
      if (callee == "I.vdevice") {
        // I.vdevice(target, vdevice_id=0, memory_scope="global"): the target is kept as TVM
        // exports it (the full config dict), so "cuda" and its dict print the same.
        RLX_TRY_STATUS(checkKwargs(e, {"target", "vdevice_id", "memory_scope"}, 3));
        auto* t = argAt(e, 0, "target");
        if (!t) return Error("I.vdevice needs a target, e.g. I.vdevice(\"llvm\")", e->span);
        RLX_TRY(spec, toAttr(t));
        auto target = canonicalTarget(spec);
        if (!target.ok()) return Error(target.error().message, t->span);
        Attr id = AttrValue::integer(0), scope = AttrValue::str("global");
        if (auto* i = argAt(e, 1, "vdevice_id")) {
          if (i->kind != AK::Int) return Error("the vdevice id must be an integer", i->span);
          id = AttrValue::integer(i->i);
        }
        if (auto* m = argAt(e, 2, "memory_scope")) {
          if (m->kind != AK::Str) return Error("the memory scope must be a string such as \"global\"", m->span);
          scope = AttrValue::str(m->str);
        }
        return AttrValue::ctor(callee, {target.value(), id, scope});
      }
      if (callee == "I.dummy_global_info") {
        // Global-info constructors are kept as written.
        std::vector<Attr> args;
        for (auto* a : e->items) {
          if (a->kind == AK::Keyword) return Error(callee + " takes positional arguments", a->span);
          RLX_TRY(v, toAttr(a));
          args.push_back(v);
        }
        return AttrValue::ctor(callee, std::move(args));
      }
      break;
    }
    default: break;
  }
  RLX_TRY(v, evalValue(e));
  if (v.kind == PyValue::Prim) return AttrValue::primOf(v.prim);
  RLX_TRY(x, toExpr(v, e->span));
  return AttrValue::exprOf(x);
}

Result<AttrsRef> RelaxBuilder::evalDictAttrs(const ast::Expr* e) {
  if (e->kind != AK::Dict) return Error("expected a dict of attributes", e->span);
  std::vector<std::pair<std::string, Attr>> fields;
  for (size_t i = 0; i + 1 < e->items.size(); i += 2) {
    if (e->items[i]->kind != AK::Str) return Error("attribute names must be strings", e->items[i]->span);
    RLX_TRY(a, toAttr(e->items[i + 1]));
    fields.emplace_back(e->items[i]->str, a);
  }
  return makeDictAttrs(std::move(fields));
}

Result<PrimExpr> RelaxBuilder::evalDim(const ast::Expr* e, bool sigMode) {
  if (e->kind == AK::Str) {
    if (!sigMode) return Error("string dimensions like \"" + e->str + "\" are only allowed in function signatures; declare `" + e->str + " = T.int64()` and use the name", e->span);
    ast::Arena arena;
    auto line = syntax::parseLine(e->str, 0, 0, arena, 64);
    if (!line.ok() || !line->stmt || line->stmt->kind != ast::Stmt::ExprStmt) return Error("invalid shape expression \"" + e->str + "\"", e->span);
    auto r = evalPrimValue(line->stmt->value);
    if (!r.ok()) {
      Error err = r.error();
      err.span = e->span;
      return err;
    }
    return r;
  }
  RLX_TRY(p, evalPrimValue(e));
  if (!p->dtype.isIntegral()) return Error("shape dimensions must be integers", e->span);
  if (p->dtype != DataType::int64()) {
    if (auto* i = asIntImm(p)) return intImm(i->value);
  }
  return p;
}

Result<std::vector<PrimExpr>> RelaxBuilder::evalDims(const ast::Expr* e, bool sigMode) {
  if (e->kind != AK::Tuple && e->kind != AK::List) return Error("expected a shape: a tuple or list of dimensions", e->span);
  std::vector<PrimExpr> dims;
  for (auto* d : e->items) {
    RLX_TRY(p, evalDim(d, sigMode));
    dims.push_back(p);
  }
  return dims;
}

void RelaxBuilder::setVDevices(const AttrsRef& globalInfos) {
  vdevices_.clear();
  const Attr* list = globalInfos ? globalInfos->find("vdevice") : nullptr;
  if (!list || !*list || (*list)->kind != AttrValue::Array) return;
  for (auto& v : (*list)->array) {
    if (!v || v->kind != AttrValue::Ctor || v->array.size() != 3 || !v->array[0] || v->array[0]->kind != AttrValue::Map) continue;
    std::string kind;
    for (auto& [k, a] : v->array[0]->map)
      if (k == "kind" && a && a->kind == AttrValue::Str) kind = a->s;
    std::string scope = v->array[2] && v->array[2]->kind == AttrValue::Str ? v->array[2]->s : "global";
    vdevices_.push_back({kind, scope});
  }
}

Result<std::string> RelaxBuilder::resolveVDevice(const std::string& text, Span span) const {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t c; (c = text.find(':', start)) != std::string::npos; start = c + 1) parts.push_back(text.substr(start, c - start));
  parts.push_back(text.substr(start));
  if (parts.size() > 3) return Error("a vdevice is written \"kind\", \"kind:index\" or \"kind:index:scope\"", span);
  int64_t index = 0;
  if (parts.size() > 1) {
    bool digits = !parts[1].empty() && parts[1].find_first_not_of("0123456789") == std::string::npos;
    if (!digits) return Error("the vdevice index must be a number, not '" + parts[1] + "'", span);
    index = std::stoll(parts[1]);
  }
  std::string kind = parts[0], scope = parts.size() > 2 ? parts[2] : "";
  if (kind == "vdevice") {
    if (size_t(index) >= vdevices_.size())
      return Error("vdevice:" + std::to_string(index) + " is out of range: the module declares " + std::to_string(vdevices_.size()) + " vdevices", span);
    kind = vdevices_[size_t(index)].kind;
    if (scope.empty()) scope = vdevices_[size_t(index)].scope;
    int64_t within = 0;
    for (size_t i = 0; i < size_t(index); ++i) within += vdevices_[i].kind == kind;
    index = within;
  } else {
    int64_t seen = 0;
    for (auto& v : vdevices_)
      if (v.kind == kind && seen++ == index) {
        if (scope.empty()) scope = v.scope;
        break;
      }
  }
  return kind + ":" + std::to_string(index) + ":" + (scope.empty() ? "global" : scope);
}

Result<StructInfo> RelaxBuilder::evalSInfo(const ast::Expr* e, bool sigMode) {
  // `x.struct_info`: the struct info of a value in scope (TVMScript evaluates it in Python).
  if (e->kind == AK::Attribute && e->str == "struct_info" && !sigMode) {
    RLX_TRY(v, evalExpr(e->a));
    return sinfoOf(v);
  }
  std::string name = e->kind == AK::Call ? e->a->dottedName() : e->dottedName();
  bool isCall = e->kind == AK::Call;
  if (name == "R.Object") return objectSInfo();
  if (name == "R.Tensor") {
    if (!isCall) return StructInfo(make<TensorSInfo>(nullptr, DataType::void_(), -1));
    // TVM's signature: R.Tensor(shape=None, dtype=None, vdevice=None, ndim=-1).
    RLX_TRY_STATUS(checkKwargs(e, {"shape", "dtype", "ndim", "vdevice"}, 4));
    const ast::Expr* shape = argAt(e, 0, "shape");
    const ast::Expr* dtype = argAt(e, 1, "dtype");
    if (shape && shape->kind == AK::Str && !argAt(e, 1, "dtype") && !(argAt(e, 1, "") && false)) {
      // R.Tensor("float32", ndim=2): the first positional is the dtype.
      bool kwShape = false;
      for (auto* a : e->items)
        if (a->kind == AK::Keyword && a->str == "shape") kwShape = true;
      if (!kwShape) {
        dtype = shape;
        shape = nullptr;
      }
    }
    DataType t = DataType::void_();
    if (dtype && dtype->kind != AK::NoneLit) {
      if (dtype->kind != AK::Str) return Error("dtype must be a string like \"float32\"", dtype->span);
      auto d = DataType::parse(dtype->str);
      if (!d) return Error("unknown dtype \"" + dtype->str + "\"", dtype->span);
      t = *d;
    }
    int ndim = -1;
    if (auto* n = argAt(e, 3, "ndim")) {
      RLX_TRY(v, evalValue(n));
      if (v.kind != PyValue::Int) return Error("ndim must be an integer", n->span);
      if (v.i < -1) return Error("ndim must be a non-negative integer, or -1 for unknown", n->span);
      ndim = int(v.i);
    }
    std::string vdev;
    if (auto* vd = argAt(e, 2, "vdevice")) {
      if (vd->kind != AK::Str) return Error("vdevice must be a string like \"llvm:0:global\"", vd->span);
      RLX_TRY(full, resolveVDevice(vd->str, vd->span));
      vdev = full;
    }
    if (shape && shape->kind != AK::NoneLit) {
      if (ndim != -1) return Error("R.Tensor takes either a shape or ndim, not both", e->span);
      if (shape->kind == AK::Name) {
        if (sigMode) return Error("a shape variable cannot be used in a signature annotation", shape->span);
        RLX_TRY(s, evalExpr(shape));
        if (!sinfoOf(s).is<ShapeSInfo>()) return Error("the shape of R.Tensor must be a tuple of dimensions or a shape variable", shape->span);
        return StructInfo(make<TensorSInfo>(s, t, -1, vdev));
      }
      RLX_TRY(dims, evalDims(shape, sigMode));
      for (size_t k = 0; k < dims.size(); ++k)
        if (auto c = dims[k].as<IntImm>(); c && c->value < 0)
          return Error("a tensor dimension cannot be negative (" + std::to_string(c->value) + ")", k < shape->items.size() ? shape->items[k]->span : shape->span);
      return tensorSInfo(std::move(dims), t, vdev);
    }
    return StructInfo(make<TensorSInfo>(nullptr, t, ndim, vdev));
  }
  if (name == "R.Shape") {
    if (!isCall) return StructInfo(make<ShapeSInfo>(std::nullopt, -1));
    RLX_TRY_STATUS(checkKwargs(e, {"values", "ndim"}, 1));
    if (auto* v = argAt(e, 0, "values"); v && v->kind != AK::NoneLit) {
      if (argAt(e, 99, "ndim")) return Error("R.Shape takes either values or ndim, not both", e->span);
      RLX_TRY(dims, evalDims(v, sigMode));
      return StructInfo(make<ShapeSInfo>(std::move(dims), 0));
    }
    int ndim = -1;
    if (auto* n = argAt(e, 3, "ndim")) {
      RLX_TRY(v, evalValue(n));
      if (v.kind != PyValue::Int) return Error("ndim must be an integer", n->span);
      if (v.i < -1) return Error("ndim must be a non-negative integer, or -1 for unknown", n->span);
      ndim = int(v.i);
    }
    return StructInfo(make<ShapeSInfo>(std::nullopt, ndim));
  }
  if (name == "R.Prim") {
    if (!isCall) return Error("R.Prim needs a dtype, e.g. R.Prim(\"int64\")", e->span);
    RLX_TRY_STATUS(checkKwargs(e, {"dtype", "value"}, 1));
    if (auto* v = argAt(e, 99, "value")) {
      // Prim values may be of any dtype (R.Prim(value=T.float32(0.5))); strings name signature vars.
      RLX_TRY(p, v->kind == AK::Str ? evalDim(v, sigMode) : evalPrimValue(v));
      return StructInfo(make<PrimSInfo>(p->dtype, p));
    }
    auto* d = argAt(e, 0, "dtype");
    if (!d || d->kind != AK::Str) return Error("R.Prim needs a dtype string or value=", e->span);
    auto t = DataType::parse(d->str);
    if (!t) return Error("unknown dtype \"" + d->str + "\"", d->span);
    return StructInfo(make<PrimSInfo>(*t));
  }
  if (name == "R.Tuple") {
    std::vector<StructInfo> fields;
    if (isCall) {
      std::vector<const ast::Expr*> items(e->items.begin(), e->items.end());
      if (items.size() == 1 && (items[0]->kind == AK::List || items[0]->kind == AK::Tuple)) items.assign(items[0]->items.begin(), items[0]->items.end());
      for (auto* f : items) {
        RLX_TRY(s, evalSInfo(f, sigMode));
        fields.push_back(s);
      }
    }
    return StructInfo(make<TupleSInfo>(std::move(fields)));
  }
  if (name == "R.Callable") {
    if (!isCall) return StructInfo(make<FuncSInfo>(std::nullopt, objectSInfo(), false));
    RLX_TRY_STATUS(checkKwargs(e, {"params", "ret", "purity", "derive_func"}, 3));
    auto* params = argAt(e, 0, "params");
    auto* ret = argAt(e, 1, "ret");
    auto* purity = argAt(e, 2, "purity");
    StructInfo r = objectSInfo();
    if (ret) {
      RLX_TRY(rs, evalSInfo(ret, sigMode));
      r = rs;
    }
    bool pure = params != nullptr;  // R.Callable(params, ret) is pure; opaque R.Callable is not
    if (purity) {
      if (purity->kind != AK::Bool) return Error("purity must be True or False", purity->span);
      pure = purity->b;
    }
    if (!params || params->kind == AK::NoneLit) return StructInfo(make<FuncSInfo>(std::nullopt, r, pure));
    if (params->kind != AK::Tuple && params->kind != AK::List) return Error("R.Callable params must be a tuple of struct infos", params->span);
    std::vector<StructInfo> ps;
    for (auto* p : params->items) {
      RLX_TRY(s, evalSInfo(p, sigMode));
      ps.push_back(s);
    }
    return StructInfo(make<FuncSInfo>(std::move(ps), r, pure));
  }
  if (name == "R.Any") return Error("R.Any is TVM v0.26+ syntax; in v0.23 it is R.Object", e->span);
  return Error("expected a struct info annotation (R.Tensor, R.Shape, R.Prim, R.Tuple, R.Object, R.Callable)", e->span);
}

Result<Expr> RelaxBuilder::evalConst(const ast::Expr* e) {
  RLX_TRY_STATUS(checkKwargs(e, {"value", "dtype"}, 2));
  auto* value = argAt(e, 0, "value");
  auto* dtypeArg = argAt(e, 1, "dtype");
  if (!value) return Error("R.const needs a value", e->span);
  // Flatten nested lists, checking they are rectangular.
  std::vector<int64_t> shape;
  std::vector<const ast::Expr*> leaves;
  bool sawFloat = false, sawBool = false, ragged = false;
  std::function<void(const ast::Expr*, size_t)> walk = [&](const ast::Expr* v, size_t depth) {
    if (v->kind == AK::List || v->kind == AK::Tuple) {
      if (depth == shape.size()) shape.push_back(int64_t(v->items.size()));
      else if (depth > shape.size() || shape[depth] != int64_t(v->items.size())) ragged = true;
      for (auto* i : v->items) walk(i, depth + 1);
      return;
    }
    if (depth != shape.size()) ragged = true;
    leaves.push_back(v);
  };
  walk(value, 0);
  if (ragged) return Error("R.const data is not rectangular (nested lists of different lengths)", value->span);
  std::vector<double> doubles;
  std::vector<int64_t> ints;
  for (auto* l : leaves) {
    const ast::Expr* x = l;
    bool neg = false;
    if (x->kind == AK::UnaryOp && x->str == "-") {
      neg = true;
      x = x->a;
    }
    double d = 0;
    int64_t i = 0;
    if (x->kind == AK::Int) { i = x->i; d = double(x->i); }
    else if (x->kind == AK::Float) { d = x->d; i = int64_t(x->d); sawFloat = true; }
    else if (x->kind == AK::Bool) { i = x->b; d = x->b; sawBool = true; }
    else if (x->kind == AK::Str && (x->str == "inf" || x->str == "-inf" || x->str == "nan")) {
      d = x->str == "inf" ? INFINITY : x->str == "-inf" ? -INFINITY : NAN;
      sawFloat = true;
    } else {
      return Error("R.const values must be numbers, booleans or nested lists of them", l->span);
    }
    doubles.push_back(neg ? -d : d);
    ints.push_back(neg ? -i : i);
  }
  DataType t = sawFloat ? DataType::float32() : sawBool ? DataType::boolean() : DataType::int32();
  if (dtypeArg && dtypeArg->kind != AK::NoneLit) {
    if (dtypeArg->kind != AK::Str) return Error("dtype must be a string like \"float32\"", dtypeArg->span);
    auto d = DataType::parse(dtypeArg->str);
    if (!d || d->isVoid()) return Error("unknown dtype \"" + dtypeArg->str + "\"", dtypeArg->span);
    t = *d;
  }
  auto arr = make<NDArray>(t, shape);
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (t.isFloat()) arr->setDouble(int64_t(i), doubles[i]);
    else if (sawFloat) arr->setInt(int64_t(i), int64_t(doubles[i]));  // R.const(1.5, "int32") -> 1
    else arr->setInt(int64_t(i), ints[i]);
  }
  Expr c = make<Constant>(arr);
  c->span = e->span;
  return c;
}

Result<Expr> RelaxBuilder::evalCallPacked(const ast::Expr* e) {
  std::vector<const ast::Expr*> pos, kw;
  splitArgs(e, pos, kw);
  if (pos.empty() || pos[0]->kind != AK::Str) return Error("R.call_packed needs the function name as a string first", e->span);
  std::vector<Expr> args;
  for (size_t i = 1; i < pos.size(); ++i) {
    // A Python int or bool argument becomes an int64 R.prim_value, as TVM converts it.
    if (pos[i]->kind == AK::Int || pos[i]->kind == AK::Bool) {
      Expr p = make<PrimValue>(intImm(pos[i]->kind == AK::Int ? pos[i]->i : int64_t(pos[i]->b)));
      p->span = pos[i]->span;
      args.push_back(p);
      continue;
    }
    RLX_TRY(a, evalExpr(pos[i]));
    args.push_back(a);
  }
  std::vector<StructInfo> sinfoArgs;
  std::vector<std::pair<std::string, Attr>> attrs;
  for (auto* k : kw) {
    if (k->str == "sinfo_args") {
      std::vector<const ast::Expr*> items;
      if (k->a->kind == AK::Tuple || k->a->kind == AK::List) items.assign(k->a->items.begin(), k->a->items.end());
      else items.push_back(k->a);
      for (auto* i : items) {
        RLX_TRY(s, evalSInfo(i, false));
        sinfoArgs.push_back(s);
      }
    } else if (k->str != "attrs_type_key") {
      RLX_TRY(a, toAttr(k->a));
      attrs.emplace_back(k->str, a);
    }
  }
  auto callee = make<ExternFunc>(pos[0]->str);
  callee->span = pos[0]->span;
  Expr call = make<Call>(callee, std::move(args), attrs.empty() ? nullptr : makeDictAttrs(std::move(attrs)), std::move(sinfoArgs));
  call->span = e->span;
  return call;
}

Result<PyValue> RelaxBuilder::evalOpCall(const ast::Expr* e, const OpInfo& op) {
  std::vector<PyValue> args;
  std::vector<std::pair<std::string, PyValue>> kwargs;
  std::vector<StructInfo> sinfoArgs;
  bool schemaTakesSInfoArgs = false;
  for (auto& p : op.params)
    if (p.name == "sinfo_args") schemaTakesSInfoArgs = true;
  args.reserve(e->items.size());
  kwargs.reserve(e->items.size());
  for (auto* a : e->items) {
    const ast::Expr* v = a->kind == AK::Keyword ? a->a : a;
    bool sinfoKw = a->kind == AK::Keyword && (a->str == "sinfo_args" || a->str == "out_sinfo");
    if (!sinfoKw) {  // the usual argument: evaluated straight into its slot
      RLX_TRY(x, evalValue(v));
      if (a->kind == AK::Keyword) kwargs.emplace_back(a->str, std::move(x));
      else args.push_back(std::move(x));
      continue;
    }
    // sinfo_args= / out_sinfo=: struct infos (single, tuple or list of them).
    PyValue pv;
    pv.span = v->span;
    if (v->kind == AK::Tuple || v->kind == AK::List) {
      pv.kind = v->kind == AK::Tuple ? PyValue::Tuple : PyValue::List;
      for (auto* i : v->items) {
        RLX_TRY(s, evalSInfo(i, false));
        PyValue item;
        item.kind = PyValue::SInfo;
        item.sinfo = s;
        item.span = i->span;
        pv.items.push_back(item);
      }
    } else {
      RLX_TRY(s, evalSInfo(v, false));
      pv.kind = PyValue::SInfo;
      pv.sinfo = s;
    }
    if (a->str == "sinfo_args" && !schemaTakesSInfoArgs && !op.build) {
      if (pv.kind == PyValue::SInfo) sinfoArgs.push_back(pv.sinfo);
      for (auto& i : pv.items) sinfoArgs.push_back(i.sinfo);
      continue;
    }
    kwargs.emplace_back(a->str, std::move(pv));
  }
  auto r = buildOpCall(op, std::move(args), std::move(kwargs));
  if (!r.ok()) return r.error().at(e->span);
  Expr call = r.value();
  if (!sinfoArgs.empty()) {
    auto c = call.as<Call>();
    if (c) call = make<Call>(c->op, c->args, c->attrs, sinfoArgs);
  }
  call->span = e->span;
  return PyValue::ofExpr(call, e->span);
}

namespace {
// The R.* callees evalCall handles by name; every other R.x is looked up as an op.
bool isSpecialRCallee(std::string_view callee) {
  static const std::unordered_set<std::string_view> names = {
      "R.const", "R.call_packed", "R.shape", "R.prim_value", "R.str", "R.dtype", "R.tuple", "R.ExternFunc",
      "R.Tensor", "R.Shape", "R.Tuple", "R.Object", "R.Prim", "R.Callable", "R.device", "R.cpu", "R.cuda",
      "R.match_cast", "R.output", "R.func_attr", "R.dataflow", "R.nn.relu6", "R.ShapeExpr", "R.TupleGetItem",
      "R.emit_with_sinfo"};
  return names.count(callee) != 0;
}
}  // namespace

Result<PyValue> RelaxBuilder::evalCall(const ast::Expr* e) {
  std::string callee = e->a->dottedName();
  auto expr = [&](Result<Expr> r) -> Result<PyValue> {
    if (!r.ok()) return r.error();
    return PyValue::ofExpr(r.value(), e->span);
  };
  auto opCall = [&]() -> Result<PyValue> {
    std::string opName = "relax." + callee.substr(2);
    if (const OpInfo* op = findOp(opName)) return evalOpCall(e, *op);
    std::string hint = findOp("relax.nn." + callee.substr(2)) ? "relax.nn." + callee.substr(2) : suggestOp(opName);
    if (hint.compare(0, 6, "relax.") == 0) hint = "R." + hint.substr(6);
    return Error("unknown operator '" + callee + "'", e->a->span, hint.empty() ? "" : "did you mean '" + hint + "'?");
  };
  // Nearly every call is an op call (R.add, R.nn.softmax, ...): no need to try each name below.
  if (callee.compare(0, 2, "R.") == 0 && !isSpecialRCallee(callee)) return opCall();
  if (callee == "R.const") return expr(evalConst(e));
  // `x.astype("float16")` on a Relax value is R.astype(x, "float16") (TVMScript's Expr method).
  if (e->a->kind == AK::Attribute && e->a->str == "astype" && e->a->a->kind == AK::Name && !primScope_.lookup(e->a->a->str)) {
    RLX_TRY(x, evalExpr(e->a->a));
    std::vector<PyValue> args = {PyValue::ofExpr(x, e->a->a->span)};
    std::vector<std::pair<std::string, PyValue>> kwargs;
    for (auto* a : e->items) {
      RLX_TRY(v, evalValue(a->kind == AK::Keyword ? a->a : a));
      if (a->kind == AK::Keyword) kwargs.push_back({a->str, v});
      else args.push_back(v);
    }
    RLX_TRY(call, buildOpCall(*findOp("relax.astype"), std::move(args), std::move(kwargs)));
    return PyValue::ofExpr(call, e->span);
  }
  if (callee == "R.nn.relu6") {
    // TVMScript sugar: R.nn.relu6(x) is R.clip(x, 0, 6).
    RLX_TRY_STATUS(checkKwargs(e, {"data"}, 1));
    auto* x = argAt(e, 0, "data");
    if (!x) return Error("R.nn.relu6 needs its input", e->span);
    RLX_TRY(v, evalValue(x));
    auto prim = [](int64_t k) {
      PyValue p;
      p.kind = PyValue::Prim;
      p.prim = intImm(k);
      return p;
    };
    RLX_TRY(call, buildOpCall(*findOp("relax.clip"), {v, prim(0), prim(6)}, {}));
    return PyValue::ofExpr(call, e->span);
  }
  if (callee == "T.index_map") {
    RLX_TRY_STATUS(checkKwargs(e, {"mapping", "index_dtype", "inverse_index_map"}, 1));
    auto* fn = argAt(e, 0, "mapping");
    if (!fn || fn->kind != AK::Lambda) return Error("T.index_map takes a lambda (lambda i, j: (...))", e->span);
    DataType dtype = DataType::int64();
    if (auto* d = argAt(e, 1, "index_dtype")) {
      auto t = d->kind == AK::Str ? DataType::parse(d->str) : std::nullopt;
      if (!t || !t->isInt()) return Error("index_dtype must be an integer dtype such as \"int32\"", d->span);
      dtype = *t;
    }
    return evalIndexMap(fn, dtype);
  }
  if (callee == "R.call_packed") return expr(evalCallPacked(e));
  if (callee == "R.TupleGetItem") {
    // The node constructor itself: kept as written, a literal tuple too ((x,)[0] prints so).
    RLX_TRY_STATUS(checkKwargs(e, {"tuple_value", "index"}, 2));
    auto* t = argAt(e, 0, "tuple_value");
    auto* i = argAt(e, 1, "index");
    if (!t || !i || i->kind != AK::Int) return Error("R.TupleGetItem takes a tuple and an integer index", e->span);
    RLX_TRY(base, evalExpr(t));
    auto ts = sinfoOf(base).as<TupleSInfo>();
    auto lit = base.as<Tuple>();
    if (!ts && !lit) return Error("R.TupleGetItem needs a tuple, but the value is not one", t->span);
    size_t n = lit ? lit->fields.size() : ts->fields.size();
    if (i->i < 0 || size_t(i->i) >= n)
      return Error("tuple index " + std::to_string(i->i) + " is out of range for " + std::to_string(n) + " elements", i->span);
    Expr g = make<TupleGetItem>(base, int(i->i));
    g->span = e->span;
    return expr(g);
  }
  if (callee == "R.emit_with_sinfo") {
    // R.emit_with_sinfo("relax.op", (args...), (sinfo...)): the op called with explicit sinfo_args.
    RLX_TRY_STATUS(checkKwargs(e, {"op", "args", "sinfo_args"}, 3));
    auto* name = argAt(e, 0, "op");
    auto* args = argAt(e, 1, "args");
    auto* sinfos = argAt(e, 2, "sinfo_args");
    if (!name || name->kind != AK::Str || !args || (args->kind != AK::Tuple && args->kind != AK::List) || !sinfos)
      return Error("R.emit_with_sinfo takes an op name, a tuple of arguments and the struct info", e->span);
    const OpInfo* op = findOp(name->str);
    if (!op) return Error("unknown operator '" + name->str + "'", name->span);
    ast::Expr kw, call;
    kw.kind = AK::Keyword;
    kw.str = "sinfo_args";
    kw.a = const_cast<ast::Expr*>(sinfos);
    kw.span = sinfos->span;
    call.kind = AK::Call;
    call.span = e->span;
    call.items = args->items;
    call.items.push_back(&kw);
    return evalOpCall(&call, *op);
  }
  if (callee == "R.shape" || callee == "R.ShapeExpr") {
    RLX_TRY_STATUS(checkKwargs(e, {"value"}, 1));
    auto* v = argAt(e, 0, "value");
    if (!v) return Error("R.shape needs a list of dimensions", e->span);
    RLX_TRY(dims, evalDims(v, false));
    Expr s = make<ShapeExpr>(std::move(dims));
    s->span = e->span;
    return expr(s);
  }
  if (callee == "R.prim_value") {
    RLX_TRY_STATUS(checkKwargs(e, {"value"}, 1));
    auto* v = argAt(e, 0, "value");
    if (!v) return Error("R.prim_value needs a value", e->span);
    RLX_TRY(p, evalPrimValue(v));
    Expr pv = make<PrimValue>(p);
    pv->span = e->span;
    return expr(pv);
  }
  if (callee == "R.str") {
    auto* v = argAt(e, 0, "value");
    if (!v || v->kind != AK::Str) return Error("R.str needs a string literal", e->span);
    Expr s = make<StringImm>(v->str);
    s->span = e->span;
    return expr(s);
  }
  if (callee == "R.dtype") {
    auto* v = argAt(e, 0, "value");
    if (!v || v->kind != AK::Str) return Error("R.dtype needs a dtype string", e->span);
    auto t = DataType::parse(v->str);
    if (!t) return Error("unknown dtype \"" + v->str + "\"", v->span);
    Expr d = make<DataTypeImm>(*t);
    d->span = e->span;
    return expr(d);
  }
  if (callee == "R.tuple") {
    std::vector<Expr> fields;
    for (auto* a : e->items) {
      if (a->kind == AK::Keyword) return Error("R.tuple takes no keyword arguments", a->span);
      RLX_TRY(v, evalValue(a));
      RLX_TRY(f, toExpr(v, a->span, true));
      fields.push_back(f);
    }
    Expr t = make<Tuple>(std::move(fields));
    t->span = e->span;
    return expr(t);
  }
  if (callee == "R.ExternFunc") {
    auto* v = argAt(e, 0, "global_symbol");
    if (!v || v->kind != AK::Str) return Error("R.ExternFunc needs the symbol name as a string", e->span);
    Expr f = make<ExternFunc>(v->str);
    f->span = e->span;
    return expr(f);
  }
  if (callee == "R.Tensor" || callee == "R.Shape" || callee == "R.Tuple" || callee == "R.Object" || callee == "R.Prim" || callee == "R.Callable") {
    RLX_TRY(s, evalSInfo(e, false));
    PyValue v;
    v.kind = PyValue::SInfo;
    v.sinfo = s;
    v.span = e->span;
    return v;
  }
  if (callee == "R.device" || callee == "R.cpu" || callee == "R.cuda") {
    // A device is a Python-level value: {device_type, index} (R.cpu(i) / R.cuda(i) are shorthands).
    PyValue d;
    d.kind = PyValue::Dict;
    d.span = e->span;
    int64_t type = callee == "R.cpu" ? 1 : callee == "R.cuda" ? 2 : -1;
    int64_t index = 0;
    bool generic = callee == "R.device";
    auto* t = generic ? argAt(e, 0, "device_type") : nullptr;
    auto* i = argAt(e, generic ? 1 : 0, "index");
    if (t) {
      if (t->kind != AK::Int) return Error("device_type must be an integer", t->span);
      type = t->i;
    }
    if (i) {
      if (i->kind != AK::Int) return Error("the device index must be an integer", i->span);
      index = i->i;
    }
    if (type < 0) return Error("R.device needs device_type", e->span);
    d.dict.emplace_back("device_type", PyValue::ofInt(type));
    d.dict.emplace_back("index", PyValue::ofInt(index));
    return d;
  }
  if (callee == "R.match_cast" || callee == "R.output" || callee == "R.func_attr" || callee == "R.dataflow")
    return Error(callee + "(...) is a statement, not a value", e->span);
  if (callee.compare(0, 2, "T.") == 0) {
    RLX_TRY(p, evalPrimValue(e));
    PyValue v;
    v.kind = PyValue::Prim;
    v.prim = p;
    v.span = e->span;
    return v;
  }
  if (callee.compare(0, 2, "R.") == 0) return opCall();
  // A call of a module function (cls.f), a local function or a callable var.
  RLX_TRY(fv, evalValue(e->a));
  if (fv.kind != PyValue::Expr) return Error("this value cannot be called", e->a->span);
  std::vector<Expr> args;
  std::vector<StructInfo> sinfoArgs;
  for (auto* a : e->items) {
    if (a->kind == AK::Keyword) {
      if (a->str != "sinfo_args") return Error("unexpected keyword argument '" + a->str + "' in a function call", a->span);
      std::vector<const ast::Expr*> items;
      if (a->a->kind == AK::Tuple || a->a->kind == AK::List) items.assign(a->a->items.begin(), a->a->items.end());
      else items.push_back(a->a);
      for (auto* i : items) {
        RLX_TRY(s, evalSInfo(i, false));
        sinfoArgs.push_back(s);
      }
      continue;
    }
    RLX_TRY(x, evalExpr(a));
    args.push_back(x);
  }
  Expr call = make<Call>(fv.expr, std::move(args), nullptr, std::move(sinfoArgs));
  call->span = e->span;
  return expr(call);
}

}  // namespace rlx
