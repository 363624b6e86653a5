// importRelay: a Relay syntax tree into Relax. Globals become module functions (callees first), an
// expression file becomes `main` over its free variables; lets and graph bindings become bindings,
// `fn` closures local functions, `if` R.If; op calls go through the conversion table. What Relax
// cannot express (ADTs, match, refs, type parameters) is refused with its location.
#include <algorithm>
#include <functional>
#include <set>

#include "frontend/relay/importer.h"
#include "ir/ops/infer_util.h"
#include "ir/struct_info.h"
#include "passes/pass.h"
#include "passes/registry.h"

namespace rlx::grammar {
bool isReservedWord(std::string_view word);  // grammar/grammar.hpp (the Relax parser's keywords)
}

namespace rlx::relay {

namespace {

bool isUnit(const rlx::Expr& e) {
  auto t = e.as<rlx::Tuple>();
  return t && t->fields.empty();
}

// `%if`, `%in`, `@def`, `%None` are fine Relay names but Python keywords: printed as they are, the
// module would not parse back, so they get a trailing `_`.
std::string relaxName(const std::string& relayName) { return grammar::isReservedWord(relayName) ? relayName + "_" : relayName; }

}  // namespace

rlx::Expr Importer::emit(const rlx::Expr& e, Span span) {
  if (isLeafExpr(e)) return e;
  auto n = bb_.normalize(e);
  if (!n) throw ImportError(n.error().message, span);
  if (isLeafExpr(*n)) return *n;
  return bindAs(*n, "", span);
}

const MetaValue* Importer::lookupMeta(const std::string& typeKey, int64_t index) {
  auto it = m_.meta.find(typeKey);
  if (it == m_.meta.end() || index < 0 || index >= int64_t(it->second.size())) return nullptr;
  return &it->second[size_t(index)];
}

void Importer::notExpressible(const std::string& construct, Span span, const std::string& hint) {
  throw ImportError("not expressible in Relax: " + construct, span, hint);
}

void Importer::refuseTypeDefinitions() {
  for (auto& t : m_.types)
    notExpressible(std::string(t.external ? "the extern type `" : "the algebraic data type `") + t.name + "`", t.span,
                   "Relax has no algebraic data types (nor their constructors and match)");
}

void Importer::checkPrinted(const Type* printed, const rlx::Expr& value, Span span) {
  if (!printed || !options_.printedTypeMismatches) return;
  if (options_.printedTypesChecked) ++*options_.printedTypesChecked;
  if (TypeConverter::agrees(sinfoOf(value), *printed)) return;
  options_.printedTypeMismatches->push_back(
      Error("rlx infers " + rlx::ops::sinfoStr(sinfoOf(value)) + " where TVM printed " + TypeConverter::str(*printed), span));
}

StructInfo Importer::paramSInfo(const Binder& b) {
  // Without a type (and no call to learn it from) a parameter is an R.Object: passing it along
  // imports, and an op applied to it says it needs a tensor.
  if (!b.type) return objectSInfo();
  return types_.convert(*b.type, /*defineVars=*/true);
}

rlx::Expr Importer::bindNamed(rlx::Expr value, const std::string& name, Span span) {
  // A value just built by the last binding takes the source's name; anything else gets a binding.
  if (name.empty()) return value;
  if (VarRef v = value.as<Var>()) {
    if (v->name == name) return v;
    VarRef renamed = bb_.renameLastBinding(v, name);
    if (renamed != v) return renamed;
  }
  return bindAs(value, name, span);
}

rlx::Expr Importer::bindAs(rlx::Expr value, const std::string& name, Span span) {
  auto bound = bb_.emit(value, name, span);
  if (!bound) throw ImportError(bound.error().message, span);
  return *bound;
}

rlx::Expr Importer::scalar(const Expr& e) {
  auto dtype = DataType::parse(e.dtype);
  RLX_CHECK(dtype.has_value(), "reader produced dtype " + e.dtype);
  auto a = make<NDArray>(*dtype, std::vector<int64_t>{});
  if (dtype->isFloat()) a->setDouble(0, e.f);
  else a->setInt(0, e.i);
  auto c = make<Constant>(a);
  c->sinfo = tensorSInfo({}, *dtype);
  c->span = e.span;
  return c;
}

rlx::Expr Importer::constant(const MetaValue& v, const Expr& at) {
  if (v.kind != MetaValue::Constant || !v.array)
    throw ImportError("meta[" + at.name + "][" + std::to_string(at.i) + "] is a " + v.typeKey + ", not a constant tensor", at.span);
  std::vector<PrimExpr> dims;
  for (auto d : v.array->shape) dims.push_back(intImm(d));
  auto c = make<Constant>(v.array);
  c->sinfo = tensorSInfo(std::move(dims), v.array->dtype);
  c->span = at.span;
  return c;
}

rlx::Expr Importer::branch(const Expr& e) {
  bb_.beginBlock(false);
  rlx::Expr out = expr(e);
  std::vector<BlockRef> blocks;
  if (auto b = bb_.endBlock()) blocks.push_back(b);
  auto seq = make<SeqExpr>(std::move(blocks), out);
  seq->sinfo = sinfoOf(out);
  return seq;
}

rlx::Expr Importer::ifExpr(const Expr& e, const std::string& nameHint) {
  rlx::Expr cond = expr(*e.kids[0]);
  auto ts = sinfoOf(cond).as<TensorSInfo>();
  if (!ts || (ts->ndim != 0 && ts->ndim != -1))
    throw ImportError("the condition of an if must be a 0-d tensor, but it is " + rlx::ops::sinfoStr(sinfoOf(cond)), e.kids[0]->span);
  rlx::Expr thenB = branch(*e.kids[1]);
  rlx::Expr elseB = branch(*e.kids[2]);
  auto node = make<If>(cond, thenB, elseB);
  node->span = e.span;
  return bindAs(node, nameHint, e.span);
}

rlx::Expr Importer::let(const Expr& e) {
  for (auto& [id, value] : e.bindings) {
    const Binder& b = m_.binders[size_t(id)];
    rlx::Expr v;
    if (value->kind == Expr::Fn && value->fn->typeParams.empty() && hasUntypedParams(*value->fn)) {
      deferred_[id] = value.get();
      continue;
    }
    if (value->kind == Expr::Fn && !b.graph && !b.name.empty() && value->fn->ret) {
      // A closure that may call itself: its var exists (typed by its signature) before its body.
      std::vector<StructInfo> ps;
      for (int p : value->fn->params) ps.push_back(paramSInfo(m_.binders[size_t(p)]));
      auto self = make<Var>(relaxName(b.name), make<FuncSInfo>(std::move(ps), types_.convert(*value->fn->ret, false), true));
      values_[size_t(id)] = self;
      FunctionRef f = function(*value->fn, relaxName(b.name), false);
      auto binding = make<Binding>(self, f);
      binding->span = b.span;
      bb_.addBinding(binding);
      v = self;
    } else {
      // `let %x` names its value; `%N = ...` and `a; b` leave the fresh name.
      std::string name = b.graph ? "" : relaxName(b.name);
      v = expr(*value, name);
      // Only a value this binding built may take its name; `let %x = %0` aliases with a binding.
      bool built = value->kind == Expr::Call || value->kind == Expr::Tuple || value->kind == Expr::Proj || value->kind == Expr::If ||
                   value->kind == Expr::Fn;
      if (!name.empty() && !isUnit(v)) v = built ? bindNamed(v, name, b.span) : bindAs(v, name, b.span);
      values_[size_t(id)] = v;
    }
    checkPrinted(b.printed.get(), v, b.span);
    if (b.type && !b.graph) {
      StructInfo annotated = types_.convert(*b.type, false);
      if (sinfoNeverBaseOf(annotated, sinfoOf(v)))
        throw ImportError("%" + b.name + " is annotated " + TypeConverter::str(*b.type) + " but its value is " + rlx::ops::sinfoStr(sinfoOf(v)), b.span);
    }
  }
  return expr(*e.kids[0]);
}

rlx::Expr Importer::call(const Expr& e, const std::string& nameHint) {
  const Expr& callee = *e.kids[0];
  std::vector<rlx::Expr> args;
  for (size_t k = 1; k < e.kids.size(); ++k) args.push_back(expr(*e.kids[k]));
  if (callee.kind == Expr::OpName) {
    std::string why;
    Converter fn = findConverter(callee.name, &why);
    if (!fn) {
      if (!why.empty()) throw ImportError(why, callee.span);
      std::string close = closestName(callee.name, convertedOps());
      throw ImportError("Relay op `" + callee.name + "` has no conversion to Relax in rlx", callee.span,
                        close.empty() ? "" : "did you mean `" + close + "`?");
    }
    OpCtx ctx(*this, callee.name, std::move(args), e.attrs, e.span);
    rlx::Expr out = fn(ctx);
    return out;
  }
  if (callee.kind == Expr::Ctor) notExpressible("the constructor `" + callee.name + "`", callee.span, "Relax has no algebraic data types");
  // A call of a global, a closure variable, or a function written in place.
  rlx::Expr f;
  if (callee.kind == Expr::Local && deferred_.count(callee.binder)) {
    f = materialize(callee.binder, args, e.span);
  } else if (callee.kind == Expr::Fn && callee.fn->typeParams.empty() && hasUntypedParams(*callee.fn)) {
    std::vector<StructInfo> sinfos;
    for (auto& a : args) sinfos.push_back(sinfoOf(a));
    FunctionRef fn = function(*callee.fn, "", false, &sinfos);
    f = bindAs(fn, "", callee.span);
  } else {
    f = expr(callee);
  }
  auto fs = sinfoOf(f).as<FuncSInfo>();
  if (!fs) throw ImportError("calling a value that is not a function (" + rlx::ops::sinfoStr(sinfoOf(f)) + ")", callee.span);
  if (fs->params && fs->params->size() != args.size())
    throw ImportError("the function takes " + std::to_string(fs->params->size()) + " arguments but " + std::to_string(args.size()) + " are given",
                      e.span);
  auto c = make<Call>(f, std::move(args));
  c->span = e.span;
  return bindAs(c, nameHint, e.span);
}

rlx::Expr Importer::expr(const Expr& e, const std::string& nameHint) {
  rlx::Expr out;
  switch (e.kind) {
    case Expr::Local: {
      const Binder& b = m_.binders[size_t(e.binder)];
      out = values_[size_t(e.binder)];
      if (!out && deferred_.count(e.binder))
        throw ImportError("%" + b.name + " is used as a value, but its parameters have no types", e.span,
                          "rlx types such a closure from its first call; annotate its parameters to pass it around");
      if (!out) {
        if (b.free) throw ImportError("not expressible in Relax: the free variable %" + b.name + " inside a module function", e.span);
        throw ImportError("%" + b.name + " is used before its value is known (a recursive value that is not a closure?)", e.span);
      }
      break;
    }
    case Expr::Global: {
      auto it = globals_.find(e.name);
      if (it == globals_.end()) {
        bool defined = std::any_of(m_.functions.begin(), m_.functions.end(), [&](const GlobalDef& d) { return d.name == e.name; });
        if (defined)
          throw ImportError("@" + e.name + " is called in a cycle of functions without a complete signature", e.span,
                            "annotate its parameters and return type so that its callers can be built first");
        throw ImportError("@" + e.name + " is not defined in this file", e.span);
      }
      out = it->second;
      break;
    }
    case Expr::OpName: {
      std::string why;
      if (!findConverter(e.name, &why) && why.empty())
        throw ImportError("`" + e.name + "` is not a Relay operator rlx knows, nor a variable (locals are written %" + e.name + ")", e.span);
      throw ImportError("not expressible in Relax: the operator `" + e.name + "` used as a value", e.span,
                        "Relax ops are called, never passed around; wrap it in a fn (Relay's EtaExpand)");
    }
    case Expr::Ctor:
      notExpressible("the constructor `" + e.name + "`", e.span, "Relax has no algebraic data types");
    case Expr::Scalar:
      out = scalar(e);
      break;
    case Expr::MetaRef:
      if (!e.meta) throw ImportError("no meta table entry meta[" + e.name + "][" + std::to_string(e.i) + "]", e.span);
      out = constant(*e.meta, e);
      break;
    case Expr::Call:
      out = call(e, nameHint);
      break;
    case Expr::Tuple: {
      std::vector<rlx::Expr> fields;
      for (auto& k : e.kids) fields.push_back(expr(*k));
      // `()` stays in place like a constant: a var bound to a void value prints as a bare statement
      // (TVM's printer), which a dataflow block's R.output could not name.
      out = fields.empty() ? tupleOf({}) : emit(tupleOf(std::move(fields)), e.span);
      break;
    }
    case Expr::Proj: {
      rlx::Expr t = expr(*e.kids[0]);
      auto ts = sinfoOf(t).as<TupleSInfo>();
      if (!ts) throw ImportError("projection .N of a value that is not a tuple (" + rlx::ops::sinfoStr(sinfoOf(t)) + ")", e.span);
      if (e.i >= int64_t(ts->fields.size()))
        throw ImportError("tuple index " + std::to_string(e.i) + " is out of range for a tuple of " + std::to_string(ts->fields.size()), e.span);
      auto item = make<TupleGetItem>(t, int(e.i));
      item->span = e.span;
      out = emit(item, e.span);
      break;
    }
    case Expr::Let:
      out = let(e);
      break;
    case Expr::If:
      out = ifExpr(e, nameHint);
      break;
    case Expr::Fn: {
      FunctionRef f = function(*e.fn, nameHint, false);
      out = bindAs(f, nameHint, e.span);
      break;
    }
    case Expr::Match:
      notExpressible(std::string(e.complete ? "match" : "match?"), e.span, "Relax has no algebraic data types to match on");
    case Expr::RefNew:
    case Expr::RefRead:
    case Expr::RefWrite:
      notExpressible(e.kind == Expr::RefNew ? "ref(...)" : e.kind == Expr::RefRead ? "ref_read(...)" : "ref_write(...)", e.span,
                     "Relax has no mutable reference cells");
  }
  checkPrinted(e.printed.get(), out, e.span);
  return out;
}

namespace {

// Function attributes that Relax keeps as a dict (`Primitive=1`, `Compiler="cutlass"`, ...).
Attr attrOf(const AttrValue& v) {
  switch (v.kind) {
    case AttrValue::Int: return rlx::AttrValue::integer(v.i);
    case AttrValue::Float: return rlx::AttrValue::real(v.f);
    case AttrValue::Bool: return rlx::AttrValue::boolean(v.b);
    case AttrValue::String: return rlx::AttrValue::str(v.s);
    case AttrValue::Array: {
      std::vector<Attr> items;
      for (auto& i : v.items) items.push_back(attrOf(i));
      return rlx::AttrValue::array_(std::move(items));
    }
    default: return nullptr;
  }
}

}  // namespace

bool Importer::hasUntypedParams(const Function& fn) const {
  for (int p : fn.params)
    if (!m_.binders[size_t(p)].type) return true;
  return false;
}

rlx::Expr Importer::materialize(int binder, const std::vector<rlx::Expr>& args, Span span) {
  const Expr& fnExpr = *deferred_.at(binder);
  const Binder& b = m_.binders[size_t(binder)];
  if (fnExpr.fn->params.size() != args.size())
    throw ImportError("%" + b.name + " takes " + std::to_string(fnExpr.fn->params.size()) + " arguments but " + std::to_string(args.size()) +
                          " are given",
                      span);
  std::vector<StructInfo> sinfos;
  for (auto& a : args) sinfos.push_back(sinfoOf(a));
  deferred_.erase(binder);
  std::string name = b.graph ? "" : relaxName(b.name);
  FunctionRef f = function(*fnExpr.fn, name, false, &sinfos);
  return values_[size_t(binder)] = bindAs(f, name, fnExpr.span);
}

FunctionRef Importer::function(const Function& fn, const std::string& name, bool global, const std::vector<StructInfo>* argSInfo) {
  if (!fn.typeParams.empty()) {
    std::string ps;
    for (auto& p : fn.typeParams) ps += (ps.empty() ? "" : ", ") + p;
    notExpressible("the type parameters [" + ps + "]", fn.span, "Relax functions are not generic: instantiate the types");
  }
  return function(fn.params, *fn.body, fn.attrs, fn.ret.get(), fn.span, name, global, argSInfo);
}

FunctionRef Importer::function(const std::vector<int>& paramBinders, const Expr& bodyExpr, const Attrs& fnAttrs, const Type* retType, Span span,
                               const std::string& name, bool global, const std::vector<StructInfo>* argSInfo) {
  if (global) bb_.beginFunction();
  std::vector<VarRef> params;
  for (size_t k = 0; k < paramBinders.size(); ++k) {
    int id = paramBinders[k];
    const Binder& b = m_.binders[size_t(id)];
    auto v = make<Var>(relaxName(b.name), !b.type && argSInfo && k < argSInfo->size() ? (*argSInfo)[k] : paramSInfo(b));
    v->span = b.span;
    values_[size_t(id)] = v;
    params.push_back(v);
    checkPrinted(b.printed.get(), v, b.span);
  }
  rlx::Expr body = branch(bodyExpr);
  StructInfo ret = eraseToSignature(sinfoOf(body), params);
  std::vector<std::pair<std::string, Attr>> attrs;
  for (auto& [k, v] : fnAttrs) {
    Attr a = attrOf(v);
    if (!a) continue;  // virtual_device entries and None: device placement is not a function attribute in Relax
    if (global && k == "global_symbol") continue;  // a module function's symbol is its name (below), once
    attrs.emplace_back(k, a);
  }
  if (global) attrs.emplace_back("global_symbol", rlx::AttrValue::str(relaxName(name)));
  auto f = make<rlx::Function>(params, body, ret, true, attrs.empty() ? AttrsRef() : makeDictAttrs(std::move(attrs)));
  std::vector<StructInfo> ps;
  for (auto& p : params) ps.push_back(sinfoOf(p));
  f->sinfo = make<FuncSInfo>(std::move(ps), ret, true);
  f->span = span;
  if (retType) {
    checkPrinted(retType, body, span);
    // Relay's InferType rejects a body that cannot have the declared return type.
    if (sinfoNeverBaseOf(types_.convert(*retType, false), sinfoOf(body)))
      throw ImportError("the body's value is " + rlx::ops::sinfoStr(sinfoOf(body)) + " but the function's return type is " + TypeConverter::str(*retType),
                        span);
  }
  return f;
}

namespace {

void collectGlobals(const Expr& e, std::set<std::string>& out) {
  if (e.kind == Expr::Global) out.insert(e.name);
  for (auto& k : e.kids) collectGlobals(*k, out);
  for (auto& [_, v] : e.bindings) collectGlobals(*v, out);
  if (e.fn && e.fn->body) collectGlobals(*e.fn->body, out);
  for (auto& a : e.arms) collectGlobals(*a.body, out);
}

// Whether a function's signature is complete enough to declare it before its body is built.
bool hasSignature(const Function& fn, const std::vector<Binder>& binders) {
  if (!fn.ret) return false;
  for (int p : fn.params)
    if (!binders[size_t(p)].type) return false;
  std::function<bool(const Type&)> noAny = [&](const Type& t) {
    for (auto& d : t.shape)
      if (d.kind != Dim::Int) return false;
    for (auto& f : t.fields)
      if (!noAny(*f)) return false;
    return !t.ret || noAny(*t.ret);
  };
  return noAny(*fn.ret);
}

}  // namespace

Result<IRModuleRef> Importer::run() {
  auto mod = make<IRModule>();
  try {
    values_.resize(m_.binders.size());
    refuseTypeDefinitions();
    if (m_.body) {
      // An expression file: `main` over its free variables. A file that is one closed `fn` (what
      // printing a Relay function gives) is `main` itself, as TVM's IRModule.from_expr makes it.
      const Expr& body = *m_.body;
      FunctionRef f = body.kind == Expr::Fn && m_.freeVars.empty() ? function(*body.fn, "main", true)
                                                                    : function(m_.freeVars, body, {}, nullptr, body.span, "main", true);
      if (body.kind == Expr::Fn && m_.freeVars.empty()) checkPrinted(body.printed.get(), f, body.span);
      auto gvar = make<GlobalVar>("main");
      gvar->sinfo = f->sinfo;
      mod->functions.push_back({gvar, f});
    }
    // Callees first; a function in a cycle is declared up front from its full signature.
    std::map<std::string, const GlobalDef*> defs;
    for (auto& d : m_.functions) defs[d.name] = &d;
    for (auto& d : m_.functions)
      if (d.fn.typeParams.empty() && hasSignature(d.fn, m_.binders)) {
        std::vector<StructInfo> ps;
        TypeConverter tc;
        for (int p : d.fn.params) ps.push_back(tc.convert(*m_.binders[size_t(p)].type, true));
        auto gvar = make<GlobalVar>(relaxName(d.name));
        gvar->sinfo = make<FuncSInfo>(std::move(ps), tc.convert(*d.fn.ret, false), true);
        globals_[d.name] = gvar;
      }
    std::set<std::string> done, visiting;
    std::function<void(const GlobalDef&)> visit = [&](const GlobalDef& d) {
      if (done.count(d.name) || visiting.count(d.name)) return;
      visiting.insert(d.name);
      std::set<std::string> callees;
      collectGlobals(*d.fn.body, callees);
      for (auto& c : callees)
        if (auto it = defs.find(c); it != defs.end()) visit(*it->second);
      FunctionRef f = function(d.fn, d.name, true);
      GlobalVarRef gvar;
      if (auto it = globals_.find(d.name); it != globals_.end()) gvar = it->second;
      else gvar = make<GlobalVar>(relaxName(d.name)), globals_[d.name] = gvar;
      gvar->sinfo = f->sinfo;
      mod->functions.push_back({gvar, f});
      visiting.erase(d.name);
      done.insert(d.name);
    };
    for (auto& d : m_.functions) visit(d);
  } catch (const ImportError& e) {
    return Error(e.what(), e.span, e.hint);
  }
  // Pure straight-line runs go into dataflow blocks, as Relax frontends emit them.
  auto passes = parsePipeline("ConvertToDataflow(min_size=1)");
  RLX_CHECK(passes.ok(), "ConvertToDataflow is registered");
  auto out = runSequential(*passes, mod, PassContext{});
  if (!out) return out.error();
  return *out;
}

Result<IRModuleRef> importRelay(const Module& module, const ImportOptions& options) {
  Importer importer(module, options);
  return importer.run();
}

}  // namespace rlx::relay
